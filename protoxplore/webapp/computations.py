"""Long computations off the request threads (the methods page's rankings, the what-if, Hound's
topics, PerfXplain's explanations: seconds each, a minute at paper scale). ``db.computed`` starts
one in the background, at most once per key, in a process of its own, and answers None until it is
done; the page shows "computing" and asks again (see ``Computations``).
"""
from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import threading
from concurrent.futures import Future

from cachetools import LRUCache

from protoxplore.errors import ComputationLost
from protoxplore.settings import Settings
from protoxplore.storage.store import open_store


class _Started(LRUCache):
    """Computations by key, least recently asked for dropped first; a dropped one still queued is
    cancelled, so the queue is never longer than the cache."""

    def popitem(self):
        key, future = super().popitem()
        future.cancel()  # no effect on a running one: it finishes, unseen
        return key, future


COMPUTE_NICENESS = 10
"""How much lower the computing processes run than the server (``os.nice``): pages come first."""


class WORKER_STORE:
    """In a computation's arguments: the store of the process that computes it (its own connection)."""


def _serve_computations(conn, settings: Settings) -> None:
    """A computing process's loop: run each ``(function, args, kwargs)`` it is sent, answer
    ``(True, result)`` or ``(False, error)``. It opens its store when a call first needs one, and
    drops it after an error (a lost connection must not fail every later computation)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C on `serve` is the server's to handle
    # Below the server: on two cores, a what-if of half a minute at the server's priority made the
    # overview served meanwhile 1.5x to 2x slower (bench/bench_webapp.py, "overview, meanwhile").
    os.nice(COMPUTE_NICENESS)
    store = None
    while True:
        try:
            function, args, kwargs = conn.recv()
        except EOFError:  # the server is gone
            return
        try:
            if any(arg is WORKER_STORE for arg in args):
                if store is None:
                    store = open_store(settings, recover=False)  # reads: serve() recovered
                args = tuple(store if arg is WORKER_STORE else arg for arg in args)
            answer = (True, function(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - handed to the requests that ask for it
            if store is not None:
                store.close()
                store = None
            answer = (False, exc)
        try:
            conn.send(answer)
        except Exception as exc:  # noqa: BLE001 - a result or error that does not pickle
            conn.send((False, RuntimeError(f"{type(exc).__name__}: {exc}")))


class _Process:
    """One computing process, started on first use (spawned: a fresh interpreter, no copy of the
    server's threads) and again after it died."""

    def __init__(self, settings: Settings):
        self._settings = settings
        self._process = None
        self._conn = None
        # The pipe is used by one worker thread (``call``); ``stop`` comes from another (close_store).
        # While a call is under way, stop only ends the process and the call closes the pipe: a pipe
        # closed by one thread while another reads it, or closed twice, lets its descriptor number,
        # reused meanwhile by a server's socket, be read or closed under that socket (CI: waitress's
        # trigger, "Bad file descriptor").
        self._lock = threading.Lock()
        self._busy = False

    def call(self, function, args: tuple, kwargs: dict):
        with self._lock:
            old = None
            if self._process is None or not self._process.is_alive():
                old = (self._process, self._conn)
                context = multiprocessing.get_context("spawn")
                self._conn, child = context.Pipe()
                self._process = context.Process(target=_serve_computations, args=(child, self._settings),
                                                name="protoxplore-compute", daemon=True)  # ended when the server exits
                self._process.start()
                child.close()
            conn, self._busy = self._conn, True
        if old is not None:
            _end(*old)
        lost = None
        try:
            conn.send((function, args, kwargs))
            ok, value = conn.recv()
        except (EOFError, OSError) as exc:
            lost = exc
        finally:  # also when a result does not unpickle
            with self._lock:
                self._busy = False
                ended = lost is not None or self._process is None  # died, or stop() ended it meanwhile
                if ended:
                    process, self._process, self._conn = self._process, None, None
            if ended:
                _end(process, conn)
        if lost is not None:
            raise ComputationLost("the process computing this stopped before it answered; "
                                  "reload the page to compute it again") from lost
        if not ok:
            raise value
        return value

    def stop(self) -> None:
        with self._lock:
            process, self._process = self._process, None
            conn = None if self._busy else self._conn  # else the call under way closes it
            if not self._busy:
                self._conn = None
        _end(process, conn)


def _end(process, conn) -> None:
    """End a computing process and close its pipe (either may be None)."""
    if process is not None:
        process.terminate()
        process.join(5)
    if conn is not None:
        conn.close()


class Computations:
    """Long computations run off the request threads, each once (single flight), in processes of
    their own.

    ``computed(a, key, function, *args)`` asks for ``function(*args)`` (a module-level function and
    picklable arguments; ``WORKER_STORE`` among them stands for a store). ``workers`` threads hand the
    calls, one at a time each, to a process of their own: a computation of a minute holds neither
    the server's interpreter lock nor its store's connection, so the pages served meanwhile do not
    wait for it. The last ``size`` results are kept, keyed like the page cache (analysis id and
    creation time, so a delete or re-load never serves an old result). A request for a key not
    started yet starts it; concurrent requests for the same key find the same computation and never
    start another. A failed computation is not remembered: its error reaches the requests that see
    it fail, and the next request starts it again. The threads are daemons and the processes are
    ended when the server exits: a computation under way (it only reads) never holds up the exit.
    """

    def __init__(self, workers: int, size: int, settings: Settings | None = None):
        self._workers: list[threading.Thread] = []
        self._processes: list[_Process] = []
        self._most = workers
        self._settings = settings
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._started = _Started(maxsize=size)
        self._lock = threading.Lock()
        self.runs = 0  # computations started, for the tests and the benchmark

    def get(self, analysis: dict, key: tuple, function, *args, **kwargs):
        """``function(*args, **kwargs)``'s result for the published ``analysis`` if it is done, else
        None (started in the background if no one started it)."""
        key = (analysis["id"], analysis["created"]) + key
        with self._lock:
            future: Future | None = self._started.get(key)
            if future is None or future.cancelled():
                future = self._started[key] = self._submit((function, args, kwargs))
                self.runs += 1
        if not future.done() or future.cancelled():  # cancelled: dropped while queued, asked again
            return None
        if future.exception() is not None:
            with self._lock:
                if self._started.get(key) is future:
                    del self._started[key]
        return future.result()

    def _submit(self, call: tuple) -> Future:
        future: Future = Future()
        self._queue.put((future, call))
        if len(self._workers) < self._most:
            process = _Process(self._settings)
            worker = threading.Thread(target=self._work, args=(process,), name="protoxplore-compute", daemon=True)
            worker.start()
            self._workers.append(worker)
            self._processes.append(process)
        return future

    def _work(self, process: _Process) -> None:
        while True:
            future, call = self._queue.get()
            if future.set_running_or_notify_cancel():  # False: cancelled while queued
                try:
                    future.set_result(process.call(*call))
                except BaseException as exc:  # noqa: BLE001 - handed to the requests that ask for it
                    future.set_exception(exc)

    def close(self) -> None:
        """End the computing processes (a computation under way is lost; its requests see an error)."""
        for process in self._processes:
            process.stop()
