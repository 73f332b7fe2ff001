"""Fuzz the event-log reader with damaged real logs: it yields events or raises EventLogError, nothing else.

Mutations (fixed seed, a few hundred runs): cut at a random offset, flip random bytes, splice
in binary junk, and replace JSON values with values of the wrong type (including the
"Event" name), each in plain, zstd and lz4-java framing, as single files and rolling parts.
"""
from __future__ import annotations

import json
import os
import random
from pathlib import Path

import orjson
import zstandard

from protoxplore.loader import codecs
from protoxplore.loader.eventlog import EventLogError, discover, read_events
from test_eventlog import CODECS, REAL, lz4_java_stream

SEEDS = int(os.environ.get("EVENTLOG_FUZZ_RUNS", 600))  # raise it for a longer hunt
SEED = int(os.environ.get("EVENTLOG_FUZZ_SEED", 20240611))
WRONG = [None, True, 0, -1, 2 ** 70, 1.5, "", "x" * 300, [], [1, "a"], {}, {"Event": 3}]


def decompressed(path: Path) -> bytes:
    with open(path, "rb") as f:
        return b"".join(codecs.chunks(path, f))


def wrong_types(rng: random.Random, data: bytes) -> bytes:
    """Replace a few values in random lines by values of another type."""
    lines = data.split(b"\n")
    for _ in range(rng.randint(1, 5)):
        i = rng.randrange(len(lines))
        try:
            event = orjson.loads(lines[i])
        except orjson.JSONDecodeError:
            continue
        target = event
        while isinstance(target, dict) and target and rng.random() < 0.6:  # sometimes go deeper
            inner = target[rng.choice(list(target))]
            if not isinstance(inner, dict) or not inner:
                break
            target = inner
        if isinstance(target, dict) and target:
            target[rng.choice(list(target))] = rng.choice(WRONG)
        lines[i] = json.dumps(event).encode()  # stdlib: orjson refuses 2 ** 70
    return b"\n".join(lines)


def mutate(rng: random.Random, data: bytes) -> bytes:
    kind = rng.choice(["cut", "flip", "junk", "types"])
    if kind == "cut":
        return data[:rng.randrange(len(data) + 1)]
    if kind == "flip":
        data = bytearray(data)
        for _ in range(rng.randint(1, 20)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        return bytes(data)
    if kind == "junk":
        at = rng.randrange(len(data) + 1)
        return data[:at] + rng.randbytes(rng.randint(1, 64)) + data[at:]
    return wrong_types(rng, data)


def test_damaged_logs_yield_events_or_raise_eventlog_error(tmp_path):
    originals = [decompressed(p) for p in (REAL / "event_log_1", REAL / "local-1532512550423",
                                           REAL / "spark2-eventlog.zstd", CODECS / "pyspark-zstd.zstd")]
    compressed = [CODECS / n for n in ("pyspark-lz4.lz4", "pyspark-snappy.snappy", "pyspark-lzf.lzf", "pyspark-zstd.zstd")]
    rng = random.Random(SEED)
    outcomes = {"events": 0, "error": 0}
    for run in range(SEEDS):
        work = tmp_path / f"run{run}"
        work.mkdir()
        how = rng.choice(["plain", "zstd", "lz4", "bytes", "rolling"])
        if how == "bytes":  # damage the compressed bytes themselves
            original = rng.choice(compressed)
            target = work / (original.name + rng.choice(["", ".inprogress"]))
            target.write_bytes(mutate(rng, original.read_bytes()))
        else:
            data = mutate(rng, rng.choice(originals))
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
        try:
            for source in discover([target]):
                for file, line, event in read_events(source, strict=strict, warn=lambda _: None):
                    assert type(event) is dict and type(event["Event"]) is str
                    assert isinstance(file, str) and line >= 1
            outcomes["events"] += 1
        except EventLogError as exc:
            assert str(exc).startswith(str(exc.path or "")), exc
            outcomes["error"] += 1
    print(outcomes)
    assert outcomes["events"] > SEEDS // 4 and outcomes["error"] > SEEDS // 100, outcomes
