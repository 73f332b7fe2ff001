"""The questions the CLI and the web app both ask, answered once: which analysis (the default one,
or one by id), which victim (by the text a user typed, or by its uid in a page address), the
victim inside a time window, an analysis's saved trace, and how numbers and missing values read.

``db`` is anything with ``run(name, params)`` that runs a canned Cypher file and returns its rows:
the store for the CLI, the web app's page cache over the store (``webapp.db.READER``) for pages.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from protoxplore.errors import NotFound, QueryError
from protoxplore.loader.model.levels import uid as uid_of
from protoxplore.loader.model.protograph import Options
from protoxplore.show import ago, when
from protoxplore.storage import lifecycle, locks, traces

# ---------------------------------------------------------------- analyses

def analyses(db) -> list[dict]:
    """Published analyses, the most recently loaded first."""
    return db.run("analyses", {"status": "complete"})


def is_window(analysis: dict) -> bool:
    """Whether ``analysis`` is a time window of another (derived by ``explain --window`` or the web
    app's windows page, or a live analysis's last N minutes): its ``parent`` is the full analysis."""
    return bool(analysis.get("window"))


def full_analyses(rows: list[dict]) -> list[dict]:
    """The ``rows`` that are not time windows: the whole runs (PerfXplain's log of past runs)."""
    return [r for r in rows if not is_window(r)]


def windows_of(rows: list[dict], analysis: str) -> list[dict]:
    """The time windows derived from ``analysis`` among the published ``rows``."""
    return [r for r in rows if is_window(r) and r.get("parent") == analysis]


def live_window(rows: list[dict], total: dict) -> dict | None:
    """The newest live window (last N minutes) published beside the live total ``total`` among the
    published ``rows``; it can be newer than the total (a watch publishes a window alone when its CPU
    budget has no room for a total: ``live.Watch.run``)."""

    mine = [r for r in windows_of(rows, total["id"]) if r.get("live") and generation(r["id"])]
    return max(mine, key=lambda r: generation(r["id"])[1], default=None)


def whole_run_only(analysis: dict, what: str) -> None:
    """Refuse ``what`` on a time window: the counterfactual replay, a what-if and a comparison of runs
    are about whole runs, and splitting into windows starts from the whole. NotFound names the full
    analysis to ask instead."""
    if is_window(analysis):
        raise NotFound(f"analysis {analysis['id']} is a time window: {what} works on its full analysis "
                       f"{analysis.get('parent')}")


def default_analysis(rows: list[dict]) -> dict | None:
    """The analysis a command or page shows when none is named: the most recently loaded full one
    (a time window is derived from another analysis, so it is never the default), else None."""
    return (full_analyses(rows) or rows or [None])[0]


def analysis_row(rows: list[dict], analysis: str | None) -> dict | None:
    """The row of ``analysis`` among the published ``rows``; None when it is none of them."""
    return next((row for row in rows if row["id"] == analysis), None)


def pick_analysis(rows: list[dict], analysis: str | None) -> dict:
    """The analysis row ``analysis`` (None: the default) among the published ``rows``."""
    if not rows:
        raise NotFound("no analysis is loaded yet: run `protoxplore load PATH...` or `protoxplore demo`")
    if analysis is None:
        return default_analysis(rows)
    row = analysis_row(rows, analysis)
    if row is None:
        listed = ", ".join(r["id"] for r in rows[:8]) + (f" and {len(rows) - 8} more" if len(rows) > 8 else "")
        raise NotFound(f"no analysis {analysis[:80]!r}; loaded (newest first): {listed} (`protoxplore analyses` "
                       "lists them)")
    return row


def resolve_analysis(db, analysis: str | None) -> dict:
    """The published analysis ``analysis`` (or the one whose id it uniquely begins), or the default
    one when None. A live generation replaced since it was listed (a watch publishes one every few
    seconds) is answered by the one that stands for it (:func:`live_successor`), as the web app
    redirects to it: the answer names its id."""
    rows = analyses(db)
    try:
        return pick_analysis(rows, analysis)
    except NotFound:
        found = (_by_prefix(rows, analysis) or live_successor(rows, analysis)) if analysis else None
        if found is None:
            raise
        return found


def _by_prefix(rows: list[dict], text: str) -> dict | None:
    """The one analysis among ``rows`` whose id begins with ``text`` (as git's abbreviated commits
    name theirs), or None."""
    found = [r for r in rows if r["id"].startswith(text)]
    return found[0] if len(found) == 1 else None


def live_successor(rows: list[dict], analysis: str) -> dict | None:
    """What stands for ``analysis``, a live generation not listed, among the published ``rows``: the
    newest generation of the same live analysis and kind (total or window) after it (the one that
    replaced it); for a total still being written after its window was published (that window is
    listed), the newest total before it; once that live analysis has ended, the analysis of its
    last workload (``ended_live``); else None."""

    old = generation(analysis)
    if old is None:
        return None
    same = [(generation(row["id"])[1], row) for row in rows if same_live_kind(row["id"], analysis)]
    newer = [pair for pair in same if pair[0] > old[1]]
    if not newer and not old[2] and any(r["id"] == analysis + "w" and r.get("parent") == analysis for r in rows):
        newer = [pair for pair in same if pair[0] < old[1]]
    if newer:
        return max(newer, key=lambda pair: pair[0])[1]
    return next((row for row in rows if old[0] in (row.get("ended_live") or [])), None)


def live_version(rows: list[dict], analysis: str) -> str:
    """What a watch can change on the overview and victim pages of the live generation ``analysis``,
    among the published ``rows``: whether it is still listed (a newer generation replaces it) and
    whether its watch stopped. A live page reloads when this changes (``webapp/static/app.js``), not
    on a clock: a reload with nothing new reset the reader's chart zoom and hover. A window published
    alone beside a total leaves the total's version as it was: the total's link to its window still
    leads to the newest one (:func:`live_successor`), and a reload on every such pass would reset the
    total's charts as often as the clock did."""
    row = analysis_row(rows, analysis)
    return "replaced" if row is None else f"{row['id']}|stopped {row.get('watch_stopped') or ''}"


def same_live_kind(one: str, other: str) -> bool:
    """Whether two analysis ids are generations of one live analysis and of one kind (total or window)."""

    a, b = generation(one), generation(other)
    return a is not None and b is not None and (a[0], a[2]) == (b[0], b[2])


def delete(store, analysis: str, home: Path, say: Callable[[str], None] = print) -> dict:
    """Delete the published analysis ``analysis`` (its id, or a unique beginning of it) with its time
    windows, and the saved traces no analysis names any more: ``{"deleted": id, "windows": [ids]}``."""
    rows = analyses(store)
    row = analysis_row(rows, analysis) or _by_prefix(rows, analysis) or pick_analysis(rows, analysis)
    analysis = row["id"]

    def remove(ids: list[str]) -> None:
        for one in ids:
            with locks.writing(home, one, say):
                lifecycle.delete(store, one, progress=say)

    # Its time windows go with it (first, so that no window outlives the analysis it is part of),
    # and those derived meanwhile: a derivation holds its lock until it is published, so they are
    # listed once it is deleted (pipeline.window_analysis).
    derived = windows_of(rows, analysis)
    remove([r["id"] for r in derived] + [analysis])
    late = windows_of(analyses(store), analysis)
    remove([r["id"] for r in late])
    derived += late
    # A live window published alone has a saved trace of its own (live.Watch.publish).
    for fingerprint in {r.get("fingerprint") for r in [row, *derived]}:
        lifecycle.forget_trace(store, home, fingerprint)
    return {"deleted": analysis, "windows": [r["id"] for r in derived]}


# ---------------------------------------------------------------- victims

def resolve_victim(db, analysis: str, text: str) -> dict:
    """The one victim query matching what a user typed: its uid, key, name or words of its description.
    A uid of an earlier generation of the same live analysis names the same query in this one."""
    if not text.strip():
        raise NotFound("no victim named: give a query's name, key or words of its description (`protoxplore "
                       "victims` lists them)")
    prefix, cut, rest = text.partition("|")
    if cut and prefix != analysis and same_live_kind(prefix, analysis):
        text = f"{analysis}|{rest}"
    rows = db.run("find_victim", {"analysis": analysis, "text": text})
    exact = [r for r in rows if r["exact"]]
    if len(exact) == 1:
        return exact[0]
    candidates = exact or rows
    if not candidates:
        raise NotFound(f"no query matches {text!r} in analysis {analysis}; see `protoxplore victims`")
    if len(candidates) > 1:
        listing = "\n".join(f"  {r['query_key']}  {r['name']}  {r['description'][:80]!r}" for r in candidates[:20])
        raise QueryError(f"{text!r} matches {len(candidates)} queries; give one of their keys (APPLICATION/QUERY, "
                         f"first column; a name where it is one query's):\n{listing}")
    return candidates[0]


def victim_by_uid(db, analysis: str, uid: str) -> dict:
    """The victim query whose uid is exactly ``uid`` (a page address names it so)."""
    for row in db.run("find_victim", {"analysis": analysis, "text": uid}):
        if row["uid"] == uid:
            return row
    raise NotFound(f"no victim query {uid[:120]!r} in analysis {analysis[:80]!r}")


def victim_elsewhere(db, rows: list[dict], analysis: str, uid: str) -> dict | None:
    """Where a victim query that is not in ``analysis``, a live generation, went (a page of it that
    reloads onto the next generation would end on "not found" when it left): from a live
    window, to its total; from a total, to the analysis its application was published as when it
    left the live workload (the newest ordinary analysis holding the same query). None when
    ``analysis`` is not live or the query is in none of those."""
    row = analysis_row(rows, analysis)
    if row is None or not row.get("live") or "|" not in uid:
        return None
    key = uid.split("|", 1)[1]
    published = [r["id"] for r in full_analyses(rows) if not r.get("live")][:10]
    for other in ([row["parent"]] if row.get("parent") else []) + published:
        try:
            return victim_by_uid(db, other, uid_of(other, key))
        except NotFound:
            continue
    return None


def ran_in(victim: dict, trace_start: float, window: tuple[float, float]) -> bool:
    """Whether ``victim`` ran during ``window`` (seconds since ``trace_start``); a query without
    start or end times is taken to have run."""
    if victim.get("start_time") is None or victim.get("end_time") is None:
        return True
    return victim["start_time"] < trace_start + window[1] and victim["end_time"] > trace_start + window[0]


def check_window(analysis: dict, victim: dict, window: tuple[float, float]) -> None:
    """Refuse, before anything is derived for it, a window that starts after ``analysis``'s trace
    ends or that ``victim`` did not run in (NotFound naming the trace's or the victim's span)."""
    t0, t1 = window
    start, end = analysis.get("trace_start"), analysis.get("trace_end")
    if start is not None and end is not None and t0 >= end - start:
        raise NotFound(f"the window [{t0:g} s, {t1:g} s] starts after the trace ends: it spans 0 s to "
                       f"{end - start:.1f} s (seconds since its first event)")
    if start is not None and not ran_in(victim, start, window):
        raise NotFound(_not_in_window(victim, start, window))


def _not_in_window(victim: dict, trace_start: float, window: tuple[float, float]) -> str:
    ran = "" if victim.get("start_time") is None else (
        f" (it ran from {victim['start_time'] - trace_start:.1f} s to {victim['end_time'] - trace_start:.1f} s of the trace)")
    return f"{victim['name']} did not run in the window [{window[0]:g} s, {window[1]:g} s]{ran}"


def victim_in_window(db, window_analysis: dict, victim: dict) -> dict:
    """``victim`` (a row of the full analysis) as a victim of the time window ``window_analysis``;
    NotFound when it did not run in the window."""
    window, start = tuple(window_analysis["window"]), window_analysis["trace_start"]
    found = [r for r in db.run("find_victim", {"analysis": window_analysis["id"], "text": victim["query_key"]})
             if r["exact"]]
    if not found or not ran_in(victim, start, window):
        raise NotFound(_not_in_window(victim, start, window))
    return found[0]


# ---------------------------------------------------------------- saved traces

def saved_trace(analysis: dict, home):
    """The trace an analysis was built from (a time window's is its full analysis's), and its
    options (with the window, if it is one)."""
    try:
        trace = traces.saved_trace(Path(home), analysis)
    except FileNotFoundError as exc:
        raise NotFound(str(exc)) from None
    options = json.loads(analysis["options"])
    return trace, Options(**{**options, "window": tuple(options["window"]) if options.get("window") else None})



def live_status(analysis: dict, rows: list[dict] | None = None) -> str | None:
    """How current a live analysis is (None for any other): when it was published and its last
    event, how many queries still ran, and whether its watch stopped (then it is not updated); for
    a total, given the published ``rows``, its newest window too when that reaches later events."""
    if not analysis.get("live"):
        return None
    window = live_window(rows, analysis) if rows and not analysis.get("window") else None
    if window and (window.get("trace_end") or 0) > (analysis.get("trace_end") or 0):
        waits = "" if analysis.get("watch_stopped") else " (the total waits for room in its watch's CPU budget)"
        return (f"{live_status(analysis)}; its last {analysis.get('last_minutes', 0):g} minutes, {window['id']}, "
                f"reach {when(window['trace_end'])}{waits}")
    ran = f"{analysis.get('running') or 0} of {analysis.get('queries')} queries"
    if analysis.get("watch_stopped"):
        return (f"live, stopped: its watch stopped at {when(analysis['watch_stopped'])}; published "
                f"{when(analysis.get('loaded'))}, last event {when(analysis.get('trace_end'))}; {ran} were still "
                "running then")
    return (f"live: updated {ago(analysis.get('loaded'))} ago ({when(analysis.get('loaded'))}), last event "
            f"{when(analysis.get('trace_end'))}; {ran} still running")


def generation(analysis: str) -> tuple[str, int, bool] | None:
    """``(live key, generation, is the live window)`` of a live generation's id (``KEY-N`` or
    ``KEY-Nw``), None for any other analysis."""
    key, _, tail = analysis.partition("-")
    number = tail.removesuffix("w")
    if not (key.startswith("w") and number.isdigit()):
        return None
    return key, int(number), tail.endswith("w")
