"""Every .cypher file parses as Neo4j 5 Cypher, checked by Neo4j's own parser
(npm @neo4j-cypher/language-support, installed by tools/cypherlint/install.sh), with Neo4j's
built-in functions only, so that functions of another engine are flagged."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = ROOT / "tools" / "cypherlint"


def lint(files: list[Path]) -> dict[str, list[dict]]:
    if not (LINT / "node_modules").exists() or not shutil.which("node"):
        if os.environ.get("CI"):
            pytest.fail("Neo4j's Cypher parser is not installed: run tools/cypherlint/install.sh")
        pytest.skip("Neo4j's Cypher parser is not installed (tools/cypherlint/install.sh)")
    result = subprocess.run(["node", str(LINT / "lint.mjs"), *map(str, files)], capture_output=True, text=True,
                            timeout=300, cwd=LINT)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_every_cypher_file_is_valid_neo4j_5():
    files = sorted(ROOT.glob("cypher/*.cypher")) + sorted(ROOT.glob("schema/neo4j*.cypher"))
    assert len(files) > 20
    problems = [f"{Path(f).relative_to(ROOT)}:{p['line']}:{p['column']} {p['message']}"
                for f, found in lint(files).items() for p in found]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("statement, expected", [
    ("MATCH (n RETURN n", "Invalid input"),
    ("RETURN vecf32([1.0]) AS v", "Function vecf32 is not present"),
    ("RETURN apoc.coll.sum([1]) AS v", "Function apoc.coll.sum is not present"),
])
def test_the_check_can_fail(tmp_path, statement, expected):
    path = tmp_path / "bad.cypher"
    path.write_text(f"// a deliberately wrong statement\n{statement};\n")
    found = lint([path])[str(path)]
    assert any(expected in p["message"] for p in found), found
    assert found[0]["line"] == 2


def test_neo4j_only_syntax_passes(tmp_path):
    path = tmp_path / "ok.cypher"
    path.write_text("MATCH (n) WHERE COUNT { (n)--() } > 1 AND EXISTS { (n)-->() } RETURN n;\n"
                    "UNWIND $rows AS row CALL (row) { CREATE (:L {a: row.a}) } RETURN count(*) AS c;\n"
                    "RETURN reduce(w = 1.0, x IN [1, 2] | w * x) AS w, [x IN range(1, 3) | toFloat(x)] AS xs;\n")
    assert lint([path])[str(path)] == []
