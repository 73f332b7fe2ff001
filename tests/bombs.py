"""Decompression bombs: small compressed event logs that expand to as much data as each codec allows.

Each builder in BOMBS returns at most ``size`` bytes that decode to a run of ``a`` without a
newline (one endless line), in the format ``protoxplore/loader/logs/codecs.py`` reads for that codec;
:func:`flood_bomb` is a zstd log whose every line is a valid event. Used by
tests/test_input_limits.py and bench/bench_bombs.py.
"""
from __future__ import annotations

import gzip
import re
import struct
from pathlib import Path

import cramjam
import lz4.block
import zstandard

ZSTD_BLOCK = 1 << 17  # the largest zstd block: 128 KiB


def zstd_bomb(size: int) -> bytes:
    """One zstd frame of RLE blocks: 4 bytes each for 128 KiB of output (32768x)."""
    # magic; frame header: no content size, one window descriptor byte (window 2**17)
    head = b"\x28\xb5\x2f\xfd" + b"\x00" + bytes([(17 - 10) << 3])
    count = (size - len(head)) // 4
    block = (ZSTD_BLOCK << 3 | 1 << 1).to_bytes(3, "little") + b"a"  # type 1 = RLE
    last = (ZSTD_BLOCK << 3 | 1 << 1 | 1).to_bytes(3, "little") + b"a"
    return head + block * (count - 1) + last


def gzip_bomb(size: int) -> bytes:
    """gzip members of 1 MiB of ``a`` each (deflate's limit is about 1000x)."""
    member = gzip.compress(b"a" * (1 << 20), compresslevel=9)
    return member * (size // len(member))


def lz4_bomb(size: int) -> bytes:
    """lz4-java blocks of 32 MiB (the largest, level 15) of ``a``."""
    data = lz4.block.compress(b"a" * (1 << 25), store_size=False)
    block = struct.pack("<8sBiii", b"LZ4Block", 0x20 | 15, len(data), 1 << 25, 0) + data
    return block * (size // len(block))


def snappy_bomb(size: int) -> bytes:
    """snappy-java stream of 4 MiB blocks of ``a`` (snappy's limit is about 21x)."""
    data = bytes(cramjam.snappy.compress_raw(b"a" * (1 << 22)))
    block = len(data).to_bytes(4, "big") + data
    head = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
    return head + block * ((size - len(head)) // len(block))


def lzf_bomb(size: int) -> bytes:
    """compress-lzf chunks of 65535 ``a``: one literal, then back references of 264 bytes at distance 1."""
    body = b"\x00a" + b"\xe0\xff\x00" * 248 + b"\xe0\x35\x00"  # 1 + 248 * 264 + 62 = 65535 bytes
    chunk = b"ZV\x01" + struct.pack(">HH", len(body), 65535) + body
    return chunk * (size // len(chunk))


#: codec suffix -> builder
BOMBS = {"zstd": zstd_bomb, "gz": gzip_bomb, "lz4": lz4_bomb, "snappy": snappy_bomb, "lzf": lzf_bomb}


def flood_bomb(tasks: int) -> bytes:
    """A real log (tests/data/eventlogs/real/event_log_1) with its first TaskEnd repeated ``tasks``
    times, each with a task id of its own (a second TaskEnd of a task is skipped), zstd-compressed:
    every line a valid event."""
    lines = (Path(__file__).parent / "data/eventlogs/real/event_log_1").read_bytes().splitlines(keepends=True)
    task = next(line for line in lines if b'"SparkListenerTaskEnd"' in line)
    head, tail = re.match(rb'(.*"Task ID":)\d+(.*)', task, re.S).groups()
    flood = b"".join(head + str(1000 + i).encode() + tail for i in range(tasks))
    return zstandard.ZstdCompressor(level=3).compress(b"".join(lines[:15]) + flood)
