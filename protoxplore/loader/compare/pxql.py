"""PXQL (paper 004 Sec. 3.2): a performance question about a pair of runs, parsed with lark.

    FOR 'A', 'B' [DESPITE des] OBSERVED obs EXPECTED exp

Each clause is a conjunction (AND) of predicates ``feature op value`` over pair features
(``tasks_compare = GT``, ``signature_isSame = T``, ``shuffle_partitions >= 200``); A and B name
runs as ``explain --victim`` does, optionally prefixed by an analysis id and a colon.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lark import Lark, Transformer, exceptions

from protoxplore.errors import PXQLError

GRAMMAR = r"""
start: "FOR"i run "," run despite? observed expected
run: STRING
despite: "DESPITE"i conj
observed: "OBSERVED"i conj
expected: "EXPECTED"i conj
conj: predicate (("AND"i | "&") predicate)*
predicate: FEATURE OP value
value: SIGNED_NUMBER -> number
     | STRING -> string
     | WORD -> word
OP: "<=" | ">=" | "!=" | "=" | "<" | ">"
FEATURE: /[A-Za-z_][A-Za-z0-9_]*/
WORD: /[A-Za-z_][A-Za-z0-9_.\-]*/
STRING: /'[^']*'/ | /"[^"]*"/
%import common.SIGNED_NUMBER
%import common.WS
%ignore WS
"""

_PARSER = Lark(GRAMMAR, parser="lalr")


@dataclass(frozen=True)
class Predicate:
    feature: str
    op: str
    value: object

    def as_dict(self) -> dict:
        return {"feature": self.feature, "op": self.op, "value": self.value}

    def __str__(self) -> str:
        return f"{self.feature} {self.op} {value_text(self.value)}"


def value_text(value) -> str:
    """A predicate's value as sentences show it: a number to 4 significant digits (8, 2000, 4.055,
    100600000, not 8.0, 4.0548445088411285 or 1.006e+08: a byte count in e-notation read as a
    formula to users of the audit); PXQL reads it back. The JSON keeps the exact value."""
    if not isinstance(value, float):
        return str(value)
    rounded = float(f"{value:.4g}")  # 9999.5 rounds to 1e+04: the form follows the rounded value
    return f"{rounded:.0f}" if 1e4 <= abs(rounded) < 1e15 else f"{value:.4g}"


@dataclass(frozen=True)
class Question:
    """A PXQL query: the pair of interest (run references) and its three clauses."""
    first: str
    second: str
    despite: tuple[Predicate, ...] = ()
    observed: tuple[Predicate, ...] = field(default=())
    expected: tuple[Predicate, ...] = field(default=())


class _ToQuestion(Transformer):
    def start(self, items):
        first, second, *clauses = items
        named = dict(clauses)
        return Question(first, second, named.get("despite", ()), named["observed"], named["expected"])

    def run(self, items):
        return items[0][1:-1]

    def despite(self, items):
        return "despite", items[0]

    def observed(self, items):
        return "observed", items[0]

    def expected(self, items):
        return "expected", items[0]

    def conj(self, items):
        return tuple(items)

    def predicate(self, items):
        return Predicate(str(items[0]), str(items[1]), items[2])

    def number(self, items):
        return float(items[0])

    def string(self, items):
        return str(items[0])[1:-1]

    def word(self, items):
        return str(items[0])


def parse(text: str) -> Question:
    """The Question a PXQL text asks; PXQLError names the column and token where it goes wrong."""
    try:
        return _ToQuestion().transform(_PARSER.parse(text))
    except exceptions.UnexpectedInput as exc:
        token = getattr(exc, "token", None)
        if token is None or token.type == "$END":
            found = "end of query" if token is not None or exc.pos_in_stream is None \
                or exc.pos_in_stream >= len(text) else repr(text[exc.pos_in_stream])
        else:
            found = repr(str(token))
        expected = sorted(getattr(exc, "expected", None) or getattr(exc, "allowed", None) or [])
        hint = f"; expected one of {', '.join(expected)}" if expected else ""
        raise PXQLError(f"PXQL column {getattr(exc, 'column', '?')}: unexpected {found}{hint}") from None
