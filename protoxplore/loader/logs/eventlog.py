"""Find Spark event logs and yield their events, with the file and line each came from.

Reads event logs as Spark 1.5 to 4.x write them: JSON lines, plain or compressed with any of
Spark's codecs (``.zstd``/``.zst``, ``.lz4``, ``.snappy``, ``.lzf``; see :mod:`.codecs`),
single files (``.inprogress`` while the application runs) or rolling directories
(``eventlog_v2_<app>/events_<N>_<app>[.codec]`` plus an ``appstatus_<app>[.inprogress]``
marker). Decompressed bytes are split into lines in multi-megabyte chunks and each line goes
straight to ``orjson.loads``: the per-line Python work is that call and a dict check.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

import orjson

from protoxplore.errors import CodecError, EventLogError, Truncated
from protoxplore.loader.logs import codecs
from protoxplore.settings import MAX_LINE_BYTES


@dataclass
class LogSource:
    """One application attempt's event log: one file, or the ordered parts of a rolling directory."""

    name: str
    parts: list[Path] = field(default_factory=list)
    in_progress: bool = False



ROLLING_DIR = "eventlog_v2_"
_PART = re.compile(r"events_(\d+)_")


def _ignored(path: Path) -> bool:
    return path.name.startswith(".") or path.suffix in (".md", ".crc")


def _rolling(directory: Path) -> LogSource:
    """A rolling directory's parts in numeric order (from the last compacted one on, as Spark reads)."""
    numbered = sorted((int(m.group(1)), p) for p in directory.iterdir()
                      if p.is_file() and not _ignored(p) and (m := _PART.match(p.name)))
    if not numbered:
        raise EventLogError("rolling event log directory holds no events_<N>_ files", directory)
    compacted = [n for n, p in numbered if p.name.endswith(".compact")]
    if compacted:
        numbered = [(n, p) for n, p in numbered if n >= compacted[-1]]
    status = [p.name for p in directory.iterdir() if p.name.startswith("appstatus_")]
    in_progress = any(name.endswith(".inprogress") for name in status)
    return LogSource(name=str(directory), parts=[p for _, p in numbered], in_progress=in_progress)


def _single(path: Path) -> LogSource:
    return LogSource(name=str(path), parts=[path], in_progress=path.name.endswith(".inprogress"))


class _Discovery:
    """One walk over the paths given: each real file and directory (device and inode) is taken once,
    so symbolic links that loop end, and a log reached by two names is read once."""

    def __init__(self, warn: Callable[[str], None] | None):
        self.warn = warn
        self.seen: dict[tuple[int, int], Path] = {}
        self.logs = 0  # logs met in directories, read or not (so that "holds no event logs" is true)

    def note(self, message: str, path: Path) -> None:
        if self.warn:
            self.warn(str(EventLogError(message, path)))

    def first_time(self, path: Path) -> bool:
        """Whether ``path`` leads to a file or directory not met before (else a warning says which it is)."""
        st = path.stat()
        first = self.seen.setdefault((st.st_dev, st.st_ino), path)
        if first is not path:
            kind = "directory" if path.is_dir() else "file"
            self.note(f"the same {kind} as {first} (a link, or named twice); read once", path)
        return first is path

    def scan(self, directory: Path) -> list[LogSource]:
        """Every application attempt under ``directory``: files, rolling directories, and subdirectories' logs."""
        found: list[LogSource] = []
        for path in sorted(directory.iterdir()):  # sorted: which of two names is read never depends on the disk
            if _ignored(path):
                continue
            if path.is_dir():
                rolling = path.name.startswith(ROLLING_DIR)
                self.logs += rolling
                if self.first_time(path):
                    found.extend([_rolling(path)] if rolling else self.scan(path))
            elif not path.is_file():
                self.note("neither a file nor a directory (a broken or looping symbolic link?); skipped", path)
            elif not _starts_like_event_log(path):
                self.note("not a Spark event log (it does not start with an \"Event\"); skipped", path)
            else:
                self.logs += 1
                if self.first_time(path):
                    found.append(_single(path))
        return found


#: How much of a file found in a directory is decompressed to see whether it is an event log.
SNIFF_BYTES = 1 << 20


def _starts_like_event_log(path: Path) -> bool:
    """Whether a file found in a directory begins as Spark writes every event log: ``{"Event"``.

    Files named on the command line are always read; in a directory, notes and other JSON (a
    ``truth.json``, say) are passed over, but not an ``.inprogress`` log that has not written that
    much yet. A file that cannot be decompressed is kept, so that reading it reports the problem.
    Only the first :data:`SNIFF_BYTES` are looked at.
    """
    head, seen = b"", 0
    try:
        for chunk in _decompressed(path):
            head, seen = (head + chunk[:SNIFF_BYTES]).lstrip(), seen + len(chunk)
            if len(head) >= 8 or seen >= SNIFF_BYTES:
                break
    except (EventLogError, Truncated):
        return True
    # A log Spark has only begun (still empty, or not yet at its first key) is waited for, not skipped.
    return head.startswith(b'{"Event"') or path.name.endswith(".inprogress") and b'{"Event"'.startswith(head)


