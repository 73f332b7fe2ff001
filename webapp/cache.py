"""The page cache: query results and explanations about published analyses, kept in memory.

A published analysis never changes, but it can be deleted and loaded again under the same id (the
id is a hash of its logs and options), and a page viewed during a delete reads a half-deleted
graph. So every entry is keyed on the analysis id AND its creation time, and only analyses listed
as complete are cached: a re-loaded analysis has a new creation time, so nothing read before (or
during) its delete is ever served again. Least recently used entries go first (cachetools).
"""
from __future__ import annotations

import copy
import threading

from cachetools import LRUCache

_MISSING = object()


class PageCache:
    """At most ``size`` results (0 turns caching off); callers get copies they may change."""

    def __init__(self, size: int):
        self._entries = LRUCache(maxsize=size) if size > 0 else None
        self._lock = threading.Lock()  # cachetools caches are not thread-safe

    def get(self, analysis: dict | None, key: tuple, compute):
        """``compute()``, remembered under ``key`` for the published ``analysis`` (a row of
        ``cypher/analyses.cypher`` with status complete); None: an unpublished one, not cached."""
        if self._entries is None or analysis is None or analysis.get("status") != "complete":
            return compute()
        full_key = (analysis["id"], analysis["created"]) + key
        with self._lock:
            value = self._entries.get(full_key, _MISSING)
        if value is _MISSING:
            value = compute()
            with self._lock:
                self._entries[full_key] = value
        return copy.deepcopy(value)

    def clear(self) -> None:
        if self._entries is not None:
            with self._lock:
                self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries or ())
