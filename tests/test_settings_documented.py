"""Every setting and every command-line option is documented, one test each (as Datasette tests its
settings): a failure names the one that is not."""
import argparse
import re
from pathlib import Path

import pytest

from protoxplore.cli.arguments import build_parser
from protoxplore.settings import SETTINGS, Settings

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "settings.md"


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.name)
def test_setting_is_documented_with_its_default(setting):
    row = next((line for line in DOCS.read_text().splitlines() if line.startswith(f"| `{setting.name}` |")), None)
    assert row is not None, f"{setting.name} has no row in docs/settings.md"
    default = setting.default or "empty"
    assert default in row or f"`{default}`" in row, f"docs/settings.md gives {setting.name} another default than {default}"


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.name)
def test_setting_default_passes_its_own_check(setting):
    assert setting.check(setting.read(setting.default)) is None
    assert getattr(Settings, setting.field) == setting.read(setting.default)


def test_no_undocumented_setting_is_read():
    read = set()
    for path in ROOT.glob("protoxplore/**/*.py"):
        read |= set(re.findall(r"PROTOXPLORE_[A-Z0-9_]+", path.read_text()))
    assert read <= {s.name for s in SETTINGS}, read - {s.name for s in SETTINGS}


def _options():
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in commands.choices.items():
        for action in sub._actions:
            if not isinstance(action, argparse._HelpAction):
                yield pytest.param(name, action, id=f"{name} {'/'.join(action.option_strings) or action.dest}")


@pytest.mark.parametrize("command, action", list(_options()))
def test_every_command_line_argument_has_help(command, action):
    assert action.help and action.help.strip(), f"`protoxplore {command}`: {action.option_strings or action.dest} has no help"
