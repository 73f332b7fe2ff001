"""Rules of the test suite itself (issue 13): shared helpers live in conftest.py or a helper module,
never in a test module that another one imports (pytest would collect its tests twice over); and
conftest.py is pytest's to load, through its fixtures: a test module importing it gets a second copy
of its module state."""
from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent


def test_no_test_module_imports_another():
    found = []
    for path in sorted(TESTS.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            found += [f"{path.name} imports {n}" for n in names
                      if n.split(".")[0].startswith("test_") or n.split(".")[0] == "conftest"]
    assert found == []
