"""The Cypher files of ``cypher/``: each a named, parameterized query with a documented header.

A file starts with ``//`` header lines::

    // Title: Hot resources
    // Answers: Which resources slowed victims the most, over all victims? (paper 000 Sec. 4.2.3)
    // Kind: canned
    // Parameters:
    //   $analysis (string): analysis id
    //   $k (integer, default 10, from 1): how many rows

``Kind`` is ``canned`` (a question users ask: the CLI, the web app and the Neo4j Browser guide
offer it), ``graph`` (a question answered with nodes and relationships, for Neo4j Browser's graph
view in the guide), ``procedure`` (computes IF, DOR and totals inside the database), ``write`` (bulk writes)
or ``internal`` (a read the code makes for a feature, not offered as a question: PerfXplain's runs).
After a parameter's type and default, ``from LOW [to HIGH]`` or ``one of A B ...`` says which values
it takes; any other is refused with its name (``QueryError``), on every page and command alike.
A file may hold several statements, each ended by ``;`` at the end of a line; they run in order.
Values always go in as parameters, never by string formatting.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from protoxplore.errors import QueryError

_PARAM = re.compile(r"^\$(\w+)\s*\((\w+)(?:,\s*default\s+([^,)]*))?(?:,\s*(from|one of)\s+([^)]*))?\)\s*:?\s*(.*)$")
#: The largest integer a parameter takes: FalkorDB reads a LIMIT modulo 2^32 (``--top 4294967297``
#: gave one row), and Neo4j's integers are 64-bit.
MAX_INTEGER = 2**31 - 1
PARAM_TYPES = {"string": str, "integer": int, "float": float, "boolean": bool, "list": list, "map": dict}


@dataclass(frozen=True)
class Parameter:
    name: str
    type: str
    default: object
    description: str
    choices: tuple[str, ...] = ()  # the values it takes (``one of``), when listed
    low: float | None = None  # the least and the greatest value it takes (``from LOW to HIGH``)
    high: float | None = None

    def parse(self, raw):
        """Convert a value given as text (CLI, web form) to this parameter's type, checked against
        the values it takes."""
        if raw is None or raw == "":
            if self.default is None:
                raise QueryError(f"parameter ${self.name} is required ({self.description})")
            return self.default
        if raw == " " and "+" in self.choices:
            raw = "+"  # a "+" typed in a URL's query string arrives as a space
        value = self._convert(raw)
        if isinstance(value, float) and not math.isfinite(value):
            raise QueryError(f"parameter ${self.name} must be a finite number, not {raw!r}")
        if self.choices and str(value) not in self.choices:
            raise QueryError(f"parameter ${self.name} must be one of {', '.join(self.choices)}, not {raw!r}")
        if self.type == "integer" and abs(value) > MAX_INTEGER:
            raise QueryError(f"parameter ${self.name} must be an integer from {-MAX_INTEGER} to {MAX_INTEGER}, not {raw!r}")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            span = f"from {self.low:g} to {self.high:g}" if self.high is not None else f"of at least {self.low:g}"
            raise QueryError(f"parameter ${self.name} must be {_article(self.type)} {self.type} {span}, not {raw!r}")
        return value

    def _convert(self, raw):
        try:
            if self.type == "boolean":
                if isinstance(raw, bool):
                    return raw
                if str(raw).lower() in ("true", "1", "yes", "on"):
                    return True
                if str(raw).lower() in ("false", "0", "no", "off"):
                    return False
                raise ValueError(raw)
            return PARAM_TYPES[self.type](raw)
        except (TypeError, ValueError):
            raise QueryError(f"parameter ${self.name} must be {_article(self.type)} {self.type}, not {raw!r}") from None


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _values(kind: str | None, text: str | None) -> dict:
    """The ``choices`` or ``low``/``high`` of a parameter's ``from ...``/``one of ...`` text."""
    if kind == "one of":
        return {"choices": tuple(text.split())}
    if kind == "from":
        low, _, high = text.partition(" to ")
        return {"low": float(low), "high": float(high) if high else None}
    return {}


@dataclass(frozen=True)
class CypherFile:
    name: str
    title: str
    answers: str
    kind: str
    parameters: tuple[Parameter, ...]
    statements: tuple[str, ...]
    text: str = field(repr=False)

    def bind(self, values: dict) -> dict:
        """Parameters for a run: parsed values, defaults filled in, unknown names refused."""
        known = {p.name for p in self.parameters}
        unknown = set(values) - known
        if unknown:
            raise QueryError(f"query {self.name!r} has no parameter {', '.join('$' + u for u in sorted(unknown))}; "
                             f"it takes {', '.join('$' + k for k in sorted(known)) or 'none'}")
        return {p.name: p.parse(values.get(p.name)) for p in self.parameters}


def _parse(name: str, text: str) -> CypherFile:
    header: dict[str, str] = {}
    params: list[Parameter] = []
    body: list[str] = []
    in_params = False
    for line in text.splitlines():
        stripped = line.strip()
        if not body and stripped.startswith("//"):
            content = stripped[2:].strip()
            match = _PARAM.match(content)
            if in_params and match:
                pname, ptype, default, kind, allowed, doc = match.groups()
                if ptype not in PARAM_TYPES:
                    raise QueryError(f"{name}.cypher: unknown parameter type {ptype!r}")
                value = PARAM_TYPES[ptype](default.strip()) if default is not None and ptype != "boolean" else (
                    default.strip().lower() == "true" if default is not None else None)
                params.append(Parameter(pname, ptype, value, doc, **_values(kind, allowed)))
            elif ":" in content:
                key, _, value = content.partition(":")
                header[key.strip().lower()] = value.strip()
                in_params = key.strip().lower() == "parameters"
            continue
        if stripped or body:
            body.append(line)
    statements = [s.strip() for s in re.split(r";\s*$", "\n".join(body), flags=re.M) if s.strip()]
    for key in ("title", "answers", "kind"):
        if key not in header:
            raise QueryError(f"{name}.cypher: header lacks '// {key.title()}:'")
    used = set(re.findall(r"\$(\w+)", "\n".join(statements)))
    declared = {p.name for p in params}
    if used != declared:
        raise QueryError(f"{name}.cypher: parameters used {sorted(used)} differ from those declared {sorted(declared)}")
    return CypherFile(name, header["title"], header["answers"], header["kind"], tuple(params), tuple(statements), text)


@lru_cache(maxsize=None)
def load(name: str) -> CypherFile:
    """The parsed ``cypher/<name>.cypher``; a clear error for an unknown name."""
    if not re.fullmatch(r"[a-z0-9_]+", name or ""):
        raise QueryError(f"no query named {name!r}")
    try:
        text = resources.files("protoxplore.cypher").joinpath(f"{name}.cypher").read_text()
    except FileNotFoundError:
        raise QueryError(f"no query named {name!r}; known: {', '.join(names())}") from None
    return _parse(name, text)


def names(kind: str | None = None) -> list[str]:
    """Names of all Cypher files, optionally of one kind."""
    found = sorted(p.name[:-7] for p in resources.files("protoxplore.cypher").iterdir() if p.name.endswith(".cypher"))
    return [n for n in found if kind is None or load(n).kind == kind]


def schema_statements(engine: str) -> list[str]:
    """Constraint and index statements of ``schema/<engine>.cypher``."""
    text = resources.files("protoxplore.schema").joinpath(f"{engine}.cypher").read_text()
    body = "\n".join(line for line in text.splitlines() if not line.strip().startswith("//"))
    return [s.strip() for s in re.split(r";\s*$", body, flags=re.M) if s.strip()]
