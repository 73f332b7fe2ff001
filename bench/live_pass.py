"""Where a live pass's time goes (issue 13.1): the paper-scale workload's log (bench/workload.py)
grows by its 11th and then its 12th twelfth, and one `protoxplore watch` pass runs in this
process after each, on an embedded FalkorDB in a temporary home. Printed per pass: reading the new
bytes, assembling the trace, and inside publishing, the seconds spent saving the trace, building
the ProtoGraphs (the total and its last 5 minutes), writing them and deleting the generation before.
Run: python bench/live_pass.py
"""
from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workload import events, workload  # noqa: E402

from protoxplore.embedded import EmbeddedEngine  # noqa: E402
from protoxplore.loader import lifecycle, live, pipeline, protograph  # noqa: E402
from protoxplore.settings import Settings  # noqa: E402
from protoxplore.store import open_store  # noqa: E402

STEPS = 12
SPENT: dict[str, float] = {}


def timed(module, name: str) -> None:
    """Count the seconds spent in ``module.name`` into SPENT (the watch calls it through the module)."""
    inner = getattr(module, name)

    def wrapper(*args, **kwargs):
        began = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            SPENT[name] = SPENT.get(name, 0.0) + time.perf_counter() - began
    setattr(module, name, wrapper)


def main() -> None:
    trace = workload()
    lines = [(t, json.dumps(e, separators=(",", ":")) + "\n") for t, _, e in events(trace, task_starts=True)]
    span = trace.end - trace.start
    for module, name in ((pipeline, "save_trace"), (protograph, "build"), (pipeline, "write_analysis"),
                         (lifecycle, "delete")):
        timed(module, name)
    with tempfile.TemporaryDirectory(prefix="pxpass") as tmp:
        settings = Settings.from_env(home=Path(tmp), neo4j_uri="")
        store = open_store(settings)
        store.apply_schema()
        log = Path(tmp) / "app-bench.inprogress"
        watch = live.Watch(store, [str(log)], Path(tmp), every=0.5, last_minutes=5, say=lambda m: None,
                           warn=lambda m: None)
        written = 0
        try:
            for step in (STEPS - 1, STEPS):
                until = trace.start + span * step / STEPS
                piece = []
                while written < len(lines) and (lines[written][0] <= until or step == STEPS):
                    piece.append(lines[written][1])
                    written += 1
                with open(log, "a") as out:
                    out.write("".join(piece))
                SPENT.clear()
                began = time.perf_counter()
                watch.poll()
                read = time.perf_counter()
                watch.trace()
                assembled = time.perf_counter()
                watch.publish()
                done = time.perf_counter()
                print(f"pass after piece {step} of {STEPS}: reading {read - began:.2f} s, assembling "
                      f"{assembled - read:.2f} s, publishing {done - assembled:.2f} s ("
                      + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in SPENT.items()) + ")", flush=True)
        finally:
            store.close()
            EmbeddedEngine(settings.home).stop()


if __name__ == "__main__":
    main()
