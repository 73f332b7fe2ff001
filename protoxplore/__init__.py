"""ProtoXplore: why was my Spark query slow, and who slowed it?

Start at ``protoxplore.cli`` (the commands), then ``protoxplore.loader`` (event logs to the
ProtoGraph), ``protoxplore.store`` (the graph database), ``protoxplore.service`` (the questions the
CLI and the web app share) and ``protoxplore.report`` (explanations).

The top-level folders of the repository are fixed by the design card; installing maps them into
this package (``pyproject.toml``, ``[tool.setuptools.package-dir]``): ``loader/`` is
``protoxplore.loader``, ``webapp/`` is ``protoxplore.webapp``, ``cypher/`` and ``schema/`` are
``protoxplore.cypher`` and ``protoxplore.schema``. Without the install (a checkout on
``sys.path``), ``protoxplore.loader`` does not exist: importing stops here with what to run.
"""
import importlib.util

__version__ = "0.1.0"

if importlib.util.find_spec(__name__ + ".loader") is None:
    raise ImportError("protoxplore is not installed, so its folders loader/, webapp/, cypher/ and schema/ are not "
                      "its sub-packages yet: from the repository, run `python3 -m venv .venv && .venv/bin/pip "
                      "install -e .`, then use .venv/bin/protoxplore (README.md, Layout)")
