"""What the web app's tests share: the workloads they load (the demo, and one with hostile names and
descriptions), reading pages through Flask's test client, and the app served by Waitress for a real
headless browser. Fixtures over these are in conftest.py."""
from __future__ import annotations

import dataclasses
import html
import json
import os
import re
import shutil
import threading
import time
from pathlib import Path
from urllib.parse import quote

import pytest

from protoxplore.evaluation import synth
from protoxplore.service import pipeline
from protoxplore.settings import Settings
from protoxplore.storage import queries
from protoxplore.storage.store import open_store
from protoxplore.webapp import create_app, make_server

PAYLOADS = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "{{7*7}}",
            "SELECT * FROM t WHERE name = 'O''Brien' AND note = \"x\" -- ';"]
RAW = ["<script>alert(1)</script>", "<img src=x onerror", "<svg onload", "<img src=y onerror", "{% if", "<b>bold"]


def load(base: Settings, graph: str, queries_, cluster, app_name: str = "synthetic") -> tuple[Settings, str]:
    """Load a simulated workload into ``graph`` of the engine of ``base`` (the graph name is
    ignored on Neo4j); the settings of that graph, and the analysis id."""
    settings = dataclasses.replace(base, graph=graph)
    logdir = settings.home / f"logs-{graph}"
    logdir.mkdir()
    synth.write_event_log(synth.simulate(queries_, cluster), cluster, logdir / "eventlog", app_name=app_name,
                          app_id=f"app-{graph}")
    with open_store(settings) as store:
        store.apply_schema()
        analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(logdir / "eventlog"),)), settings.home, pipeline.QUIET)
    return settings, analysis


def hostile_workload():
    qs, cluster = synth.demo_workload()
    out = []
    for i, q in enumerate(qs):
        stages = tuple(dataclasses.replace(s, name=f"<img src=y onerror=alert({i})> {s.name}") for s in q.stages)
        out.append(dataclasses.replace(q, description=f"{PAYLOADS[i % 4]} {q.description} {PAYLOADS[(i + 1) % 4]}",
                                       stages=stages))
    return out, cluster


def get(client, url: str, status: int = 200) -> str:
    response = client.get(url)
    text = response.get_data(as_text=True)
    assert response.status_code == status, (url, response.status_code, text[:2000])
    return text


def computed(client, url: str, status: int = 200, seconds: float = 300) -> str:
    """``get`` of a page or fragment that computes in the background: asked again (as the page's
    script does) while it answers 202 "computing", until it answers ``status``."""
    deadline = time.monotonic() + seconds
    while True:
        response = client.get(url)
        if response.status_code != 202 and "Refresh" not in response.headers:
            text = response.get_data(as_text=True)
            assert response.status_code == status, (url, response.status_code, text[:2000])
            return text
        assert time.monotonic() < deadline, f"{url} still computing after {seconds} s"
        time.sleep(0.1)


def victims(app, analysis):
    with app.app_context():
        from protoxplore.webapp import get_store
        return get_store().run("victims", {"analysis": analysis, "k": 100})


def victim_url(analysis: str, uid: str, suffix: str = "") -> str:
    return f"/analysis/{analysis}/victim/{quote(uid, safe='/')}{suffix}"


def figures(text: str) -> list[dict]:
    """Every embedded figure parses as JSON and has data."""
    found = re.findall(r'<script type="application/json" id="fig-[^"]+">(.*?)</script>', text, re.S)
    figs = [json.loads(f) for f in found]
    assert all(f["data"] for f in figs)
    return figs


def walk_links(text: str) -> list[tuple[int, str]]:
    return [(int(level), html.unescape(href))
            for level, href in re.findall(r'class="drill" data-level="(\d)" href="([^"]*)"', text)]


def params_for(app, analysis: str, name: str) -> dict:
    victim = next(v for v in victims(app, analysis) if "nightly-report" in v["description"])
    with app.app_context():
        from protoxplore.webapp import get_store
        culprit = get_store().run("aggressive_culprits", {"analysis": analysis})[0]["uid"]
    values = {"analysis": analysis, "victim": victim["uid"], "node": victim["uid"], "culprit": culprit,
              "text": "nightly", "level": "2", "k": "5", "status": "complete", "order": "slowdown",
              "cause": "cpu", "sign": "+", "min_weight": "0.1"}
    return {p.name: values[p.name] for p in queries.load(name).parameters}


def hostile_pages(client, app, analysis) -> list[str]:
    urls = ["/", f"/analysis/{analysis}", "/queries"]
    for v in victims(app, analysis):
        url = victim_url(analysis, v["uid"])
        urls += [url, victim_url(analysis, v["uid"], "/methods"), victim_url(analysis, v["uid"], "/methods?column=all")]
        for _ in range(6):
            text = get(client, url)
            links = walk_links(text)
            if not links:
                break
            url = links[0][1]
            urls.append(url)
    text = get(client, f"/analysis/{analysis}")
    urls += [html.unescape(h) for h in re.findall(r'class="culprit-link" href="([^"]*)"', text)]
    for name in queries.names("canned"):
        params = params_for(app, analysis, name) if name != "find_victim" else {"analysis": analysis, "text": "a"}
        urls.append(f"/queries/{name}?" + "&".join(f"{k}={quote(str(v))}" for k, v in params.items()))
    return urls + [victim_url(analysis, v["uid"], "/whatif?fragment=1") for v in victims(app, analysis)]


ROOT = Path(__file__).resolve().parents[1]
BROWSER = ROOT / "tests" / "browser"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def require_browser() -> None:
    missing = [what for what, ok in (("chromium", Path(CHROMIUM).exists()),
                                     ("node", shutil.which("node") is not None),
                                     ("tests/browser/node_modules", (BROWSER / "node_modules" / "playwright-core").exists()))
               if not ok]
    if missing:
        message = f"{', '.join(missing)} missing: run tests/browser/install.sh"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


class Running:
    """The app served by Waitress on a free 127.0.0.1 port, in a thread (an app of its own, on the
    same store: serving binds the app to that port, while the test clients use plain localhost)."""

    def __init__(self, app):
        self.app = create_app({key: app.config[key] for key in ("SETTINGS", "NEO4J_BROWSER_URL", "TESTING")})
        self.server = make_server("127.0.0.1", 0, app=self.app)
        self.base = f"http://127.0.0.1:{self.server.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        """Close the server from its own loop, and wait for the loop to return. Closing its sockets
        from this thread too raced the loop's close: a descriptor closed twice, reused meanwhile by
        the next test's server, failed it with "Bad file descriptor" (CI, 2026-11-26)."""
        self.server.shutdown()
        self.thread.join(30)
        assert not self.thread.is_alive(), "the server's loop did not return after shutdown"


# Computations run in a process of their own (webapp.computations.Computations): what the tests hand them must
# be module-level functions, so they are here. Files say when a computation started and let it go.

def wait_for_file(started: str, release: str) -> str:
    """Say it started (``started`` appears), then wait until ``release`` appears."""
    Path(started).touch()
    deadline = time.monotonic() + 30
    while not Path(release).exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return "first"


def same(value):
    return value


def process_id() -> int:
    return os.getpid()


def exit_at_once() -> None:
    """The computing process dies mid-computation (as when killed or out of memory)."""
    os._exit(9)
