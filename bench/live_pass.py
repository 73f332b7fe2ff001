"""Where a live pass's time goes (issue 13.1): the paper-scale workload's log (bench/workload.py)
grows by its 10th, 11th and 12th twelfth, and one `protoxplore watch` pass runs in this process
after each (a whole generation, again, then the last 5 minutes alone, as when the watch's CPU
budget has no room for a total), on an embedded FalkorDB in a temporary home. Printed per pass: reading the new
bytes, assembling the trace, and inside publishing, saving the trace, building the ProtoGraphs (the
total and its last 5 minutes), writing them, deleting the generation before and saving the store:
each as wall seconds, this process's CPU seconds and the FalkorDB server's (with its background saves).
Run: python bench/live_pass.py
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workload import events, workload  # noqa: E402

from protoxplore.loader.model import protograph  # noqa: E402
from protoxplore.service import live, pipeline
from protoxplore.settings import Settings  # noqa: E402
from protoxplore.storage import lifecycle
from protoxplore.storage.embedded import EmbeddedEngine  # noqa: E402
from protoxplore.storage.store import open_store  # noqa: E402

STEPS = 12
SPENT: dict[str, list[float]] = {}  # per call timed: wall, this process's CPU, the server's CPU (seconds)
SERVER: list[int] = []  # the FalkorDB server's pid


def server_cpu() -> float:
    """CPU seconds of the FalkorDB server so far, with its background saves (children it reaped)."""
    fields = Path(f"/proc/{SERVER[0]}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def clocks() -> list[float]:
    return [time.perf_counter(), time.process_time(), server_cpu()]


def timed(owner, name: str) -> None:
    """Count the time spent in ``owner.name`` into SPENT (the watch calls it through the module)."""
    inner = getattr(owner, name)

    def wrapper(*args, **kwargs):
        began = clocks()
        try:
            return inner(*args, **kwargs)
        finally:
            spent = SPENT.setdefault(name, [0.0, 0.0, 0.0])
            for i, (b, e) in enumerate(zip(began, clocks())):
                spent[i] += e - b
    setattr(owner, name, wrapper)


def main() -> None:
    trace = workload()
    lines = [(t, json.dumps(e, separators=(",", ":")) + "\n") for t, _, e in events(trace, task_starts=True)]
    span = trace.end - trace.start
    with tempfile.TemporaryDirectory(prefix="pxpass") as tmp:
        settings = Settings.from_env(home=Path(tmp), neo4j_uri="")
        store = open_store(settings)
        store.apply_schema()
        SERVER.append(EmbeddedEngine(settings.home).pid())
        for owner, name in ((pipeline, "save_trace"), (protograph, "build"), (pipeline, "write_analysis"),
                            (lifecycle, "delete"), (store, "save")):
            timed(owner, name)
        log = Path(tmp) / "app-bench.inprogress"
        watch = live.Watch(store, pipeline.LoadRequest((str(log),)),
                           Path(tmp), every=0.5, last_minutes=5, progress=pipeline.QUIET)
        written = 0
        try:
            for step, whole in ((STEPS - 2, True), (STEPS - 1, True), (STEPS, False)):
                until = trace.start + span * step / STEPS
                piece = []
                while written < len(lines) and (lines[written][0] <= until or step == STEPS):
                    piece.append(lines[written][1])
                    written += 1
                with open(log, "a") as out:
                    out.write("".join(piece))
                SPENT.clear()
                began = clocks()
                watch.poll()
                read = clocks()
                watch.trace()
                assembled = clocks()
                watch.publish(total=whole)
                done = clocks()
                parts = {"reading": [e - b for b, e in zip(began, read)],
                         "assembling": [e - b for b, e in zip(read, assembled)],
                         "publishing": [e - b for b, e in zip(assembled, done)], **SPENT}
                print(f"pass after piece {step} of {STEPS}, {'a whole generation' if whole else 'its window alone'} "
                      "(wall s / process CPU s / server CPU s): "
                      + ", ".join(f"{name} {w:.2f}/{c:.2f}/{s:.2f}" for name, (w, c, s) in parts.items()), flush=True)
        finally:
            store.close()
            EmbeddedEngine(settings.home).stop()


if __name__ == "__main__":
    main()
