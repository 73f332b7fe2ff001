"""The papers' worked examples and the model's edge cases, through the product: a Spark event log
is written, loaded with the CLI and explained with ``explain --json``, exactly as a user would."""
from __future__ import annotations

import json

import pytest

from protoxplore.cli.commands import main
from protoxplore.loader.logs.eventlog import discover
from protoxplore.loader.logs.trace import read_trace
from protoxplore.loader.model import baselines, protograph

from handmade import make_log


def cli(capsys, home, *argv):
    code = main([str(a) for a in argv] + ["--home", str(home)])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def explain(capsys, home, log, victim, *extra):
    """Load ``log`` and return ``explain --json`` of ``victim`` in that analysis."""
    out = cli(capsys, home, "load", log, "--json")
    analysis = json.loads(out)["id"]
    return json.loads(cli(capsys, home, "explain", "--victim", victim, "--analysis", analysis, "--json", *extra))


def culprit_seconds(e: dict) -> dict[str, float]:
    return {c["description"]: c["blame_s"] for c in e["culprit_queries"]}


def resource(e: dict, name: str) -> dict:
    return next(r for r in e["resources"] if r["resource"] == name)


def test_example_3_3_slowdown_6_split_1_to_2(home, capsys, tmp_path):
    # Paper 001 Example 3.3: in one second Task1 reads 30 bytes, Task2 60 and Task3 120; the disk
    # served 210 bytes/s (the largest aggregate rate in the trace). Task1 needed 30/210 = 1/7 s, so
    # it was blocked 6/7 s: slowdown 6, blamed on Task2 and Task3 as 60 : 120 (Eq. 8-10).
    log = make_log(tmp_path / "ex33", [
        dict(query="Task1", host="h1", launch=0, finish=1, scan_s=1, read_bytes=30),
        dict(query="Task2", host="h1", launch=0, finish=1, scan_s=1, read_bytes=60),
        dict(query="Task3", host="h1", launch=0, finish=1, scan_s=1, read_bytes=120),
    ])
    e = explain(capsys, home, log, "Task1")
    assert e["victim"]["blocked_s"] == pytest.approx(6 / 7)
    assert e["victim"]["slowdown"] == pytest.approx(6.0)
    assert resource(e, "IO")["slowdown"] == pytest.approx(6.0)
    got = culprit_seconds(e)
    assert got == pytest.approx({"Task2": 2 / 7, "Task3": 4 / 7})  # nothing on Task1 itself


def test_a_tiny_blocked_time_is_said_beside_its_slowdown(home, capsys, tmp_path):
    # Example 3.3 a hundred times shorter: the same slowdown 6 on 6/700 s of blocked IO. Said to
    # a tenth of a second, "IO 0.0 s (slowdown 6.00)" read as a slowdown without any blocked time.
    log = make_log(tmp_path / "ex33short", [
        dict(query=name, host="h1", launch=0, finish=0.01, scan_s=0.01, read_bytes=amount)
        for name, amount in (("Task1", 30), ("Task2", 60), ("Task3", 120))])
    analysis = json.loads(cli(capsys, home, "load", log, "--json"))["id"]
    text = cli(capsys, home, "explain", "--victim", "Task1", "--analysis", analysis)
    assert "ran 0.01 s; the tasks of its critical path were blocked 0.0086 task-seconds in all." in text
    assert "Resources: IO 0.0086 s (100%, slowdown 6.00)." in text
    assert 'Culprit 1: hand:sql-2 ("Task3") caused 0.0057 s (67%) of the blocked time.' in text


def test_example_3_4_on_shuffle_fetch_wait(home, capsys, tmp_path):
    # Paper 001 Sec. 3.4: Task1 is blocked only 0.25 s of the second (here: waiting for shuffle
    # blocks), so Task2 and Task3 share 0.25 s as 60 : 120: 1/12 s and 1/6 s; nothing on Task1.
    log = make_log(tmp_path / "ex34", [
        dict(query="Task1", host="h1", launch=0, finish=1, cpu_s=0.75, fetch_s=0.25, net_bytes=30),
        dict(query="Task2", host="h1", launch=0, finish=1, cpu_s=1, net_bytes=60),
        dict(query="Task3", host="h1", launch=0, finish=1, cpu_s=1, net_bytes=120),
    ])
    e = explain(capsys, home, log, "Task1")
    assert e["victim"]["blocked_s"] == pytest.approx(0.25)
    assert culprit_seconds(e) == pytest.approx({"Task2": 1 / 12, "Task3": 1 / 6})
    # Network slowdown (Eq. 4): 0.25 s blocked over the 30/210 s its bytes take at 210 bytes/s.
    assert resource(e, "NETWORK")["slowdown"] == pytest.approx(0.25 / (30 / 210))


