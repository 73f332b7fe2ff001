"""How much of a live generation an incremental one could reuse (issue 13.1's next step): for each
piece of bench_live.py's paper-scale log, how many queries the next piece's events touch, and on how
many hosts a capacity estimate (paper 001 Eq. 3, ``blame.capacity``) moves.
Run: python bench/live_churn.py [--steps 12]

A query is touched by the next piece when one of its tasks was still running at the cut, or ran
after the earliest launch of a task running then (a culprit's rate is known only when its task
ends). Capacities are recorded from every call ``protograph.build`` makes on the live trace at each
cut, as ``protoxplore watch`` assembles it. Nothing is timed: the figures are counts.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from protoxplore.loader.logs.apps import AppReader
from protoxplore.loader.logs.trace import fold

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workload import events, workload  # noqa: E402

from protoxplore.loader.logs import trace as trace_mod  # noqa: E402
from protoxplore.loader.logs.eventlog import LogSource  # noqa: E402
from protoxplore.loader.model import blame, protograph, waits  # noqa: E402


def touched_queries(trace: trace_mod.Trace, cut: float) -> tuple[int, int]:
    """(queries seen by ``cut``, those the events after it can change)."""
    tasks = trace.tasks[trace.tasks["launch"] <= cut]
    query = tasks["stage_key"].map(dict(zip(trace.stages["stage_key"], trace.stages["query_key"])))
    running = tasks[tasks["finish"] > cut]
    horizon = running["launch"].min() if len(running) else cut
    last = np.minimum(tasks["finish"], cut).groupby(query).max()
    return len(last), int((last >= horizon).sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=12, help="pieces the log grows by, as bench_live.py")
    args = parser.parse_args()
    recorded: list[pd.Series] = []

    def recording(consumers: pd.DataFrame) -> pd.Series:
        found = blame.capacity(consumers)
        recorded.append(found)
        return found

    protograph.capacity = waits.capacity = recording
    whole = workload()
    stream = list(events(whole, task_starts=True))
    span = whole.end - whole.start
    reader = AppReader(LogSource("app-bench.inprogress", [Path("app-bench.inprogress")], True))
    done, before = 0, None
    for step in range(1, args.steps + 1):
        cut = whole.start + span * step / args.steps
        piece = []
        while done < len(stream) and (stream[done][0] <= cut or step == args.steps):
            piece.append(("app-bench.inprogress", done, stream[done][2]))
            done += 1
        fold(reader, piece, False, lambda _: None)
        live = trace_mod.assemble([("app-bench", reader)], [], lambda _: None)
        recorded.clear()
        protograph.build(live)
        # One column per capacity estimate, in the order build makes them (the same calls every piece).
        caps = pd.concat([c.rename(i) for i, c in enumerate(recorded)], axis=1)
        assert before is None or list(caps.columns) == list(before.columns), "build made other capacity calls"
        seen, touched = touched_queries(whole, cut) if step < args.steps else (len(whole.queries), 0)
        line = f"piece {step:2d}: {len(live.tasks):6d} tasks; {touched} of {seen} queries touched by the next piece"
        if before is not None:
            hosts = caps.index.intersection(before.index)
            moved = (caps.loc[hosts] != before.loc[hosts]) & before.loc[hosts].notna()
            line += (f"; capacities moved on {int(moved.any(axis=1).sum())} of {len(hosts)} hosts "
                     f"({int(moved.values.sum())} of {moved.size} host x resource estimates)")
        print(line, flush=True)
        before = caps


if __name__ == "__main__":
    main()
