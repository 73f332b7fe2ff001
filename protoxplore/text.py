"""Text from event logs made safe to print on a terminal, and sorted as people read its numbers.

App names, SQL descriptions, stage and host names and file names come from the logs, which
anyone who can submit a Spark job writes. Printed raw, an escape sequence in them can clear the
screen, set the window title, hide text, plant an OSC 8 link or, on some terminals, answer back
keystrokes. :func:`terminal_safe` removes every escape sequence (ECMA-48: CSI, OSC, DCS, SOS,
PM, APC strings and two-byte escapes), then every C0 control but tab and newline, DEL, every C1
control, and the Unicode bidirectional overrides that make text read other than it is stored.
JSON output needs none of this: ``json.dumps`` writes all of them as ``\\uXXXX``.
"""
from __future__ import annotations

import re

_SEQUENCE = re.compile(r"""
      (?:\x1b\[|\x9b) [0-?]* [ -/]* [@-~]?                          # CSI: parameters, intermediates, final byte
    | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]) .*? (?:\x07|\x1b\\|\x9c|$)  # OSC, DCS, SOS, PM, APC strings,
                                                                       # to BEL or ST (else the line's end)
    | \x1b [ -/]* [0-~]?                                             # other escapes: ESC c, ESC ( B, ESC 7...
""", re.VERBOSE | re.MULTILINE)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str) -> str:
    """``text`` without escape sequences and control characters (tab and newline are kept)."""
    return _CONTROL.sub("", _SEQUENCE.sub("", text))


def natural_key(text: str) -> list:
    """A sort key that reads the numbers in ``text``: stage-2 before stage-11, sql-9 before sql-10."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text)]
