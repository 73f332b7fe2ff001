"""Time windows of an analysis (paper 001 Sec. 6.2): a whole run cut into windows, each derived once
as an analysis of its own (``pipeline.window_analysis``), and a victim read back in them. The CLI's
``explain --window`` and the web app's windows page ask through here."""
from __future__ import annotations

from pathlib import Path

from protoxplore.errors import NotFound
from protoxplore.service import catalog, pipeline


def victim_in_window(store, analysis: dict, victim_text: str, window: tuple[float, float], home: Path,
                     say: pipeline.Say = print) -> tuple[dict, dict]:
    """``analysis`` (a whole run) clipped to ``window`` (seconds since its trace start), derived if it
    was not, and the victim a user named by ``victim_text`` in it: ``(window analysis, victim)``.
    NotFound when the window is past the trace or the victim did not run in it, before anything is
    derived for it."""
    catalog.whole_run_only(analysis, "--window")  # a window's windows would be the whole run's
    victim = catalog.resolve_victim(store, analysis["id"], victim_text)
    catalog.check_window(analysis, victim, window)
    windowed = catalog.resolve_analysis(store, pipeline.window_analysis(store, analysis, window, home, say=say))
    return windowed, catalog.victim_in_window(store, windowed, victim)


def bounds(analysis: dict, n: int) -> list[tuple[float, float]]:
    """``n`` equal windows over the trace of ``analysis``, in seconds since its start. NotFound for a
    time window (they are cut from whole runs) or an analysis without a trace span."""
    start, end = analysis.get("trace_start"), analysis.get("trace_end")
    if start is None or end is None or end <= start:
        raise NotFound("this analysis has no trace start and end, so it cannot be split into windows")
    catalog.whole_run_only(analysis, "splitting into windows")
    span = end - start
    return [(round(span * i / n, 3), round(span * (i + 1) / n, 3)) for i in range(n)]


def derived(rows: list[dict], analysis: dict, window: tuple[float, float]) -> dict | None:
    """The published analysis of ``analysis`` clipped to ``window`` among ``rows``, if it was derived."""
    for row in catalog.windows_of(rows, analysis["id"]):
        w = row["window"]
        if abs(w[0] - window[0]) < 1e-6 and abs(w[1] - window[1]) < 1e-6:
            return row
    return None


def derive_for_victim(store, analysis: dict, victim: dict, n: int, home: Path) -> None:
    """Derive the windows among ``n`` equal ones of ``analysis`` that ``victim`` ran in and that are
    not derived yet (an empty window has nothing to explain; on a workload of years, most are)."""
    for window in bounds(analysis, n):
        if catalog.ran_in(victim, analysis["trace_start"], window) and derived(catalog.analyses(store), analysis,
                                                                               window) is None:
            pipeline.window_analysis(store, analysis, window, home, say=lambda *_: None)
