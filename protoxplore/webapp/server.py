"""Serving the explorer over HTTP with Waitress, a production WSGI server (Werkzeug's own server
is for development only)."""
from __future__ import annotations

import gc
import ipaddress
import sys

import waitress
from waitress.trigger import trigger as Trigger

#: worker threads: pages mostly wait on the graph database, so more threads than cores pay off
THREADS = 8


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Server:
    """The app on ``host:port`` (``port=0`` picks a free port: see ``port``); ``serve_forever`` runs
    it in the calling thread and ``shutdown`` stops it from another thread. The app then accepts
    only Host headers that name this address (``security``)."""

    def __init__(self, app, host: str, port: int, extra_hosts: tuple[str, ...] = (), threads: int = THREADS):
        from protoxplore.webapp import security
        self._map: dict = {}  # waitress's socket map: every listener and connection of this server
        self._server = waitress.create_server(app, map=self._map, host=host, port=port, threads=threads)
        listening = getattr(self._server, "effective_listen", None) or [
            (self._server.effective_host, self._server.effective_port)]
        self.host, self.port = host, int(listening[0][1])
        app.config["PORT"] = self.port
        app.config["ALLOWED_HOSTS"] = security.allowed_names(host, tuple(extra_hosts))

    def serve_forever(self) -> None:
        # What exists now (modules, the app: ~94,000 objects) lives as long as the server: kept out
        # of the collector's full passes, each of which otherwise scanned it all while holding the
        # interpreter lock (170 ms at load 8, once every ~700 requests: every request in flight
        # waited, the tail of the pages' p95 under 10 clients).
        gc.freeze()
        try:
            self._server.run()
        finally:
            self._server.task_dispatcher.shutdown()

    def shutdown(self) -> None:
        """Close every socket from inside the server's loop; ``serve_forever`` then returns. Wait for
        that rather than closing the server from this thread too: two threads closing the same
        sockets can close a descriptor twice, after another file took its number."""
        def close_all():
            for dispatcher in list(self._map.values()):
                dispatcher.close()
        next(d for d in self._map.values() if isinstance(d, Trigger)).pull_trigger(close_all)

    def server_close(self) -> None:
        """Close a server that is not serving (never started, or ``serve_forever`` has returned)."""
        for dispatcher in list(self._map.values()):
            dispatcher.close()


def warn_if_exposed(host: str, out=sys.stderr) -> None:
    if not is_loopback(host):
        print(f"warning: serving on {host}, beyond this machine: anyone who can reach it sees every analysis "
              f"(SQL text included) and can derive new ones; there is no login. Unless the network is trusted, "
              f"keep the default 127.0.0.1 and use an SSH tunnel. Clients must name the server as "
              f"{host if host not in ('0.0.0.0', '::') else 'localhost'} or a name given with --allow-host.",
              file=out, flush=True)
