"""The package's shape, checked: layers that import only downward, no import cycle, absolute imports
that name their files, and no module too long to read (the layers are listed in
``protoxplore/__init__.py``; the README reads them in order)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "protoxplore"

#: Each layer by the module prefixes it holds, bottom first: a module imports from its own layer and
#: the layers below it only.
LAYERS = [
    ("base", ("protoxplore", "protoxplore.settings", "protoxplore.errors", "protoxplore.text", "protoxplore.show",
              "protoxplore.budget")),
    ("domain", ("protoxplore.loader",)),
    ("storage", ("protoxplore.storage", "protoxplore.cypher", "protoxplore.schema")),
    ("application", ("protoxplore.service",)),
    ("evaluation", ("protoxplore.evaluation",)),
    ("interfaces", ("protoxplore.cli", "protoxplore.webapp")),
]
#: The interfaces ask the application layer; they reach the domain only through it.
SKIPPED = {("interfaces", "domain")}
#: Longest product module (lines).
MAX_LINES = 600


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int:
    best, found = -1, None
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            exact = prefix == "protoxplore"
            if (module == prefix or (not exact and module.startswith(prefix + "."))) and len(prefix) > best:
                best, found = len(prefix), rank
    assert found is not None, f"{module} is in no layer of tests/test_architecture.py"
    return found


def imports(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every import of the package in ``path``, inside functions too: a module
    ``from a import b`` takes is ``a.b`` when that is a module, else ``a``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("protoxplore"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.append((node.lineno, full if full in MODULES else node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("protoxplore")]
    return found


GRAPH = {module: sorted({m for _, m in imports(path) if m != module}) for module, path in MODULES.items()}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down_the_layers(module):
    mine = layer_of(module)
    for line, target in imports(MODULES[module]):
        theirs = layer_of(target)
        assert theirs <= mine, (f"{MODULES[module]}:{line}: {LAYERS[mine][0]} module {module} imports {target} of the "
                                f"{LAYERS[theirs][0]} layer above it")
        assert (LAYERS[mine][0], LAYERS[theirs][0]) not in SKIPPED, (
            f"{MODULES[module]}:{line}: {module} imports {target}: the {LAYERS[mine][0]} reach the "
            f"{LAYERS[theirs][0]} through the application layer (protoxplore.service)")


def test_no_import_cycle():
    """No module reaches itself through imports (inside functions too: a cycle dodged by a late import
    is still a cycle)."""
    state, stack, cycles = {}, [], []

    def visit(module: str) -> None:
        state[module] = "open"
        stack.append(module)
        for target in GRAPH.get(module, ()):
            if state.get(target) == "open":
                cycles.append(stack[stack.index(target):] + [target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[module] = "done"

    for module in sorted(GRAPH):
        if module not in state:
            visit(module)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_are_absolute_and_name_their_file(module):
    for node in ast.walk(ast.parse(MODULES[module].read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            pytest.fail(f"{MODULES[module]}:{node.lineno}: a relative import; write it from protoxplore.")
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("protoxplore"):
            assert node.module in MODULES, f"{MODULES[module]}:{node.lineno}: {node.module} is no file of the package"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_modules_are_short_enough_to_read(module):
    lines = len(MODULES[module].read_text().splitlines())
    assert lines <= MAX_LINES, f"{MODULES[module]} has {lines} lines (at most {MAX_LINES}): split it along a seam"
