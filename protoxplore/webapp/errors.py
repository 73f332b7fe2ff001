"""Error pages: 400 names the bad parameter, 404 says what was not found, 503 when the graph
database is down (with the command that brings it back) or refuses a query."""
from __future__ import annotations

import shlex

from flask import current_app, render_template
from werkzeug.exceptions import HTTPException

from protoxplore.errors import EngineError, QueryError, StoreError

TITLES = {400: "Bad request", 403: "Forbidden", 404: "Not found", 405: "Method not allowed", 500: "Internal error",
          503: "Graph database unavailable"}


def page(status: int, message: str, hint: str | None = None):
    return render_template("error.html", status=status, title=TITLES.get(status, "Error"), message=message,
                           hint=hint), status


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` (or the error it wraps) says the database cannot be reached, as opposed to a
    refused query: a dead or stopped engine, a closed socket, Neo4j down."""
    import redis
    from neo4j.exceptions import ServiceUnavailable, SessionExpired
    down = (EngineError, redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, ConnectionError,
            ServiceUnavailable, SessionExpired)
    return isinstance(exc, down) or isinstance(exc.__cause__, down)


def engine_hint() -> str:
    settings = current_app.config["SETTINGS"]
    if settings.neo4j_uri:
        return (f"Start the Neo4j server at {settings.neo4j_uri} (or correct PROTOXPLORE_NEO4J_URI), "
                f"then reload this page.")
    return (f"Run `protoxplore engine start --home {shlex.quote(str(settings.home))}`, then reload this page; "
            f"`protoxplore engine status --home ...` tells whether it runs.")


def register(app) -> None:
    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        return page(exc.code or 500, exc.description or "")

    @app.errorhandler(QueryError)
    def query_error(exc: QueryError):
        return page(400, str(exc))

    @app.errorhandler(Exception)
    def other_error(exc: Exception):
        if isinstance(exc, HTTPException):
            return http_error(exc)
        if unreachable(exc):
            # Forget the connection: once the engine is back, the next request connects afresh.
            app.extensions["protoxplore"].lost()
            app.logger.error("graph database unreachable: %s", exc)
            first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            return page(503, f"The graph database does not answer ({first_line[:200]}).", engine_hint())
        if isinstance(exc, StoreError):
            app.logger.error("store error: %s", exc)
            return page(503, str(exc))
        app.logger.exception("unhandled error")
        return page(500, f"{type(exc).__name__}: the request failed; see the server log.")
