"""Settings, read from the environment. Every setting is documented in docs/settings.md (a test checks)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

#: name -> (default, one-line description). docs/settings.md documents each of these.
SETTINGS = {
    "PROTOXPLORE_HOME": ("~/.protoxplore", "Directory for the embedded engine's data, socket and log, and saved traces."),
    "PROTOXPLORE_NEO4J_URI": ("", "bolt:// or neo4j:// URI of a Neo4j 5 server; empty means the embedded FalkorDB engine."),
    "PROTOXPLORE_NEO4J_USER": ("neo4j", "Neo4j user name."),
    "PROTOXPLORE_NEO4J_PASSWORD": ("", "Neo4j password."),
    "PROTOXPLORE_NEO4J_DATABASE": ("neo4j", "Neo4j database name."),
    "PROTOXPLORE_GRAPH": ("protoxplore", "Graph name inside the embedded engine."),
    "PROTOXPLORE_BATCH_SIZE": ("5000", "Rows per UNWIND batch when writing a ProtoGraph, and nodes per batch when deleting one."),
}


@dataclass(frozen=True)
class Settings:
    home: Path
    neo4j_uri: str
    neo4j_user: str
    neo4j_password: str
    neo4j_database: str
    graph: str
    batch_size: int

    @classmethod
    def from_env(cls, **overrides) -> "Settings":
        """Settings from the environment; keyword overrides (from CLI flags) win when not None."""
        def get(name: str) -> str:
            return os.environ.get(name, SETTINGS[name][0])

        try:
            batch_size = int(get("PROTOXPLORE_BATCH_SIZE"))
        except ValueError:
            raise ValueError(f"PROTOXPLORE_BATCH_SIZE must be an integer, not {get('PROTOXPLORE_BATCH_SIZE')!r}")
        values = dict(
            home=Path(get("PROTOXPLORE_HOME")).expanduser(),
            neo4j_uri=get("PROTOXPLORE_NEO4J_URI"),
            neo4j_user=get("PROTOXPLORE_NEO4J_USER"),
            neo4j_password=get("PROTOXPLORE_NEO4J_PASSWORD"),
            neo4j_database=get("PROTOXPLORE_NEO4J_DATABASE"),
            graph=get("PROTOXPLORE_GRAPH"),
            batch_size=batch_size,
        )
        values.update({k: v for k, v in overrides.items() if v is not None})
        if values["batch_size"] < 1:
            raise ValueError(f"batch size must be at least 1, not {values['batch_size']}")
        return cls(**values)