def test_figure_6_with_a_victim_that_reads_too(home, capsys, tmp_path):
    # Paper 001 Fig. 6: 500 s of IO blocked time split 4 : 1 between two culprits reading at 4:1.
    # The victim reads too (1 GB over 1000 s, at 1/6 of the 6 GB/1000 s peak): its scan time is its
    # service time at capacity (1000/6 s) plus the 500 s it was blocked, and it takes no share itself.
    service = 1e9 / (6e9 / 1000)
    log = make_log(tmp_path / "fig6", [
        dict(query="victim", host="h1", launch=0, finish=1000, cpu_s=1000 - 500 - service, scan_s=500 + service,
             read_bytes=1e9),
        dict(query="C1", host="h1", launch=0, finish=1000, cpu_s=1000, read_bytes=4e9),
        dict(query="C2", host="h1", launch=0, finish=1000, cpu_s=1000, read_bytes=1e9),
    ])
    e = explain(capsys, home, log, "victim")
    assert e["victim"]["blocked_s"] == pytest.approx(500.0)
    assert culprit_seconds(e) == pytest.approx({"C1": 400.0, "C2": 100.0})
    assert [c["dor"] for c in e["culprit_queries"]] == pytest.approx([0.8, 0.2])
    assert [p["weight"] for p in e["paths"]] == pytest.approx([0.8, 0.2])


def test_a_query_alone_is_not_slowed_and_blames_no_query(home, capsys, tmp_path):
    # One query, three tasks at once on three hosts, each with a Python-worker part of its run
    # outside the JVM's CPU time (4 s) and a scan: nothing else ran on its hosts.
    log = make_log(tmp_path / "alone", [
        dict(query="alone", host=f"h{i}", launch=0, finish=10, cpu_s=4, scan_s=2, read_bytes=1e8)
        for i in range(3)], hosts=("h0", "h1", "h2"))
    e = explain(capsys, home, log, "alone")
    assert e["victim"]["slowdown"] == pytest.approx(0.0, abs=1e-9)
    assert e["victim"]["blocked_s"] == pytest.approx(0.0, abs=1e-9)
    assert [c for c in e["culprit_queries"] if not c["synthetic"]] == []
    assert "took 1.00x the task-seconds (slot waits and runs) they would have taken unblocked" in " ".join(
        e["explanations"])


def test_sibling_tasks_are_its_own_other_tasks_never_the_task_itself(home, capsys, tmp_path):
    # Two tasks of one query read at once with a task of another query, all at 100 bytes/s; each
    # victim task was blocked 1 s beyond its service at the 300 bytes/s peak. Its 1 s goes half to
    # its sibling, half to the other query.
    tasks = [dict(query="victim", host="h1", launch=0, finish=3, scan_s=2, read_bytes=300) for _ in range(2)]
    tasks.append(dict(query="other", host="h1", launch=0, finish=3, read_bytes=300))
    e = explain(capsys, home, make_log(tmp_path / "siblings", tasks), "victim")
    rows = {c["description"]: c for c in e["culprit_queries"]}
    assert rows["victim"]["self"] is True and rows["other"]["self"] is False
    assert rows["victim"]["blame_s"] == pytest.approx(1.0)
    assert rows["other"]["blame_s"] == pytest.approx(1.0)
    assert e["victim"]["slowdown"] == pytest.approx(1.0 / (6.0 - 1.0))  # own tasks' contention left out
    # Said apart from the culprits, and first when they hold as much as any: also with --top 1,
    # where the one culprit row left them out.
    e = explain(capsys, home, make_log(tmp_path / "siblings", tasks), "victim", "--top", "1")
    assert [c["self"] for c in e["culprit_queries"]] == [False, True]
    said = [s for s in e["explanations"] if "of the blocked time" in s]
    assert said[0] == "Its own other tasks (hand:sql-0: intra-query contention) caused 1.0 s (50%) of the blocked time."
    assert said[1].startswith("Culprit 1: hand:sql-1") and len(said) == 2


