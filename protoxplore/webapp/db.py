"""The web app's database access, as in Flask's tutorial (flaskr's ``db.py``): the store holder,
``run`` (canned Cypher through the page cache), the page cache itself, and ``init_app``.

The page cache keeps query results and explanations about published analyses in memory. A
published analysis never changes, but it can be deleted and loaded again under the same id (the id
is a hash of its logs and options), and a page viewed during a delete reads a half-deleted graph.
So every entry is keyed on the analysis id AND its creation time, and only analyses listed as
complete are cached: a re-loaded analysis has a new creation time, so nothing read before (or
during) its delete is ever served again. Least recently used entries go first; concurrent requests
for the same missing entry compute it once, the others wait for it (cachetools' condition).
Cached rows are shared by every request: views never change them (they build new rows instead).

Long computations never run in a request: ``computed`` hands them to ``computations``.
"""
from __future__ import annotations

import atexit
import threading

from cachetools import LRUCache
from cachetools import cached as remember
from flask import current_app, g

from protoxplore.errors import EngineError
from protoxplore.service import catalog
from protoxplore.settings import Settings
from protoxplore.storage.embedded import EmbeddedEngine
from protoxplore.storage.store import open_store
from protoxplore.webapp.computations import Computations


class StoreHolder:
    """One store per app, opened on first use (thread-safe), closed once.

    The first open starts the embedded engine when needed, as every command does. Once the engine
    was lost (it stopped or died while serving), the holder does not start it again behind the
    user's back: requests answer 503 with the command to run until the engine answers again.
    """

    def __init__(self, settings: Settings):
        self.settings = settings
        self._store = None
        self._lost = False
        self._lock = threading.Lock()
        self.window_lock = threading.Lock()  # derived analyses are written one at a time

    def get(self):
        if self._store is None:
            with self._lock:
                if self._store is None:
                    if self._lost and not self.settings.neo4j_uri and not EmbeddedEngine(self.settings.home).running():
                        raise EngineError(f"the embedded engine is not running (data in {self.settings.home})")
                    self._store = open_store(self.settings, recover=False)  # serve() recovered
                    self._lost = False
        return self._store

    def lost(self) -> None:
        """The database stopped answering: drop the connection, reconnect on a later request."""
        self._lost = True  # before closing: a request in between must not start the engine again
        self.close()

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                try:
                    self._store.close()
                finally:
                    self._store = None


class PageCache:
    """At most ``size`` results (0 turns caching off), shared: callers must not change them."""

    def __init__(self, size: int):
        self._entries = LRUCache(maxsize=size) if size > 0 else None
        if self._entries is not None:
            self._lookup = remember(self._entries, key=lambda key, compute: key,
                                    condition=threading.Condition())(lambda key, compute: compute())

    def get(self, analysis: dict | None, key: tuple, compute):
        """``compute()``, remembered under ``key`` for the published ``analysis`` (a row of
        ``cypher/analyses.cypher`` with status complete); None: an unpublished one, not cached."""
        if self._entries is None or analysis is None or analysis.get("status") != "complete":
            return compute()
        return self._lookup((analysis["id"], analysis["created"]) + key, compute)

    def __len__(self) -> int:
        return len(self._entries or ())


def init_app(app) -> None:
    """Give ``app`` its store holder (closed when the process exits), its page cache and its
    background computations."""
    holder = StoreHolder(app.config["SETTINGS"])
    app.extensions["protoxplore"] = holder
    atexit.register(holder.close)
    app.extensions["protoxplore.cache"] = PageCache(app.config["PAGE_CACHE_SIZE"])
    app.extensions["protoxplore.computations"] = Computations(app.config["COMPUTE_WORKERS"],
                                                              app.config["COMPUTED_SIZE"], app.config["SETTINGS"])


def holder(app=None) -> StoreHolder:
    return (app or current_app).extensions["protoxplore"]


def get_store(app=None):
    """The app's store (opened on first use)."""
    return holder(app).get()


def close_store(app) -> None:
    """Close the app's store and end its computing processes."""
    app.extensions["protoxplore.computations"].close()
    holder(app).close()


def all_analyses() -> list[dict]:
    """The published analyses, read once per request (never cached: a delete or load shows at once)."""
    if "analyses" not in g:
        g.analyses = catalog.analyses(get_store())
    return g.analyses


def published(aid: str) -> dict | None:
    """The published analysis ``aid`` (this request's list), None when it is not one."""
    return catalog.analysis_row(all_analyses(), aid)


def cached(a: dict | None, key: tuple, compute):
    """``compute()`` remembered for the published analysis ``a`` (see ``PageCache``)."""
    return current_app.extensions["protoxplore.cache"].get(a, key, compute)


def computed(a: dict, key: tuple, function, *args, **kwargs):
    """``function(*args, **kwargs)``'s result for the published analysis ``a``, or None while it is
    computed in the background (see ``Computations``). It runs in another process: it gets what it
    needs (``WORKER_STORE`` for the store, the analysis and victim rows) as arguments, not from
    Flask's ``g`` or ``current_app``."""
    return current_app.extensions["protoxplore.computations"].get(a, key, function, *args, **kwargs)


def run(name: str, params: dict | None = None, **more) -> list[dict]:
    """Run a Cypher file that reads (read transaction) with parameters; results about a published
    analysis are cached, the list of analyses is always read afresh (a deleted one is a 404)."""
    params = dict(params or {}, **more)
    if "analysis" not in params:
        return get_store().run(name, params)
    return cached(published(params["analysis"]), ("run", name, tuple(sorted(params.items()))),
                  lambda: get_store().run(name, params))


class _Reader:
    """The store as the service layer reads it (``run(name, params)``), through the page cache."""

    def run(self, name: str, params: dict | None = None) -> list[dict]:
        return run(name, params)


READER = _Reader()
