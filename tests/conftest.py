"""Shared fixtures: the real engines, started once per test session in temporary homes.

Every test that asks for ``store`` (or ``settings``) runs twice: on the embedded FalkorDB engine and
on a Neo4j 5 server started by ``tools/neo4j/run.sh``. A test about one engine only says so with
``@pytest.mark.parametrize("engine", ["falkordb"], indirect=True)``. The Neo4j runs, and tests that
take more than a second, are marked ``slow``: ``pytest -m "not slow"`` is the inner loop.

The web app's workloads (the demo, and one with hostile names) are session fixtures here too, so
that the page tests and the browser tests share them; helpers live in ``web.py``, ``logs.py``,
``handmade.py`` and ``bombs.py`` (no test module imports another).
"""
from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from protoxplore.cli.commands import main
from protoxplore.evaluation.synth import demo_workload
from protoxplore.settings import Settings
from protoxplore.storage.embedded import EmbeddedEngine
from protoxplore.storage.store import open_store
from protoxplore.webapp import close_store, create_app

from commands import printed
from handmade import NIGHTLY_CONDITIONS, nightly_run
from web import hostile_workload, load

ROOT = Path(__file__).resolve().parents[1]
RUN_NEO4J = ROOT / "tools" / "neo4j" / "run.sh"
ENGINES = ["falkordb", "neo4j"]

# A shell starts a background job (`.ci/run &`) with SIGINT ignored, and an ignored signal stays
# ignored in every process started from it: the tests that stop a load, a delete, a watch or a
# server with Ctrl-C (SIGINT) then failed, and the watches they started ran on. With a handler
# here, the processes the tests start get SIGINT's default action again.
signal.signal(signal.SIGINT, signal.default_int_handler)
# A load's memory budget (protoxplore/budget.py) is the whole process's resident memory: in the test
# session's own process that is every test's, not a load's. Off here and in the processes the tests
# start; tests/test_input_limits.py sets it where it is what is tested.
os.environ["PROTOXPLORE_LOAD_MEMORY_MIB"] = "0"


@dataclass(frozen=True)
class Neo4jServer:
    bolt: str
    browser: str
    user: str
    password: str


@pytest.fixture(scope="session")
def home(tmp_path_factory):
    path = tmp_path_factory.mktemp("home")
    yield path
    EmbeddedEngine(path).stop()


@pytest.fixture(scope="session")
def neo4j_server(tmp_path_factory) -> Neo4jServer:
    """The launcher's Neo4j server. `.ci/run` starts it once and names its home in
    PROTOXPLORE_TEST_NEO4J_HOME; otherwise this session starts one in a temporary home and stops it."""
    home = os.environ.get("PROTOXPLORE_TEST_NEO4J_HOME") or str(tmp_path_factory.mktemp("neo4j"))
    password = os.environ.get("PROTOXPLORE_NEO4J_PASSWORD") or "protoxplore"
    env = dict(os.environ, PROTOXPLORE_NEO4J_HOME=home, PROTOXPLORE_NEO4J_PASSWORD=password)
    started = subprocess.run(["bash", str(RUN_NEO4J)], env=env, capture_output=True, text=True, timeout=1800)
    if started.returncode != 0:
        pytest.fail(f"tools/neo4j/run.sh could not start Neo4j: {started.stderr.strip()}", pytrace=False)
    bolt, browser = started.stdout.split()
    yield Neo4jServer(bolt, browser, "neo4j", password)
    if "already runs" not in started.stderr:  # stop only what this session started
        subprocess.run(["bash", str(RUN_NEO4J), "stop"], env=env, capture_output=True, timeout=120)


@pytest.fixture(scope="session", params=ENGINES)
def engine(request) -> str:
    return request.param


def pytest_collection_modifyitems(items):
    """The Neo4j half of every test is slow (the server builds and starts in minutes): the inner loop,
    `pytest -m "not slow"`, runs each test on the embedded engine only. The tests whose work runs in
    the background (``BACKGROUND``) run last."""
    for item in items:
        if getattr(item, "callspec", None) is not None and item.callspec.params.get("engine") == "neo4j":
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.neo4j)
        elif "neo4j_server" in item.fixturenames:
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.neo4j)
    items.sort(key=lambda item: item.name in BACKGROUND)  # stable: the rest keep their order


# ------------------------------------------------------------------ work done in the background

def simulated_sweep():
    """The sweep docs/evaluation.md quotes: seed 0, 100 workloads of the plain fluid model."""
    from protoxplore.evaluation import evaluate
    return evaluate.simulated_sweep(100, seed=0, say=lambda m: None, generator="fluid")


def short_soak() -> subprocess.CompletedProcess:
    """bench/soak_kill.py at a small scale: 5 kills on an embedded engine in a directory of its own."""
    return subprocess.run([sys.executable, str(ROOT / "bench" / "soak_kill.py"), "--kills", "5", "--seed", "5"],
                          capture_output=True, text=True, timeout=900)


