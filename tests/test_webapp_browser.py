"""The web app in a real headless chromium (tests/browser/walk.mjs, playwright-core driving Debian's
/usr/bin/chromium): walk a victim from Level 0 to 6 by clicking, every chart drawn by Plotly, no
console error, no dialog on the hostile trace, screenshots saved into docs/screenshots/.

Skipped only when chromium or tests/browser/node_modules is missing and CI is unset; under CI it
fails instead (run tests/browser/install.sh first).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from test_webapp import demo, hostile, hostile_pages, web_home, web_settings  # noqa: F401  (session fixtures)
from protoxplore.webapp import create_app, make_server

ROOT = Path(__file__).resolve().parents[1]
BROWSER = ROOT / "tests" / "browser"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = ROOT / "docs" / "screenshots"


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
        self.server = make_server("127.0.0.1", 0, app=create_app({key: app.config[key] for key in (
            "SETTINGS", "NEO4J_BROWSER_URL")}))
        self.base = f"http://127.0.0.1:{self.server.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)


@pytest.fixture(scope="module")
def servers(demo, hostile):  # noqa: F811
    running = [Running(demo[0]), Running(hostile[0])]
    yield running
    for r in running:
        r.stop()


def test_walk_in_headless_chromium(servers, hostile):  # noqa: F811
    require_browser()
    demo_server, hostile_server = servers
    app, analysis = hostile
    client = app.test_client()
    extra = [hostile_server.base + url for url in hostile_pages(client, app, analysis)
             if not url.startswith("/queries/")][:40]
    config = {"base": demo_server.base, "screenshots": str(SCREENSHOTS), "extra": extra}
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
        assert (SCREENSHOTS / name).stat().st_size > 10_000, name
