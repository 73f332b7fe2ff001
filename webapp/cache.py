"""The page cache: query results and explanations about published analyses, kept in memory.

A published analysis never changes, but it can be deleted and loaded again under the same id (the
id is a hash of its logs and options), and a page viewed during a delete reads a half-deleted
graph. So every entry is keyed on the analysis id AND its creation time, and only analyses listed
as complete are cached: a re-loaded analysis has a new creation time, so nothing read before (or
during) its delete is ever served again. Least recently used entries go first; concurrent requests
for the same missing entry compute it once, the others wait for it (cachetools' condition).
"""
from __future__ import annotations

import copy
import threading

from cachetools import LRUCache, cached


class PageCache:
    """At most ``size`` results (0 turns caching off); callers get copies they may change."""

    def __init__(self, size: int):
        self._entries = LRUCache(maxsize=size) if size > 0 else None
        if self._entries is not None:
            self._lookup = cached(self._entries, key=lambda key, compute: key,
                                  condition=threading.Condition())(lambda key, compute: compute())

    def get(self, analysis: dict | None, key: tuple, compute):
        """``compute()``, remembered under ``key`` for the published ``analysis`` (a row of
        ``cypher/analyses.cypher`` with status complete); None: an unpublished one, not cached."""
        if self._entries is None or analysis is None or analysis.get("status") != "complete":
            return compute()
        return copy.deepcopy(self._lookup((analysis["id"], analysis["created"]) + key, compute))

    def __len__(self) -> int:
        return len(self._entries or ())
