"""Decompress Spark event logs, yielding the decompressed bytes in large chunks.

Spark picks the codec with ``spark.eventLog.compression.codec`` and names the log after it
(``app.zstd``, ``app.lz4``, ``events_1_app.snappy``...). Each codec below reads one file
object and yields ``bytes`` of about :data:`CHUNK`, so that the line splitter and JSON parser
see few, large pieces. Memory stays bounded whatever the input (a few KB of zstd can claim
gigabytes): the stream codecs ask for at most :data:`CHUNK` bytes per call, the block codecs
refuse a block that says it holds more than :data:`MAX_BLOCK`, and a file that expands more
than :data:`MAX_EXPANSION` times is refused. Decoding problems raise :class:`CodecError` (corrupt data,
missing library) or :class:`Truncated` (the stream stops mid-block: a live or cut log; every
complete block before it has been yielded). Library exceptions never escape.
"""
from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

from protoxplore.errors import CodecError, Truncated

CHUNK = 1 << 22  # 4 MiB of decompressed data per yield (plain files are read this much at a time)
READ = 1 << 20  # compressed bytes read at a time by the stream codecs
MAX_BLOCK = 1 << 25  # 32 MiB: lz4-java's largest block (level 15); snappy-java writes 32 KiB blocks
#: Spark's compressed logs expand 11-20x (the 15 in tests/data and shared/spark-events); a flood of
#: one repeated event 5,000x, a bomb 32,768x. Past this a log is refused: a 1 MB file can then
#: claim at most 200 MB, and memory stays bounded even when every line is a valid event.
MAX_EXPANSION = 200


def _require(module: str, package: str, codec: str):
    try:
        return __import__(module, fromlist=["_"])
    except ImportError:
        raise CodecError(f"{codec}-compressed event log: install the Python package '{package}' "
                         f"(pip install {package}) to read it") from None


def _batched(blocks: Iterator[bytes]) -> Iterator[bytes]:
    """Join small decompressed blocks into chunks of about CHUNK bytes."""
    batch: list[bytes] = []
    size = 0
    try:
        for block in blocks:
            batch.append(block)
            size += len(block)
            if size >= CHUNK:
                yield b"".join(batch)
                batch, size = [], 0
    except CodecError:
        if batch:  # what decoded before the damage is still the log's
            yield b"".join(batch)
        raise
    if batch:
        yield b"".join(batch)


def _exact(f: BinaryIO, n: int, codec: str, offset: int) -> bytes:
    data = f.read(n)
    if len(data) < n:
        raise Truncated(f"{codec} stream cut short at byte {offset + len(data)} (block needs {n} bytes)")
    return data


def plain_chunks(f: BinaryIO) -> Iterator[bytes]:
    """Uncompressed JSON lines, read CHUNK bytes at a time."""
    while chunk := f.read(CHUNK):
        yield chunk


def _zstd():
    """Python 3.14's ``compression.zstd``, or its backport: both cap the output of each call."""
    try:
        return __import__("compression.zstd", fromlist=["_"])
    except ImportError:
        return _require("backports.zstd", "backports.zstd", "zstd")


class ZstdFeed:
    """Decodes Zstandard (RFC 8878) frames, one after another, from compressed bytes given piece by
    piece: what a growing log gained (``protoxplore watch``) or the next block of a file.

    A log may hold many concatenated frames (written by separate zstd-jni streams, or appended
    logs); decoding continues across them. ``open`` says whether a frame has begun and not ended:
    at the end of a file, a live log's last frame (or a cut file). The output is bounded as a
    file's is (:data:`MAX_EXPANSION`).
    """

    def __init__(self):
        self.zstd = _zstd()
        self.dec, self.read, self.written, self.frame_start, self.open = self.zstd.ZstdDecompressor(), 0, 0, 0, False

    def feed(self, data: bytes) -> Iterator[bytes]:
        self.read += len(data)
        while data:
            try:
                out = self.dec.decompress(data, CHUNK)
                while not self.dec.needs_input and not self.dec.eof:  # CHUNK reached: more output waits
                    yield self._counted(out)
                    out = self.dec.decompress(b"", CHUNK)
            except self.zstd.ZstdError as exc:
                raise CodecError(f"corrupt zstd stream in the frame starting at byte {self.frame_start}: {exc}") from None
            self.open = True
            if out:
                yield self._counted(out)
            data = b""
            if self.dec.eof:  # the frame ended inside `data`; the next starts with what is left
                data = self.dec.unused_data
                self.frame_start, self.dec, self.open = self.read - len(data), self.zstd.ZstdDecompressor(), False

    def _counted(self, out: bytes) -> bytes:
        self.written += len(out)
        check_expansion(self.written, self.read)
        return out


