"""The Neo4j 5 server of tools/neo4j/run.sh and the connection to it: 127.0.0.1 only, Neo4j Browser
served, authentication on, and a wrong URI, password or a silent server fails fast and clearly."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import urllib.request
from dataclasses import replace
from pathlib import Path

import pytest

from protoxplore.errors import StoreError
from protoxplore.settings import Settings
from protoxplore.storage.store import open_store

pytestmark = pytest.mark.slow  # starts and restarts a Neo4j server

RUN_NEO4J = Path(__file__).resolve().parents[1] / "tools" / "neo4j" / "run.sh"


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def test_listens_on_127_0_0_1_and_serves_browser(neo4j_server):
    for url in (neo4j_server.bolt, neo4j_server.browser):
        assert url.startswith(("bolt://127.0.0.1:", "http://127.0.0.1:")), url
    page = urllib.request.urlopen(neo4j_server.browser, timeout=10).read().decode()
    assert "Neo4j Browser" in page
    # Browser connects to the Bolt address the server advertises: it must be the printed one.
    discovery = json.load(urllib.request.urlopen(neo4j_server.browser.replace("/browser/", "/"), timeout=10))
    assert discovery["bolt_direct"] == neo4j_server.bolt and discovery["neo4j_version"].startswith("5.26.")
    listening = subprocess.run(["ss", "-ltnH"], capture_output=True, text=True).stdout
    for port in (port_of(neo4j_server.bolt), port_of(neo4j_server.browser)):
        addresses = [line.split()[3] for line in listening.splitlines() if line.split()[3].endswith(f":{port}")]
        assert addresses and all("127.0.0.1" in a for a in addresses), addresses


def neo4j_settings(neo4j_server, **changes) -> Settings:
    base = Settings.from_env(neo4j_uri=neo4j_server.bolt, neo4j_user=neo4j_server.user,
                             neo4j_password=neo4j_server.password, neo4j_database="neo4j")
    return replace(base, **changes)


def opening_fails(settings: Settings) -> tuple[float, str]:
    """Open a store in a fresh interpreter (imports done: the connection alone is timed), return
    seconds and the error."""
    code = ("import sys, time\n"
            "from protoxplore.storage.store import open_store, StoreError\nfrom protoxplore.settings import Settings\n"
            "import neo4j\nt = time.monotonic()\n"
            "try: open_store(Settings.from_env(neo4j_uri=sys.argv[1], neo4j_password=sys.argv[2]))\n"
            "except StoreError as e: print(round(time.monotonic() - t, 2)); print(e)")
    out = subprocess.run([sys.executable, "-c", code, settings.neo4j_uri, settings.neo4j_password],
                         capture_output=True, text=True, timeout=60).stdout.splitlines()
    assert len(out) == 2, out  # seconds, then a one-line message
    return float(out[0]), out[1]


def test_right_password_connects(neo4j_server):
    with open_store(neo4j_settings(neo4j_server)) as store:
        assert store.run_text("RETURN 1 AS one") == [{"one": 1}]


def test_wrong_password_fails_within_5_s_naming_uri_and_settings(neo4j_server):
    seconds, message = opening_fails(neo4j_settings(neo4j_server, neo4j_password="not-the-password"))
    assert seconds < 5
    assert neo4j_server.bolt in message and "PROTOXPLORE_NEO4J_PASSWORD" in message


def test_nothing_listening_fails_within_5_s(neo4j_server):
    with socket.socket() as probe:  # a port that was just free
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    seconds, message = opening_fails(neo4j_settings(neo4j_server, neo4j_uri=f"bolt://127.0.0.1:{free}"))
    assert seconds < 5 and f"bolt://127.0.0.1:{free}" in message and "PROTOXPLORE_NEO4J_URI" in message


def test_a_server_that_never_answers_fails_within_5_s(neo4j_server):
    # A real process that accepts TCP connections and never speaks Bolt (a hung server).
    silent = subprocess.Popen([sys.executable, "-c",
                               "import socket, time\ns = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
                               "print(s.getsockname()[1], flush=True)\nkept = [s.accept() for _ in range(50)]\n"
                               "time.sleep(600)"], stdout=subprocess.PIPE, text=True)
    try:
        uri = f"bolt://127.0.0.1:{silent.stdout.readline().strip()}"
        seconds, message = opening_fails(neo4j_settings(neo4j_server, neo4j_uri=uri))
        assert seconds < 5 and uri in message and "PROTOXPLORE_NEO4J_URI" in message
    finally:
        silent.kill()
        silent.wait()


def test_not_a_bolt_uri_is_refused(neo4j_server):
    with pytest.raises(StoreError, match="must be a bolt:// or neo4j:// URI, not 'http://127.0.0.1:1'"):
        open_store(neo4j_settings(neo4j_server, neo4j_uri="http://127.0.0.1:1"))


def test_run_sh_reports_the_running_server_and_restarts_with_the_data(neo4j_server, tmp_path):
    # A second server in its own home: start, write, stop, start again, read.
    env = {"PROTOXPLORE_NEO4J_HOME": str(tmp_path / "n"), "PROTOXPLORE_NEO4J_PASSWORD": "second-pass",
           "PROTOXPLORE_NEO4J_HEAP": "512m"}
    def run(*args):
        return subprocess.run(["bash", str(RUN_NEO4J), *args], env=dict(os.environ, **env), capture_output=True,
                              text=True, timeout=300)
    first = run()
    try:
        assert first.returncode == 0, first.stderr
        bolt, browser = first.stdout.split()
        again = run()
        assert again.stdout.split() == [bolt, browser] and "already runs" in again.stderr
        settings = neo4j_settings(neo4j_server, neo4j_uri=bolt, neo4j_password="second-pass")
        with open_store(settings) as store:
            store.run_text("CREATE (:Probe {v: 42})", write=True)
        assert run("stop").returncode == 0
        assert not (tmp_path / "n" / "neo4j.pid").exists()
        second = run()
        assert second.returncode == 0, second.stderr
        with open_store(replace(settings, neo4j_uri=second.stdout.split()[0])) as store:
            assert store.run_text("MATCH (p:Probe) RETURN p.v AS v") == [{"v": 42}]
    finally:
        run("stop")
    assert "not running" in run("stop").stderr


@pytest.mark.parametrize("missing", ["java", "mvn"])
def test_ci_says_clearly_when_java_or_maven_is_missing(tmp_path, missing):
    # A PATH holding only what .ci/run needs before its check, and java when maven is the one missing.
    for tool in ["bash", "dirname"] + (["java"] if missing == "mvn" else []):
        (tmp_path / tool).symlink_to(shutil.which(tool))
    ci = RUN_NEO4J.parents[2] / ".ci" / "run"
    result = subprocess.run([str(tmp_path / "bash"), str(ci)], env={"PATH": str(tmp_path)}, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.startswith(f".ci/run: {missing} not found: install")
