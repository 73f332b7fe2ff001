"""The ``protoxplore`` command line: load traces, then ask who slowed whom.

Every command works on its own: it starts the embedded engine when needed (or talks to Neo4j
when ``--neo4j-uri`` / ``PROTOXPLORE_NEO4J_URI`` is set) and prints text, or JSON with ``--json``.
"""
from __future__ import annotations

import os
import signal
import sys

from protoxplore import show
from protoxplore.cli.arguments import build_parser
from protoxplore.cli.render import Output, app_column, explain_text, perfxplain_result, running_column, table
from protoxplore.errors import ProtoXploreError, StoreError
from protoxplore.evaluation import evaluate, synth
from protoxplore.service import catalog, compare, live, pipeline, report, stragglers, windows
from protoxplore.service.pipeline import Options
from protoxplore.settings import Settings
from protoxplore.storage.embedded import EmbeddedEngine
from protoxplore.storage.queries import MAX_INTEGER
from protoxplore.storage.store import open_store


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
    request = pipeline.LoadRequest.of(args.paths, settings, options=options, name=args.name, strict=args.strict)
    row, new = pipeline.load(settings, request, out.progress)
    out.result(row, f"analysis {row['id']}: {row['queries']} queries, {row['tasks']} tasks, {row['nodes']} ProtoGraph "
                    f"nodes{'' if new else ' (already loaded)'}")
    return 0


def cmd_watch(args, settings, out) -> int:
    options = Options(unit=args.unit, victim_stages=args.victim_stages)
    request = pipeline.LoadRequest.of(args.paths, settings, options=options, name=args.name, strict=args.strict)
    with open_store(settings) as store:
        store.apply_schema()
        watch = live.Watch(store, request, settings.home, last_minutes=args.last, every=args.every,
                           progress=out.progress)
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
    row, _ = pipeline.load(settings, pipeline.LoadRequest.of([path], settings, name="demo"), out.progress)
    with open_store(settings) as store:
        worst = store.run("victims", {"analysis": row["id"], "order": "blocked", "k": 1})[0]
        explanation = report.explain(store, row, worst, home=settings.home)
    out.result(explanation, explain_text(explanation))
    return 0


def cmd_victims(args, settings, out) -> int:
    with open_store(settings) as store:
        a = catalog.resolve_analysis(store, args.analysis)
        rows, more = _ranked(store, "victims", {"analysis": a["id"], "order": args.order}, args.top)
    out.result(rows, table(rows, ["name", *app_column(rows), *running_column(rows), "by_others_s", "own_s",
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
            a, victim = windows.victim_in_window(store, a, args.victim, args.window, settings.home, say=out.say)
        else:
            victim = catalog.resolve_victim(store, a["id"], args.victim)
        if args.method != "protograph":
            ranking = report.explain_baseline(store, a, victim, args.method, settings.home, top=args.top)
            # Each method's score under its own name; share: the score over the sum of the scores listed.
            rows = [dict(r, share=r["dor"], **{ranking["score"]: r["blame_s"]}) for r in ranking["culprit_queries"]]
            out.result(ranking, f"{ranking['method']} ranking of culprits of {victim['name']}\n"
                       + (table(rows, ["name", ranking["score"], "share", "description"])
                          + "\nshare: of the scores summed over every culprit query" if rows
                          else "no other query ran beside it: nothing to rank"))
            return 0
        explanation = report.explain(store, a, victim, top=args.top, home=settings.home)
    out.result(explanation, explain_text(explanation, args.top))
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


def _why(shortcut: str):
    """The command of a PXQL shortcut (``why-slower A B``, ``why-same A B``)."""
    def command(args, settings, out) -> int:
        question, verb = compare.shortcut(shortcut, args.first, args.second)
        with open_store(settings) as store:
            result = compare.ask(store, settings, question, args.method, args.width, verb, args.analysis)
            if args.save:
                result["saved"] = compare.save(store, result)
        perfxplain_result(out, result)
        return 0
    return command


cmd_why_slower, cmd_why_same = _why("why-slower"), _why("why-same")


def cmd_pxql(args, settings, out) -> int:
    with open_store(settings) as store:
        result = compare.ask(store, settings, args.text, args.method, args.width, analysis=args.analysis)
        if args.save:
            result["saved"] = compare.save(store, result)
    perfxplain_result(out, result)
    return 0


def cmd_canned(args, settings, out) -> int:
    with open_store(settings) as store:
        a = catalog.resolve_analysis(store, args.analysis)
        rows, more = _ranked(store, args.canned, {"analysis": a["id"]}, args.top)
    columns = [c for c in (rows[0].keys() if rows else []) if c not in ("uid", "running")]
    columns[1:1] = running_column(rows)
    notes = "".join(f"\n{text}" for column, text in show.COLUMN_NOTES.items() if column in columns)
    out.result(rows, table(rows, columns) + more + notes)
    return 0


def cmd_analyses(args, settings, out) -> int:
    with open_store(settings) as store:
        rows = catalog.analyses(store)
    # Failed and killed tasks (killed: speculative copies that lost, or a cancelled job) when there are any.
    lost = [c for c in ("failed_tasks", "killed_tasks") if any(r.get(c) for r in rows)]
    shown = [dict(r, window=show.window_text(r.get("window"), r.get("trace_start")),
                  live=(catalog.live_status(r) or "").split(";")[0]) for r in rows]
    live = ["live"] if any(r.get("live") for r in rows) else []
    out.result(rows, table(shown, ["id", "name", "queries", *running_column(rows), "tasks", *lost, "nodes", "window",
                                    *live]))
    return 0


def cmd_delete(args, settings, out) -> int:
    with open_store(settings) as store:
        done = catalog.delete(store, args.id, settings.home, say=out.say)
    also = f" and its {len(done['windows'])} time window(s) {', '.join(done['windows'])}" if done["windows"] else ""
    out.result(done, f"deleted analysis {done['deleted']}{also}")
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
    from protoxplore.webapp import serve  # Flask and Plotly: imported by this command only
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