def zstd_chunks(f: BinaryIO) -> Iterator[bytes]:
    """Zstandard frames, one after another (:class:`ZstdFeed`); a frame still open at the end of the
    file is reported as :class:`Truncated`."""
    feed = ZstdFeed()

    def blocks() -> Iterator[bytes]:
        while data := f.read(READ):
            yield from feed.feed(data)
        if feed.open:
            raise Truncated(f"zstd stream cut short: the frame starting at byte {feed.frame_start} has no end")

    return _batched(blocks())


LZ4_MAGIC = b"LZ4Block"
LZ4_HEADER = struct.Struct("<8sBiii")  # magic, token (method | level), compressed, original, checksum


def lz4_chunks(f: BinaryIO) -> Iterator[bytes]:
    """lz4-java's ``LZ4BlockOutputStream`` (Spark's ``LZ4CompressionCodec``), not the LZ4 frame format.

    Each block: ``LZ4Block`` magic, a token byte (method 0x10 raw / 0x20 LZ4, low nibble the
    block-size level), then little-endian int32 compressed length, original length and
    checksum (xxhash32, seed 0x9747b28c, masked to 28 bits), then the data. A block with both
    lengths 0 ends a stream; another stream may follow (Spark reads concatenated streams).
    The checksum is not verified (xxhash32 is not in the standard library or our deps); a
    corrupt block fails LZ4 decoding or JSON parsing instead.
    """
    block = _require("lz4.block", "lz4", "lz4")

    def blocks() -> Iterator[bytes]:
        offset = 0
        while head := f.read(LZ4_HEADER.size):
            if len(head) < LZ4_HEADER.size:
                raise Truncated(f"lz4 stream cut short at byte {offset + len(head)} (in a block header)")
            magic, token, clen, olen, _checksum = LZ4_HEADER.unpack(head)
            if magic != LZ4_MAGIC:
                raise CodecError(f"corrupt lz4 stream at byte {offset}: no LZ4Block magic")
            method = token & 0xF0
            if not (0 <= clen <= MAX_BLOCK and 0 <= olen <= MAX_BLOCK) or method not in (0x10, 0x20) \
                    or (method == 0x10 and clen != olen):
                raise CodecError(f"corrupt lz4 stream at byte {offset}: bad block header")
            data = _exact(f, clen, "lz4", offset + LZ4_HEADER.size)
            if method == 0x20 and olen:
                try:
                    data = block.decompress(data, uncompressed_size=olen)
                except block.LZ4BlockError as exc:
                    raise CodecError(f"corrupt lz4 stream in the block at byte {offset}: {exc}") from None
                if len(data) != olen:
                    raise CodecError(f"corrupt lz4 stream in the block at byte {offset}: wrong length")
            offset += LZ4_HEADER.size + clen
            if data:
                yield data

    return _batched(blocks())


SNAPPY_MAGIC = b"\x82SNAPPY\x00"


