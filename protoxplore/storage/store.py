"""The graph store: one small interface, two backends (embedded FalkorDB, Neo4j 5 over Bolt).

``run`` executes a named file of ``cypher/`` (or, for tests and the web app's display, a text) with
parameters in a read or write transaction; ``write_batches`` sends rows in UNWIND batches.
"""
from __future__ import annotations

import hashlib
import sys
from typing import Callable

import orjson

from protoxplore.budget import database_call
from protoxplore.errors import EngineError, StoreError
from protoxplore.settings import Settings
from protoxplore.storage import lifecycle, queries
from protoxplore.storage.embedded import EmbeddedEngine, one_line


class _StoreBase:
    engine = "?"
    batch_size = 5000
    #: Which store this is among those a home can point at (engine and graph, or server and
    #: database), as a short name for files: a live watch's notes are its store's (protoxplore/storage/lifecycle.py).
    identity = "?"

    def run(self, name: str, params: dict | None = None, write: bool | None = None) -> list[dict]:
        """Run every statement of ``cypher/<name>.cypher`` (in a write transaction when its kind is
        ``write`` or ``procedure``, else in a read one); return the last statement's rows."""
        query = queries.load(name)
        bound = query.bind(params or {})
        is_write = query.kind in ("write", "procedure") if write is None else write
        rows: list[dict] = []
        for number, statement in enumerate(query.statements, 1):
            # An engine's refusal names the file and statement: "the query" alone says nothing to fix.
            where = f"cypher/{name}.cypher" + (f" (statement {number} of {len(query.statements)})"
                                                if len(query.statements) > 1 else "")
            rows = self.run_text(statement, bound, write=is_write, query=where)
        return rows

    def write_batches(self, name: str, rows: list[dict], params: dict | None = None, progress=None) -> int:
        """Run a write file with ``$rows`` bound to successive batches of ``rows``."""
        done = 0
        for start in range(0, len(rows), self.batch_size):
            batch = rows[start:start + self.batch_size]
            self.run(name, dict(params or {}, rows=batch), write=True)
            done += len(batch)
            if progress:
                progress(done, len(rows))
        return done

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class FalkorStore(_StoreBase):
    """The embedded default: FalkorDB reached over its Unix socket."""

    engine = "falkordb"

    def __init__(self, settings: Settings, say: Callable[[str], None] | None = None):
        from falkordb import FalkorDB
        from redis.exceptions import RedisError

        self.server = EmbeddedEngine(settings.home, say=say)
        self.batch_size = settings.batch_size
        try:
            self.server.start()
            self._db = FalkorDB(unix_socket_path=str(self.server.socket))
        except EngineError as exc:  # a StoreError for callers (the web app answers it with 503)
            raise StoreError(str(exc)) from None
        except RedisError as exc:  # the server died right after it answered
            raise StoreError(one_line(exc, self.server)) from None
        self.graph = self._db.select_graph(settings.graph)
        self.identity = _identity(self.engine, settings.graph)

    def run_text(self, text: str, params: dict | None = None, write: bool = False,
                 query: str = "the query") -> list[dict]:
        """Run one statement; an error names ``query`` (what it is, for the user)."""
        from redis.exceptions import RedisError

        text = _parameters_header(params or {}) + text
        try:
            with database_call():
                result = self.graph.query(text) if write else self.graph.ro_query(text)
        except RedisError as exc:
            if "empty key" in str(exc):
                return []  # nothing was ever written: every read is empty
            raise StoreError(one_line(exc, self.server, query)) from None
        header = [h[1] if isinstance(h, (list, tuple)) else h for h in (result.header or [])]
        return [dict(zip(header, row)) for row in result.result_set]

    def apply_schema(self) -> None:
        from redis.exceptions import RedisError

        for statement in queries.schema_statements("falkordb"):
            try:
                self.run_text(statement, write=True)
            except StoreError as exc:
                if "already indexed" not in str(exc):
                    raise
        # FalkorDB declares constraints by a command, not in Cypher (see schema/falkordb.cypher).
        try:
            if not any(c["label"] == "Analysis" and c["properties"] == ["id"] for c in self.graph.list_constraints()):
                self.graph.create_node_unique_constraint("Analysis", "id")
        except RedisError as exc:
            raise StoreError(one_line(exc, self.server)) from None

    def save(self) -> None:
        try:
            with database_call():
                self.server.save()
        except EngineError as exc:
            raise StoreError(str(exc)) from None

    def close(self) -> None:
        try:
            self._db.connection.close()
        except Exception:  # closing is best effort; the server stays up for the next command
            pass


def _parameters_header(params: dict) -> str:
    """The ``CYPHER name=value ...`` text that FalkorDB takes parameters in, before the query.

    Values are written by ``orjson``, whose lists, strings, numbers, booleans and null are Cypher
    literals too, and which is several times faster than the client's encoder (Python, value by
    value) and ``json`` on a write batch: the deep and blame rows of the paper-scale workload's
    last 5 minutes, 4 MB of text, in 0.006 s against 0.033 s with ``json`` (a live watch writes them
    every pass). The client's encoder writes what JSON would write otherwise: maps (JSON quotes
    their keys, Cypher does not), ``\\u`` escapes (FalkorDB reads none: JSON writes control
    characters so), integers past 64 bits, and types JSON lacks. NaN and infinities become null, as
    :func:`loader.writer.row_lists` makes them for every write (neither engine stores them), and
    the CLI and the web app refuse them as parameters."""
    from falkordb.helpers import stringify_param_value

    parts = []
    for name, value in params.items():
        try:
            literal = orjson.dumps(value).decode()
        except TypeError:  # orjson's JSONEncodeError too
            literal = None
        # '":' ends every key of a JSON object; in a string it is escaped ('\\":'): a false alarm, never a miss.
        if literal is None or '":' in literal or "\\u" in literal:
            literal = stringify_param_value(value)
        parts.append(f"{name}={literal}")
    return "CYPHER " + " ".join(parts) + " " if parts else ""


