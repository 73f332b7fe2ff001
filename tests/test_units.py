"""Unit canaries: Spark writes CPU and shuffle-write times in nanoseconds, the others in
milliseconds. A wrong conversion factor silently turns every blocked time into nonsense, so real
logs are checked against physical limits, and a log in wrong units is reported when loaded."""
from __future__ import annotations

from pathlib import Path

import pytest

from protoxplore.cli.commands import main
from protoxplore.loader.logs import eventlog
from protoxplore.loader.logs.trace import read_trace

from handmade import make_log

DATA = Path(__file__).resolve().parent / "data"
REAL_LOGS = sorted((DATA / "eventlogs" / "real").iterdir()) + sorted((DATA / "scenarios").glob("*/*.zstd"))


@pytest.fixture(scope="module")
def real_traces():
    traces = {}
    for path in REAL_LOGS:
        warnings: list[str] = []
        traces[f"{path.parent.name}/{path.name}"] = (read_trace(eventlog.discover([path]), warn=warnings.append), warnings)
    return traces


@pytest.mark.slow
def test_real_logs_fit_physical_limits(real_traces):
    for name, (trace, warnings) in real_traces.items():
        tasks = trace.tasks[trace.tasks["run_s"] > 0.05]
        assert not [w for w in warnings if "units look wrong" in w], name
        timed = tasks[tasks["cpu_s"].notna()]  # a failed task's CPU time is not measured
        if len(timed):
            # A task's CPU time fits in its run time (a little more with helper threads).
            assert (timed["cpu_s"] <= 1.5 * timed["run_s"] + 0.01).mean() >= 0.95, name
        written = tasks[(tasks["written_bytes"] > 1e6) & (tasks["write_s"] > 0)]
        # No disk writes shuffle data faster than 20 GB/s, and none slower than 1 kB/s.
        assert ((written["written_bytes"] / written["write_s"]).between(1e3, 2e10)).all(), name


def test_cpu_bound_scenario_spends_its_run_on_cpu(real_traces):
    # The CPU-hog scenario's queries compute in the JVM: a factor 1000x too small would leave
    # almost no CPU time, 1000x too large more CPU than run time.
    trace = next(t for n, (t, _) in real_traces.items() if n.startswith("cpu_culprit/"))
    tasks = trace.tasks
    assert 0.05 < tasks["cpu_s"].sum() / tasks["run_s"].sum() <= 1.5


def test_a_log_in_wrong_units_is_reported(home, capsys, tmp_path):
    # CPU times written as if in microseconds: 1000x too large once read as nanoseconds.
    log = make_log(tmp_path / "units", [dict(query=f"q{i}", host="h1", launch=0, finish=2, cpu_s=2000)
                                        for i in range(4)])
    assert main(["load", str(log), "--home", str(home)]) == 0
    _, err = capsys.readouterr()
    assert "Executor CPU Time exceeds Executor Run Time in 4 of 4 tasks" in err