def snappy_chunks(f: BinaryIO) -> Iterator[bytes]:
    """snappy-java's ``SnappyOutputStream`` (Spark's ``SnappyCompressionCodec``), not Google's framing format.

    A 16-byte header (``\\x82SNAPPY\\x00`` then big-endian int32 version and compatible
    version), then blocks of a big-endian int32 length and a raw snappy block. A new header
    may appear between blocks (concatenated streams); its first byte cannot start a length.
    """
    cramjam = _require("cramjam", "cramjam", "snappy")

    def blocks() -> Iterator[bytes]:
        if _exact(f, 16, "snappy", 0)[:8] != SNAPPY_MAGIC:
            raise CodecError("corrupt snappy stream at byte 0: no snappy-java header (\\x82SNAPPY)")
        offset = 16
        while size := f.read(4):
            if size == SNAPPY_MAGIC[:4]:
                _exact(f, 12, "snappy", offset + 4)
                offset += 16
                continue
            if len(size) < 4:
                raise Truncated(f"snappy stream cut short at byte {offset + len(size)} (in a block length)")
            length = int.from_bytes(size, "big")
            if length > MAX_BLOCK:
                raise CodecError(f"corrupt snappy stream at byte {offset}: block length {length}")
            data = _exact(f, length, "snappy", offset + 4)
            try:
                if cramjam.snappy.decompress_raw_len(data) > MAX_BLOCK:  # the length the block declares
                    raise CodecError(f"corrupt snappy stream in the block at byte {offset}: "
                                     f"it claims more than {MAX_BLOCK} bytes")
                out = cramjam.snappy.decompress_raw(data)
            except cramjam.DecompressionError as exc:
                raise CodecError(f"corrupt snappy stream in the block at byte {offset}: {exc}") from None
            offset += 4 + length
            yield bytes(out)

    return _batched(blocks())


