"""The web app in a real headless chromium (tests/browser/walk.mjs, playwright-core driving Debian's
/usr/bin/chromium): walk a victim from Level 0 to 6 by clicking, every chart drawn by Plotly, no
console error, no dialog on the hostile trace, no overlapping Sankey labels (on the demo and on a
real log's victim with long names: rp_sql_eventlog's sql-0), screenshots saved into a temporary folder, or into
docs/screenshots/ with PROTOXPLORE_TEST_SCREENSHOTS=1.

Skipped only when chromium or tests/browser/node_modules is missing and CI is unset; under CI it
fails instead (run tests/browser/install.sh first).
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import time
import urllib.request
from urllib.parse import parse_qs

import pytest

from protoxplore.evaluation import synth
from protoxplore.service import live, pipeline
from protoxplore.storage.store import open_store
from protoxplore.webapp import close_store, create_app

from logs import REAL
from web import BROWSER, ROOT, Running, hostile_pages, require_browser, victim_url

pytestmark = pytest.mark.slow  # a walk in headless chromium


@pytest.fixture(scope="module")
def real(web_settings):
    """The real log whose victim sql-0 has long host and stage names on its Sankey."""
    settings = dataclasses.replace(web_settings, graph="webreal")
    with open_store(settings) as store:
        store.apply_schema()
        analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(REAL / "rp_sql_eventlog.zstd"),)),
                                          settings.home, pipeline.QUIET)
        # and a live analysis, the demo log cut while it runs (its pages look for new generations)
        logs = settings.home / "live-logs"
        logs.mkdir()
        log = logs / "app-demo-0001.inprogress"
        queries, cluster = synth.demo_workload()
        synth.write_event_log(synth.simulate(queries, cluster), cluster, log, app_id="app-demo-0001")
        log.write_bytes(b"".join(log.read_bytes().splitlines(keepends=True)[:40]))
        watch = live.Watch(store, pipeline.LoadRequest((str(logs),)), settings.home, every=2, progress=pipeline.QUIET)
        assert watch.poll()
        total = watch.publish()[0]  # the total, then its window
        app = create_app({"SETTINGS": settings, "TESTING": True})
        yield app, analysis, total
    close_store(app)


@pytest.fixture(scope="module")
def servers(demo, hostile, real):
    running = [Running(demo[0]), Running(hostile[0]), Running(real[0])]
    yield running
    for r in running:
        r.stop()


def page_kind(url: str) -> tuple:
    """What a hostile page shows whatever its victim or culprit: its route, the methods' no-script
    column, how deep its walk goes and the resource walked (the same template on the same payloads:
    tests/test_webapp.py reads every hostile page)."""
    path, _, query = url.partition("?")
    steps = parse_qs(query).get("at", [])
    resource = next((step.rsplit("/", 1)[1] for step in steps if "|ie/" in step), None)
    return re.sub(r"/(victim|culprit)/.*?(/methods)?$", r"/\1\2", path), "column=" in query, len(steps), resource


def test_walk_in_headless_chromium(servers, demo, hostile, real, tmp_path):
    require_browser()
    screenshots = ROOT / "docs" / "screenshots" if os.environ.get("PROTOXPLORE_TEST_SCREENSHOTS") else tmp_path
    demo_server, hostile_server, real_server = servers
    app, analysis = hostile
    client = app.test_client()
    kinds = {}
    for url in [url for url in hostile_pages(client, app, analysis) if not url.startswith("/queries/")][:40]:
        kinds.setdefault(page_kind(url), hostile_server.base + url)
    # a stage's straggler box plots, a third of a page wide: Plotly's toolbar wrapped onto their titles
    boxes = f"/analysis/{real[1]}/stragglers?stage=application_1603128018386_7759/stage-2.0"
    for _ in range(3000):  # computed by the server (an app of its own) before the walk asks for it
        with urllib.request.urlopen(real_server.base + boxes) as response:
            if response.status == 200 and "Refresh" not in response.headers:
                assert response.read().decode().count('class="chart"') >= 2
                break
        time.sleep(0.1)
    else:
        pytest.fail(f"{boxes} still computing after 300 s")
    extra = list(kinds.values()) + [real_server.base + boxes]
    sankey = real_server.base + victim_url(real[1], f"{real[1]}|vq/application_1603128018386_7759/sql-0")
    # the demo's overview, not the latest analysis: on Neo4j every analysis is in the one database
    config = {"base": demo_server.base, "start": f"/analysis/{demo[1]}", "screenshots": str(screenshots),
              "extra": extra, "sankeys": [sankey], "live": f"{real_server.base}/analysis/{real[2]}"}
    result = subprocess.run(["node", str(BROWSER / "walk.mjs"), json.dumps(config)], cwd=BROWSER,
                            capture_output=True, text=True, timeout=600)
    assert result.stdout, result.stderr
    summary = json.loads(result.stdout)
    assert result.returncode == 0 and not summary["problems"], "\n".join(summary["problems"]) + result.stderr[-2000:]
    levels = next(v for v in summary["visited"] if v["label"] == "levels")["levels"]
    assert levels == [1, 2, 3, 4, 5, 6]
    charted = [v for v in summary["visited"] if v["charts"] and "drawn" in v]
    assert len(charted) > 10 and all(v["drawn"] == v["charts"] for v in charted)
    assert len(summary["visited"]) > len(extra) + 10
    for name in ("overview.png", "victim.png", "walk-level-6-culprit.png", "culprit.png", "methods.png",
                 "windows.png", "canned-query.png", "sankey-real.png"):
        assert (screenshots / name).stat().st_size > 10_000, name
