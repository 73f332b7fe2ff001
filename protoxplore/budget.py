"""A load's memory budget (issue 14: "bounded memory on any input").

The reader's limits (a cap on each decompressed read, the line-length limit) bound what one line
costs, but not what a workload costs: the blame of N stages running at once on the same hosts
grows as N^2, so 1 MB of zstd can describe a workload whose ProtoGraph does not fit in memory. No
count of rows known before the build bounds it (docs/benchmarks.md, "Peak memory of a whole load"). So
`protoxplore load` runs under a budget: a watchdog thread reads the process's resident memory every
few milliseconds and, past the budget, interrupts the load. The load then stops as Ctrl-C
stops it (nothing it began is listed, and it is removed) and says why in one line.
"""
from __future__ import annotations

import _thread
import ctypes
import os
import resource
import signal
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from protoxplore.errors import OverBudget, StoreError

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
#: How often the watchdog looks (seconds): a load grows by well under 100 MiB in that time.
PERIOD_S = 0.005


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


def _return_freed_blocks() -> None:
    """Have glibc's malloc give blocks of 1 MiB and more back to the system when freed. By default
    its threshold for that grows with every large block freed, and then the build's and the writer's
    frames stay resident once freed: the dense input's load peaked at 960 MiB, 895 MiB with this
    (docs/benchmarks.md). No effect where malloc is not glibc's."""
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt(M_MMAP_THRESHOLD, 1 << 20)
        libc.mallopt(M_TRIM_THRESHOLD, 1 << 20)
    except (OSError, AttributeError):
        pass


class _Watch:
    """The state a budget's watchdog shares with the main thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.done = False  # the block has ended: no interruption any more
        self.over = False  # the budget was passed
        self.shielded = 0  # database calls in progress in the main thread
        self.pending = False  # passed during one of them: the load stops when it returns


_active: _Watch | None = None


@contextmanager
def bounded(limit_mib: float | None, what: str) -> Iterator[None]:
    """Run the block (in the main thread) under a budget of ``limit_mib``: past it, the block is
    interrupted and :class:`OverBudget` raised, its message naming ``what`` and the setting."""
    global _active
    if limit_mib is None:
        yield
        return
    _return_freed_blocks()
    watch, stop = _Watch(), threading.Event()

    def watchdog() -> None:
        while not stop.wait(PERIOD_S):
            if resident_mib() > limit_mib:
                with watch.lock:
                    if not watch.done:
                        watch.over = True
                        if watch.shielded:
                            watch.pending = True
                        else:
                            # A KeyboardInterrupt in the main thread, between two bytecodes, through a
                            # signal of the budget's own: no signal is sent, and a SIGINT that the
                            # shell ignores (a command started with `&`) does not turn the budget off.
                            _thread.interrupt_main(BUDGET_SIGNAL)
                return

    thread = threading.Thread(target=watchdog, name="memory budget", daemon=True)
    before = signal.signal(BUDGET_SIGNAL, _interrupt)
    try:
        try:
            _active = watch
            # Started inside the try: on a busy machine the watchdog can interrupt before start() returns.
            thread.start()
            yield
        finally:
            with watch.lock:
                watch.done = True
            stop.set()
            if thread.is_alive():  # not when a Ctrl-C came before it ran: it then ends at once
                thread.join()
    except KeyboardInterrupt as stop:
        if watch.over:
            failed = _failed_call(stop)
            raise OverBudget(f"{what}: the load needed more than {limit_mib:.0f} MiB of memory, its budget "
                             f"(PROTOXPLORE_LOAD_MEMORY_MIB per MiB of input); a workload this dense is better "
                             f"explained a window at a time (load --window T0,T1), or raise the setting"
                             + (f"; a database call failed too: {failed}" if failed else "")) from None
        raise
    finally:
        _active = None
        signal.signal(BUDGET_SIGNAL, before)


#: The signal the watchdog has the main thread handle (simulated by ``_thread.interrupt_main``,
#: never sent): SIGINT's handler is the shell's to set (ignored in a background job).
BUDGET_SIGNAL = signal.SIGUSR2


def _interrupt(_signum, _frame) -> None:
    raise KeyboardInterrupt


def _failed_call(stop: BaseException) -> BaseException | None:
    """The database error to name beside a budget's stop: the call the budget was passed in, when it
    failed (``database_call`` makes that the stop's cause), else a store error whose handling the
    stop interrupted (the writer removing what it began after a refused write). Not just any error
    being handled: one a library caught of its own (an optional module's ImportError) is no failure."""

    if stop.__cause__ is not None and not isinstance(stop.__cause__, KeyboardInterrupt):
        return stop.__cause__
    handled = stop.__context__
    while handled is not None and not isinstance(handled, StoreError):
        handled = handled.__context__
    return handled


@contextmanager
def database_call() -> Iterator[None]:
    """Around a call into a database driver (``store``): neither a budget nor a Ctrl-C interrupts
    one, since a driver stopped in the middle of a reply leaves its connection unusable (a Neo4j
    connection can even hand the next query the rest of the stopped one's reply), and removing the
    unfinished analysis, or marking a watch's generations stopped, needs it. A budget passed or a
    Ctrl-C pressed meanwhile stops the command when the call returns; a second Ctrl-C stops it at
    once (a call that never returns, to a server that hangs)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    watch = _active
    pressed: list[int] = []
    held = signal.getsignal(signal.SIGINT) is signal.default_int_handler  # not nested, nor a server's own handler

    def hold(signum, _frame) -> None:
        pressed.append(signum)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # the next Ctrl-C interrupts

    if held:
        signal.signal(signal.SIGINT, hold)
    if watch is not None:
        with watch.lock:
            watch.shielded += 1
    failed: BaseException | None = None
    try:
        yield
    except BaseException as error:
        failed = error
        raise
    finally:
        if held:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        stop = bool(pressed)
        if watch is not None:
            with watch.lock:
                watch.shielded -= 1
                if watch.pending and not watch.shielded:
                    watch.pending, stop = False, True
        if stop:  # also when the call failed: a caller that recovers from its error must still stop
            # As Ctrl-C or the watchdog's interruption: bounded() says which, and names the failure.
            raise KeyboardInterrupt from failed
