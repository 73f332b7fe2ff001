"""What the commands print: progress on stderr, results on stdout as terminal tables (every text made
terminal-safe: it carries names and SQL from the logs) or as JSON (``--json``, NaN as null)."""
from __future__ import annotations

import json
import math
import sys

from protoxplore import show
from protoxplore.service import pipeline
from protoxplore.service.report import LEVELS
from protoxplore.text import terminal_safe


class Output:
    """Progress on stderr (so that --json output stays clean), results on stdout.

    Everything printed as text passes :func:`terminal_safe`: it carries names and SQL from the logs.
    """

    def __init__(self, as_json: bool):
        self.as_json = as_json

    @property
    def progress(self) -> pipeline.Progress:
        """Progress and warnings of long work (a load, a watch), as this output says them."""
        return pipeline.Progress(self.say, lambda message: self.say(f"warning: {message}"))

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


def table(rows: list[dict], columns: list[str]) -> str:
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


def running_column(rows: list[dict]) -> list[str]:
    """The ``running`` column, for tables where some query is still running (a live application)."""
    return ["running"] if any(r.get("running") for r in rows) else []


def app_column(rows: list[dict]) -> list[str]:
    """The application column, for tables where two queries have one name (``show.names_repeat``)."""
    return ["app_key"] if show.names_repeat(rows) else []


def explain_text(e: dict, top: int = 5) -> str:
    live = e["analysis"].get("live")
    lines = [f"Analysis {e['analysis']['id']} ({e['analysis']['name']})", *([live] if live else []), ""]
    lines += e["explanations"]
    running = running_column(e["culprit_queries"] + e["culprit_stages"] + e["victim_stages"])
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
        lines += ["", title, table(rows, columns)] + more
    return "\n".join(lines)


def perfxplain_result(out, result: dict) -> None:
    f = result["features"]
    saved = f"\nSaved in the graph as explanation {result['saved']['uid']}" if "saved" in result else ""
    # The durations first: how much slower A was is the first thing asked.
    named = dict.fromkeys(["duration_s"] + [p["feature"].rsplit("_", 1)[0] if p["feature"] not in f else p["feature"]
                                            for p in result["despite"] + result["because"]])
    rows = [dict(zip(("A", "B"), show.side_by_side(*f[n])), feature=n) for n in named if n in f]
    metrics = ", ".join(f"{m} {show.number(result[m], 2)}" for m in ("relevance", "precision", "generality"))
    notes = "".join(f"\nnote: {c}" for c in result["caveats"])
    out.result(result, f"{result['sentence']}\n({result['method']}: {metrics} over {result['examples']} example "
                       f"pairs){notes}\n\n" + table(rows, ["feature", "A", "B"]) + saved)
