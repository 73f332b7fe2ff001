"""The richer simulator behind the independent accuracy sweep: each behaviour the replay does not
model (pipelined phases, skew, locality waits, FAIR weights) really happens in the simulation."""
from __future__ import annotations

import pytest

from protoxplore.evaluation.synth import Cluster, QuerySpec, StageSpec, simulate


def one_task_times(schedule):
    return {(r.query, r.stage, r.index): (r.launch, r.finish) for r in schedule.tasks}


def test_pipelined_tasks_read_and_compute_at_once():
    q = [QuerySpec("q", 0.0, (StageSpec(1, cpu_s=2.0, read_bytes=200e6),))]   # 1 s of reading, 2 s of CPU
    plain = simulate(q, Cluster(hosts=("h",), slots=1, read_bw=200e6))
    piped = simulate(q, Cluster(hosts=("h",), slots=1, read_bw=200e6, pipelined=True))
    assert plain.tasks[0].finish == pytest.approx(3.0)
    assert piped.tasks[0].finish == pytest.approx(2.0)
    assert piped.tasks[0].phase_s["read"] == pytest.approx(1.0)


def test_skewed_tasks_take_their_share():
    q = [QuerySpec("q", 0.0, (StageSpec(2, cpu_s=1.0, task_scale=(1.0, 3.0)),))]
    times = one_task_times(simulate(q, Cluster(hosts=("h",), slots=2, cpus=2.0)))
    assert times[(0, 0, 1)][1] == pytest.approx(3.0) and times[(0, 0, 0)][1] == pytest.approx(1.0)


def test_locality_wait_keeps_a_task_off_a_free_host_for_a_while():
    # One slot per host. "long" (prefers h1) holds h1 for 10 s; "other" has a task preferring h2
    # (done at 1 s) and one preferring h1. When h2 frees at 1 s, that task waits for h1 until its
    # locality wait (2 s from its submission) runs out, then takes h2.
    long = QuerySpec("long", 0.0, (StageSpec(1, cpu_s=10.0),))
    other = QuerySpec("other", 0.0, (StageSpec(2, cpu_s=1.0),))
    waited = one_task_times(simulate([long, other], Cluster(hosts=("h1", "h2"), slots=1, locality_wait_s=2.0), "FIFO"))
    assert waited[(1, 0, 0)][0] == pytest.approx(0.0)
    assert waited[(1, 0, 1)][0] == pytest.approx(2.0)
    eager = one_task_times(simulate([long, other], Cluster(hosts=("h1", "h2"), slots=1), "FIFO"))
    assert eager[(1, 0, 1)][0] == pytest.approx(1.0)


def test_fair_weights_share_slots_in_proportion():
    heavy = QuerySpec("heavy", 0.0, (StageSpec(8, cpu_s=1.0),), pool="big")
    light = QuerySpec("light", 0.0, (StageSpec(8, cpu_s=1.0),), pool="small")
    cluster = Cluster(hosts=("h",), slots=3, cpus=3.0, pool_weights=(("big", 2.0),))
    first_wave = [r for r in simulate([heavy, light], cluster, "FAIR").tasks if r.launch == 0.0]
    assert sorted(r.query for r in first_wave) == [0, 0, 1]
