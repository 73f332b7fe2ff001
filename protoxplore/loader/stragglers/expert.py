"""The expert baseline Hound is compared with (paper 002 Sec. 6): Ousterhout et al.'s what-if
("Making Sense of Performance in Data Analytics Frameworks", NSDI 2015), computed per stage attempt
from the same task features: something causes a straggler if the task becomes normal (at most the
straggler threshold x the stage median) when that thing takes no time.

Time components are removed from the task's duration. Amounts of data have no time of their own in
the logs: a task with more than the stage's median amount is scaled down to that median (its
duration x median / amount), i.e. the skewed part takes no time. A straggler that was the first task
on its executor is explained by that (Ousterhout et al.'s "first task": JIT and class loading).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

#: The kind of cause each task feature points at: what the expert and Hound are compared on, and what
#: the graph's straggler causes are grouped by. Input read and input skew are one kind, as are the time
#: and the bytes of a shuffle write (paper 002 Tables 10-13 interpret topics the same way).
CAUSE = {"scan_s": "input", "read_bytes": "input", "gc_s": "gc", "cpu_rate": "cpu", "write_s": "shuffle write",
         "written_bytes": "shuffle write", "fetch_wait_s": "shuffle read", "shuffle_read_bytes": "shuffle read",
         "scheduler_delay_s": "scheduling", "first_on_executor": "first task",
         "concurrent_on_host": "contention", "speculative": "speculation", "deserialize_s": "deserialization",
         "result_bytes": "output", "output_bytes": "output", "spill_bytes": "spill", "locality": "locality"}
#: Metrics whose *lower* value in stragglers is a cause of its own, of this kind (paper 002 Table 4:
#: MEAN_CPU(+) is computation skew, MEAN_CPU(-) limited processor, read here as contention).
WHEN_LOWER = {"cpu_rate": "contention"}
#: The what-ifs, in the order Ousterhout et al. list the causes (paper 002 Sec. 6) where they map.
#: Spill and locality have neither a time of their own nor an amount of work to scale: no what-if.
TIME_COMPONENTS = ("scan_s", "gc_s", "write_s", "fetch_wait_s", "scheduler_delay_s", "deserialize_s")
#: The amounts of data whose excess over the stage median is scaled away: data skew (the graph's
#: `skew` causes). Spilled bytes are not among them: spill follows memory pressure (its own kind).
SKEWED_AMOUNTS = ("read_bytes", "written_bytes", "shuffle_read_bytes", "output_bytes", "result_bytes")
#: A stage's diagnosis is clear when one cause explains at least this share of its stragglers and
#: every cause of another kind explains fewer.
CLEAR_SHARE = 0.5


def explained(stage: pd.DataFrame, threshold: float) -> dict[str, float]:
    """Share of the stage's stragglers that each what-if makes normal (``stage``: its successful
    tasks from ``hound.stragglers``, with their features)."""
    slow = stage[stage["straggler"]]
    normal = threshold * slow["median_s"].to_numpy()
    duration = slow["duration_s"].to_numpy()
    shares = {c: float(np.mean(duration - slow[c].to_numpy() <= normal)) for c in TIME_COMPONENTS}
    for column in SKEWED_AMOUNTS:
        median = float(stage[column].median())
        amount = slow[column].to_numpy()
        scale = np.divide(median, amount, out=np.ones_like(amount), where=amount > median)
        shares[column] = float(np.mean(duration * scale <= normal))
    # A first task on its executor has no component to remove: it is explained by being first, unless
    # every task of the stage was first (one wave on fresh executors), which sets no task apart.
    first = stage["first_on_executor"].to_numpy() > 0
    shares["first_on_executor"] = 0.0 if first.all() else float(np.mean(slow["first_on_executor"].to_numpy() > 0))
    return shares


def diagnose(stage: pd.DataFrame, threshold: float) -> dict:
    """The expert's causes of one stage (``metric``, ``share`` of stragglers it explains, largest
    first) and its clear ``cause`` (a kind of CAUSE) or None."""
    shares = explained(stage, threshold)
    causes = [{"metric": m, "share": s} for m, s in sorted(shares.items(), key=lambda i: -i[1]) if s > 0]
    clear = None
    if causes and causes[0]["share"] >= CLEAR_SHARE:
        top = CAUSE[causes[0]["metric"]]
        if all(CAUSE[c["metric"]] == top or c["share"] < causes[0]["share"] for c in causes[1:]):
            clear = top
    return {"causes": causes, "cause": clear}


def signed_kind(metric: str, sign: str) -> tuple[str, str]:
    """The kind of cause a signed feature names, and its direction: ``("contention", "+")`` for
    ``cpu_rate(-)`` (WHEN_LOWER: a cause the stragglers have more of), else ``(CAUSE[metric], sign)``."""
    if sign == "-" and metric in WHEN_LOWER:
        return WHEN_LOWER[metric], "+"
    return CAUSE[metric], sign