def test_executors_take_only_the_wait_before_the_application_had_any(home, capsys, tmp_path):
    """One slot on hA from the start, held by a hog over [0, 50); the victim, submitted at 10, runs
    on hB over [40, 45), and hB's executor is added at 40. Spark could have given the victim hA's
    slot all along: its 30 s wait is the hog's (delay scheduling), not the executors' (docs/model.md,
    "Executors": only a wait while the application had no executor is)."""
    log = make_log(tmp_path / "late-executor", [dict(query="hog", host="hA", launch=0, finish=50, cpu_s=1),
                                               dict(query="victim", host="hB", submit=10, launch=40, finish=45, cpu_s=1)],
                   hosts=("hA", "hB"), slots=1)
    events = [json.loads(line) for line in log.read_text().splitlines()]
    added = {e["Executor Info"]["Host"]: e for e in events if e["Event"] == "SparkListenerExecutorAdded"}
    added["hB"]["Timestamp"] = added["hA"]["Timestamp"] + 40_000
    log.write_text("".join(json.dumps(e) + "\n" for e in events))
    e = explain(capsys, home, log, "victim")
    assert culprit_seconds(e) == {"hog": pytest.approx(30.0)}


def test_a_trace_in_which_no_task_waited_loads(home, capsys, tmp_path):
    log = make_log(tmp_path / "nowait", [
        dict(query="q1", host="h1", launch=0, finish=2, cpu_s=2),
        dict(query="q2", host="h1", launch=0, finish=2, cpu_s=2)])
    e = explain(capsys, home, log, "q1")
    assert e["victim"]["blocked_s"] == 0.0
    assert e["culprit_queries"] == []
    assert "never blocked" in " ".join(e["explanations"])


def test_a_window_the_trace_or_the_victim_did_not_run_in_is_refused_before_it_is_derived(home, capsys, tmp_path):
    """One line naming the spans, and no window analysis left behind: it was derived and stored, and
    then explained a query of it as having run 0.0 s."""
    log = make_log(tmp_path / "short", [
        dict(query="q1", host="h1", launch=0, finish=2, cpu_s=1),
        dict(query="q2", host="h1", launch=0, finish=4, cpu_s=2)])
    a = json.loads(cli(capsys, home, "load", log, "--json"))["id"]
    for window, said in (("100,200", "the window [100 s, 200 s] starts after the trace ends: it spans 0 s to 4.0 s"),
                         ("3,4", "hand:sql-0 did not run in the window [3 s, 4 s] (it ran from 0.0 s to 2.0 s of the trace)")):
        code = main(["explain", "--victim", "q1", "--window", window, "--json", "--analysis", a, "--home", str(home)])
        out, err = capsys.readouterr()
        assert code == 1 and said in err and len(err.strip().splitlines()) == 1, err
    assert [r["id"] for r in json.loads(cli(capsys, home, "analyses", "--json")) if r["parent"] == a] == []


@pytest.mark.slow
def test_slots_count_spark_task_cpus(home, capsys, tmp_path):
    # 4 cores with spark.task.cpus=2: two slots. Two tasks hold them over [0, 10); a third task of
    # the victim, submitted at 0, waits until 10: all 10 s are the holders' doing. Counting cores
    # as slots would see two free slots and give the wait to Unknown.
    log = make_log(tmp_path / "cpus", [
        dict(query="hog", host="h1", launch=0, finish=10, cpu_s=10),
        dict(query="hog", host="h1", launch=0, finish=10, cpu_s=10),
        dict(query="victim", host="h1", submit=0, launch=10, finish=12, cpu_s=2)],
        slots=4, spark_properties={"spark.task.cpus": "2"})
    e = explain(capsys, home, log, "victim")
    assert culprit_seconds(e) == pytest.approx({"hog": 10.0})


