"""The explanation explorer: a Flask app over the ProtoGraph (``protoxplore serve``).

``create_app`` is an application factory (as in the Flask tutorial). Settings come from the
environment (``protoxplore.settings``); ``test_config`` overrides them, either with a ready
``SETTINGS`` object or with the environment names (``PROTOXPLORE_HOME``, ...). The app opens ONE
store, lazily on the first request that needs it, and closes it when the process exits (or when
``close_store(app)`` is called): see ``db``. Every page reads through the parameterized Cypher files of
``cypher/`` in read transactions; only two explicit actions write, each by POST from one of its own pages
(``security``): deriving time windows, and saving a PerfXplain explanation. ``make_server`` serves it with Waitress.
"""
from __future__ import annotations

from flask import Flask
from flask.templating import Environment
from jinja2 import StrictUndefined

from protoxplore.settings import SETTINGS, Settings
from protoxplore.webapp import db, security
from protoxplore.webapp.db import close_store, get_store  # noqa: F401  (the app's store, for callers of the package)


def _settings_from(config: dict) -> Settings:
    """The app's settings: ``config["SETTINGS"]``, else the environment's with the settings named in
    ``config`` (by their environment names) over them."""
    if isinstance(config.get("SETTINGS"), Settings):
        return config["SETTINGS"]
    return Settings.from_env(**{s.field: s.read(str(config[s.name])) for s in SETTINGS if config.get(s.name) is not None})


_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(Environment):
    """Jinja's environment, with ``row.name`` on a dict found without an exception: Jinja tries
    ``getattr(row, "name")`` first, and the AttributeError of every lookup in a page's tables took a
    fifth of the overview's rendering. A dict's own attributes (``figs.get``) are still found first."""

    def getattr(self, obj, attribute):
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


class _Flask(Flask):
    jinja_environment = _Environment


def create_app(test_config: dict | None = None) -> Flask:
    app = _Flask(__name__, instance_relative_config=False)
    app.config.from_mapping(
        JSON_SORT_KEYS=False,
        DEFAULT_K=10,
        MAX_K=1000,
        MAX_WINDOWS=24,
        PAGE_CACHE_SIZE=2048,  # query results and explanations kept (each at most MAX_K rows); 0: none
        COMPUTE_WORKERS=1,  # processes computing rankings, what-ifs, topics, explanations in the background
        COMPUTED_SIZE=256,  # results of those computations kept (least recently asked for dropped)
        NEO4J_BROWSER_URL=None,  # default: http://<host the page was served from>:7474/browser/
        ALLOWED_HOSTS=security.allowed_names("127.0.0.1"),  # Host header names; make_server sets them
        PORT=None,  # the port served (make_server sets it): the Host header must name it
    )
    if test_config:
        app.config.update(test_config)
    if app.testing:
        app.jinja_env.undefined = StrictUndefined  # a template naming a value no view gave fails the test
    settings = _settings_from(app.config)
    app.config["SETTINGS"] = settings
    db.init_app(app)

    from protoxplore.webapp import canned, errors, views
    security.register(app)
    app.register_blueprint(views.bp)
    app.register_blueprint(canned.bp)
    errors.register(app)
    from protoxplore.webapp import guide
    app.register_blueprint(guide.bp)  # the Neo4j Browser guide and its deep links
    from protoxplore.webapp import stragglers
    app.register_blueprint(stragglers.bp)  # Hound: stragglers and their causes
    from protoxplore.webapp import perfxplain
    app.register_blueprint(perfxplain.bp)  # PerfXplain: compare two runs of a query
    views.register_filters(app)
    return app


def make_server(host: str = "127.0.0.1", port: int = 5000, settings: Settings | None = None, app=None,
                extra_hosts: tuple[str, ...] = ()):
    """The app served by Waitress on ``host:port`` (``port=0`` picks a free port: see ``server.port``)."""
    from protoxplore.webapp.server import Server
    app = app or create_app({"SETTINGS": settings} if settings else None)
    return Server(app, host, port, extra_hosts)


def serve(host: str = "127.0.0.1", port: int = 5000, settings: Settings | None = None,
          extra_hosts: tuple[str, ...] = (), neo4j_browser_url: str | None = None) -> None:
    """Run the explorer until interrupted; bound to 127.0.0.1 unless told otherwise (with a warning).
    ``neo4j_browser_url``: where Neo4j Browser answers (the app's ``NEO4J_BROWSER_URL``)."""
    from protoxplore.storage.store import open_store
    from protoxplore.webapp.server import warn_if_exposed
    config = {"SETTINGS": settings} if settings else {}
    if neo4j_browser_url:
        config["NEO4J_BROWSER_URL"] = neo4j_browser_url
    app = create_app(config or None)
    # What dead processes left unfinished is finished here, once: the app's own reads never write.
    open_store(app.config["SETTINGS"]).close()
    warn_if_exposed(host)
    server = make_server(host, port, app=app, extra_hosts=extra_hosts)
    shown = f"[{host}]" if ":" in host else host
    print(f"ProtoXplore explorer on http://{shown}:{server.port}/ (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        close_store(app)
