"""The ProtoGraph in a real Neo4j Browser (served by the launcher's Neo4j server) in headless chromium
(tests/browser/neo4j_browser.mjs): the web app prints a deep link per victim; it opens Browser on the
project's guide, which sets the parameters in one click and runs slow nodes, hot resources, the top
paths and the victim's walk, drawn as a graph of the seven levels.

Screenshots go to a temporary folder, or to docs/screenshots/ with PROTOXPLORE_TEST_SCREENSHOTS=1.
"""
from __future__ import annotations

import html
import json
import os
import re
import subprocess
import urllib.error
import urllib.parse
import urllib.request

import pytest

from protoxplore.evaluation import synth
from protoxplore.loader.model import levels
from protoxplore.service import pipeline
from protoxplore.settings import Settings
from protoxplore.storage.store import open_store
from protoxplore.webapp import close_store, create_app
from protoxplore.webapp.guide import SLIDES

from web import BROWSER, ROOT, Running, require_browser

pytestmark = pytest.mark.slow  # Neo4j Browser in chromium

LEVELS = [level.label for level in levels.LEVELS]


@pytest.fixture(scope="module")
def neo4j_app(neo4j_server, tmp_path_factory):
    """The demo workload (known culprit: the ETL scan) in Neo4j, and the web app over it, served."""
    home = tmp_path_factory.mktemp("browserhome")
    settings = Settings.from_env(home=home, neo4j_uri=neo4j_server.bolt, neo4j_user=neo4j_server.user,
                                 neo4j_password=neo4j_server.password, neo4j_database="neo4j")
    queries, cluster = synth.demo_workload()
    path = synth.write_event_log(synth.simulate(queries, cluster), cluster, home / "log")
    with open_store(settings) as store:
        store.apply_schema()
        analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(path),)), home, pipeline.QUIET)
        victim = store.run("victims", {"analysis": analysis, "k": 1})[0]
    app = create_app({"SETTINGS": settings, "NEO4J_BROWSER_URL": neo4j_server.browser, "TESTING": True})
    running = Running(app)
    yield running, analysis, victim
    running.stop()
    close_store(app)


def test_guide_in_neo4j_browser(neo4j_server, neo4j_app, tmp_path):
    require_browser()
    running, analysis, victim = neo4j_app
    page = urllib.request.urlopen(f"{running.base}/neo4j-browser/?analysis={analysis}", timeout=30).read().decode()
    links = [html.unescape(link) for link in re.findall(r'class="neo4j-guide" href="([^"]+)"', page)]
    assert links and all(link.startswith(neo4j_server.browser + "?cmd=play&arg=") for link in links)
    screenshots = ROOT / "docs" / "screenshots" if os.environ.get("PROTOXPLORE_TEST_SCREENSHOTS") else tmp_path
    config = {"link": links[0], "bolt": neo4j_server.bolt, "user": neo4j_server.user,
              "password": neo4j_server.password, "slides": len(SLIDES) + 1, "screenshots": str(screenshots)}
    result = subprocess.run(["node", str(BROWSER / "neo4j_browser.mjs"), json.dumps(config)], cwd=BROWSER,
                            capture_output=True, text=True, timeout=600)
    assert result.stdout, result.stderr[-2000:]
    summary = json.loads(result.stdout)
    assert result.returncode == 0 and not summary["problems"], "\n".join(summary["problems"])
    params, slow_nodes, hot_resources, top_paths, walk = summary["slides"]
    # The first link is the most blocked victim: the guide's one click set its uid.
    assert f':param victim => "{victim["uid"]}"' in params["text"] and f'"{analysis}"' in params["text"]
    assert "node-1" in slow_nodes["text"] and "node-2" in slow_nodes["text"]  # the demo cluster's hosts
    assert "IO" in hot_resources["text"] and "Started streaming" in hot_resources["text"]
    assert "etl-load" in top_paths["text"]  # the known culprit heads the top paths
    # The walk is drawn as a graph with all seven levels.
    assert set(LEVELS) <= set(walk["labels"]) and walk["nodes"] >= 7 and walk["relationships"] >= 6
    for slide in summary["slides"]:
        assert (screenshots / slide["screenshot"]).stat().st_size > 5_000, slide["screenshot"]


def test_guide_is_readable_by_neo4j_browser_only_and_bad_links_are_404(neo4j_server, neo4j_app):
    running, analysis, victim = neo4j_app
    page = urllib.request.urlopen(f"{running.base}/neo4j-browser/?analysis={analysis}", timeout=30).read().decode()
    guide = html.unescape(re.findall(r'class="neo4j-guide" href="[^"]+arg=([^"]+)"', page)[0])
    guide = urllib.parse.unquote(guide).replace("localhost", "127.0.0.1")
    preflight = urllib.request.Request(guide, method="OPTIONS", headers={
        "Origin": neo4j_server.browser.split("/browser")[0], "Access-Control-Request-Headers": "pragma,cache-control"})
    with urllib.request.urlopen(preflight, timeout=30) as answer:
        assert answer.headers["Access-Control-Allow-Origin"] == neo4j_server.browser.split("/browser")[0]
        assert answer.headers["Access-Control-Allow-Headers"] == "pragma,cache-control"
    body = urllib.request.urlopen(guide, timeout=30).read().decode()
    assert body.count("<slide") == len(SLIDES) + 1 and html.escape(victim["uid"], quote=True) in body
    for bad in ("not-a-token", "WyJ4IiwgInkiXQ"):  # garbage; a well-formed link to no such victim
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(f"{running.base}/neo4j-browser/guide/{bad}", timeout=30)
        assert err.value.code == 404
