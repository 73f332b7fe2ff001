"""A Neo4j 5.26 server of tools/neo4j/run.sh with its data in a bench's own directory, for the
benches that run on Neo4j (bench_core, soak_kill, bench_webapp): started, its settings, stopped."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from protoxplore.settings import Settings

RUN_NEO4J = Path(__file__).resolve().parents[1] / "tools" / "neo4j" / "run.sh"
PASSWORD = "bench-pass"


def start(home: Path, heap: str = "4g") -> Settings:
    """Start a server with its data under ``home/neo4j`` (heap PROTOXPLORE_NEO4J_HEAP, else ``heap``);
    the settings of ProtoXplore pointed at it, with ``home`` as PROTOXPLORE_HOME."""
    env = dict(os.environ, PROTOXPLORE_NEO4J_HOME=str(home / "neo4j"), PROTOXPLORE_NEO4J_PASSWORD=PASSWORD,
               PROTOXPLORE_NEO4J_HEAP=os.environ.get("PROTOXPLORE_NEO4J_HEAP", heap))
    bolt = subprocess.run(["bash", str(RUN_NEO4J)], env=env, check=True, capture_output=True, text=True).stdout.split()[0]
    return Settings.from_env(home=home, neo4j_uri=bolt, neo4j_user="neo4j", neo4j_password=PASSWORD,
                             neo4j_database="neo4j")


def stop(home: Path) -> None:
    subprocess.run(["bash", str(RUN_NEO4J), "stop"], env=dict(os.environ, PROTOXPLORE_NEO4J_HOME=str(home / "neo4j")),
                   check=True, capture_output=True)


def environment(settings: Settings) -> dict:
    """The environment that points a `protoxplore` command at the store of ``settings``."""
    return dict(os.environ, PROTOXPLORE_NEO4J_URI=settings.neo4j_uri, PROTOXPLORE_NEO4J_USER=settings.neo4j_user,
                PROTOXPLORE_NEO4J_PASSWORD=settings.neo4j_password,
                PROTOXPLORE_NEO4J_DATABASE=settings.neo4j_database)
