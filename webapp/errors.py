"""Error pages: 400 names the bad parameter, 404 says what was not found, 503 when the store fails."""
from __future__ import annotations

from flask import render_template
from werkzeug.exceptions import HTTPException

from ..queries import QueryError
from ..store import StoreError

TITLES = {400: "Bad request", 404: "Not found", 405: "Method not allowed", 500: "Internal error",
          503: "Graph database unavailable"}


def page(status: int, message: str):
    return render_template("error.html", status=status, title=TITLES.get(status, "Error"), message=message), status


def register(app) -> None:
    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        return page(exc.code or 500, exc.description or "")

    @app.errorhandler(QueryError)
    def query_error(exc: QueryError):
        return page(400, str(exc))

    @app.errorhandler(StoreError)
    def store_error(exc: StoreError):
        app.logger.error("store error: %s", exc)
        return page(503, str(exc))

    @app.errorhandler(Exception)
    def internal_error(exc: Exception):
        if isinstance(exc, HTTPException):
            return http_error(exc)
        app.logger.exception("unhandled error")
        return page(500, f"{type(exc).__name__}: the request failed; see the server log.")
