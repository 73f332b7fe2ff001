"""Fuzz the event-log reader with damaged real logs: it yields events or raises EventLogError, nothing else.

Mutations (fixed seed, a few hundred runs): cut at a random offset, flip random bytes, splice
in binary junk, and replace JSON values with values of the wrong type (including the
"Event" name), each in plain, zstd and lz4-java framing, as single files and rolling parts.
"""
from __future__ import annotations

import os
import random

import pytest
import zstandard

from protoxplore.errors import EventLogError
from protoxplore.loader.logs.eventlog import discover, read_events

from logs import CODECS, REAL, decompressed, lz4_java_stream, mutate

SEEDS = int(os.environ.get("EVENTLOG_FUZZ_RUNS", 600))  # raise it for a longer hunt
SEED = int(os.environ.get("EVENTLOG_FUZZ_SEED", 20240611))  # run i is seeded SEED + i


def test_damaged_logs_yield_events_or_raise_eventlog_error(tmp_path):
    paths = (REAL / "event_log_1", REAL / "local-1532512550423", REAL / "spark2-eventlog.zstd",
             CODECS / "pyspark-zstd.zstd")
    names, originals = [p.name for p in paths], [decompressed(p) for p in paths]
    compressed = [CODECS / n for n in ("pyspark-lz4.lz4", "pyspark-snappy.snappy", "pyspark-lzf.lzf", "pyspark-zstd.zstd")]
    outcomes = {"events": 0, "error": 0}
    for run in range(SEEDS):
        rng = random.Random(SEED + run)  # each run on its own seed: a failure is reproduced alone
        work = tmp_path / f"run{run}"
        work.mkdir()
        how = rng.choice(["plain", "zstd", "lz4", "bytes", "rolling"])
        if how == "bytes":  # damage the compressed bytes themselves
            original = rng.choice(compressed)
            target = work / (original.name + rng.choice(["", ".inprogress"]))
            data, what = mutate(rng, original.read_bytes())
            target.write_bytes(data)
        else:
            index = rng.randrange(len(originals))
            original = names[index]
            data, what = mutate(rng, originals[index])
            if how == "zstd":
                data = zstandard.ZstdCompressor().compress(data)
            elif how == "lz4":
                data = lz4_java_stream(data, block_size=rng.choice([512, 1 << 15]))
            if how == "rolling":
                target = work / "eventlog_v2_app"
                target.mkdir()
                cuts = sorted(rng.randrange(len(data) + 1) for _ in range(rng.randint(1, 3)))
                for n, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(data)]), start=1):
                    (target / f"events_{n}_app").write_bytes(data[a:b])
                (target / "appstatus_app.inprogress").write_bytes(b"")
            else:
                target = work / {"plain": "app", "zstd": "app.zstd", "lz4": "app.lz4"}[how]
                target.write_bytes(data)
        strict = rng.random() < 0.3
        again = (f"run {run} ({getattr(original, 'name', original)}, {how}, strict={strict}, {what}); "
                 f"again with EVENTLOG_FUZZ_SEED={SEED + run} EVENTLOG_FUZZ_RUNS=1")
        try:
            for source in discover([target]):
                for file, line, event in read_events(source, strict=strict, warn=lambda _: None):
                    assert type(event) is dict and type(event["Event"]) is str
                    assert isinstance(file, str) and line >= 1
            outcomes["events"] += 1
        except EventLogError as exc:
            if not str(exc).startswith(str(exc.path or "")):
                pytest.fail(f"error {exc} does not start with its file: {again}")
            outcomes["error"] += 1
        except Exception as exc:  # any other failure: say how to get it again
            pytest.fail(f"{exc!r}: {again}")
    print(outcomes)
    assert outcomes["events"] > SEEDS // 4 and outcomes["error"] > SEEDS // 100, outcomes
