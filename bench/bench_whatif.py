"""What-if speed at paper scale (125 queries, 24,000 tasks): one prediction (one victim, one
culprit) and the counterfactual ranking of one victim's culprits. Targets (issue 9): < 1 s and
< 10 s. Prints figures; run on a quiet machine:  python bench/bench_whatif.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from protoxplore.loader.whatif.simulation import Change

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import workload  # noqa: E402

from protoxplore.loader.whatif import replay  # noqa: E402


def timed(label: str, fn):
    started = time.perf_counter()
    value = fn()
    print(f"{label}: {time.perf_counter() - started:.2f} s")
    return value


def main() -> None:
    trace = workload()
    print(f"workload: {trace.queries.shape[0]} queries, {len(trace.tasks)} tasks")
    model = timed("replay model built (schedule, each task's work and contention)", lambda: replay.Replay(trace))
    base = timed("replay of the trace as observed", model.run)
    # The victim with the most concurrent queries, and its first overlapping query as the culprit.
    victim = max(base, key=lambda q: len(replay.candidates(model, q)))
    culprit = replay.candidates(model, victim)[0]
    print(f"victim {victim}: {len(replay.candidates(model, victim))} overlapping queries")
    for attempt in (1, 2):
        w = timed(f"what-if, one victim without one culprit, two replays (run {attempt})",
                  lambda: replay.predict(model, victim, Change(remove=frozenset([culprit]))))
    print(f"  predicted speedup {w.predicted_speedup_s:.2f} s of {w.runtime_s:.2f} s")
    fresh = replay.Replay(trace)
    ranking = timed("explain --method counterfactual (rank every overlapping query, cold model)",
                    lambda: replay.rank_by_removal(fresh, victim))
    print(f"  top: {ranking.index[0]} {ranking.iloc[0]:.2f} s")


if __name__ == "__main__":
    main()
