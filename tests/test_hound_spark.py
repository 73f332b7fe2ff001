"""Hound on a real Spark run with stragglers of known cause (``workloads/stragglers.py``): the
committed log loaded and explained through the CLI (``stragglers --json``), scored against its
``truth.json`` as docs/evaluation.md reports it ("Stragglers")."""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from protoxplore.cli import main
from protoxplore.loader import hound_eval

DATA = Path(__file__).parent / "data" / "stragglers"
#: Induced stages whose dominant cause each method gets right (docs/evaluation.md): a change in a
#: learner, the features or the topics moves these.
RIGHT = {"hound": 16, "topics": 15, "predictive": 13, "dependence": 10, "causal": 14, "expert": 13}
#: On the induced stages where the expert baseline is clear, Hound's strongest cause is of its kind on:
AGREEMENT = {"clear_stages": 13, "agreeing": 10, "share": 0.77}
#: Issue 11's target: the dominant cause right for at least this share of the induced stages.
TARGET = 0.9

pytestmark = pytest.mark.slow  # the learners and topics on a real run


def _cli(*argv) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([str(a) for a in argv]) == 0
    return out.getvalue()


@pytest.fixture(scope="module")
def scored(home):
    truth = json.loads((DATA / "truth.json").read_text())
    analysis = json.loads(_cli("load", DATA / truth["log"], "--json", "--home", home))["id"]
    result = json.loads(_cli("stragglers", "--analysis", analysis, "--json", "--home", home))
    return result, hound_eval.evaluate(result, truth)


def test_measured_figures(scored):
    result, rows = scored
    summary = hound_eval.summary(rows)
    assert summary["stages"].eq(len(rows) // len(hound_eval.METHODS)).all()
    assert summary["right"].to_dict() == RIGHT, summary
    # Each learner alone names the induced cause less often than their ensemble.
    assert all(RIGHT[learner] < RIGHT["hound"] for learner in ("predictive", "dependence", "causal"))
    assert hound_eval.agreement(rows) == AGREEMENT


@pytest.mark.xfail(strict=True, reason="16 of 20 (0.80): Hound names cpu_s(+) on the 4 skewed-keys stages "
                                       "(docs/evaluation.md, Stragglers)")
def test_dominant_cause_target(scored):
    _, rows = scored
    summary = hound_eval.summary(rows)
    assert summary.at["hound", "share"] >= TARGET, summary
