"""A load's memory budget (issue 14: "bounded memory on any input").

The reader's limits (a cap on each decompressed read, the line-length limit) bound what one line
costs, but not what a workload costs: the blame of N stages running at once on the same hosts
grows as N^2, so 1 MB of zstd can describe a workload whose ProtoGraph does not fit in memory. No
count of rows known before the build bounds it (docs/benchmarks.md, "Memory of a load"). So
`protoxplore load` runs under a budget: a watchdog thread reads the process's resident memory every
few milliseconds and, past the budget, interrupts the load. The load then stops as Ctrl-C
stops it (nothing it began is listed, and it is removed) and says why in one line.
"""
from __future__ import annotations

import _thread
import os
import resource
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

#: How often the watchdog looks (seconds): a load grows by well under 100 MiB in that time.
PERIOD_S = 0.005


class OverBudget(Exception):
    """The load needed more memory than its budget allows."""


def input_mib(paths: list[Path]) -> float:
    """MiB of event-log input on disk: the files given, and those under the directories given (links
    to directories not followed: the reader reads each real file once)."""
    files = [p for p in paths if p.is_file()]
    files += [Path(top, name) for p in paths if p.is_dir() for top, _, names in os.walk(p) for name in names]
    return sum(f.stat().st_size for f in files if f.is_file()) / 2**20


def budget_mib(per_input_mib: float, paths: list[Path]) -> float | None:
    """The budget of a load of ``paths``: ``per_input_mib`` (PROTOXPLORE_LOAD_MEMORY_MIB) per MiB of
    input on disk, and as much for an input under 1 MiB; None (no budget) when the setting is 0."""
    return per_input_mib * max(1.0, input_mib(paths)) if per_input_mib > 0 else None


def resident_mib() -> float:
    """This process's resident memory now, MiB (where /proc is missing, its peak so far)."""
    try:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / 2**20 if sys.platform == "darwin" else peak / 1024  # bytes there, KiB on Linux


@contextmanager
def bounded(limit_mib: float | None, what: str) -> Iterator[None]:
    """Run the block (in the main thread) under a budget of ``limit_mib``: past it, the block is
    interrupted and :class:`OverBudget` raised, its message naming ``what`` and the setting."""
    if limit_mib is None:
        yield
        return
    done, over, lock = threading.Event(), threading.Event(), threading.Lock()

    def watch() -> None:
        while not done.wait(PERIOD_S):
            if resident_mib() > limit_mib:
                with lock:  # never once the block has ended
                    if not done.is_set():
                        over.set()
                        _thread.interrupt_main()  # a KeyboardInterrupt in the main thread, between two bytecodes
                return

    watchdog = threading.Thread(target=watch, name="memory budget", daemon=True)
    watchdog.start()
    try:
        try:
            yield
        finally:
            with lock:
                done.set()
            watchdog.join()
    except KeyboardInterrupt:
        if over.is_set():
            raise OverBudget(f"{what}: the load needed more than {limit_mib:.0f} MiB of memory, its budget "
                             f"(PROTOXPLORE_LOAD_MEMORY_MIB per MiB of input); a workload this dense is better "
                             f"explained a window at a time (load --window T0,T1), or raise the setting") from None
        raise
