"""Check that two checkouts write the same ProtoGraph: each input is loaded by each checkout's
`protoxplore load` into a fresh home (FalkorDB), and every node with all its properties and every
edge with all its properties are compared; a change that must not change results (memory, structure)
runs this against main. Prints one line per input and exits 1 on any difference.

    python bench/compare_loads.py OTHER_CHECKOUT_VENV_BIN LOG... [--paper]

``--paper`` adds the paper-scale workload (bench/workload.py) written as a log.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from protoxplore.settings import Settings
from protoxplore.storage.store import open_store

#: Properties that differ between two loads of the same logs by design (when and by which process).
VOLATILE = {"created", "loaded", "writer"}


def dump(home: str) -> tuple[list[str], list[str]]:
    """Every node and edge of the store in ``home``, as sorted canonical JSON lines."""
    store = open_store(Settings.from_env(home=Path(home)))
    try:
        nodes = store.run_text("MATCH (n) RETURN labels(n) AS labels, properties(n) AS p")
        edges = store.run_text("MATCH (a)-[r]->(b) RETURN a.uid AS a, type(r) AS t, properties(r) AS p, b.uid AS b")
    finally:
        store.close()
    clean = lambda p: {k: v for k, v in p.items() if k not in VOLATILE}  # noqa: E731
    return (sorted(json.dumps([sorted(n["labels"]), clean(n["p"])], sort_keys=True) for n in nodes),
            sorted(json.dumps([e["a"], e["t"], clean(e["p"]), e["b"]], sort_keys=True) for e in edges))


def load(bin_dir: Path, log: Path) -> tuple[list[str], list[str]]:
    cli = str(bin_dir / "protoxplore")
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "PROTOXPLORE_HOME": home}
        subprocess.run([cli, "engine", "start"], env=env, check=True, capture_output=True)
        try:
            subprocess.run([cli, "load", str(log)], env=env, check=True, capture_output=True)
            return dump(home)
        finally:
            subprocess.run([cli, "engine", "stop"], env=env, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="the other checkout's venv bin directory")
    parser.add_argument("logs", nargs="*", type=Path)
    parser.add_argument("--paper", action="store_true")
    args = parser.parse_args()
    ours = Path(sys.executable).parent
    differ = False
    with tempfile.TemporaryDirectory() as tmp:
        logs = list(args.logs)
        if args.paper:
            sys.path.insert(0, str(Path(__file__).parent))
            from workload import workload, write_log
            logs.append(Path(tmp) / "paper.log")
            write_log(workload(), logs[-1])
        for log in logs:
            (a_nodes, a_edges), (b_nodes, b_edges) = load(args.other, log), load(ours, log)
            same = a_nodes == b_nodes and a_edges == b_edges
            differ |= not same
            print(f"{log.name}: {len(a_nodes)} / {len(b_nodes)} nodes, {len(a_edges)} / {len(b_edges)} edges: "
                  f"{'identical' if same else 'DIFFERENT'}", flush=True)
            if not same:
                for label, a, b in (("nodes", a_nodes, b_nodes), ("edges", a_edges, b_edges)):
                    only_a, only_b = sorted(set(a) - set(b)), sorted(set(b) - set(a))
                    for line in only_a[:3]:
                        print(f"  {label} only in other: {line[:400]}")
                    for line in only_b[:3]:
                        print(f"  {label} only in ours:  {line[:400]}")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
