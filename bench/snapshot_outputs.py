"""Snapshot what the CLI answers, to check that a change meant to keep behaviour keeps it byte for byte.

Loads each input into a fresh home (embedded engine) with the given checkout's ``protoxplore``, then
writes the JSON of ``victims``, ``explain`` (every victim), ``whatif`` (every victim, its top culprit
removed), ``stragglers``, ``culprits``, ``hosts``, ``resources`` and ``why-slower`` (PerfXplain's
corpus) into OUT, one file per command. Fields that name when or by which process a load ran are
blanked. Run it on two checkouts, then ``diff -r OUT1 OUT2``:

    python bench/snapshot_outputs.py .venv/bin OUT [--quick]

``--quick`` takes the ten shared logs and two scenarios only.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "spark-events"
#: Fields that differ between two loads of the same logs by design.
VOLATILE = re.compile(r'"(created|loaded|writer|live|elapsed_s|seconds)": [^,\n}]+')


def run(bin_dir: Path, home: str, *args: str) -> str:
    env = dict(os.environ, PROTOXPLORE_HOME=home, PROTOXPLORE_NEO4J_URI="")
    done = subprocess.run([str(bin_dir / "protoxplore"), *args], env=env, capture_output=True, text=True)
    return VOLATILE.sub(r'"\1": "-"', done.stdout) + (f"\nexit {done.returncode}: {done.stderr.strip()[-400:]}"
                                                     if done.returncode else "")


def inputs(quick: bool) -> dict[str, list[str]]:
    found = {"shared": [str(SHARED)]}
    scenarios = sorted((ROOT / "tests" / "data" / "scenarios").iterdir())
    for scenario in scenarios[:2] if quick else scenarios:
        found[f"scenario-{scenario.name}"] = [str(scenario)]
    if not quick:
        found["perfxplain"] = [str(ROOT / "tests" / "data" / "perfxplain")]
        found["stragglers"] = [str(ROOT / "tests" / "data" / "stragglers")]
    return found


def snapshot(bin_dir: Path, name: str, paths: list[str], out: Path) -> None:
    with tempfile.TemporaryDirectory() as home:
        run(bin_dir, home, "load", *paths, "--json")
        victims = json.loads(run(bin_dir, home, "victims", "--top", "1000", "--json") or "[]")
        text = {"victims": json.dumps(victims, indent=1)}
        for command in ("stragglers", "culprits", "hosts", "resources"):
            text[command] = run(bin_dir, home, command, "--json")
        for victim in victims[:12]:
            key = victim["query_key"]
            explained = run(bin_dir, home, "explain", "--victim", key, "--top", "20", "--json")
            text[f"explain {key}"] = explained
            try:
                culprits = [c["uid"].split("|cq/", 1)[1] for c in json.loads(explained)["culprit_queries"]
                            if not c.get("self") and "/" in c["uid"].partition("|cq/")[2]]
            except (ValueError, KeyError):
                culprits = []
            if culprits:
                text[f"whatif {key}"] = run(bin_dir, home, "whatif", "--victim", key, "--remove", culprits[0],
                                            "--hints", "--json")
        if name == "perfxplain":
            for a, b in (("report run 0001", "report run 0000"), ("report run 0005", "report run 0002")):
                text[f"why-slower {a} {b}"] = run(bin_dir, home, "why-slower", a, b, "--json")
    (out / name).write_text("".join(f"=== {k}\n{v}\n" for k, v in text.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bin", type=Path, help="the bin directory of the checkout's virtual environment")
    parser.add_argument("out", type=Path, help="folder to write the snapshot into")
    parser.add_argument("--quick", action="store_true", help="the shared logs and two scenarios only")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, paths in inputs(args.quick).items():
        print(f"{name} ...", file=sys.stderr, flush=True)
        snapshot(args.bin, name, paths, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
