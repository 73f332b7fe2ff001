"""Every ``Kind: canned`` Cypher file as a page: its question, a form for its parameters, its text,
and its result; the parameters live in the query string, so each result has its own URL."""
from __future__ import annotations

import json
from urllib.parse import urlencode, urlsplit

from flask import Blueprint, abort, current_app, render_template, request

from protoxplore import show
from protoxplore.errors import QueryError
from protoxplore.service import catalog
from protoxplore.storage import queries
from protoxplore.webapp.db import READER, all_analyses, get_store, run

bp = Blueprint("canned", __name__, url_prefix="/queries")


def cypher_literal(value) -> str:
    """A value as a Cypher literal for a Neo4j Browser ``:param`` line (JSON strings are valid Cypher)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(cypher_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"`{k}`: {cypher_literal(v)}" for k, v in value.items()) + "}"
    if value is None:
        return "null"
    return json.dumps(str(value))


def browser_command(query: queries.CypherFile, bound: dict) -> str:
    """The text to open in Neo4j Browser: ``:param`` lines, then the statements."""
    lines = [f":param {name} => {cypher_literal(value)}" for name, value in bound.items()]
    return "\n".join(lines + [s + ";" for s in query.statements])


def browser_base() -> str:
    base = current_app.config.get("NEO4J_BROWSER_URL")
    if not base:
        host = urlsplit(request.host_url).hostname or "localhost"
        base = f"http://{host}:7474/browser/"
    return base


def browser_url(command: str, cmd: str = "edit") -> str:
    """A Neo4j Browser deep link: ``edit`` puts ``command`` in its editor, ``play`` plays a guide URL."""
    return browser_base() + "?" + urlencode({"cmd": cmd, "arg": command})


def canned_or_404(name: str) -> queries.CypherFile:
    try:
        query = queries.load(name)
    except QueryError:
        abort(404, f"no canned query named {name[:80]!r}; see the list of canned queries")
    if query.kind != "canned":
        abort(404, f"{name!r} is not a canned query (it is a {query.kind} file)")
    return query


@bp.get("")
@bp.get("/")
def index():
    found = [queries.load(n) for n in queries.names("canned")]
    return render_template("queries.html", queries=found)


@bp.get("/<name>")
def query(name: str):
    q = canned_or_404(name)
    given = {k: v for k, v in request.args.items()}
    unknown = sorted(set(given) - {p.name for p in q.parameters})
    if unknown:
        abort(400, f"query {name!r} has no parameter {', '.join(unknown)}; it takes "
                   f"{', '.join(p.name for p in q.parameters) or 'none'}")
    runnable = bool(given) or all(p.default is not None for p in q.parameters)
    rows = columns = bound = None
    link = None
    if runnable:
        bound = q.bind(given)  # QueryError (400, naming the parameter) for a missing or bad value
        check_counts(q, bound)
        if "analysis" in bound and catalog.analysis_row(all_analyses(), bound["analysis"]) is None:
            abort(404, f"no analysis {bound['analysis'][:80]!r} is loaded; the overview page lists them")
        if "victim" in bound and "analysis" in bound and "|" not in bound["victim"]:
            # A name, key or words of a description, as the CLI takes them (a uid holds "|"): its uid,
            # not "0 rows" for a victim the query would not find by anything but its uid.
            bound["victim"] = catalog.resolve_victim(READER, bound["analysis"], bound["victim"])["uid"]
        rows = run(name, **bound)
        columns = list(rows[0].keys()) if rows else []
        if get_store().engine == "neo4j":
            link = browser_url(browser_command(q, bound))
    values = {p.name: given.get(p.name, "" if p.default is None else p.default) for p in q.parameters}
    if "analysis" in values and not values["analysis"]:
        default = catalog.default_analysis(all_analyses())
        values["analysis"] = default["id"] if default else ""
    return render_template("query.html", q=q, rows=rows, columns=columns, values=values, link=link,
                           display=display, max_rows=current_app.config["MAX_K"])


def check_counts(q: queries.CypherFile, bound: dict) -> None:
    """Integer parameters are counts or levels: from 0 to MAX_K (the engines refuse ``LIMIT -1``;
    that is the user's mistake, a 400 naming the parameter, not a database failure)."""
    high = current_app.config["MAX_K"]
    for p in q.parameters:
        low = max(int(p.low or 0), 0)
        if p.type == "integer" and not low <= bound[p.name] <= high:
            abort(400, f"parameter ${p.name} must be an integer from {low} to {high}, not {bound[p.name]}")


#: Columns of canned queries that hold a time (seconds since the epoch), besides ``*_time``.
TIME_COLUMNS = {"created", "loaded", "trace_start", "trace_end"}


def display(value, column: str = "") -> str:
    """A cell: a time (a column of TIME_COLUMNS or ``*_time``: seconds since the epoch) as a date."""
    if isinstance(value, (list, dict)):
        return json.dumps(value, default=str)[:500]
    if isinstance(value, (int, float)) and not isinstance(value, bool) and (column in TIME_COLUMNS or column.endswith("_time")):
        return show.when(value)
    return show.number(value)[:500]