@pytest.mark.slow
def test_a_window_clips_runtime_and_slowdown(home, capsys, tmp_path):
    # Example 3.3 stretched to 10 s; inside the window [2 s, 4 s] the victim ran 2 s, not 10 s,
    # and its slowdown there is the same 6 (uniform rates).
    log = make_log(tmp_path / "ex33long", [
        dict(query="Task1", host="h1", launch=0, finish=10, scan_s=10, read_bytes=300),
        dict(query="Task2", host="h1", launch=0, finish=10, scan_s=10, read_bytes=600),
        dict(query="Task3", host="h1", launch=0, finish=10, scan_s=10, read_bytes=1200)])
    e = explain(capsys, home, log, "Task1", "--window", "2,4")
    assert e["analysis"]["window"] == [2, 4]
    assert e["victim"]["runtime_s"] == pytest.approx(2.0)
    assert e["victim"]["blocked_s"] == pytest.approx(2 * 6 / 7)
    assert e["victim"]["slowdown"] == pytest.approx(6.0)


@pytest.mark.slow
def test_slot_waits_by_holders_and_by_paper_000s_offered_slots(tmp_path):
    # One host with 2 slots. "holder" holds one over [0, 10); "other" and the victim are submitted
    # at 1, and other's three tasks take the second slot in turn ([1, 3), [3, 5), [5, 8)) while the
    # victim's task waits until 8 (7 s). Our rule (holders): both slots are held all along, so
    # holder and other take 3.5 s each. Paper 000 Table 5 (offered): the culprits are the tasks
    # queued beside the victim, by the slots they were offered: other's 2nd and 3rd tasks, queued
    # over [1, 3) and [1, 5), take [1, 5) = 4 s; over [5, 8) nobody else is queued: Unknown 3 s.
    log = make_log(tmp_path / "slots", [
        dict(query="holder", host="h1", launch=0, finish=10, cpu_s=10),
        dict(query="other", host="h1", submit=1, launch=1, finish=3, cpu_s=2),
        dict(query="other", host="h1", submit=1, launch=3, finish=5, cpu_s=2),
        dict(query="other", host="h1", submit=1, launch=5, finish=8, cpu_s=3),
        dict(query="victim", host="h1", submit=1, launch=8, finish=9, cpu_s=1)], slots=2)
    trace = read_trace(discover([log]))
    victim = trace.queries.set_index("description").loc["victim", "query_key"]
    named = dict(zip(trace.queries["query_key"], trace.queries["description"]))

    def slot_blame(rule: str) -> dict[str, float]:
        blame = protograph.build(trace, protograph.Options(slot_rule=rule)).blame
        mine = blame[(blame["victim_query"] == victim) & (blame["request"] == "slots")]
        return {named.get(k, k): s for k, s in mine.groupby("culprit_query")["blame_s"].sum().items()}

    assert slot_blame("holders") == pytest.approx({"holder": 3.5, "other": 3.5})
    assert slot_blame("offered") == pytest.approx({"other": 4.0, "Unknown": 3.0})
    scores = baselines.offered_slots(trace, victim)  # what `protoxplore evaluate` scores
    assert scores[scores.index != "Unknown"].rename(named).to_dict() == pytest.approx({"other": 4.0})


@pytest.mark.slow
def test_a_slot_wait_on_a_busy_cpu_is_blamed_on_the_cpu_users(home, capsys, tmp_path):
    # One host, 2 slots. Two warm-up tasks computing at once over [0, 1) show a CPU capacity of 2
    # cores. Over [1, 11) "reader" holds one slot reading alone (no CPU, not blocked) and "half"
    # the other computing at 1 core: the CPU is half busy (u = 0.5). The victim, submitted at 2,
    # waits 9 s for a slot. Half of the wait is CPU contention in disguise and goes to the CPU
    # user: 4.5 s to "half"; the other half goes to the two holders, 2.25 s each.
    # Holders alone (the old rule) would give 4.5 s each.
    log = make_log(tmp_path / "busy", [
        dict(query="warm", host="h1", launch=0, finish=1, cpu_s=1),
        dict(query="warm", host="h1", launch=0, finish=1, cpu_s=1),
        dict(query="reader", host="h1", launch=1, finish=11, read_bytes=1000, scan_s=10),
        dict(query="half", host="h1", launch=1, finish=11, cpu_s=10),
        dict(query="victim", host="h1", submit=2, launch=11, finish=12, cpu_s=1)], slots=2)
    e = explain(capsys, home, log, "victim")
    assert culprit_seconds(e) == pytest.approx({"half": 6.75, "reader": 2.25})


