"""One writer per analysis at a time, across processes: a file lock ``<home>/locks/<id>.lock`` held for
a whole load, window derivation or delete, with the writer's name (``host:pid:home``) in it. The
kernel drops the lock when its process dies, even by kill -9; a writer of another home sharing a Neo4j
server is gone once its process is (:func:`dead`)."""
from __future__ import annotations

import fcntl
import hashlib
import os
import re
import socket
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Callable

#: The home whose lock this thread holds (set by :func:`writing`): a writer's name says its home.
WRITING_HOME: ContextVar[str | None] = ContextVar("protoxplore_writing_home", default=None)


def home_id(home: Path) -> str:
    return hashlib.sha256(str(Path(home).expanduser().resolve()).encode()).hexdigest()[:8]


def writer_name() -> str:
    """``host:pid:home`` (the home while holding :func:`writing`'s lock, else ``host:pid``)."""
    home = WRITING_HOME.get()
    return f"{socket.gethostname()}:{os.getpid()}" + (f":{home}" if home else "")


def dead(writer: str | None, home: str | None) -> bool:
    """Whether the writer of an unfinished analysis is gone; call it holding the analysis' lock in
    the home ``home`` (its id).

    Holding the lock proves that no process writes it *from this home*, so a writer of this home is
    gone (a process's own failed write included). Homes that share a Neo4j server lock in
    different directories: a writer of another home on this machine is gone only when its process
    is. A writer on another machine is never taken for dead.
    """
    if writer is None:
        return True
    host, pid, its_home = (writer.split(":") + [None, None])[:3]  # host:pid[:home[:write]]
    if host != socket.gethostname():
        return False
    return (home is not None and its_home == home) or not (pid or "").isdigit() or process_gone(int(pid))


def process_gone(pid: int) -> bool:
    """Whether process ``pid`` no longer runs (a zombie, killed but not yet reaped, writes no more)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # another user's process
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def _lock_path(home: Path, analysis: str) -> Path:
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", analysis):  # ids name files: never a path
        raise ValueError(f"not an analysis id: {analysis!r}")
    directory = Path(home) / "locks"
    directory.mkdir(parents=True, exist_ok=True)
    return directory / f"{analysis}.lock"


@contextmanager
def writing(home: Path, analysis: str, say: Callable[[str], None] = print):
    """Hold the one-writer lock of ``analysis``; wait (saying so) while another process holds it."""
    fd = os.open(_lock_path(home, analysis), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 100, 0).decode(errors="replace").strip() or "?"
            say(f"waiting for another process ({holder}) that writes analysis {analysis}")
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        token = WRITING_HOME.set(home_id(home))
        try:
            os.pwrite(fd, writer_name().encode(), 0)
            yield
        finally:
            WRITING_HOME.reset(token)
    finally:
        os.close(fd)  # releases the lock


@contextmanager
def unless_written(home: Path, analysis: str):
    """Whether ``analysis``'s lock (or a watch's: :func:`watch_lock`) was free: it is held (no
    process of this home writes it) until the block ends, with this process's name in it
    (:func:`holder`)."""
    fd = os.open(_lock_path(home, analysis), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.ftruncate(fd, 0)
        os.pwrite(fd, writer_name().encode(), 0)
        free = True
    except BlockingIOError:
        free = False
    try:
        yield free
    finally:
        os.close(fd)  # releases the lock


def holder(home: Path, analysis: str) -> str:
    """The name (``host:pid``...) of the process that last took ``analysis``'s lock."""
    try:
        return _lock_path(home, analysis).read_text(errors="replace").strip() or "?"
    except OSError:
        return "?"