def lzf_decode(src: bytes, size: int) -> bytes:
    """Decode one raw LZF block (liblzf's format) of ``size`` output bytes.

    A control byte below 32 copies the next ``ctrl + 1`` bytes as they are; otherwise its top
    3 bits are a length (7 means "add the next byte") and the low 5 bits, with the next byte,
    a distance back into the output, from which ``length + 2`` bytes are copied (possibly
    overlapping what is being written, which repeats the pattern).
    """
    out = bytearray()
    i, n = 0, len(src)
    while i < n:
        ctrl = src[i]
        i += 1
        if ctrl < 32:
            j = i + ctrl + 1
            if j > n:
                raise ValueError("literal run past the end of the block")
            out += src[i:j]
            i = j
            continue
        length = ctrl >> 5
        if length == 7:
            length += src[i]
            i += 1
        ref = len(out) - ((ctrl & 0x1F) << 8) - src[i] - 1
        i += 1
        length += 2
        if ref < 0:
            raise ValueError("back reference before the start of the block")
        if ref + length <= len(out):
            out += out[ref:ref + length]
        else:
            pattern = out[ref:]
            out += (pattern * (length // len(pattern) + 1))[:length]
    if len(out) != size:
        raise ValueError(f"block decodes to {len(out)} bytes, header says {size}")
    return bytes(out)


def lzf_chunks(f: BinaryIO) -> Iterator[bytes]:
    """compress-lzf's ``LZFOutputStream`` (Spark's ``LZFCompressionCodec``).

    Chunks of at most 64 KiB: ``ZV``, a type byte, then for type 0 (stored) a big-endian
    uint16 length and the bytes; for type 1 (compressed) uint16 compressed length, uint16
    original length and an LZF block. Pure Python: there is no maintained LZF wheel, and
    Spark rarely writes LZF.
    """
    def blocks() -> Iterator[bytes]:
        offset = 0
        while head := f.read(3):
            head = head + _exact(f, 3 - len(head), "lzf", offset + len(head))
            if head[:2] != b"ZV" or head[2] not in (0, 1):
                raise CodecError(f"corrupt lzf stream at byte {offset}: no ZV chunk header")
            if head[2] == 0:
                (length,) = struct.unpack(">H", _exact(f, 2, "lzf", offset + 3))
                yield _exact(f, length, "lzf", offset + 5)
                offset += 5 + length
                continue
            clen, olen = struct.unpack(">HH", _exact(f, 4, "lzf", offset + 3))
            data = _exact(f, clen, "lzf", offset + 7)
            try:
                yield lzf_decode(data, olen)
            except (ValueError, IndexError) as exc:
                raise CodecError(f"corrupt lzf stream in the chunk at byte {offset}: {exc}") from None
            offset += 7 + clen

    return _batched(blocks())


def gzip_chunks(f: BinaryIO) -> Iterator[bytes]:
    """gzip members, one after another (not a Spark codec, but Databricks rolls logs to ``.gz``)."""
    def blocks() -> Iterator[bytes]:
        d, data, started = zlib.decompressobj(wbits=47), b"", False
        while data or (data := f.read(READ)):
            try:
                out = d.decompress(data, CHUNK)
                while len(out) == CHUNK:  # CHUNK reached: more output waits
                    yield out
                    out = d.decompress(d.unconsumed_tail, CHUNK)
            except zlib.error as exc:
                raise CodecError(f"corrupt gzip stream: {exc}") from None
            started = True
            if out:
                yield out
            data = b""
            if d.eof:  # the next member starts with what is left
                data, d, started = d.unused_data, zlib.decompressobj(wbits=47), False
        if started:
            raise Truncated("gzip stream cut short")

    return _batched(blocks())


CODECS: dict[str, Callable[[BinaryIO], Iterator[bytes]]] = {
    "zstd": zstd_chunks, "zst": zstd_chunks, "lz4": lz4_chunks, "snappy": snappy_chunks,
    "lzf": lzf_chunks, "gz": gzip_chunks,
}
MAGICS = ((b"\x28\xb5\x2f\xfd", "zstd"), (LZ4_MAGIC, "lz4"), (SNAPPY_MAGIC, "snappy"),
          (b"ZV\x00", "lzf"), (b"ZV\x01", "lzf"), (b"\x1f\x8b", "gz"))
_TEXT = bytes(range(32, 256)) + b"\t\n\r\f\b\x1b"


def codec_of(path: Path) -> str | None:
    """The codec named by the file's suffix (ignoring ``.inprogress`` and ``.compact``), or None."""
    name = path.name
    for suffix in (".inprogress", ".compact"):
        name = name.removesuffix(suffix)
    ext = name.rpartition(".")[2].lower() if "." in name else ""
    return ext if ext in CODECS else None


def chunks(path: Path, f: BinaryIO) -> Iterator[bytes]:
    """Decompressed chunks of the open file ``f`` at ``path``.

    The suffix decides the codec. A file without a codec suffix whose first bytes carry a
    codec's magic is decoded with that codec; one with other binary bytes is refused, and
    anything else is read as plain JSON lines.
    """
    codec = codec_of(path)
    if codec is None:
        head = f.peek(512)[:512]
        codec = next((c for magic, c in MAGICS if head.startswith(magic)), None)
        if codec is None and head.translate(None, _TEXT):
            raise CodecError("binary data, not a JSON-lines event log (Spark's compressed logs end in "
                             ".zstd, .lz4, .snappy or .lzf)")
    return _bounded(CODECS[codec](f), f) if codec else plain_chunks(f)


def _bounded(stream: Iterator[bytes], f: BinaryIO) -> Iterator[bytes]:
    """``stream``, refused once it holds more than MAX_EXPANSION times the compressed bytes read."""
    total = 0
    for chunk in stream:
        total += len(chunk)
        check_expansion(total, f.tell())
        yield chunk


def check_expansion(written: int, read: int) -> None:
    """Refuse a stream that decompressed to more than MAX_EXPANSION times the bytes read."""
    if written > MAX_EXPANSION * read:
        raise CodecError(f"expands more than {MAX_EXPANSION}x (Spark's logs: 10-20x), refused as a "
                         "decompression bomb; decompress it yourself to read it anyway")
