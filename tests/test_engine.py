"""The embedded engine never splits and cleans up after crashes, tested with real servers and
real signals (SIGSTOP for a server too slow to answer, kill -9 for one that dies)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace

import pytest

from protoxplore.errors import StoreError
from protoxplore.storage import embedded
from protoxplore.storage.embedded import EmbeddedEngine
from protoxplore.storage.store import FalkorStore

pytestmark = pytest.mark.slow  # engine servers started, killed and waited for


def servers(engine: EmbeddedEngine) -> set[int]:
    """Pids of the redis-server processes working in this engine's data directory (not their save children)."""
    found = set()
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and os.readlink(f"/proc/{entry}/cwd") == str(engine.dir):
                found.add(int(entry))
        except OSError:
            continue
    children = {p for p in found if int(open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1]) in found}
    return found - children


def exited(pid: int) -> bool:
    """Gone, or a zombie that no init reaps (in a container)."""
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.fixture
def own(tmp_path, engine, request):
    """A private home with its own engine, stopped at the end."""
    if engine == "neo4j":
        pytest.skip("the embedded engine's own tests (Neo4j's launcher: tests/test_neo4j_server.py)")
    settings = request.getfixturevalue("settings")
    notes: list[str] = []
    engine = EmbeddedEngine(tmp_path, say=notes.append)
    yield replace(settings, home=tmp_path), engine, notes
    if engine.alive():
        pid = engine.pid()
        if pid:
            os.kill(pid, signal.SIGCONT)
        engine.stop()


def test_a_slow_server_is_waited_for_never_replaced(own):
    settings, engine, _ = own
    engine.start()
    pid = engine.pid()
    os.kill(pid, signal.SIGSTOP)  # answers nothing, like a server busy with a long SAVE
    try:
        command = subprocess.Popen([sys.executable, "-m", "protoxplore.cli", "analyses", "--home", str(settings.home)],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        watchdog = threading.Timer(60, command.kill)  # a command that never waits fails the test, not hangs it
        watchdog.start()
        said = command.stderr.readline()  # comes after 5 s without an answer: past the old 2 s that replaced it
        watchdog.cancel()
        assert "waiting for the FalkorDB server" in said, said
        assert command.poll() is None, "the command gave up on a live server"
        assert engine.socket.exists(), "the live server's socket was unlinked"
        assert servers(engine) == {pid}
    finally:
        os.kill(pid, signal.SIGCONT)
    out, err = command.communicate(timeout=60)
    assert command.returncode == 0, err
    assert servers(engine) == {pid} and engine.pid() == pid


def test_a_server_that_hangs_as_it_starts_is_killed_and_started_again(own, monkeypatch):
    """Once in CI a server deadlocked as it started and every command then waited 300 s for it. A
    server this command launched that never replied at all is killed and launched again; the data
    saved before is there (it had accepted no write)."""
    settings, engine, notes = own
    store = FalkorStore(settings)
    store.run_text("CREATE (:Probe {v: 7})", write=True)
    store.save()
    store.close()
    engine.stop()
    launched = []

    class HangsOnce(EmbeddedEngine):
        def _launch(self):
            super()._launch()
            while self.pid() is None:  # the daemon writes its pidfile as it starts
                time.sleep(0.01)
            launched.append(self.pid())
            if len(launched) == 1:
                os.kill(self.pid(), signal.SIGSTOP)  # silent from its first moment, as the one in CI

    monkeypatch.setattr(embedded, "SILENT_START_S", 3.0)
    HangsOnce(settings.home, say=notes.append).start()
    assert len(launched) == 2 and exited(launched[0]), launched
    assert servers(engine) == {launched[1]} == {engine.pid()}
    assert any(f"(pid {launched[0]}) hung as it started" in n and "killed and started again" in n for n in notes), notes
    store = FalkorStore(settings)
    try:
        assert store.run_text("MATCH (p:Probe) RETURN p.v AS v") == [{"v": 7}]
    finally:
        store.close()


def test_concurrent_starts_and_restarts_give_one_server(own):
    settings, engine, _ = own
    code = "import sys; from protoxplore.storage.embedded import EmbeddedEngine; EmbeddedEngine(sys.argv[1]).start()"
    for _round in range(2):  # the second round starts again after a kill -9
        procs = [subprocess.Popen([sys.executable, "-c", code, str(settings.home)]) for _ in range(4)]
        assert [p.wait(timeout=60) for p in procs] == [0] * 4
        running = servers(engine)
        assert len(running) == 1 and running == {engine.pid()}
        os.kill(engine.pid(), signal.SIGKILL)
        while engine.alive():
            time.sleep(0.05)


def test_a_killed_server_restarts_from_its_dump_and_its_leftovers_go(own):
    settings, engine, notes = own
    store = FalkorStore(settings, say=notes.append)
    store.run_text("CREATE (:Probe {v: 42})", write=True)
    store.save()
    store.run_text("CREATE (:Probe {v: 43})", write=True)  # not saved: lost with the server, as documented
    old = engine.pid()
    os.kill(old, signal.SIGKILL)
    while engine.alive():
        time.sleep(0.05)
    (engine.dir / "temp-4242.rdb").write_bytes(b"half a dump")  # what a server killed mid-save leaves
    assert engine.pidfile.exists() and engine.socket.exists()  # stale: their owner is dead

    with pytest.raises(StoreError) as failure:
        store.run_text("MATCH (p:Probe) RETURN p.v AS v")
    message = str(failure.value)
    assert "\n" not in message and "is not running" in message and "run `protoxplore engine start --home " in message

    store = FalkorStore(settings, say=notes.append)
    try:
        assert store.run_text("MATCH (p:Probe) RETURN p.v AS v") == [{"v": 42}]
    finally:
        store.close()
    assert not (engine.dir / "temp-4242.rdb").exists()
    assert engine.pid() != old and servers(engine) == {engine.pid()}
    assert any("temp-4242.rdb" in n and "falkordb.pid" in n and "falkordb.sock" in n for n in notes), notes


def test_stop_waits_for_the_server_to_exit(own):
    _, engine, _ = own
    engine.start()
    pid = engine.pid()
    assert engine.stop()
    assert not engine.alive() and exited(pid)
    assert not engine.stop()  # nothing left to stop
