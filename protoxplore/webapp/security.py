"""What keeps the explorer safe to leave running on a workstation.

- The ``Host`` header must name this server (a loopback name, or the address it was bound to, or a
  name given with ``serve --allow-host``), with the port it listens on (or the port given with the
  name): a web page of another site that re-points its DNS name at 127.0.0.1 (DNS rebinding)
  gets 400, never our pages.
- A request that writes (POST) must come from one of our own pages: its ``Origin`` (or, when a
  browser sends none, its ``Referer``) must be this server. Another site cannot make a visitor's
  browser derive analyses (cross-site request forgery).
- Every response carries the four security headers below; the Content-Security-Policy lets only our
  own scripts run (plotly.js and app.js, served by us), and Plotly's inline styles.
"""
from __future__ import annotations

import re
from urllib.parse import urlsplit

from flask import abort, request

LOOPBACK = ("localhost", "127.0.0.1", "::1")
HOST_NAME = re.compile(r"[A-Za-z0-9._-]+|[0-9A-Fa-f:.]+")  # a DNS name, an IPv4 or an IPv6 address
#: bound to every interface: the host names a client may use are not known, see ``allowed_names``
WILDCARD = ("0.0.0.0", "::", "")

HEADERS = {
    # plotly.js draws with inline styles (style attributes and <style> elements); no inline script.
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                               "img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; "
                               "form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}


def allowed_names(host: str, extra: tuple[str, ...] = ()) -> frozenset[str]:
    """What a request's Host may name for a server bound to ``host``: names (at the bound port) and
    ``name:port`` entries from ``--allow-host`` (at that port: a proxy's, or a mapped Docker port)."""
    names = set(LOOPBACK)
    if host not in WILDCARD:
        names.add(host.strip("[]").lower())
    for entry in extra:
        try:
            name, port = split_host(entry)
        except ValueError:
            raise ValueError(f"--allow-host {entry[:80]!r} is not a host name with an optional :port") from None
        names.add(name if port is None else f"{name}:{port}")
    return frozenset(names)


def split_host(value: str) -> tuple[str, int | None]:
    """``name[:port]`` of a Host header or an origin's netloc; ValueError when malformed."""
    parts = urlsplit("//" + value)
    if (not parts.hostname or parts.username is not None or parts.path or parts.query
            or not HOST_NAME.fullmatch(parts.hostname)):
        raise ValueError(value)
    return parts.hostname.lower(), parts.port  # .port: ValueError when not a number up to 65535


def host_allowed(value: str, allowed: frozenset[str], bound: int | None) -> bool:
    """Whether a Host header ``value`` names this server (``bound``: the port served, None: any)."""
    name, port = split_host(value)
    port = port or 80
    return f"{name}:{port}" in allowed or (name in allowed and bound in (None, port))


def register(app) -> None:
    """Checks the Host header and the origin of writes, and adds the security headers.

    ``app.config["ALLOWED_HOSTS"]`` holds the names; ``app.config["PORT"]`` the port the server
    listens on (None when unknown, as under Flask's test client: any port then).
    """
    @app.before_request
    def check_host():
        raw = request.headers.get("Host", "")
        bound = app.config.get("PORT")
        try:
            allowed = host_allowed(raw, app.config["ALLOWED_HOSTS"], bound)
        except ValueError:
            abort(400, f"malformed Host header {raw[:80]!r}")
        if not allowed:
            abort(400, f"Host header {raw[:80]!r} does not name this server; open it as "
                       f"http://127.0.0.1:{bound or 5000}/ (or start it with serve --allow-host NAME[:PORT])")

    @app.before_request
    def check_origin():
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return
        source = request.headers.get("Origin") or request.headers.get("Referer")
        if not source or source == "null":
            abort(403, "a request that writes must come from a page of this server (no Origin or Referer header)")
        parts = urlsplit(source)
        if f"{parts.scheme}://{parts.netloc}".lower() != request.host_url.rstrip("/").lower():
            abort(403, f"a request that writes must come from a page of this server, not from {source[:80]!r}")

    @app.after_request
    def security_headers(response):
        response.headers.update(HEADERS)
        return response
