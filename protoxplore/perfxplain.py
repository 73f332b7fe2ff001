"""PerfXplain questions against the store: name two runs, read the log of past runs, explain.

The algorithms live in ``loader/perfxplain.py``; this module resolves run references the way
``explain --victim`` does and gathers every loaded analysis's runs (``loader/perfxplain_runs.py``).
"""
from __future__ import annotations

from . import service
from .loader import perfxplain, perfxplain_runs
from .loader.perfxplain_pxql import Predicate, Question, parse

#: The two shortcut questions: observed and expected clauses, and the verb of the sentence.
SHORTCUTS = {
    "why-slower": ((Predicate("duration_s_compare", "=", "GT"),), (Predicate("duration_s_compare", "=", "SIM"),),
                   "was slower than"),
    "why-same": ((Predicate("duration_s_compare", "=", "SIM"),), (Predicate("duration_s_compare", "=", "GT"),),
                 "took about as long as"),
}


def shortcut(name: str, first: str, second: str) -> tuple[Question, str]:
    observed, expected, verb = SHORTCUTS[name]
    return Question(first, second, (), observed, expected), verb


def resolve_run(store, text: str) -> dict:
    """The query run ``[analysis:]name|uid|words`` names (the latest full analysis without a prefix)."""
    prefix, _, rest = text.partition(":")
    if rest and prefix in {a["id"] for a in service.analyses(store)}:
        analysis, text = service.resolve_analysis(store, prefix), rest
    else:
        analysis = service.resolve_analysis(store, None)
    return service.resolve_victim(store, analysis["id"], text) | {"analysis": analysis["id"]}


def log_runs(store, settings):
    """The log of past runs: the query runs of every full analysis whose trace is saved in this home
    (a Neo4j server shared by several homes also holds analyses loaded elsewhere: those are left out)."""
    def saved(a: dict) -> bool:
        try:
            service.saved_trace(a, settings.home)
            return True
        except service.NotFound:
            return False

    analyses = [a for a in service.analyses(store) if not a.get("window") and saved(a)]
    return perfxplain_runs.all_runs(store, analyses, lambda a: service.saved_trace(a, settings.home)[0])


def ask(store, settings, question: Question, method: str = "perfxplain", width: int = 3,
        verb: str | None = None) -> dict:
    """The explanation of a question (a Question, or PXQL text) over every loaded analysis's runs."""
    if isinstance(question, str):
        question = parse(question)
    first, second = resolve_run(store, question.first), resolve_run(store, question.second)
    runs = log_runs(store, settings)
    position = {uid: i for i, uid in enumerate(runs["uid"])}
    for run in (first, second):
        if run["uid"] not in position:
            raise ValueError(f"{run['name']} of analysis {run['analysis']} is not in the log of runs: name it in a "
                             f"full (not windowed) analysis whose trace is saved in this home")
    result = perfxplain.explain(runs, position[first["uid"]], position[second["uid"]], question, method=method,
                                width=width, similarity=settings.perfxplain_similarity,
                                sample_size=settings.perfxplain_sample)
    result["runs"] = [{"id": r["uid"], "name": r["name"], "analysis": r["analysis"], "description": r["description"]}
                      for r in (first, second)]
    result["observed"] = [p.as_dict() for p in question.observed]
    result["expected"] = [p.as_dict() for p in question.expected]
    if verb is None:
        clause = lambda ps: " and ".join(map(str, ps))  # noqa: E731
        verb = f"showed {clause(question.observed)} instead of {clause(question.expected)} against"
    result["sentence"] = perfxplain.sentence(result, first["name"], second["name"], verb)
    return result
