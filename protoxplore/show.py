"""Numbers, times and names as a terminal table and a page show them, the same in the CLI and the web
app: decimals that never read a small value as none, a mark for what was not measured, seconds and
bytes in units people read."""
from __future__ import annotations

import datetime
import math
import time

#: How a value the logs do not record (or that cannot be computed) reads, on a page and in a terminal.
MISSING = "\u2013"


def number(value, digits: int = 3) -> str:
    """A value as a table shows it: floats with ``digits`` decimals (none, with thousands separated,
    from a million; 2 significant digits when that many decimals would show none),
    yes/no for booleans, MISSING for a value not measured (None) or not computable (NaN, infinite)."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if not math.isfinite(value):
            return MISSING
        if abs(value) >= 1e6:
            return f"{value:,.0f}"  # 75,520,000 bytes, not 7.552e+07
        if 5e-10 <= abs(value) < 0.5 * 10 ** -digits:
            # A value that is not none does not read as none: a query that ran 0.011 s read "ran 0.0 s"
            # beside its explanation's 0.011 s. Two significant digits (up to nine decimals).
            digits = 1 - math.floor(math.log10(float(f"{abs(value):.2g}")))
        return f"{value:.{digits}f}"
    return str(value)


def side_by_side(first, second) -> tuple[str, str]:
    """Two runs' values of one feature as a comparison shows them: whole numbers held as floats
    (shuffle partitions, tasks) without decimals when both are whole (8 and 64, not 8.000 and
    64.000; thousands separated from a million), else both as :func:`number` shows them."""
    def whole(value) -> bool:
        return isinstance(value, float) and value.is_integer() and abs(value) < 1e15

    if whole(first) and whole(second):
        return tuple(f"{v:,.0f}" if abs(v) >= 1e6 else f"{v:.0f}" for v in (first, second))
    return number(first), number(second)


def seconds(value: float, unit: str = "s") -> str:
    """Seconds as sentences say them: to a tenth, and to two significant digits below 0.05 s, so
    that a tiny time beside a large slowdown (0.00051 s of IO blocked, slowdown 776) does not read
    as none ("0.0 s")."""
    value = float(value) + 0.0  # -0.0 (a speedup of minus nothing) reads as 0.0
    return (f"{value:.1f}" if value == 0 or abs(value) >= 0.05 else f"{value:.2g}") + f" {unit}"


#: How a culprit that is the victim's own query is named beside its name (tables, charts): its tasks
#: competing with each other, no other query (the web's "own tasks" tag).
OWN_TASKS = "own tasks"


def culprit_name(row: dict) -> str:
    """A culprit row's name as tables and charts show it: the victim's own query says so."""
    return f"{row['name']} ({OWN_TASKS})" if row.get("self") else str(row["name"])


def names_repeat(rows: list[dict]) -> bool:
    """Whether two of ``rows`` (queries) share a name: applications of one name (reruns of a job)
    give their queries one name, so tables then show each one's application."""
    names = [r.get("name") for r in rows]
    return len(set(names)) < len(names)


def when(seconds) -> str:
    """A time (seconds since the epoch) as pages show it, in the server's local time."""
    try:
        return datetime.datetime.fromtimestamp(float(seconds)).strftime("%Y-%m-%d %H:%M:%S")
    except (TypeError, ValueError, OverflowError, OSError):
        return MISSING


def ago(seconds) -> str:
    """How long ago a time (seconds since the epoch) was, as a live analysis says how old it is."""
    try:
        gone = max(0.0, time.time() - float(seconds))
    except (TypeError, ValueError):
        return MISSING
    return f"{gone:.0f} s" if gone < 120 else f"{gone / 60:.0f} min"


def window_text(window, trace_start=None) -> str:
    """A time window ``[T0, T1]`` (seconds since the trace start) as tables show it: ``T0–T1 s``,
    to a tenth of a second (a live window's ends are where its last event fell), and given the
    trace's start (seconds since the epoch), its clock times too: a live workload's start moves
    when its first applications leave it, so seconds since it do not say which minutes these are.
    MISSING for none."""
    if not window:
        return MISSING
    text = f"{float(window[0]):,.1f}–{float(window[1]):,.1f} s"  # tenths also past 1e6 s
    if trace_start is None:
        return text
    first, last = (when(float(trace_start) + float(t)) for t in window)
    return f"{text} ({first}–{last[11:] if last[:10] == first[:10] else last})"


def short(value, limit: int = 120) -> str:
    """Free text (a description, a stage's call site) cut to ``limit`` characters, with an ellipsis
    where it was cut."""
    text = "" if value is None else str(value)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def percent(value) -> str:
    """A share as a percentage with one decimal; MISSING when not computable."""
    return MISSING if value is None or value != value else f"{value:.1%}"


def mib(value) -> str:
    """Bytes as MiB; MISSING when not measured."""
    return MISSING if value is None or value != value else f"{value / 2**20:,.0f} MiB"


#: What the summed columns of the workload-wide rankings mean (a terminal table's footnotes, a page's hints).
COLUMN_NOTES = {
    "dor": "A DOR summed over victims can exceed 1: each victim's shares add up to at most 1, so over N victims "
           "the sum reaches at most N.",
    "impact": "Impact (ΣIF): the sum of the impact factors of its explanations (paper 000 Sec. 4.2.3), each counted "
              "alike however short.",
    "by_others_s": "by_others_s: task-seconds its tasks were blocked by other queries, JVM GC, executors and Unknown "
                   "causes (the ranking's key); own_s: by its own tasks competing with each other.",
}
