"""Every error ProtoXplore raises on purpose, in one place. Each message is one line that names what
is wrong (a file and line, a query, a parameter and its value), so the CLI prints it as it is and a
page shows it without a traceback.

The interfaces catch :class:`ProtoXploreError`; the built-in bases beside it (``ValueError``,
``RuntimeError``) keep each error catchable as what it also is.
"""
from __future__ import annotations

import os


class ProtoXploreError(Exception):
    """The root of ProtoXplore's errors: an answer the user gets as one line, not a traceback."""


# ---------------------------------------------------------------- event logs (loader/logs)

class EventLogError(ProtoXploreError):
    """A problem with an event log, naming the file (and line when known)."""

    def __init__(self, message: str, path: str | os.PathLike | None = None, line: int | None = None):
        self.path = str(path) if path is not None else None
        self.line = line
        where = ""
        if self.path:
            where = f"{self.path}:{line}: " if line is not None else f"{self.path}: "
        super().__init__(where + message)


class CodecError(ProtoXploreError):
    """The file cannot be decoded; the message says why (and at which byte when known)."""


class Truncated(CodecError):
    """The compressed stream stops in the middle of a block or frame."""


class ImplausibleTime(ProtoXploreError, ValueError):
    """An event's time is not a date between 1970 and 2200 (the message names the field and value)."""


class OverBudget(ProtoXploreError):
    """The load needed more memory than its budget allows."""


# ---------------------------------------------------------------- questions

class QueryError(ProtoXploreError, ValueError):
    """A bad query name or parameter value, with the name and value in the message."""


class NotFound(QueryError):
    """A victim, culprit or analysis that the store does not hold."""


class PXQLError(ProtoXploreError, ValueError):
    """A PXQL text that does not parse; the message points at the offending token."""


# ---------------------------------------------------------------- the graph database

class StoreError(ProtoXploreError, RuntimeError):
    """The graph database refused a query or could not be reached."""


class AnalysisBusy(StoreError):
    """Another process writes this analysis (one that does not take our file lock: another machine)."""


class EngineError(ProtoXploreError, RuntimeError):
    """The embedded engine could not be started or reached."""


class ComputationLost(ProtoXploreError, RuntimeError):
    """The process computing a page's part stopped before it answered (killed, out of memory)."""