#: Tests whose work touches no engine, port or file of the session, and takes minutes: it starts
#: right after collection in a process of its own, at nice 10 (it takes the core the tests leave
#: idle and yields to them, so timed tests are not slowed), and its test, run last, takes the result.
BACKGROUND = {"test_simulated_sweep_protograph_beats_overlap_baselines": simulated_sweep,
              "test_a_short_soak_passes[falkordb]": short_soak}
STARTED = pytest.StashKey()


def pytest_collection_finish(session):
    work = [BACKGROUND[item.name] for item in session.items if item.name in BACKGROUND]
    if session.config.option.collectonly or not work:
        return
    pool = multiprocessing.get_context("spawn").Pool(1, initializer=os.nice, initargs=(10,))
    session.config.stash[STARTED] = pool, {job: pool.apply_async(job) for job in work}


def pytest_sessionfinish(session):
    if STARTED in session.config.stash:
        session.config.stash[STARTED][0].terminate()


@pytest.fixture()
def background(request):
    """What this test's job of ``BACKGROUND`` returned, computed since the session started."""
    _, started = request.config.stash[STARTED]
    return started[BACKGROUND[request.node.name]].get(timeout=1800)


@pytest.fixture(scope="session")
def settings(home, engine, request) -> Settings:
    if engine == "neo4j":
        server = request.getfixturevalue("neo4j_server")
        return Settings.from_env(home=home, neo4j_uri=server.bolt, neo4j_user=server.user,
                                 neo4j_password=server.password, neo4j_database="neo4j", graph="protoxplore")
    return Settings.from_env(home=home, neo4j_uri="", graph="protoxplore")


@pytest.fixture(scope="module")
def engine_env(settings) -> Settings:
    """The environment a user sets to point the CLI at the test's engine (empty URI: embedded)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PROTOXPLORE_NEO4J_URI", settings.neo4j_uri)
        patch.setenv("PROTOXPLORE_NEO4J_USER", settings.neo4j_user)
        patch.setenv("PROTOXPLORE_NEO4J_PASSWORD", settings.neo4j_password)
        patch.setenv("PROTOXPLORE_NEO4J_DATABASE", settings.neo4j_database)
        yield settings


@pytest.fixture(scope="session")
def store(settings):
    s = open_store(settings)
    s.apply_schema()
    yield s
    s.close()


@pytest.fixture(scope="module")
def nightly_home(engine_env, tmp_path_factory):
    """Makes homes of their own holding analyses of the nightly report of tests/handmade.py:
    ``make(name, firsts, runs)`` loads, for each first run of ``firsts``, runs first..first+runs-1
    (run i under NIGHTLY_CONDITIONS[i % 4]) as the analysis ``{name}-{first}``, and returns the home
    and those analyses' ids in order. Their engines stop with the module."""
    homes = []

    def make(name: str, firsts: tuple[int, ...], runs: int):
        home = tmp_path_factory.mktemp(f"{name}-home")
        homes.append(home)
        for first in firsts:
            logs = tmp_path_factory.mktemp(f"{name}-{first}")
            for i in range(first, first + runs):
                nightly_run(logs, i, *NIGHTLY_CONDITIONS[i % 4])
            printed("load", logs, "--name", f"{name}-{first}", "--home", home)
        # (a Neo4j server is shared by the session's modules: only these analyses)
        listed = {a["name"]: a["id"] for a in json.loads(printed("analyses", "--json", "--home", home))}
        return home, [listed[f"{name}-{first}"] for first in firsts]

    yield make
    for home in homes:
        main(["engine", "stop", "--home", str(home)])  # on Neo4j: refused, nothing to stop


# ------------------------------------------------------------------ the web app's workloads

@pytest.fixture(scope="session")
def web_home(tmp_path_factory, engine):
    path = tmp_path_factory.mktemp(f"webhome-{engine}")
    yield path
    EmbeddedEngine(path).stop()


@pytest.fixture(scope="session")
def web_settings(web_home, settings) -> Settings:
    """The engine's settings, with the web tests' home (logs, saved traces, the embedded engine)."""
    return dataclasses.replace(settings, home=web_home)


@pytest.fixture(scope="session")
def demo(web_settings):
    settings, analysis = load(web_settings, "webdemo", *demo_workload())
    app = create_app({"SETTINGS": settings, "TESTING": True})
    yield app, analysis
    close_store(app)


@pytest.fixture(scope="session")
def hostile(web_settings):
    qs, cluster = hostile_workload()
    settings, analysis = load(web_settings, "webhostile", qs, cluster, app_name="<svg onload=alert(9)><b>bold")
    app = create_app({"SETTINGS": settings, "TESTING": True})
    yield app, analysis
    close_store(app)
