"""Time windows: an analysis of part of a trace (paper 001 Sec. 6.2's windows), given in seconds since
the trace's first event, and spans clipped to one."""
from __future__ import annotations

import numpy as np

from protoxplore.loader.logs.trace import Trace


def window_in_trace(trace: Trace, window: tuple[float, float] | None) -> tuple[float, float] | None:
    """A window given in seconds since the trace start (``Options.window``) in the trace's own time."""
    if window is None:
        return None
    t0, t1 = window
    if not t1 > t0:
        raise ValueError(f"window end {t1} must be after its start {t0}")
    if t0 >= trace.end - trace.start:  # nothing ran in it: an analysis of it would be all zeros
        raise ValueError(f"the window [{t0:g} s, {t1:g} s] starts after the trace ends: it spans 0 s to "
                         f"{trace.end - trace.start:.1f} s (seconds since its first event)")
    return trace.start + t0, trace.start + t1


def clip(start: np.ndarray, end: np.ndarray, window) -> tuple[np.ndarray, np.ndarray]:
    """``[start, end)`` clipped to ``window`` (the trace's time; None: unclipped): outside it, empty."""
    if window is None:
        return start.astype(float), end.astype(float)
    s = np.clip(start.astype(float), window[0], window[1])
    e = np.clip(end.astype(float), window[0], window[1])
    return s, e
