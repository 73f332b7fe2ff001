"""The test event logs (real Spark logs, codec samples, ground-truth scenarios) and the ways the
tests encode and damage them; shared by the test modules, which never import each other."""
from __future__ import annotations

import json
import random
from pathlib import Path

import orjson

from protoxplore.loader.logs import codecs
from protoxplore.loader.logs.eventlog import discover
from protoxplore.loader.logs.trace import read_trace

DATA = Path(__file__).resolve().parent / "data" / "eventlogs"
REAL = DATA / "real"  # copied unmodified from /work/shared/spark-events (see its PROVENANCE.md)
CODECS = DATA / "codecs"  # written by make_codec_logs.py with PySpark 4
SCENARIOS = Path(__file__).resolve().parent / "data" / "scenarios"
FOLDERS = sorted(p.parent for p in SCENARIOS.glob("*/truth.json"))  # one real PySpark schedule each

WRONG = [None, True, 0, -1, 2 ** 70, 1.5, "", "x" * 300, [], [1, "a"], {}, {"Event": 3}]


def decompressed(path: Path) -> bytes:
    with open(path, "rb") as f:
        return b"".join(codecs.chunks(path, f))


def lz4_java_stream(data: bytes, block_size: int = 1 << 15) -> bytes:
    """What lz4-java's LZ4BlockOutputStream writes (checksum left 0: the reader does not check it)."""
    import lz4.block
    out = bytearray()
    for i in range(0, len(data), block_size):
        raw = data[i:i + block_size]
        packed = lz4.block.compress(raw, store_size=False)
        out += b"LZ4Block" + bytes([0x25]) + len(packed).to_bytes(4, "little") + len(raw).to_bytes(4, "little")
        out += bytes(4) + packed
    return bytes(out + b"LZ4Block" + bytes([0x15]) + bytes(12))


def wrong_types(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """Replace a few values in random lines by values of another type; also say which."""
    lines = data.split(b"\n")
    changed = []
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
            value = rng.choice(WRONG)  # before the field: the order of the draws keeps old seeds' runs
            field = rng.choice(list(target))
            target[field] = value
            changed.append(f"line {i + 1} {field!r}={value!r}"[:120])
        lines[i] = json.dumps(event).encode()  # stdlib: orjson refuses 2 ** 70
    return b"\n".join(lines), "types: " + ("; ".join(changed) or "none")


def mutate(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """``data`` damaged one random way (cut, bit flips, junk bytes or wrong-typed values), and what was done."""
    kind = rng.choice(["cut", "flip", "junk", "types"])
    if kind == "cut":
        at = rng.randrange(len(data) + 1)
        return data[:at], f"cut at byte {at} of {len(data)}"
    if kind == "flip":
        data = bytearray(data)
        flips = [(rng.randrange(len(data)), rng.randrange(8)) for _ in range(rng.randint(1, 20))]
        for at, bit in flips:
            data[at] ^= 1 << bit
        return bytes(data), "bit flips (byte, bit): " + ", ".join(map(str, flips))
    if kind == "junk":
        at = rng.randrange(len(data) + 1)
        junk = rng.randbytes(rng.randint(1, 64))
        return data[:at] + junk + data[at:], f"{len(junk)} junk bytes at byte {at}: {junk.hex()}"
    return wrong_types(rng, data)


def real_trace():
    """The trace of all the real logs, as one workload."""
    return read_trace(discover([REAL]), warn=lambda m: None)


def big_trace():
    """The real logs' trace with its tasks repeated 300 times, so that a save takes long enough to be cut."""
    import pandas as pd

    trace = real_trace()
    trace.tasks = pd.concat([trace.tasks] * 300, ignore_index=True)
    return trace