def discover(paths: Iterable[str | os.PathLike], warn: Callable[[str], None] | None = None) -> list[LogSource]:
    """Expand files and directories into the event logs they hold.

    A file is one log; a rolling directory (``eventlog_v2_*``) is one log; any other
    directory yields every log below it (skipping hidden, ``*.md`` and ``*.crc`` files, and with
    a warning files that are not event logs), sorted by name. Arguments keep their order.
    Symbolic links are followed, but every real file and directory is taken once, with a
    warning for each other name it is reached by (a link loop, a log named twice).
    """
    walk = _Discovery(warn)
    sources: list[LogSource] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise EventLogError("no such file or directory", path)
        if not walk.first_time(path):
            continue
        if path.is_dir() and path.name.startswith(ROLLING_DIR):
            sources.append(_rolling(path))
        elif path.is_dir():
            before = walk.logs
            found = sorted(walk.scan(path), key=lambda s: s.name)
            if walk.logs == before:
                raise EventLogError("directory holds no event logs", path)
            sources.extend(found)
        elif not path.is_file():  # reading a FIFO or /dev/zero would wait or run forever
            raise EventLogError("not a regular file (a FIFO, device or socket): an event log is a file", path)
        else:
            sources.append(_single(path))
    return sources


def _decompressed(part: Path) -> Iterator[bytes]:
    """The decompressed chunks of one file; problems become :class:`EventLogError` naming it.

    A stream cut mid-block ends the iteration with :class:`Truncated` (wrapped the same way).
    """
    try:
        with open(part, "rb") as handle:
            yield from codecs.chunks(part, handle)
    except Truncated:
        raise
    except CodecError as exc:
        raise EventLogError(str(exc), part) from None
    except OSError as exc:
        raise EventLogError(f"cannot read: {exc.strerror or exc}", part) from None


#: A NUL character as JSON writes it in a string.
NUL = b"\\u0000"


