"""Settings, read from the environment, declared once as data (:data:`SETTINGS`): each one's
environment name, the :class:`Settings` field it fills, its default, its type, what it does and the
values it takes. docs/settings.md documents every one (``tests/test_settings_documented.py``)."""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Callable

#: Longest event-log line read (PROTOXPLORE_MAX_LINE_BYTES). The longest line of the 75 logs in
#: tests/data and shared/spark-events is 100 KB (an environment update); 16 MiB leaves 160x
#: room. A line parses into up to about 32x its bytes of objects (a list of empty objects: a
#: 16 MiB one loads in 644 MiB peak RSS, bench/bench_load_memory.py), so 16 MiB keeps a load
#: under 1 GB where the 64 MiB before reached 2.2 GB.
MAX_LINE_BYTES = 1 << 24


@dataclass(frozen=True)
class Setting:
    """One setting: its environment variable, the :class:`Settings` field, the default (as text, as
    the environment gives it), the type its text is read as, one line on what it does, and a check
    that returns what is wrong with a value (None when it is fine)."""

    name: str
    field: str
    default: str
    kind: type
    help: str
    check: Callable[[object], str | None] = lambda value: None

    def read(self, text: str):
        """The value of ``text`` (ValueError naming the setting and the text when it is none)."""
        try:
            value = self.kind(text)
        except ValueError:
            what = {int: "an integer", float: "a number"}.get(self.kind, self.kind.__name__)
            raise ValueError(f"{self.name} must be {what}, not {text!r}") from None
        return Path(value).expanduser() if self.kind is Path else value


def _at_least(low, what: str = ""):
    return lambda v: None if v >= low else f"{what}must be at least {low}, not {v}"


SETTINGS: tuple[Setting, ...] = (
    Setting("PROTOXPLORE_HOME", "home", "~/.protoxplore", Path,
            "Directory for the embedded engine's data, socket and log, and saved traces."),
    Setting("PROTOXPLORE_NEO4J_URI", "neo4j_uri", "", str,
            "bolt:// or neo4j:// URI of a Neo4j 5 server; empty means the embedded FalkorDB engine."),
    Setting("PROTOXPLORE_NEO4J_USER", "neo4j_user", "neo4j", str, "Neo4j user name."),
    Setting("PROTOXPLORE_NEO4J_PASSWORD", "neo4j_password", "", str, "Neo4j password."),
    Setting("PROTOXPLORE_NEO4J_DATABASE", "neo4j_database", "neo4j", str, "Neo4j database name."),
    Setting("PROTOXPLORE_GRAPH", "graph", "protoxplore", str, "Graph name inside the embedded engine.",
            lambda v: None if v.strip() else "(the embedded engine's graph name) must not be empty"),
    Setting("PROTOXPLORE_BATCH_SIZE", "batch_size", "5000", int,
            "Rows per UNWIND batch when writing a ProtoGraph into the embedded FalkorDB, and nodes per batch when "
            "deleting one.", _at_least(1, "(batch size) ")),
    Setting("PROTOXPLORE_NEO4J_BATCH_SIZE", "neo4j_batch_size", "2000", int,
            "The same on Neo4j (smaller transactions are faster there).", _at_least(1, "(batch size) ")),
    Setting("PROTOXPLORE_MAX_LINE_BYTES", "max_line_bytes", str(MAX_LINE_BYTES), int,
            "Longest event-log line read; longer lines are skipped with a warning (an error with --strict).",
            _at_least(1)),
    Setting("PROTOXPLORE_LOAD_MEMORY_MIB", "load_memory_mib", "920", float,
            "Memory budget of a load: peak MiB per MiB of event-log input on disk (as much for less than 1 MiB); past "
            "it the load stops with an error; 0: none.",
            lambda v: None if 0 <= v < math.inf else f"(MiB per MiB of input) must be 0 or more, not {v}"),
    Setting("PROTOXPLORE_PERFXPLAIN_SIMILARITY", "perfxplain_similarity", "0.1", float,
            "PerfXplain: two numeric features compare SIM when within this fraction of the larger (paper 004: 10%).",
            lambda v: None if 0 <= v < 1 else f"must be in [0, 1), not {v}"),
    Setting("PROTOXPLORE_PERFXPLAIN_SAMPLE", "perfxplain_sample", "2000", int,
            "PerfXplain: example pairs sampled (balanced) to build an explanation (paper 004 Sec. 4.3).",
            _at_least(10)),
    Setting("PROTOXPLORE_STRAGGLER_THRESHOLD", "straggler_threshold", "1.5", float,
            "Hound: a task straggles when it ran longer than this x its stage attempt's median (1.5: Ousterhout et "
            "al., paper 002 ref. 46); above 1.",
            lambda v: None if v > 1 else f"(x the stage median) must be above 1, not {v}"),
)
BY_FIELD = {s.field: s for s in SETTINGS}


@dataclass(frozen=True)
class Settings:
    """The settings in force: the environment's (:meth:`from_env`), with a command's flags over them.
    A class attribute is the setting's default."""

    home: Path = BY_FIELD["home"].read(BY_FIELD["home"].default)
    neo4j_uri: str = BY_FIELD["neo4j_uri"].default
    neo4j_user: str = BY_FIELD["neo4j_user"].default
    neo4j_password: str = BY_FIELD["neo4j_password"].default
    neo4j_database: str = BY_FIELD["neo4j_database"].default
    graph: str = BY_FIELD["graph"].default
    batch_size: int = int(BY_FIELD["batch_size"].default)
    neo4j_batch_size: int = int(BY_FIELD["neo4j_batch_size"].default)
    max_line_bytes: int = MAX_LINE_BYTES
    load_memory_mib: float = float(BY_FIELD["load_memory_mib"].default)
    perfxplain_similarity: float = float(BY_FIELD["perfxplain_similarity"].default)
    perfxplain_sample: int = int(BY_FIELD["perfxplain_sample"].default)
    straggler_threshold: float = float(BY_FIELD["straggler_threshold"].default)

    @classmethod
    def from_env(cls, **overrides) -> Settings:
        """Settings from the environment; keyword overrides (from CLI flags) win when not None. A value
        a setting does not take is a ValueError naming the setting and the value."""
        values = {s.field: s.read(os.environ.get(s.name, s.default)) for s in SETTINGS}
        values.update({k: v for k, v in overrides.items() if v is not None})
        for setting in SETTINGS:
            wrong = setting.check(values[setting.field])
            if wrong:
                raise ValueError(f"{setting.name} {wrong}")
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


assert {f.name for f in fields(Settings)} == set(BY_FIELD), "every setting fills one Settings field"