@pytest.mark.slow
def test_a_slot_wait_goes_to_the_users_of_what_the_victim_needs(home, capsys, tmp_path):
    # As above, but the victim needs the disk as much as the CPU: 0.5 s of CPU and 500 bytes at
    # the disk's 1,000 bytes/s (set by "reader", which holds a slot reading at that rate alone).
    # Over [1, 11) the CPU is half busy (u_cpu = 0.5) and the disk fully (u_io = 1). Of the 9 s
    # wait, the CPU half (4.5 s) gives 2.25 s to the CPU user "half" and 2.25 s to the holders;
    # the disk half gives all 4.5 s to the disk user "reader". reader 4.5 + 1.125 = 5.625, half
    # 2.25 + 1.125 = 3.375. The CPU-only rule would give half 6.75 and reader 2.25.
    log = make_log(tmp_path / "needs", [
        dict(query="warm", host="h1", launch=0, finish=1, cpu_s=1),
        dict(query="warm", host="h1", launch=0, finish=1, cpu_s=1),
        dict(query="reader", host="h1", launch=1, finish=11, read_bytes=10000, scan_s=10),
        dict(query="half", host="h1", launch=1, finish=11, cpu_s=10),
        dict(query="victim", host="h1", submit=2, launch=11, finish=12, cpu_s=0.5, read_bytes=500, scan_s=0.5)],
        slots=2)
    e = explain(capsys, home, log, "victim")
    assert culprit_seconds(e) == pytest.approx({"half": 3.375, "reader": 5.625})


def holder_slowed_by_hog(tmp_path):
    """One host, 2 slots: a warm-up at 2 cores over [0, 1); "holder" (5 s of CPU in 10 s) and "hog"
    (1 core) hold the slots over [1, 11) while the victim, submitted at 2, waits for one."""
    return make_log(tmp_path / "chain", [
        dict(query="warm", host="h1", launch=0, finish=1, cpu_s=1),
        dict(query="warm", host="h1", launch=0, finish=1, cpu_s=1),
        dict(query="holder", host="h1", launch=1, finish=11, cpu_s=5),
        dict(query="hog", host="h1", launch=1, finish=11, cpu_s=10),
        dict(query="victim", host="h1", submit=2, launch=11, finish=12, cpu_s=1)], slots=2)


def test_a_slot_holder_slowed_by_another_query_passes_that_share_on(home, capsys, tmp_path):
    # As above, but "holder" computes only 5 of its 10 s: the other 5 s it was runnable while
    # "hog" (1 core, the other slot) used the CPU, so hog caused them (CPU blame 5 s). CPU busy
    # over [1, 11): (0.5 + 1) / 2 = 0.75, so of the victim's 9 s wait 6.75 s go to the CPU users
    # by share (hog 4.5, holder 2.25) and 2.25 s to the holders (1.125 each). The holder was
    # blocked by hog for half the time it held its slot, so half of its holder share (0.5625 s)
    # passes on to hog: hog 4.5 + 1.125 + 0.5625 = 6.1875, holder 2.25 + 0.5625 = 2.8125.
    log = holder_slowed_by_hog(tmp_path)
    e = explain(capsys, home, log, "victim")
    assert culprit_seconds(e) == pytest.approx({"hog": 6.1875, "holder": 2.8125})


def test_windows_that_partition_a_run_add_up_to_its_blame(home, capsys, tmp_path):
    # The run of the test above cut at 6 s: the victim waited [2, 6) in the first window and
    # [6, 11) in the second. The second holds no task of the warm-up, whose peak (2 cores) is the
    # CPU's capacity: a window estimating it from its own tasks (1.5 cores: holder's half and
    # hog's one) took the CPU for full, and gave all of its 5 s to the CPU users (hog 3.33, holder
    # 1.67) and none to the slot holders (until 2026-11-28). With the whole trace's capacity the
    # CPU is 0.75 busy in both windows, so each holds its share of the run's blame: 4/9 and 5/9.
    log = holder_slowed_by_hog(tmp_path)
    whole = culprit_seconds(explain(capsys, home, log, "victim"))
    first, second = (culprit_seconds(explain(capsys, home, log, "victim", "--window", w)) for w in ("0,6", "6,12"))
    assert first == pytest.approx({q: s * 4 / 9 for q, s in whole.items()})
    assert second == pytest.approx({q: s * 5 / 9 for q, s in whole.items()})
    assert second == pytest.approx({"hog": 3.4375, "holder": 1.5625})


