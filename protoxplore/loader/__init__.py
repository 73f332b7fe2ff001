"""Traces in, ProtoGraph out.

Read this package in the order an event log travels through it:

1. ``eventlog``   - find Spark event logs on disk and yield their JSON events (any codec, rolling dirs).
2. ``trace``      - turn events into the trace model: applications, queries, jobs, stages, tasks.
3. ``waits``      - per task, the wait (blocked) time and amount acquired for each resource.
4. ``blame``      - RATP, and the blame of culprit stages on victim stages per resource and host.
5. ``protograph`` - the seven levels L0..L6 with blame contributions in seconds.
6. ``writer``     - write one analysis into the graph store in parameterized UNWIND batches.
"""
import warnings

import pandas as pd

# Strings in the loader's frames are Python objects, as pandas 2 made them (the pyproject allows
# pandas >= 2.0). pandas 3 makes them pyarrow-backed and converts them back and forth in nearly every
# step of a build: 35-45% of a live window's build and of its write's own CPU on the paper-scale
# workload, for frames equal value for value (docs/benchmarks.md, "Live, 2026-11-27 evening"). The
# option is deprecated in pandas 3 (hence the warning filter) and gone in pandas 4, where strings
# stay pyarrow-backed: slower, the same numbers.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
        pd.set_option("future.infer_string", False)
    except (KeyError, AttributeError):  # pandas.errors.OptionError: an unknown option
        pass
