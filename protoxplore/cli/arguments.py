"""The command line's grammar: every command, its options with their help, and the argparse types that
refuse a bad value in one line naming it."""
from __future__ import annotations

import argparse
import math
import re
from pathlib import Path

from protoxplore import __version__
from protoxplore.service.pipeline import CONTENTION_UNITS
from protoxplore.service.report import METHODS
from protoxplore.settings import Settings
from protoxplore.storage.queries import MAX_INTEGER


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

    parser = Parser(prog="protoxplore", description="The protoxplore command line: load traces, then ask who slowed whom.")
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
    p.add_argument("out", type=Path, metavar="FILE", help="where to write the event log")
    p.add_argument("--queries", type=_positive, help="random workload of this many queries (default: the demo)")
    p.add_argument("--seed", type=int, default=1, help="seed of the random workload (default 1)")
    p.add_argument("--policy", choices=("FAIR", "FIFO"), default="FAIR", help="the scheduler mode (default FAIR)")

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
    p.add_argument("--seed", type=int, default=0, help="seed of the first simulated workload (default 0)")

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
    p.add_argument("id", metavar="ID", help="the analysis id, or a unique beginning of it")
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
