"""Event logs followed while they grow (``protoxplore watch``): each pass reads only the bytes a log
gained since the last, plain or through a zstd decoder kept between passes, and folds the new events
into its application's reader."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from protoxplore.errors import CodecError, EventLogError
from protoxplore.loader.logs import codecs, eventlog
from protoxplore.loader.logs.apps import AppReader
from protoxplore.loader.logs.trace import fold

#: The codecs a live log can be followed in; other compressed logs are loaded when they finish.
FOLLOWED_CODECS = (None, "zstd", "zst")


def log_identity(path: Path) -> str:
    """A log's name without ``.inprogress``: Spark renames a log when its application ends."""
    return str(path).removesuffix(".inprogress")


@dataclass
class FollowedPart:
    """One file of a followed log: how many of its bytes were read, and the zstd decoder's state."""

    path: Path
    offset: int = 0
    decoder: codecs.ZstdFeed | None = None

    def new_bytes(self) -> Iterator[bytes]:
        """The decompressed bytes added since the last call (none while the file did not grow)."""
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                while data := handle.read(codecs.READ):
                    self.offset += len(data)
                    yield from (self.decoder.feed(data) if self.decoder else (data,))
        except CodecError as exc:
            raise EventLogError(str(exc), self.path) from None
        except OSError as exc:
            raise EventLogError(f"cannot read: {exc.strerror or exc}", self.path) from None


@dataclass
class FollowedLog:
    """One running application's log, followed pass after pass."""

    source: eventlog.LogSource
    lines: eventlog.Lines
    reader: AppReader
    app_key: str = ""
    parts: dict[str, FollowedPart] = field(default_factory=dict)
    finished: bool = False

    def poll(self, source: eventlog.LogSource, strict: bool, note: Callable[[str], None]) -> int:
        """Read what ``source`` (this log as discovered now) gained; return the number of events."""
        self.source = source
        count = 0
        for path in source.parts:
            part = self.parts.get(log_identity(path))
            if part is None:
                part = self.parts[log_identity(path)] = FollowedPart(path, decoder=new_decoder(path))
            part.path = path  # renamed when the application ended
            events = (event for chunk in part.new_bytes() for event in self.lines.feed(str(path), chunk))
            count += fold(self.reader, events, strict, note)
            self.lines.report_skipped(str(path))
        self.finished = not source.in_progress
        return count


def new_decoder(path: Path) -> codecs.ZstdFeed | None:
    with open(path, "rb") as handle:
        head = handle.read(8)
    codec = codecs.codec_of(path) or next((c for magic, c in codecs.MAGICS if head.startswith(magic)), None)
    if codec not in FOLLOWED_CODECS:
        raise EventLogError(f"a {codec}-compressed log cannot be followed while it grows (plain and zstd "
                                     "logs can)", path)
    return codecs.ZstdFeed() if codec else None


def app_start(reader: AppReader) -> float:
    """When an application started (seconds), for the overlap test; its first task if no start event."""
    start = reader.app["start"]
    if start == start:
        return float(start)
    launches = [t[8] for t in reader.tasks if isinstance(t[8], (int, float))]
    return min(launches) / 1e3 if launches else reader.last_ms / 1e3
