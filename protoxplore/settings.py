"""Settings, read from the environment. Every setting is documented in docs/settings.md (a test checks)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from protoxplore.loader.logs.eventlog import MAX_LINE_BYTES

#: name -> (default, one-line description). docs/settings.md documents each of these.
SETTINGS = {
    "PROTOXPLORE_HOME": ("~/.protoxplore", "Directory for the embedded engine's data, socket and log, and saved traces."),
    "PROTOXPLORE_NEO4J_URI": ("", "bolt:// or neo4j:// URI of a Neo4j 5 server; empty means the embedded FalkorDB engine."),
    "PROTOXPLORE_NEO4J_USER": ("neo4j", "Neo4j user name."),
    "PROTOXPLORE_NEO4J_PASSWORD": ("", "Neo4j password."),
    "PROTOXPLORE_NEO4J_DATABASE": ("neo4j", "Neo4j database name."),
    "PROTOXPLORE_GRAPH": ("protoxplore", "Graph name inside the embedded engine."),
    "PROTOXPLORE_BATCH_SIZE": ("5000", "Rows per UNWIND batch when writing a ProtoGraph into the embedded FalkorDB, "
                                       "and nodes per batch when deleting one."),
    "PROTOXPLORE_NEO4J_BATCH_SIZE": ("2000", "The same on Neo4j (smaller transactions are faster there)."),
    "PROTOXPLORE_MAX_LINE_BYTES": (str(MAX_LINE_BYTES), "Longest event-log line read; longer lines are skipped "
                                                         "with a warning (an error with --strict)."),
    "PROTOXPLORE_LOAD_MEMORY_MIB": ("920", "Memory budget of a load: peak MiB per MiB of event-log input on disk (as "
                                           "much for less than 1 MiB); past it the load stops with an error; 0: none."),
    "PROTOXPLORE_PERFXPLAIN_SIMILARITY": ("0.1", "PerfXplain: two numeric features compare SIM when within this "
                                                 "fraction of the larger (paper 004: 10%)."),
    "PROTOXPLORE_PERFXPLAIN_SAMPLE": ("2000", "PerfXplain: example pairs sampled (balanced) to build an explanation "
                                              "(paper 004 Sec. 4.3)."),
    "PROTOXPLORE_STRAGGLER_THRESHOLD": ("1.5", "Hound: a task straggles when it ran longer than this x its stage "
                                               "attempt's median (1.5: Ousterhout et al., paper 002 ref. 46); above 1."),
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
    max_line_bytes: int = MAX_LINE_BYTES
    load_memory_mib: float = float(SETTINGS["PROTOXPLORE_LOAD_MEMORY_MIB"][0])
    perfxplain_similarity: float = float(SETTINGS["PROTOXPLORE_PERFXPLAIN_SIMILARITY"][0])
    perfxplain_sample: int = int(SETTINGS["PROTOXPLORE_PERFXPLAIN_SAMPLE"][0])
    neo4j_batch_size: int = int(SETTINGS["PROTOXPLORE_NEO4J_BATCH_SIZE"][0])
    straggler_threshold: float = float(SETTINGS["PROTOXPLORE_STRAGGLER_THRESHOLD"][0])

    @classmethod
    def from_env(cls, **overrides) -> "Settings":
        """Settings from the environment; keyword overrides (from CLI flags) win when not None."""
        def get(name: str) -> str:
            return os.environ.get(name, SETTINGS[name][0])

        def integer(name: str) -> int:
            try:
                return int(get(name))
            except ValueError:
                raise ValueError(f"{name} must be an integer, not {get(name)!r}") from None

        values = dict(
            home=Path(get("PROTOXPLORE_HOME")).expanduser(),
            neo4j_uri=get("PROTOXPLORE_NEO4J_URI"),
            neo4j_user=get("PROTOXPLORE_NEO4J_USER"),
            neo4j_password=get("PROTOXPLORE_NEO4J_PASSWORD"),
            neo4j_database=get("PROTOXPLORE_NEO4J_DATABASE"),
            graph=get("PROTOXPLORE_GRAPH"),
            batch_size=integer("PROTOXPLORE_BATCH_SIZE"),
            max_line_bytes=integer("PROTOXPLORE_MAX_LINE_BYTES"),
            perfxplain_sample=integer("PROTOXPLORE_PERFXPLAIN_SAMPLE"),
            neo4j_batch_size=integer("PROTOXPLORE_NEO4J_BATCH_SIZE"),
        )
        def number(name: str) -> float:
            try:
                return float(get(name))
            except ValueError:
                raise ValueError(f"{name} must be a number, not {get(name)!r}") from None

        values["perfxplain_similarity"] = number("PROTOXPLORE_PERFXPLAIN_SIMILARITY")
        values["straggler_threshold"] = number("PROTOXPLORE_STRAGGLER_THRESHOLD")
        values["load_memory_mib"] = number("PROTOXPLORE_LOAD_MEMORY_MIB")
        values.update({k: v for k, v in overrides.items() if v is not None})
        for field, name in (("batch_size", "PROTOXPLORE_BATCH_SIZE"), ("neo4j_batch_size", "PROTOXPLORE_NEO4J_BATCH_SIZE")):
            if values[field] < 1:
                raise ValueError(f"{name} (batch size) must be at least 1, not {values[field]}")
        if values["max_line_bytes"] < 1:
            raise ValueError(f"PROTOXPLORE_MAX_LINE_BYTES must be at least 1, not {values['max_line_bytes']}")
        if not 0 <= values["load_memory_mib"] < float("inf"):
            raise ValueError(f"PROTOXPLORE_LOAD_MEMORY_MIB (MiB per MiB of input) must be 0 or more, not "
                             f"{values['load_memory_mib']}")
        if not 0 <= values["perfxplain_similarity"] < 1:
            raise ValueError(f"PROTOXPLORE_PERFXPLAIN_SIMILARITY must be in [0, 1), not {values['perfxplain_similarity']}")
        if not values["straggler_threshold"] > 1:
            raise ValueError(f"PROTOXPLORE_STRAGGLER_THRESHOLD (x the stage median) must be above 1, not "
                             f"{values['straggler_threshold']}")
        if not values["graph"].strip():
            raise ValueError("PROTOXPLORE_GRAPH (the embedded engine's graph name) must not be empty")
        if values["perfxplain_sample"] < 10:
            raise ValueError(f"PROTOXPLORE_PERFXPLAIN_SAMPLE must be at least 10, not {values['perfxplain_sample']}")
        return cls(**values)

    def make_home(self) -> None:
        """Make the home directory owner-only, and every file this process and the engine it starts
        create (the dump, saved traces, logs) too: they hold SQL text and table names.

        A home left group- or world-readable by an older version is closed (when it is ours).
        """
        os.umask(0o077)
        self.home.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = self.home.stat()
        if st.st_uid == os.getuid() and st.st_mode & 0o077:
            self.home.chmod(0o700)
