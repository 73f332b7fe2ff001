"""Find Spark event logs and yield their events, with the file and line each came from.

This first version reads plain (uncompressed) JSON-lines files only; compressed codecs and
rolling directories are added by the Spark ingestion work.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

import orjson


class EventLogError(Exception):
    """A problem with an event log, naming the file (and line when known)."""

    def __init__(self, message: str, path: str | os.PathLike | None = None, line: int | None = None):
        self.path = str(path) if path is not None else None
        self.line = line
        where = ""
        if self.path:
            where = f"{self.path}:{line}: " if line is not None else f"{self.path}: "
        super().__init__(where + message)


@dataclass
class LogSource:
    """One application attempt's event log: one file, or the ordered parts of a rolling directory."""

    name: str
    parts: list[Path] = field(default_factory=list)
    in_progress: bool = False


def discover(paths: Iterable[str | os.PathLike]) -> list[LogSource]:
    """Expand files and directories into the event logs they hold, in a stable order."""
    sources: list[LogSource] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise EventLogError("no such file or directory", path)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
            if not files:
                raise EventLogError("directory holds no event logs", path)
            sources.extend(LogSource(name=str(p), parts=[p]) for p in files)
        else:
            sources.append(LogSource(name=str(path), parts=[path], in_progress=path.name.endswith(".inprogress")))
    return sources


def read_events(
    source: LogSource,
    strict: bool = False,
    warn: Callable[[str], None] | None = None,
) -> Iterator[tuple[str, int, dict]]:
    """Yield ``(file, line_number, event)`` for every JSON event of ``source``.

    A malformed line is skipped with a warning naming file and line, or raises
    :class:`EventLogError` when ``strict`` is true.
    """
    for part in source.parts:
        try:
            handle = open(part, "rb")
        except OSError as exc:
            raise EventLogError(f"cannot read: {exc.strerror}", part) from exc
        with handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    event = orjson.loads(line)
                except orjson.JSONDecodeError as exc:
                    message = f"malformed JSON ({exc})"
                    if strict:
                        raise EventLogError(message, part, number) from exc
                    if warn:
                        warn(str(EventLogError(message + "; line skipped", part, number)))
                    continue
                if not isinstance(event, dict) or "Event" not in event:
                    message = "not a Spark listener event"
                    if strict:
                        raise EventLogError(message, part, number)
                    if warn:
                        warn(str(EventLogError(message + "; line skipped", part, number)))
                    continue
                yield str(part), number, event
