"""Running `protoxplore` commands in-process, for the test modules that share them."""
from __future__ import annotations

import contextlib
import io
import json

from protoxplore.cli.commands import main


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def output(capsys, *argv) -> str:
    """What a command that must succeed prints."""
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    return out


def load_analysis(capsys, home, *paths) -> str:
    code, out, err = run(capsys, "load", *paths, "--json", "--home", home)
    assert code == 0, err
    return json.loads(out)["id"]


def printed(*argv) -> str:
    """What a command that must succeed prints, without capsys (for fixtures wider than a test)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([str(a) for a in argv]) == 0
    return out.getvalue()