def _without_nul(value):
    """``value`` (a parsed event or a part of one) with NUL characters in its texts replaced by U+FFFD."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    if isinstance(value, dict):
        return {_without_nul(k): _without_nul(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_nul(v) for v in value]
    return value


class Lines:
    """Splits decompressed bytes into lines and parses each into an event, across chunks, parts and
    (for ``protoxplore watch``) passes: the unfinished last line is kept until its rest arrives.

    :func:`read_events` reads a whole log with it; :mod:`.live` feeds it the bytes a growing log
    gained since the last pass. A line that is not JSON, or not an object with an ``"Event"`` name,
    is skipped (one warning per file, with a count) or raises :class:`EventLogError` when
    ``strict``; so is a line longer than ``max_line`` bytes, whose bytes are dropped as they
    arrive, never held, so memory stays bounded.
    """

    def __init__(self, strict: bool = False, warn: Callable[[str], None] | None = None,
                 max_line: int = MAX_LINE_BYTES):
        self.strict, self.warn, self.max_line = strict, warn, max_line
        self.skipped: dict[str, list] = {}  # file -> [first line, its reason, count, next line numbers]
        self.numbers: dict[str, int] = {}  # lines met so far in each file
        self.pending: list[bytes] = []  # the unfinished line carried across chunks and parts
        self.pending_at: tuple[str, int] | None = None  # where it starts
        self.pending_size, self.skipping = 0, False  # skipping: the unfinished line is too long, its bytes are dropped
        self.content = False  # whether any non-blank byte was seen
        self.nul_noted: set[str] = set()  # files whose NUL characters were said

    def note(self, message: str, file: str, number: int | None) -> None:
        if self.warn:
            self.warn(str(EventLogError(message, file, number)))

    def refuse(self, message: str, file: str, number: int, cause: Exception | None = None) -> None:
        if self.strict:
            raise EventLogError(message, file, number) from cause
        entry = self.skipped.setdefault(file, [number, message, 0, []])
        entry[2] += 1
        if entry[2] > 1 and len(entry[3]) < 5:  # a few line numbers to look at; memory stays bounded
            entry[3].append(number)

    def report_skipped(self, file: str) -> None:
        """One warning for the lines of ``file`` that were skipped (a text file given by mistake
        would otherwise print one per line)."""
        if file in self.skipped:
            number, message, count, more = self.skipped.pop(file)
            if count > 1:
                listed = ", ".join(map(str, more)) + (", ..." if count - 1 > len(more) else "")
                message += f"; {count} lines skipped in all (the others not Spark events either: lines {listed})"
            else:
                message += "; line skipped"
            self.note(message, file, number)

    def too_long(self, file: str, number: int) -> None:
        self.refuse(f"line longer than {self.max_line} bytes (PROTOXPLORE_MAX_LINE_BYTES)", file, number)

    def check(self, line: bytes, file: str, number: int) -> dict | None:
        """Parse one line; None (after a warning, or raising when strict) if it is no event."""
        try:
            event = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            if not line.strip():
                return None
            self.refuse(f"malformed JSON ({exc})", file, number, exc)
            return None
        if type(event) is dict and type(event.get("Event")) is str:
            return self.without_nul(event, file, number) if NUL in line else event
        self.refuse("not a Spark listener event (no \"Event\" name)", file, number)
        return None

    def without_nul(self, event: dict, file: str, number: int) -> dict:
        """``event`` with each NUL character of its texts (``\\u0000`` in the JSON) replaced by U+FFFD,
        said once per file: FalkorDB reads a query's text up to a NUL, so a name holding one could
        not be stored at all (and no Spark name holds one)."""
        if file not in self.nul_noted:
            self.nul_noted.add(file)
            self.note("NUL characters (\\u0000) in its texts are replaced by U+FFFD", file, number)
        return _without_nul(event)

    def feed(self, file: str, chunk: bytes) -> Iterator[tuple[str, int, dict]]:
        """The events of the lines that ``chunk`` (the next decompressed bytes of ``file``) completes."""
        loads, decode_error, max_line = orjson.loads, orjson.JSONDecodeError, self.max_line
        number = self.numbers.get(file, 0)
        if not self.content and chunk and not chunk.isspace():
            self.content = True
        lines = chunk.split(b"\n")
        tail = lines.pop()
        nul = NUL in chunk  # rare: each line is searched only then
        if lines:  # the first line completes whatever was pending
            number += 1
            at = self.pending_at or (file, number)
            if not self.skipping and self.pending_size + len(lines[0]) > max_line:
                self.too_long(*at)
            elif not self.skipping:
                event = self.check(b"".join(self.pending) + lines[0] if self.pending else lines[0], *at)
                if event is not None:
                    yield at[0], at[1], event
            self.pending, self.pending_at, self.pending_size, self.skipping = [], None, 0, False
            long_lines = len(chunk) > max_line  # only then can a line inside the chunk be too long
            for line in lines[1:]:
                number += 1
                if long_lines and len(line) > max_line:
                    self.too_long(file, number)
                    continue
                try:
                    event = loads(line)
                except decode_error:
                    self.check(line, file, number)  # a blank line passes; others warn or raise
                    continue
                if type(event) is dict and type(event.get("Event")) is str:
                    yield file, number, self.without_nul(event, file, number) if nul and NUL in line else event
                else:
                    self.check(line, file, number)
        self.numbers[file] = number
        if tail and not self.skipping:
            if self.pending_at is None:
                self.pending_at = (file, number + 1)
            self.pending_size += len(tail)
            if self.pending_size > max_line:
                self.too_long(*self.pending_at)
                self.pending, self.pending_size, self.skipping = [], 0, True
            else:
                self.pending.append(tail)

    def finish(self, in_progress: bool = False) -> Iterator[tuple[str, int, dict]]:
        """The event of the last line when it has no newline; a last line that does not parse is how a
        live log ends: a warning, never an error. In a log still being written (``in_progress``) the
        last line waits for its newline, as ``protoxplore watch`` waits for it, so that a load and a
        live generation of the same bytes agree (Spark ends every event with one)."""
        if self.pending and self.pending_at:
            last = b"".join(self.pending)
            if last.strip() and in_progress:
                self.note(f"last line has no newline yet ({len(last)} bytes: log still being written); left for "
                          "when it ends", *self.pending_at)
            elif last.strip():
                try:
                    event = orjson.loads(last)
                except orjson.JSONDecodeError:
                    self.note(f"last line is cut short ({len(last)} bytes, no newline: log still being written?); "
                              "ignored", *self.pending_at)
                    return
                if type(event) is dict and type(event.get("Event")) is str:
                    yield self.pending_at[0], self.pending_at[1], (
                        self.without_nul(event, *self.pending_at) if NUL in last else event)
                else:
                    self.check(last, *self.pending_at)
                    self.report_skipped(self.pending_at[0])


def read_events(
    source: LogSource,
    strict: bool = False,
    warn: Callable[[str], None] | None = None,
    max_line: int = MAX_LINE_BYTES,
) -> Iterator[tuple[str, int, dict]]:
    """Yield ``(file, line_number, event)`` for every JSON event of ``source``.

    The parts of a rolling log are one byte stream: a line may start in one part and end in
    the next (it is reported at the file and line where it starts). Lines that are no events,
    or too long, are handled as :class:`Lines` says. A last line without newline that
    does not parse, or a compressed stream cut mid-block, is how a live log ends: it gives a
    warning, never an error. Empty logs and unreadable or corrupt files raise EventLogError.
    """
    lines = Lines(strict, warn, max_line)
    cut = ""
    for part in source.parts:
        file = str(part)
        try:
            for chunk in _decompressed(part):
                yield from lines.feed(file, chunk)
        except Truncated as exc:
            cut = f" ({exc})"
            lines.note(f"{exc}; the rest of this file is unreadable (log still being written?)", file, None)
        lines.report_skipped(file)
    if not lines.content:
        raise EventLogError("empty event log" + cut, source.parts[0] if len(source.parts) == 1 else source.name)
    yield from lines.finish(source.in_progress)