def test_a_holder_slowed_only_after_the_wait_passes_none_of_it_on(home, capsys, tmp_path):
    # As above, but "hog" computes only after the victim's wait [2, 11): it starts at 12. "holder"
    # (0.75 of a core over [1, 21)) and "other" (1 core over [1, 11)) hold the 2 slots; CPU
    # capacity 2 (the warm-up's peak), busy 1.75 / 2 over the wait: 7.875 s go to the CPU users by
    # share (holder 3.375, other 4.5), 1.125 s to the holders (0.5625 each). The holder's 5 s of
    # residual are blocked 0.25 s a second by whoever computes beside it: other over [1, 11), the
    # victim over [11, 12), hog over [12, 21). Inside the wait it was blocked by other a quarter of
    # its slot time, so a quarter of its holder share passes on to other: holder 3.375 + 0.421875,
    # other 4.5 + 0.5625 + 0.140625. Hog and the victim itself slowed the holder only after the
    # wait: none of it (by the holder's whole slot time they took 0.063 and 0.007 s, and other
    # half as much, until 2026-11-26).
    log = make_log(tmp_path / "late", [
        dict(query="warm", host="h1", launch=0, finish=1, cpu_s=1),
        dict(query="warm", host="h1", launch=0, finish=1, cpu_s=1),
        dict(query="holder", host="h1", launch=1, finish=21, cpu_s=15),
        dict(query="other", host="h1", launch=1, finish=11, cpu_s=10),
        dict(query="victim", host="h1", submit=2, launch=11, finish=12, cpu_s=1),
        dict(query="hog", host="h1", launch=12, finish=21, cpu_s=9)], slots=2)
    e = explain(capsys, home, log, "victim")
    assert culprit_seconds(e) == pytest.approx({"holder": 3.796875, "other": 5.203125})


def test_a_holder_blamed_directly_and_by_delay_scheduling_passes_its_share_on_once(home, capsys, tmp_path):
    # h2 has 2 slots and a CPU capacity of 2 (the warm-up's peak). "holder" (0.5 of a core) and
    # "hog" (1 core) hold both over [1, 11). The victim has a task that waits on h2 over [2, 11)
    # (9 s: 0.75 of the CPU busy, so 2.25 s to holder and 4.5 s to hog as CPU users, 1.125 s to
    # each holder) and one that waits on h1 over [2, 6) beside a free slot while h2 is full (4 s by
    # delay scheduling: 2 s to each holder of h2). Hog blocked holder half of its slot time, so
    # half of holder's 3.125 s of holder blame passes on: holder 2.25 + 1.5625, hog 4.5 + 3.125 +
    # 1.5625; 13 s in all. Until 2026-11-26 the two kinds of holder blame were two rows that each
    # gave the share away once per row: holder 2.25, and 1.5625 s lost.
    log = make_log(tmp_path / "both", [
        dict(query="warm", host="h2", launch=0, finish=1, cpu_s=1),
        dict(query="warm", host="h2", launch=0, finish=1, cpu_s=1),
        dict(query="holder", host="h2", launch=1, finish=11, cpu_s=5),
        dict(query="hog", host="h2", launch=1, finish=11, cpu_s=10),
        dict(query="victim", host="h2", submit=2, launch=11, finish=12, cpu_s=1),
        dict(query="victim", host="h1", submit=2, launch=6, finish=7, cpu_s=1)], hosts=("h1", "h2"), slots=2)
    e = explain(capsys, home, log, "victim")
    assert culprit_seconds(e) == pytest.approx({"holder": 3.8125, "hog": 9.1875})