class Neo4jStore(_StoreBase):
    """Production: a Neo4j 5 server over Bolt, through the official driver."""

    engine = "neo4j"
    #: Seconds to connect and hear the server's handshake: with the login, an unreachable or silent
    #: server fails within 5 s (the driver's defaults retry for 30 s and more). Not less: the first
    #: handshake with a server that just started can take seconds on a busy machine.
    connect_timeout_s = 4.0

    def __init__(self, settings: Settings):
        from neo4j import GraphDatabase
        from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable

        self.batch_size = settings.neo4j_batch_size
        self.database = settings.neo4j_database
        self.identity = _identity(self.engine, settings.neo4j_uri, settings.neo4j_database)
        uri = settings.neo4j_uri
        self._driver = GraphDatabase.driver(
            uri, auth=(settings.neo4j_user, settings.neo4j_password),
            connection_timeout=self.connect_timeout_s, connection_acquisition_timeout=self.connect_timeout_s,
            # No server notifications: the driver logs each one (e.g. "property `loaded` does not
            # exist" on an empty database) as a warning on stderr.
            notifications_min_severity="OFF")
        # Fail now, once and clearly, rather than at the first query after retries.
        try:
            self._driver.verify_connectivity()
        except AuthError as exc:
            self._driver.close()
            raise StoreError(f"Neo4j at {uri} refused user {settings.neo4j_user!r}: set PROTOXPLORE_NEO4J_USER and "
                             f"PROTOXPLORE_NEO4J_PASSWORD") from exc
        except (ServiceUnavailable, Neo4jError, OSError) as exc:
            self._driver.close()
            reason = " ".join(str(exc).split())[:300] or type(exc).__name__  # the driver's, on one line
            raise StoreError(f"cannot reach Neo4j at {uri} ({reason}): start it or set "
                             f"PROTOXPLORE_NEO4J_URI") from exc

    def run_text(self, text: str, params: dict | None = None, write: bool = False,
                 query: str = "the query") -> list[dict]:
        """Run one statement; an error names ``query`` (what it is, for the user)."""
        from neo4j.exceptions import Neo4jError, ServiceUnavailable

        def work(tx):
            return tx.run(text, params or {}).data()

        try:
            with database_call(), self._driver.session(database=self.database) as session:
                return session.execute_write(work) if write else session.execute_read(work)
        except Exception as exc:
            if _interrupted(exc):
                # Ctrl-C inside the driver's read: closing the session then fails on the broken
                # reply (seen: BufferError in the driver's buffer). The interruption is what happened.
                raise KeyboardInterrupt from exc
            if isinstance(exc, (Neo4jError, ServiceUnavailable)):
                raise StoreError(f"Neo4j refused {query}: {' '.join(str(exc).split())}") from exc
            raise

    def apply_schema(self) -> None:
        for statement in queries.schema_statements("neo4j"):
            self.run_text(statement, write=True)

    def save(self) -> None:
        """Neo4j persists each committed transaction."""

    def close(self) -> None:
        self._driver.close()


def _identity(*parts: str) -> str:
    return parts[0] + "-" + hashlib.sha256("\n".join(parts).encode()).hexdigest()[:8]


def _interrupted(exc: BaseException | None) -> bool:
    """Whether a KeyboardInterrupt is in the chain of exceptions that ``exc`` was raised while handling."""
    while exc is not None:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__context__
    return False


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def open_store(settings: Settings | None = None, say: Callable[[str], None] = _stderr,
               recover: bool = True) -> FalkorStore | Neo4jStore:
    """The store the settings choose: Neo4j when a bolt:// or neo4j:// URI is set, else embedded.

    Opening it finishes what dead processes left unfinished (loads, deletes; see protoxplore/storage/lifecycle.py),
    saying so through ``say``, so that every command starts from a store holding complete analyses only,
    and stores the overview's totals of analyses loaded before loads stored them. With ``recover``
    false it does neither (the web app's reads: a GET never writes; readers see published analyses
    only, and ``serve`` recovers as it starts).
    """

    settings = settings or Settings.from_env()
    uri = settings.neo4j_uri
    if uri:
        if uri.split("://")[0] not in ("bolt", "neo4j", "bolt+s", "neo4j+s", "bolt+ssc", "neo4j+ssc"):
            raise StoreError(f"PROTOXPLORE_NEO4J_URI must be a bolt:// or neo4j:// URI, not {uri!r}")
        store = Neo4jStore(settings)
    else:
        store = FalkorStore(settings, say=say)
    try:
        if recover:
            lifecycle.recover(store, settings.home, say)
            lifecycle.add_totals(store)
    except BaseException:
        store.close()
        raise
    return store
