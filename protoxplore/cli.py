"""The ``protoxplore`` command line: load traces, then ask who slowed whom.

Every command works on its own: it starts the embedded engine when needed (or talks to Neo4j
when ``--neo4j-uri`` / ``PROTOXPLORE_NEO4J_URI`` is set) and prints text, or JSON with ``--json``.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import signal
import sys
from pathlib import Path

from protoxplore import __version__, budget, show
from protoxplore.errors import ProtoXploreError, StoreError
from protoxplore.evaluation import synth
from protoxplore.loader.model.baselines import METHODS
from protoxplore.loader.model.levels import LEVELS
from protoxplore.loader.model.protograph import CONTENTION_UNITS, Options
from protoxplore.service import catalog, pipeline, report, stragglers
from protoxplore.settings import Settings
from protoxplore.storage import locks
from protoxplore.storage.embedded import EmbeddedEngine
from protoxplore.storage.queries import MAX_INTEGER
from protoxplore.storage.store import open_store
from protoxplore.text import terminal_safe


def _window(text: str) -> tuple[float, float]:
    try:
        t0, t1 = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"window must be T0,T1 in seconds since the trace start, not {text!r}") from None
    if not (t1 > t0 >= 0 and math.isfinite(t1)):
        raise argparse.ArgumentTypeError(f"window {text!r}: need 0 <= T0 < T1, finite numbers of seconds")
    return t0, t1


def _victim_stages(text: str) -> str:
    """``--victim-stages``: checked before any log is read (a stage key's stage is checked after)."""
    if text in ("critical", "all") or re.fullmatch(r".+/stage-\d+\.\d+", text):
        return text
    raise argparse.ArgumentTypeError(f"expected 'critical', 'all' or a stage key such as APPLICATION/stage-3.0, not {text!r}")


def _number(convert, low: float, high: float, what: str):
    """An argparse type: the text as ``convert`` gives it (int or float), from ``low`` to ``high``;
    anything else (NaN too) is refused in one line saying what is expected."""
    def check(text: str):
        try:
            value = convert(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected {what}, not {text!r}")
        return value
    return check


_port = _number(int, 0, 65535, "a TCP port, 0 to 65535")
_positive = _number(int, 1, MAX_INTEGER, f"a positive integer up to {MAX_INTEGER}")
_positive_number = _number(float, 1e-3, 1e6, "a number from 0.001 to 10^6")


class Parser(argparse.ArgumentParser):
    """argparse's parser (its subcommands' too), whose "expected one argument" says the likely cause:
    argparse reads a value that starts with '-' (``--window -5,10``) as an option."""

    def error(self, message: str):
        option = re.fullmatch(r"argument ([^:]*/)?(--[\w-]+): expected one argument", message)
        if option:
            message += f" (a value that starts with '-' is read as an option: write {option.group(2)}=VALUE)"
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    common = Parser(add_help=False)
    common.add_argument("--json", action="store_true", help="print JSON instead of text")
    common.add_argument("--neo4j-uri", metavar="URI", help="bolt:// or neo4j:// URI (default: the embedded engine)")
    common.add_argument("--home", metavar="DIR", type=Path, help="data directory (default: $PROTOXPLORE_HOME or ~/.protoxplore)")
    reads = Parser(add_help=False)  # the commands that read one analysis
    reads.add_argument("--analysis", metavar="ID", help="analysis id (default: the latest full analysis)")

    parser = Parser(prog="protoxplore", description=__doc__.splitlines()[0].replace("``", ""))
    parser.add_argument("--version", action="version", version=f"protoxplore {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    reading = Parser(add_help=False)  # what load and watch share
    reading.add_argument("paths", nargs="+", metavar="PATH", help="event log files or directories")
    reading.add_argument("--name", help="a label for the analysis")
    reading.add_argument("--strict", action="store_true",
                         help="fail on a malformed or over-long line, or an implausible time, instead of skipping it")
    reading.add_argument("--unit", choices=CONTENTION_UNITS, default="host",
                         help="unit of contention (default: host, also for local-cluster logs, whose executors share "
                              "the machine's cores; executor only where each has resources of its own)")
    reading.add_argument("--victim-stages", type=_victim_stages, default="critical", metavar="MODE",
                         help="'critical' (default: each query's critical path), 'all', or one stage key")

    p = sub.add_parser("load", parents=[common, reading], help="load Spark event logs as one workload")
    p.add_argument("--window", type=_window, metavar="T0,T1", help="clip the analysis to this time window")

    p = sub.add_parser("watch", parents=[common, reading],
                       help="follow growing event logs: a live analysis of the running applications")
    p.add_argument("--every", type=_positive_number, default=2.0, metavar="SECONDS",
                   help="longest rest between passes (default 2); a write to a followed log starts one at once")
    p.add_argument("--last", type=_positive_number, default=5.0, metavar="MINUTES",
                   help="the live window: the last MINUTES of the workload (default 5), besides the total")

    p = sub.add_parser("synth", parents=[common], help="write a synthetic Spark event log with a known culprit")
    p.add_argument("out", type=Path, metavar="FILE")
    p.add_argument("--queries", type=_positive, help="random workload of this many queries (default: the demo)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--policy", choices=("FAIR", "FIFO"), default="FAIR")

    sub.add_parser("demo", parents=[common], help="load a small workload with a known culprit and explain it")

    p = sub.add_parser("victims", parents=[common, reads], help="victim hints: the most blocked or slowed-down queries")
    p.add_argument("--order", choices=("blocked", "slowdown"), default="blocked",
                   help="blocked: most seconds blocked by others (its own tasks left out); slowdown: largest slowdown")
    p.add_argument("--top", type=_positive, default=10, help="how many (default 10)")

    p = sub.add_parser("explain", parents=[common, reads], help="explain one victim level by level")
    p.add_argument("--victim", required=True, metavar="NAME_OR_ID", help="query name, id, or words of its description")
    p.add_argument("--top", type=_positive, default=5, help="rows per level and paths (default 5)")
    p.add_argument("--window", type=_window, metavar="T0,T1", help="explain within this window (s since trace start)")
    p.add_argument("--method", choices=METHODS, default="protograph",
                   help="rank culprits with the ProtoGraph (default), the counterfactual replay's predicted "
                        "speedups, or a baseline of paper 001 Sec. 6.1")

    p = sub.add_parser("whatif", parents=[common, reads],
                       help="predict a victim's runtime after a change (counterfactual replay)")
    p.add_argument("--victim", required=True, metavar="NAME_OR_ID", help="query name, id, or words of its description")
    p.add_argument("--remove", action="append", default=[], metavar="QUERY", help="without this query (repeatable)")
    p.add_argument("--delay", action="append", nargs=2, default=[], metavar=("QUERY", "SECONDS"),
                   help="with this query submitted SECONDS later (repeatable)")
    p.add_argument("--pool", action="append", nargs=2, default=[], metavar=("QUERY", "POOL"),
                   help="with this query in another FAIR pool (repeatable)")
    p.add_argument("--hints", action="store_true", help="also the two or three changes with the largest predicted gain")

    p = sub.add_parser("evaluate", parents=[common], help="score each method's culprit ranking against ground truth")
    p.add_argument("dir", nargs="?", type=Path, metavar="DIR", help="folder of scenarios (each with logs and truth.json)")
    p.add_argument("--simulate", type=_positive, metavar="N", help="instead, N random simulated workloads")
    p.add_argument("--generator", choices=("rich", "fluid"), default="rich",
                   help="simulated workloads: 'rich' (pipelined phases, skew, locality waits, FAIR weights the "
                        "logs do not record: what the replay does not model) or the plain 'fluid' model")
    p.add_argument("--seed", type=int, default=0)

    p = sub.add_parser("stragglers", parents=[common, reads], help="stragglers per stage and their likely causes (Hound)")
    p.add_argument("--stage", metavar="KEY", help="only this stage attempt (APP/stage-ID.ATTEMPT)")
    p.add_argument("--threshold", type=float, help="straggler: duration above this x the stage median "
                                                   f"(default: PROTOXPLORE_STRAGGLER_THRESHOLD, {Settings.straggler_threshold})")

    for name, query, text in (("culprits", "aggressive_culprits", "aggressive culprits over all victims"),
                              ("hosts", "slow_nodes", "slow nodes over all victims"),
                              ("resources", "hot_resources", "hot resources over all victims")):
        p = sub.add_parser(name, parents=[common, reads], help=text)
        p.add_argument("--top", type=_positive, default=10, help="how many (default 10)")
        p.set_defaults(canned=query)

    # PerfXplain (paper 004): why two runs differ, learned from every run in the store
    explain_pair = Parser(add_help=False)
    explain_pair.add_argument("--method", choices=("perfxplain", "rule-of-thumb", "sim-but-diff"), default="perfxplain",
                              help="PerfXplain (default) or a baseline of paper 004 Sec. 5")
    explain_pair.add_argument("--width", type=_positive, default=3, help="most predicates in the because clause")
    explain_pair.add_argument("--save", action="store_true",
                              help="also store the explanation in the graph (a PerfExplanation node; Neo4j Browser "
                                   "shows it); without it nothing is written")
    for name, text in (("why-slower", "why was run A slower than run B? (PerfXplain)"),
                       ("why-same", "why did run A take as long as run B? (PerfXplain)")):
        p = sub.add_parser(name, parents=[common, reads, explain_pair], help=text)
        for arg, metavar in (("first", "A"), ("second", "B")):
            p.add_argument(arg, metavar=metavar, help="[analysis:]query name, id, or words of its description; "
                                                      "QUERY/stage-ID[.ATTEMPT][/task-ID] names a stage or task of it")
    p = sub.add_parser("pxql", parents=[common, reads, explain_pair], help="ask a PXQL question (PerfXplain)")
    p.add_argument("text", metavar="PXQL", help="FOR 'A', 'B' [DESPITE ...] OBSERVED ... EXPECTED ...")

    sub.add_parser("analyses", parents=[common], help="list loaded analyses")
    p = sub.add_parser("delete", parents=[common], help="delete an analysis and its time windows")
    p.add_argument("id", metavar="ID")
    p = sub.add_parser("engine", parents=[common], help="start, stop or check the embedded engine")
    p.add_argument("action", choices=("start", "stop", "status"),
                   help="status exits 0 when a server runs, 3 when none does")
    p = sub.add_parser("serve", parents=[common], help="start the web app (Waitress)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1; others print a warning)")
    p.add_argument("--port", type=_port, default=5000, help="port to listen on (default 5000; 0: any free port)")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME[:PORT]",
                   help="another name (and port, behind a proxy or a mapped port) clients may use in the Host "
                        "header; repeatable")
    p.add_argument("--neo4j-browser-url", metavar="URL",
                   help="where Neo4j Browser answers, for the pages' links to it: the /browser/ address "
                        "tools/neo4j/run.sh prints (default: port 7474 of the host the page was served from)")
    return parser


class Output:
    """Progress on stderr (so that --json output stays clean), results on stdout.

    Everything printed as text passes :func:`terminal_safe`: it carries names and SQL from the logs.
    """

    def __init__(self, as_json: bool):
        self.as_json = as_json

    def say(self, message: str) -> None:
        print(terminal_safe(message), file=sys.stderr, flush=True)

    def result(self, data, text: str) -> None:
        print(json.dumps(_finite(data), indent=2, default=str, allow_nan=False) if self.as_json else terminal_safe(text))


def _finite(value):
    """``value`` with NaN and infinite numbers as null: JSON has none (Python's NaN is no JSON, and
    strict parsers, JavaScript's among them, refuse it)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


#: Table columns never cut: what a row is, and how current a live analysis is.
WHOLE = {"name", "app_key", "victim_stage", "host", "culprit_query", "live"}


def _table(rows: list[dict], columns: list[str]) -> str:
    if not rows:
        return "(nothing)"
    def fmt(v, column):
        return show.mib(v) if column.endswith("_bytes") else show.number(v)
    # Names are whole (a blame node's ends with its resource and host); free text is cut.
    cells = [[fmt(r.get(c), c) if c in WHOLE else show.short(fmt(r.get(c), c), 60) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)


def _running_column(rows: list[dict]) -> list[str]:
    """The ``running`` column, for tables where some query is still running (a live application)."""
    return ["running"] if any(r.get("running") for r in rows) else []


def _app_column(rows: list[dict]) -> list[str]:
    """The application column, for tables where two queries have one name (``show.names_repeat``)."""
    return ["app_key"] if show.names_repeat(rows) else []


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    out = Output(getattr(args, "json", False))
    try:
        settings = Settings.from_env(home=args.home, neo4j_uri=args.neo4j_uri)
        if settings.neo4j_uri or not _only_reads(args) or settings.home.exists():  # a file there: one-line error
            settings.make_home()
        elif args.command in READERS and not EmbeddedEngine(settings.home).dir.is_dir():
            # A mistyped --home made a directory and started a server in it, and answered "(nothing)".
            empty = f"{settings.home} holds no data (check --home and PROTOXPLORE_HOME)"
            if args.command == "analyses":  # a listing of nothing is an answer (scripts read `[]`)
                out.say(f"note: {empty}")
                out.result([], "(nothing)")
                return 0
            raise StoreError(f"no analysis is loaded yet: {empty}; run `protoxplore load PATH...` or "
                             f"`protoxplore demo` into it")
        return COMMANDS[args.command](args, settings, out)
    except BrokenPipeError:  # an OSError too: before the clause below
        # The reader went away (`protoxplore analyses | head`): end quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (ProtoXploreError, OSError, ValueError) as exc:
        out.say(f"protoxplore {args.command}: error: {exc}")
        return 1
    except KeyboardInterrupt:
        # True for every command: an unfinished load or delete is never listed, and the next command removes it.
        print(f"protoxplore {args.command}: interrupted; anything it left unfinished is not listed, "
              f"and the next protoxplore command removes it", file=sys.stderr)
        return 130


def cmd_load(args, settings, out) -> int:
    options = Options(unit=args.unit, victim_stages=args.victim_stages, window=args.window)
    limit = budget.budget_mib(settings.load_memory_mib, [Path(p) for p in args.paths])
    with open_store(settings) as store:
        store.apply_schema()
        with budget.bounded(limit, ", ".join(map(str, args.paths))[:300]):
            analysis, new = pipeline.load_paths(store, [str(p) for p in args.paths], settings.home, options,
                                                name=args.name, strict=args.strict, say=out.say,
                                                warn=lambda m: out.say(f"warning: {m}"),
                                                max_line=settings.max_line_bytes,
                                                straggler_threshold=settings.straggler_threshold)
        row = catalog.resolve_analysis(store, analysis)
    out.result(row, f"analysis {analysis}: {row['queries']} queries, {row['tasks']} tasks, {row['nodes']} ProtoGraph "
                    f"nodes{'' if new else ' (already loaded)'}")
    return 0


def cmd_watch(args, settings, out) -> int:
    from protoxplore.service import live
    options = Options(unit=args.unit, victim_stages=args.victim_stages)
    with open_store(settings) as store:
        store.apply_schema()
        watch = live.Watch(store, [str(p) for p in args.paths], settings.home, options, last_minutes=args.last,
                           every=args.every, name=args.name, strict=args.strict, say=out.say,
                           warn=lambda m: out.say(f"warning: {m}"), max_line=settings.max_line_bytes,
                           straggler_threshold=settings.straggler_threshold)
        with watch.claim():
            out.say(f"watching {', '.join(map(str, args.paths))} every {args.every:g} s (Ctrl-C stops)")
            signal.signal(signal.SIGTERM, _stop_as_ctrl_c)
            try:
                watch.run()
            except KeyboardInterrupt:  # the way to stop: an unfinished generation was removed by its writer
                left = watch.stop()
                out.say("stopped" + (f"; the live analysis {', '.join(left)} stays listed as it was last published"
                                     if left else ""))
    return 0


def _stop_as_ctrl_c(_signum, _frame) -> None:
    """SIGTERM (``docker stop``, systemd, ``kill``) stops a watch as Ctrl-C does, so its generations
    are marked stopped instead of refreshing their pages for good: a SIGINT to itself, which a
    database call holds until it returns (``budget.database_call``), or where SIGINT is ignored (a
    job started with ``&``), a KeyboardInterrupt at once."""
    if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL, None):
        raise KeyboardInterrupt
    signal.raise_signal(signal.SIGINT)


def cmd_synth(args, settings, out) -> int:
    if args.queries:
        import numpy as np
        queries, cluster = synth.random_workload(np.random.default_rng(args.seed), args.queries)
    else:
        queries, cluster = synth.demo_workload()
    path = synth.write_event_log(synth.simulate(queries, cluster, args.policy), cluster, args.out,
                                 spark_properties={"spark.scheduler.mode": args.policy})
    out.result({"path": str(path), "queries": len(queries)}, f"wrote {path} ({len(queries)} queries)")
    return 0


def cmd_demo(args, settings, out) -> int:
    queries, cluster = synth.demo_workload()
    path = synth.write_event_log(synth.simulate(queries, cluster), cluster, settings.home / "demo" / "eventlog",
                                 app_name="demo-cluster", app_id="app-demo-0001",
                                 spark_properties={"spark.scheduler.mode": "FAIR"})
    out.say(f"wrote a demo workload to {path}: an IO-heavy ETL load takes the slots and disks a nightly report needs")
    with open_store(settings) as store:
        store.apply_schema()
        analysis, _ = pipeline.load_paths(store, [str(path)], settings.home, name="demo", say=out.say,
                                          warn=lambda m: out.say(f"warning: {m}"), max_line=settings.max_line_bytes,
                                          straggler_threshold=settings.straggler_threshold)
        row = catalog.resolve_analysis(store, analysis)
        worst = store.run("victims", {"analysis": analysis, "order": "blocked", "k": 1})[0]
        explanation = report.explain(store, row, worst, home=settings.home)
    out.result(explanation, _explain_text(explanation))
    return 0


def cmd_victims(args, settings, out) -> int:
    with open_store(settings) as store:
        a = catalog.resolve_analysis(store, args.analysis)
        rows, more = _ranked(store, "victims", {"analysis": a["id"], "order": args.order}, args.top)
    out.result(rows, _table(rows, ["name", *_app_column(rows), *_running_column(rows), "by_others_s", "own_s",
                                   "slowdown", "runtime_s", "description"]) + more
               + ("\n" + show.COLUMN_NOTES["by_others_s"] if rows else ""))
    return 0


def _ranked(store, query: str, params: dict, top: int) -> tuple[list[dict], str]:
    """The first ``top`` rows of a ranking, and a line saying so where it has more: a list cut
    without a word reads as all there is."""
    rows = store.run(query, dict(params, k=min(top + 1, MAX_INTEGER)))
    return rows[:top], (f"\n(the first {top}; --top N shows more)" if len(rows) > top else "")


def cmd_explain(args, settings, out) -> int:
    with open_store(settings) as store:
        a = catalog.resolve_analysis(store, args.analysis)
        if args.window and args.method == "counterfactual":  # refused before a window is derived for it
            raise ValueError("--method counterfactual replays whole runs: ask it without --window")
        if args.window:
            catalog.whole_run_only(a, "--window")  # a window's windows would be the whole run's
            victim = catalog.resolve_victim(store, a["id"], args.victim)
            catalog.check_window(a, victim, args.window)
            window_id = pipeline.window_analysis(store, a, args.window, settings.home, say=out.say)
            a = catalog.resolve_analysis(store, window_id)
            victim = catalog.victim_in_window(store, a, victim)
        else:
            victim = catalog.resolve_victim(store, a["id"], args.victim)
        if args.method != "protograph":
            ranking = report.explain_baseline(store, a, victim, args.method, settings.home, top=args.top)
            # Each method's score under its own name; share: the score over the sum of the scores listed.
            rows = [dict(r, share=r["dor"], **{ranking["score"]: r["blame_s"]}) for r in ranking["culprit_queries"]]
            out.result(ranking, f"{ranking['method']} ranking of culprits of {victim['name']}\n"
                       + (_table(rows, ["name", ranking["score"], "share", "description"])
                          + "\nshare: of the scores summed over every culprit query" if rows
                          else "no other query ran beside it: nothing to rank"))
            return 0
        explanation = report.explain(store, a, victim, top=args.top, home=settings.home)
    out.result(explanation, _explain_text(explanation, args.top))
    return 0


def cmd_whatif(args, settings, out) -> int:
    def seconds(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"--delay needs a number of seconds, not {text!r}") from None
        if not 0 <= value < 1e7:
            raise ValueError(f"--delay {text!r}: give seconds between 0 and 10^7")
        return value

    with open_store(settings) as store:
        a = catalog.resolve_analysis(store, args.analysis)
        catalog.whole_run_only(a, "a what-if")
        victim = catalog.resolve_victim(store, a["id"], args.victim)
        key = lambda text: catalog.resolve_victim(store, a["id"], text)["query_key"]  # noqa: E731
        change = {"remove": [key(q) for q in args.remove], "delay": [(key(q), seconds(d)) for q, d in args.delay],
                  "pool": [(key(q), pool) for q, pool in args.pool]}
    if not (args.remove or args.delay or args.pool or args.hints):
        raise ValueError("say what to change: --remove QUERY, --delay QUERY SECONDS, --pool QUERY POOL or --hints")
    result = report.whatif(a, victim, settings.home, hints=args.hints, **change)
    lines = []
    if any(change.values()):
        lines.append(f"{result['victim']} {result['change']}: {show.seconds(result['runtime_s'])} -> about "
                     f"{show.seconds(result['predicted_runtime_s'])} (predicted speedup "
                     f"{show.seconds(result['predicted_speedup_s'])})")
    if args.hints:
        lines.append(f"Remedies for {result['victim']} (ran {result['runtime_s']:.1f} s), largest predicted gain first:")
        lines += [f"  {r['change']}: {report.sooner(r['predicted_speedup_s'])}" for r in result["remedies"]]
        lines += [] if result["remedies"] else ["  none predicted to help"]
    text = "\n".join(lines)
    out.result(result, text)
    return 0


def cmd_stragglers(args, settings, out) -> int:
    threshold = settings.straggler_threshold if args.threshold is None else args.threshold
    with open_store(settings) as store:
        result = stragglers.of_analysis(store, catalog.resolve_analysis(store, args.analysis), settings.home, threshold,
                                    args.stage)
    lines = [f"{s['stage']} {s['name'][:50]}: {s['stragglers']} of {s['tasks']} tasks straggle (median "
             f"{s['median_s']:.2f} s), stage {s['slowdown_s']:.2f} s later; causes: "
             + stragglers.straggler_causes(s, 4) + "; expert: " + stragglers.expert_verdict(s["expert"])
             for s in result["stages"]]
    lines += [f"topic {t['topic']} (in {t['coverage']:.0%} of stages, dominant in {t['dominant_coverage']:.0%}): "
              + ", ".join(f"{w['word']} {w['weight']:.2f}" for w in t["words"][:4]) for t in result["topics"]]
    agreement = result["agreement"]
    if agreement["clear_stages"]:
        stages = "stage" if agreement["clear_stages"] == 1 else "stages"
        lines.append(f"expert baseline clear on {agreement['clear_stages']} {stages}; Hound's strongest cause is of "
                     f"its kind on {agreement['agreeing']} ({agreement['share']:.0%})")
    out.result(result, "\n".join(lines) or "no stragglers")
    return 0


def cmd_evaluate(args, settings, out) -> int:
    from protoxplore.evaluation import evaluate
    if (args.dir is None) == (args.simulate is None):
        raise ValueError("give a scenario folder DIR or --simulate N (not both)")
    if args.simulate:
        results = evaluate.simulated_sweep(args.simulate, args.seed, say=out.say, generator=args.generator)
    else:
        results = evaluate.evaluate_dir(args.dir, say=out.say)
    table = evaluate.summary(results)
    data = {"summary": table.reset_index().to_dict("records"), "scenarios": results.to_dict("records")}
    text = results.to_string(index=False) + "\n\n" + table.to_string()
    out.result(data, text)
    return 0


def _explain_text(e: dict, top: int = 5) -> str:
    live = e["analysis"].get("live")
    lines = [f"Analysis {e['analysis']['id']} ({e['analysis']['name']})", *([live] if live else []), ""]
    lines += e["explanations"]
    running = _running_column(e["culprit_queries"] + e["culprit_stages"] + e["victim_stages"])
    columns = {"victim_stages": ["name", *running, "dor", "blame_s"],
               "resources": ["resource", "dor", "blame_s", "slowdown", "measured"],
               "host_resources": ["resource", "host", "dor", "blame_s"],
               "blame": ["name", "victim_stage", "dor", "blame_s"],
               "culprit_stages": ["name", *running, "dor", "blame_s", "stage_name", "description"],
               "culprit_queries": ["name", *running, "dor", "blame_s", "description"]}
    rows = dict(e, host_resources=e["host_resources"][:top])  # Level 3: all of the victim's, largest first
    for level in ("culprit_stages", "culprit_queries"):
        rows[level] = [dict(r, name=show.culprit_name(r)) for r in e[level]]
    rows["paths"] = [dict(p, culprit_query=show.culprit_name({"name": p["culprit_query"], "self": p["self"]}))
                     for p in e["paths"]]
    sections = [(level.heading, rows[level.report], columns[level.report]) for level in LEVELS[1:]]
    sections.append(("Top paths (product of IF)", rows["paths"],
                     ["weight", "blame_s", "culprit_query", "request", "host", "victim_stage"]))
    keys = [level.report for level in LEVELS[1:]] + ["paths"]
    for key, (title, rows, columns) in zip(keys, sections):
        cut = e["more"].get(key) or (key == "host_resources" and len(e[key]) > top)
        more = [f"(the first {top}; --top N shows more)"] if cut else []
        lines += ["", title, _table(rows, columns)] + more
    return "\n".join(lines)


def _perfxplain_result(out, result: dict) -> None:
    f = result["features"]
    saved = f"\nSaved in the graph as explanation {result['saved']['uid']}" if "saved" in result else ""
    # The durations first: how much slower A was is the first thing asked.
    named = dict.fromkeys(["duration_s"] + [p["feature"].rsplit("_", 1)[0] if p["feature"] not in f else p["feature"]
                                            for p in result["despite"] + result["because"]])
    rows = [dict(zip(("A", "B"), show.side_by_side(*f[n])), feature=n) for n in named if n in f]
    metrics = ", ".join(f"{m} {show.number(result[m], 2)}" for m in ("relevance", "precision", "generality"))
    notes = "".join(f"\nnote: {c}" for c in result["caveats"])
    out.result(result, f"{result['sentence']}\n({result['method']}: {metrics} over {result['examples']} example "
                       f"pairs){notes}\n\n" + _table(rows, ["feature", "A", "B"]) + saved)


def _why(shortcut: str):
    """The command of a PXQL shortcut (``why-slower A B``, ``why-same A B``)."""
    def command(args, settings, out) -> int:
        from protoxplore.service import compare
        question, verb = compare.shortcut(shortcut, args.first, args.second)
        with open_store(settings) as store:
            result = compare.ask(store, settings, question, args.method, args.width, verb, args.analysis)
            if args.save:
                result["saved"] = compare.save(store, result)
        _perfxplain_result(out, result)
        return 0
    return command


cmd_why_slower, cmd_why_same = _why("why-slower"), _why("why-same")


def cmd_pxql(args, settings, out) -> int:
    from protoxplore.service import compare
    with open_store(settings) as store:
        result = compare.ask(store, settings, args.text, args.method, args.width, analysis=args.analysis)
        if args.save:
            result["saved"] = compare.save(store, result)
    _perfxplain_result(out, result)
    return 0


def cmd_canned(args, settings, out) -> int:
    with open_store(settings) as store:
        a = catalog.resolve_analysis(store, args.analysis)
        rows, more = _ranked(store, args.canned, {"analysis": a["id"]}, args.top)
    columns = [c for c in (rows[0].keys() if rows else []) if c not in ("uid", "running")]
    columns[1:1] = _running_column(rows)
    notes = "".join(f"\n{text}" for column, text in show.COLUMN_NOTES.items() if column in columns)
    out.result(rows, _table(rows, columns) + more + notes)
    return 0


def cmd_analyses(args, settings, out) -> int:
    with open_store(settings) as store:
        rows = catalog.analyses(store)
    # Failed and killed tasks (killed: speculative copies that lost, or a cancelled job) when there are any.
    lost = [c for c in ("failed_tasks", "killed_tasks") if any(r.get(c) for r in rows)]
    shown = [dict(r, window=show.window_text(r.get("window"), r.get("trace_start")),
                  live=(catalog.live_status(r) or "").split(";")[0]) for r in rows]
    live = ["live"] if any(r.get("live") for r in rows) else []
    out.result(rows, _table(shown, ["id", "name", "queries", *_running_column(rows), "tasks", *lost, "nodes", "window",
                                    *live]))
    return 0


def cmd_delete(args, settings, out) -> int:
    from protoxplore.storage import lifecycle
    with open_store(settings) as store:
        rows = catalog.analyses(store)
        row = catalog.pick_analysis(rows, args.id)
        def remove(analyses: list[str]) -> None:
            for analysis in analyses:
                with locks.writing(settings.home, analysis, out.say):
                    lifecycle.delete(store, analysis, progress=out.say)

        # Its time windows go with it (first, so that no window outlives the analysis it is part of),
        # and those derived meanwhile: a derivation holds its lock until it is published, so they are
        # listed once it is deleted (pipeline.window_analysis).
        derived = catalog.windows_of(rows, args.id)
        remove([r["id"] for r in derived] + [args.id])
        late = catalog.windows_of(catalog.analyses(store), args.id)
        remove([r["id"] for r in late])
        derived += late
        windows = [r["id"] for r in derived]
        # A live window published alone has a saved trace of its own (live.Watch.publish).
        for fingerprint in {r.get("fingerprint") for r in [row, *derived]}:
            lifecycle.forget_trace(store, settings.home, fingerprint)
    also = f" and its {len(windows)} time window(s) {', '.join(windows)}" if windows else ""
    out.result({"deleted": args.id, "windows": windows}, f"deleted analysis {args.id}{also}")
    return 0


def cmd_engine(args, settings, out) -> int:
    if settings.neo4j_uri:
        raise StoreError("the engine command manages the embedded engine; a Neo4j URI is set")
    engine = EmbeddedEngine(settings.home)
    if args.action == "start":
        open_store(settings, say=out.say).close()  # starts it and removes what dead loads and deletes left
    elif args.action == "stop":
        stopped = engine.dir.is_dir() and engine.stop()  # no data directory: none to make for its lock
        out.result({"stopped": stopped}, "stopped" if stopped else "was not running")
        return 0
    running, answering = engine.alive(), engine.running()
    status = {"running": running, "answering": answering, "pid": engine.pid() if running else None,
              "socket": str(engine.socket), "data": str(engine.dir)}
    state = ("running" if answering else "running but busy (not answering yet)") if running else "not running"
    out.result(status, f"{state}: data in {engine.dir}, socket {engine.socket}")
    return 0 if running else 3  # as service managers say "not running" (LSB), for scripts that ask


def cmd_serve(args, settings, out) -> int:
    from protoxplore.webapp import serve
    serve(host=args.host, port=args.port, settings=settings, extra_hosts=tuple(args.allow_host),
          neo4j_browser_url=args.neo4j_browser_url)
    return 0


#: The commands that only read the store (and ``delete``, of what is in it): on the embedded engine,
#: a home holding no data is an error for them, not a new store.
READERS = {"victims", "explain", "whatif", "stragglers", "culprits", "hosts", "resources", "analyses", "delete",
           "why-slower", "why-same", "pxql"}


def _only_reads(args) -> bool:
    """Whether the command only reads the store: it makes no home (``engine status`` and ``stop`` too)."""
    return args.command in READERS or (args.command == "engine" and args.action != "start")


COMMANDS = {"load": cmd_load, "watch": cmd_watch,
            "synth": cmd_synth, "demo": cmd_demo, "victims": cmd_victims, "explain": cmd_explain,
            "whatif": cmd_whatif, "stragglers": cmd_stragglers,
            "culprits": cmd_canned, "hosts": cmd_canned, "resources": cmd_canned, "analyses": cmd_analyses,
            "delete": cmd_delete, "evaluate": cmd_evaluate, "engine": cmd_engine, "serve": cmd_serve,
            "why-slower": cmd_why_slower, "why-same": cmd_why_same, "pxql": cmd_pxql}

if __name__ == "__main__":
    sys.exit(main())
