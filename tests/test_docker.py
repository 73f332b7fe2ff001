"""docker/: the compose file parses and wires Neo4j 5 LTS to the app through settings the app reads;
the image runs `protoxplore serve`. (No Docker engine here: nothing is built or started.)"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from protoxplore.cli.arguments import build_parser
from protoxplore.settings import SETTINGS

yaml = pytest.importorskip("yaml")

DOCKER = Path(__file__).resolve().parents[1] / "docker"


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((DOCKER / "docker-compose.yml").read_text())


def test_compose_parses_with_neo4j_5_lts_and_the_app(compose):
    services = compose["services"]
    assert set(services) == {"neo4j", "app"}
    neo4j = services["neo4j"]
    assert re.fullmatch(r"neo4j:5\.26(\.\d+)?-community", neo4j["image"])  # 5.26 is the 5.x LTS
    assert neo4j["environment"]["NEO4J_AUTH"].startswith("neo4j/${NEO4J_PASSWORD")
    assert "cypher-shell" in " ".join(neo4j["healthcheck"]["test"])
    assert any(v.endswith(":/data") for v in neo4j["volumes"])
    assert all(p.startswith("127.0.0.1:") for p in neo4j["ports"])
    app = services["app"]
    assert app["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert (DOCKER / app["build"]["context"] / app["build"]["dockerfile"]).resolve() == (DOCKER / "Dockerfile").resolve()
    env = app["environment"]
    assert env["PROTOXPLORE_NEO4J_URI"] == "bolt://neo4j:7687"
    assert env["PROTOXPLORE_NEO4J_PASSWORD"].startswith("${NEO4J_PASSWORD")
    assert all(p.startswith("127.0.0.1:") for p in app["ports"])
    assert set(compose["volumes"]) >= {"neo4j-data", "protoxplore-home"}


def test_compose_runs_the_neo4j_version_the_tests_run(compose):
    pom = (DOCKER.parent / "tools" / "neo4j" / "pom.xml").read_text()
    tested = re.search(r"<neo4j.version>([^<]+)</neo4j.version>", pom).group(1)
    assert compose["services"]["neo4j"]["image"] == f"neo4j:{tested}-community"


def test_compose_names_only_settings_the_app_reads(compose):
    app_env = set(compose["services"]["app"]["environment"])
    assert app_env <= {s.name for s in SETTINGS}, app_env - {s.name for s in SETTINGS}
    text = (DOCKER / "docker-compose.yml").read_text() + (DOCKER / "Dockerfile").read_text()
    named = set(re.findall(r"PROTOXPLORE_[A-Z0-9_]+", text))
    assert named <= {s.name for s in SETTINGS}, named - {s.name for s in SETTINGS}


def test_image_runs_protoxplore_serve(compose):
    text = (DOCKER / "Dockerfile").read_text()
    cmd = json.loads(re.search(r"^CMD (\[.*\])$", text, re.M).group(1))
    assert cmd[:2] == ["protoxplore", "serve"] and "0.0.0.0" in cmd
    assert compose["services"]["app"]["command"] == cmd
    args = build_parser().parse_args(cmd[1:])  # the CLI accepts exactly these arguments
    assert (args.host, args.port) == ("0.0.0.0", 5000)
    assert re.search(r"^RUN pip install \.", text, re.M)
    for folder in ("protoxplore", "cypher", "schema"):  # the package and the Cypher data it installs
        assert f"COPY {folder}/ {folder}/" in text


def test_readme_says_untested():
    text = (DOCKER / "README.md").read_text()
    assert "no Docker engine" in text and "NEO4J_PASSWORD" in text