@pytest.mark.slow
def test_a_wait_beside_a_free_slot_goes_to_the_holders_of_the_full_host(home, capsys, tmp_path):
    # Two hosts with one slot each. "early" holds h1's slot over [0, 2), "holder" h2's over
    # [0, 10). The victim, submitted at 1, runs on h1 from 5. Over [1, 2) every slot of h1 was held:
    # 1 s to early (it used h1's CPU, all the victim needs). Over [2, 5) h1's slot was free and
    # Spark would have launched the victim there at once unless delay scheduling held it for its
    # preferred executor, h2, all of whose slots "holder" held: 3 s to holder, not to Unknown.
    log = make_log(tmp_path / "locality", [
        dict(query="early", host="h1", launch=0, finish=2, cpu_s=2),
        dict(query="holder", host="h2", launch=0, finish=10, cpu_s=10),
        dict(query="victim", host="h1", submit=1, launch=5, finish=6, cpu_s=1)], hosts=("h1", "h2"), slots=1)
    e = explain(capsys, home, log, "victim")
    assert culprit_seconds(e) == pytest.approx({"early": 1.0, "holder": 3.0})


@pytest.mark.slow
def test_a_host_whose_slots_never_filled_takes_no_part_in_a_wait_beside_a_free_slot(home, capsys, tmp_path):
    # As above with two slots per host and a third host that one task never fills (a host that is
    # never full must not break the load): h1 full over [1, 2) (early's two tasks use its 2 cores:
    # 1 s to early), then only h2 full over [2, 5): 3 s to holder, nothing to lone.
    log = make_log(tmp_path / "never_full", [
        dict(query="early", host="h1", launch=0, finish=2, cpu_s=2),
        dict(query="early", host="h1", launch=0, finish=2, cpu_s=2),
        dict(query="holder", host="h2", launch=0, finish=10, cpu_s=10),
        dict(query="holder", host="h2", launch=0, finish=10, cpu_s=10),
        dict(query="lone", host="h3", launch=0, finish=10, cpu_s=10),
        dict(query="victim", host="h1", submit=1, launch=5, finish=6, cpu_s=1)], hosts=("h1", "h2", "h3"), slots=2)
    e = explain(capsys, home, log, "victim")
    assert culprit_seconds(e) == pytest.approx({"early": 1.0, "holder": 3.0})


@pytest.mark.slow
def test_a_fair_pool_that_refills_a_holders_slot_passes_its_share_to_the_victims_pool(home, capsys, tmp_path):
    # One host, 2 slots, FAIR pools a and b. "ahead" (pool a) holds one slot over [0, 10), "hog"
    # (pool b) the other. The victim (pool a) waits for a slot over [1, 10) (9 s; it reads alone
    # and computes nothing, so the holders take all of its wait). Over [1, 4) removing hog would
    # give its slot to the victim's pool: hog and ahead take 1.5 s each. From 4 "queued" (pool b)
    # waits too: Spark's FAIR scheduler would give hog's slot back to pool b, so removing hog gives
    # the victim nothing and the 3 s of hog's share pass to ahead, which holds the victim's pool's
    # slot: ahead 1.5 + 6 = 7.5, hog 1.5. In a FIFO application the holders keep their shares,
    # 4.5 s each (the rule before 2026-11-26 gave those in FAIR too), and so they do in FAIR when
    # ahead is in a third pool: the victim's pool then holds no slot, so it is the neediest pool
    # and takes the next slot anyone frees.
    tasks = [dict(query="ahead", pool="a", host="h1", launch=0, finish=10, cpu_s=10),
             dict(query="hog", pool="b", host="h1", launch=0, finish=10, cpu_s=10),
             dict(query="queued", pool="b", host="h1", submit=4, launch=10, finish=12, cpu_s=2),
             dict(query="victim", pool="a", host="h1", submit=1, launch=10, finish=11, read_bytes=100, scan_s=1)]
    fair = explain(capsys, home, make_log(tmp_path / "fair", tasks, slots=2,
                                          spark_properties={"spark.scheduler.mode": "FAIR"}), "victim")
    assert culprit_seconds(fair) == pytest.approx({"ahead": 7.5, "hog": 1.5})
    fifo = explain(capsys, home, make_log(tmp_path / "fifo", tasks, slots=2), "victim")
    assert culprit_seconds(fifo) == pytest.approx({"ahead": 4.5, "hog": 4.5})
    tasks[0]["pool"] = "c"
    apart = explain(capsys, home, make_log(tmp_path / "apart", tasks, slots=2,
                                           spark_properties={"spark.scheduler.mode": "FAIR"}), "victim")
    assert culprit_seconds(apart) == pytest.approx({"ahead": 4.5, "hog": 4.5})
