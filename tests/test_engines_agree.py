"""FalkorDB and Neo4j give the same answers: on the ten real logs loaded as one workload and on
every scenario of tests/data/scenarios, the same IF on every edge, DOR on every node, top paths and
`explain --json` output for every victim, numbers equal to 1e-9."""
from __future__ import annotations

import json
import math
import re

import pytest

from protoxplore.cli.commands import main
from protoxplore.service import pipeline
from protoxplore.settings import Settings
from protoxplore.storage.store import open_store

from logs import FOLDERS, REAL

pytestmark = pytest.mark.slow  # every real workload on both engines

WORKLOADS = {"ten-real-logs": REAL, **{f"scenario-{f.name}": f for f in FOLDERS}}
TOLERANCE = 1e-9


@pytest.fixture(scope="module")
def both(home, neo4j_server):
    """Settings and stores of the two engines (the embedded one in its own graph)."""
    falkordb = Settings.from_env(home=home, neo4j_uri="", graph="agree")
    neo4j = Settings.from_env(home=home, neo4j_uri=neo4j_server.bolt, neo4j_user=neo4j_server.user,
                              neo4j_password=neo4j_server.password, neo4j_database="neo4j")
    stores = [open_store(falkordb), open_store(neo4j)]
    for store in stores:
        store.apply_schema()
    yield list(zip((falkordb, neo4j), stores))
    for store in stores:
        store.close()


def assert_same(a, b, where: str = "") -> None:
    """Equal JSON-like values; numbers to TOLERANCE (FalkorDB returns 15 significant digits)."""
    if isinstance(a, dict):
        assert a.keys() == b.keys(), f"{where}: keys {sorted(a)} != {sorted(b)}"
        for key in a:
            assert_same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), f"{where}: {len(a)} items != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, (int, float)) and not isinstance(a, bool) and isinstance(b, (int, float)):
        assert math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE), f"{where}: {a!r} != {b!r}"
    elif isinstance(a, str) and a != b:
        assert same_text(a, b), f"{where}: {a!r} != {b!r}"
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


NUMBER = re.compile(r"\d+(?:\.(\d+))?")


def same_text(a: str, b: str) -> bool:
    """Sentences that differ only where a number at a rounding boundary (0.15 shown as 0.1 or 0.2)
    rounds the other way: every shown number within one unit of its last digit."""
    if NUMBER.sub("#", a) != NUMBER.sub("#", b):
        return False
    for x, y in zip(NUMBER.finditer(a), NUMBER.finditer(b)):
        unit = 10.0 ** -len(x.group(1) or "")
        if abs(float(x.group()) - float(y.group())) > unit * 1.000001:
            return False
    return True


def graph_numbers(store, analysis: str) -> dict:
    nodes = store.run_text("MATCH (n:ProtoNode {analysis: $a}) RETURN n.uid AS uid, n.dor AS dor, n.blame_s AS blame_s",
                           {"a": analysis})
    edges = store.run_text("MATCH (u:ProtoNode {analysis: $a})-[e:IMPACTS]->(v) "
                           "RETURN u.uid + ' -> ' + v.uid AS edge, e.impact_factor AS f", {"a": analysis})
    responsible = store.run_text("MATCH (c:ProtoNode {analysis: $a})-[r:RESPONSIBLE_FOR]->(q) "
                                 "RETURN c.uid + ' -> ' + q.uid AS edge, r.dor AS dor, r.blame_s AS blame_s",
                                 {"a": analysis})
    return {"dor": {n["uid"]: [n["dor"], n["blame_s"]] for n in nodes},
            "impact_factor": {e["edge"]: e["f"] for e in edges},
            "responsible_for": {r["edge"]: [r["dor"], r["blame_s"]] for r in responsible}}


def explain_json(settings: Settings, analysis: str, victim: str, capsys, monkeypatch) -> dict:
    """`protoxplore explain --json` as a user runs it, against one engine."""
    monkeypatch.setenv("PROTOXPLORE_NEO4J_USER", settings.neo4j_user)
    monkeypatch.setenv("PROTOXPLORE_NEO4J_PASSWORD", settings.neo4j_password)
    monkeypatch.setenv("PROTOXPLORE_GRAPH", settings.graph)
    code = main(["explain", "--analysis", analysis, "--victim", victim, "--top", "10", "--json",
                 "--home", str(settings.home), "--neo4j-uri", settings.neo4j_uri])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("workload", sorted(WORKLOADS))
def test_both_engines_give_the_same_protograph_and_explanations(both, workload, capsys, monkeypatch):
    (falkordb, f_store), (neo4j, n_store) = both
    path = str(WORKLOADS[workload])
    request = pipeline.LoadRequest((path,))
    analysis, _ = pipeline.load_paths(f_store, request, falkordb.home, pipeline.QUIET)
    assert pipeline.load_paths(n_store, request, neo4j.home, pipeline.QUIET)[0] == analysis  # ids come from the input
    numbers = graph_numbers(f_store, analysis)
    assert len(numbers["impact_factor"]) > 10
    assert_same(numbers, graph_numbers(n_store, analysis), workload)
    victims = f_store.run("victims", {"analysis": analysis, "order": "blocked", "k": 1000})
    assert_same(victims, n_store.run("victims", {"analysis": analysis, "order": "blocked", "k": 1000}), "victims")
    for victim in victims:
        params = {"analysis": analysis, "victim": victim["uid"], "k": 10}
        assert_same(f_store.run("top_paths", params), n_store.run("top_paths", params), f"top_paths {victim['name']}")
        assert_same(explain_json(falkordb, analysis, victim["uid"], capsys, monkeypatch),
                    explain_json(neo4j, analysis, victim["uid"], capsys, monkeypatch), f"explain {victim['name']}")
