"""Every setting the code reads is documented (as Datasette tests its settings)."""
from pathlib import Path

from protoxplore.settings import SETTINGS

DOCS = Path(__file__).resolve().parents[1] / "docs" / "settings.md"


def test_every_setting_is_documented():
    text = DOCS.read_text()
    for name in SETTINGS:
        assert f"`{name}`" in text, f"{name} is not documented in docs/settings.md"


def test_no_undocumented_setting_is_read():
    import re
    root = Path(__file__).resolve().parents[1]
    read = set()
    for path in root.glob("protoxplore/**/*.py"):
        read |= set(re.findall(r"PROTOXPLORE_[A-Z0-9_]+", path.read_text()))
    assert read <= set(SETTINGS), read - set(SETTINGS)
