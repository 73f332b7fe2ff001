"""Fuzz the whole way from damaged real logs to a ProtoGraph: every run ends in a built graph or a
clear EventLogError, never another exception (issue #3). The reader alone is fuzzed harder in
test_fuzz_eventlog.py; here each mutated log also goes through read_trace and protograph.build,
and every tenth one is written to the embedded engine."""
from __future__ import annotations

import random

from protoxplore.loader import pipeline, protograph
from protoxplore.loader.eventlog import EventLogError, discover
from protoxplore.loader.trace import read_trace
from test_eventlog import REAL
from test_fuzz_eventlog import decompressed, mutate

LOGS = ["application_1506645932520_24630151", "app-20161116163331-0000", "eventlog_4nodes_8cores_dynamic_alloc.zstd",
        "application_1713000000000_0001_2.zstd", "rp_sql_eventlog.zstd"]


def test_damaged_logs_load_or_fail_clearly(tmp_path, store, settings):
    rng = random.Random(7)
    originals = {name: decompressed(REAL / name) for name in LOGS}
    outcomes = {"built": 0, "error": 0}
    for run in range(100):
        path = tmp_path / f"run{run}"
        path.write_bytes(mutate(rng, originals[rng.choice(LOGS)]))
        try:
            trace = read_trace(discover([path]), warn=lambda m: None)
            protograph.build(trace)
            if run % 10 == 0:
                pipeline.load_paths(store, [str(path)], settings.home, say=lambda m: None, warn=lambda m: None)
            outcomes["built"] += 1
        except EventLogError as exc:
            assert str(path) in str(exc) or "no event logs" in str(exc), exc
            outcomes["error"] += 1
    assert outcomes["built"] > 30 and outcomes["error"] > 0, outcomes
