"""The web app in a real headless chromium (tests/browser/walk.mjs, playwright-core driving Debian's
/usr/bin/chromium): walk a victim from Level 0 to 6 by clicking, every chart drawn by Plotly, no
console error, no dialog on the hostile trace, screenshots saved into a temporary folder, or into
docs/screenshots/ with PROTOXPLORE_TEST_SCREENSHOTS=1.

Skipped only when chromium or tests/browser/node_modules is missing and CI is unset; under CI it
fails instead (run tests/browser/install.sh first).
"""
from __future__ import annotations

import json
import os
import subprocess

import pytest

from web import BROWSER, ROOT, Running, hostile_pages, require_browser

pytestmark = pytest.mark.slow  # a walk in headless chromium


@pytest.fixture(scope="module")
def servers(demo, hostile):
    running = [Running(demo[0]), Running(hostile[0])]
    yield running
    for r in running:
        r.stop()


def test_walk_in_headless_chromium(servers, hostile, tmp_path):
    require_browser()
    screenshots = ROOT / "docs" / "screenshots" if os.environ.get("PROTOXPLORE_TEST_SCREENSHOTS") else tmp_path
    demo_server, hostile_server = servers
    app, analysis = hostile
    client = app.test_client()
    extra = [hostile_server.base + url for url in hostile_pages(client, app, analysis)
             if not url.startswith("/queries/")][:40]
    config = {"base": demo_server.base, "screenshots": str(screenshots), "extra": extra}
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
                 "windows.png", "canned-query.png"):
        assert (screenshots / name).stat().st_size > 10_000, name
