"""The domain: event logs in, explanations out. Pure computation over pandas and NumPy, no store.

Read it in the order an event log travels through it:

1. ``logs``        - find and decode event logs (``eventlog``, ``codecs``), the fields read from Spark's
   events (``events``), one application's events folded into rows (``apps``), the workload ``Trace``
   (``trace``), logs followed while they grow (``follow``).
2. ``model``       - each task's blocked time per resource (``waits``), RATP and the blame sweep
   (``blame``), the ProtoGraph's levels L0..L6 (``protograph.build`` with ``units``, ``slots``,
   ``level_rows``, ``windows``), and paper 001's baselines (``baselines``).
3. ``whatif``      - the counterfactual replay (``replay``, ``simulation``).
4. ``stragglers``  - Hound (paper 002): causes of stragglers (``hound``, ``topics``, ``expert``).
5. ``compare``     - PerfXplain (paper 004): why one run was slower than another (``perfxplain``,
   ``runs``, ``pxql``).
"""
import warnings

import pandas as pd

# Strings in the loader's frames are Python objects, as pandas 2 made them (the pyproject allows
# pandas >= 2.0). pandas 3 makes them pyarrow-backed and converts them back and forth in nearly every
# step of a build: 35-45% of a live window's build and of its write's own CPU on the paper-scale
# workload, for frames equal value for value (docs/benchmarks.md, "Figures behind current choices"). The
# option is deprecated in pandas 3 (hence the warning filter) and gone in pandas 4, where strings
# stay pyarrow-backed: slower, the same numbers.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
        pd.set_option("future.infer_string", False)
    except (KeyError, AttributeError):  # pandas.errors.OptionError: an unknown option
        pass
