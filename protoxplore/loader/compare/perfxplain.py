"""PerfXplain (paper 004): why did one run perform differently from another, learned from past runs.

A pair of runs is described by *pair features* (Table 1): for every raw feature f of the runs
(``perfxplain_runs``), ``f_isSame`` (T/F), ``f_compare`` (LT/SIM/GT, numeric features; SIM when
within the similarity threshold of each other), ``f_diff`` ("a->b", nominal features) and the base
feature ``f`` (the shared value when both runs agree, else missing). For numeric features, isSame
is compare = SIM: two measured durations are never exactly equal.

An explanation (Sec. 4) is built from example pairs of the log: pairs satisfying the despite clause
and either the observed (positive) or the expected (negative) clause, sampled and balanced. The
because clause grows greedily: for each feature, the predicate true for the pair of interest with the
highest information gain; among those, the best by percentile-ranked precision (weight 0.8) and
generality (0.2); it stops at the width, or when the examples left are all positive or no predicate
removes a negative. With no despite clause given, one is first grown the same way, by relevance over
the log's related pairs; it then joins the question, whose related pairs are sampled anew (Sec. 4.2).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from protoxplore.loader.compare.pxql import Predicate, Question, value_text
from protoxplore.loader.compare.runs import NOMINAL, NUMERIC, PARTS

METHODS = ("perfxplain", "rule-of-thumb", "sim-but-diff")
PRECISION_WEIGHT = 0.8  # paper 004 Sec. 4.2: favour precision over generality
SIM_BUT_DIFF_AGREEMENT = 0.9  # paper 004 Sec. 5.2: "similar" pairs agree on 90% of the isSame features
DESPITE_RELEVANCE = 0.8  # stop growing a despite clause once the expected behaviour is this likely (Def. 4)
DESPITE_WIDTH = 2  # predicates of a grown despite clause at most
MAX_ENUMERATED_PAIRS = 50_000  # above this many ordered pairs, this many candidate pairs are drawn at random

UNSET = "unset"  # a nominal value the log does not give, in a _diff feature ("unset->FAIR")
_OPS = {"=": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}


#: Values of the numeric pair features by code (0 LT, 1 SIM, 2 GT, 3 missing): indexing an object array
#: by codes takes a third of the CPU of building the strings pair by pair.
_COMPARE = np.array(["LT", "SIM", "GT", None], dtype=object)
_IS_SAME = np.array(["F", "T", "F", None], dtype=object)


def similar(a, b, similarity: float):
    """Whether two measured values compare SIM (Table 1's ``_compare``): within ``similarity`` of the
    larger one (numbers or arrays)."""
    with np.errstate(invalid="ignore"):
        return np.abs(a - b) <= similarity * np.maximum(np.abs(a), np.abs(b))


def pair_features(runs: pd.DataFrame, left: np.ndarray, right: np.ndarray, similarity: float,
                  raw: set[str] | None = None) -> dict[str, np.ndarray]:
    """Table 1 pair features of the pairs (runs[left[i]], runs[right[i]]), one array per feature;
    with ``raw``, only those derived from these raw features."""
    out: dict[str, np.ndarray] = {}
    for f in NUMERIC:
        if raw is not None and f not in raw:
            continue
        values = runs[f].to_numpy(float)
        a, b = values[left], values[right]
        sim = similar(a, b, similarity)
        with np.errstate(invalid="ignore"):
            code = np.where(sim, 1, np.where(a > b, 2, 0))
        missing = np.isnan(a) | np.isnan(b)
        code[missing] = 3
        out[f"{f}_compare"] = _COMPARE[code]
        out[f"{f}_isSame"] = _IS_SAME[code]
        out[f] = np.where(sim & ~missing, a, np.nan)
    for f in NOMINAL:
        if raw is not None and f not in raw:
            continue
        values = runs[f].to_numpy(object)
        a, b = values[left], values[right]
        same = a == b
        out[f"{f}_isSame"] = np.where(same, "T", "F").astype(object)
        # A property a log does not set reads "unset" (it was at its default: docs/model.md), not "None".
        codes, names = pd.factorize(np.array([UNSET if pd.isna(v) else str(v) for v in values], dtype=object))
        seen, inverse = np.unique(codes[left] * len(names) + codes[right], return_inverse=True)
        # the "a->b" text once per pair of values seen, not once per pair of runs
        out[f"{f}_diff"] = np.array([f"{names[k // len(names)]}->{names[k % len(names)]}" for k in seen],
                                    dtype=object)[inverse]
        out[f] = np.where(same, a, None).astype(object)
    return out


def holds(table: dict[str, np.ndarray], predicates) -> np.ndarray:
    """Where a conjunction of predicates is true (a missing value makes a predicate false)."""
    n = len(next(iter(table.values())))
    mask = np.ones(n, dtype=bool)
    for p in predicates:
        if p.feature not in table:
            raise ValueError(f"unknown PXQL feature {p.feature!r}; features are f, f_isSame, f_compare "
                             f"(numeric) and f_diff (nominal) for f in: {', '.join(NUMERIC + NOMINAL)}")
        column = table[p.feature]
        if column.dtype == object:
            if p.op not in ("=", "!="):
                raise ValueError(f"{p.feature} is nominal: compare it with = or !=, not {p.op}")
            equal = column == str(p.value)
            mask &= equal if p.op == "=" else ~equal & pd.notna(column)
        else:
            try:
                value = float(p.value)
            except ValueError:
                raise ValueError(f"{p.feature} is numeric: {p.value!r} is not a number") from None
            with np.errstate(invalid="ignore"):
                mask &= _OPS[p.op](column, value) & ~np.isnan(column)  # NaN != c is true in NumPy
    return mask


@dataclass
class Examples:
    """Example pairs of the log for a question: their pair features and which performed as observed."""
    table: dict[str, np.ndarray]
    observed: np.ndarray
    candidates: int  # pairs looked at (all pairs, or the random draw)

    def where(self, mask: np.ndarray) -> Examples:
        """The example pairs where ``mask`` is true."""
        return Examples({k: v[mask] for k, v in self.table.items()}, self.observed[mask], self.candidates)


def examples(runs: pd.DataFrame, question: Question, similarity: float, rng) -> Examples:
    """Every pair satisfying the despite clause and either the observed or the expected clause
    (among a random draw of pairs when the log has more than MAX_ENUMERATED_PAIRS)."""
    n = len(runs)
    if n * (n - 1) <= MAX_ENUMERATED_PAIRS:
        left, right = np.nonzero(~np.eye(n, dtype=bool))
    else:
        left = rng.integers(0, n, MAX_ENUMERATED_PAIRS)
        right = (left + rng.integers(1, n, MAX_ENUMERATED_PAIRS)) % n  # never a run with itself
    # The clauses' features first, for every pair; all features only for the pairs kept.
    clauses = (*question.despite, *question.observed, *question.expected)
    table = pair_features(runs, left, right, similarity, raw={_raw_feature(p.feature) for p in clauses})
    inside = holds(table, question.despite)
    obs, exp = inside & holds(table, question.observed), inside & holds(table, question.expected)
    keep = obs | exp
    return Examples(pair_features(runs, left[keep], right[keep], similarity), obs[keep], len(left))


def _why_not(poi: dict, observed, similarity: float) -> str:
    """What to do when the pair of interest does not perform as observed: the comparison it shows
    instead (SIM: within ``similarity`` of each other; or the other way round)."""
    for p in observed:
        if p.feature.endswith("_compare") and p.op == "=" and poi.get(p.feature) not in (None, p.value):
            if poi[p.feature] == "SIM":
                return (f"within {similarity:.0%} of each other, the log counts them as alike ({p.feature} = SIM; "
                        f"PROTOXPLORE_PERFXPLAIN_SIMILARITY): ask why-same, or another question")
            if {poi[p.feature], p.value} == {"LT", "GT"}:
                return f"{p.feature} = {poi[p.feature]}: name the runs the other way round"
            if p.value == "SIM":
                return (f"more than {similarity:.0%} apart, the log counts them as different ({p.feature} = "
                        f"{poi[p.feature]}): ask why-slower, with the slower run first")
    return "ask another question"


def _raw_feature(feature: str) -> str:
    """The raw feature a pair feature derives from (``duration_s_compare`` -> ``duration_s``)."""
    for suffix in ("_isSame", "_compare", "_diff"):
        if feature.endswith(suffix):
            return feature.removesuffix(suffix)
    return feature


def sample(ex: Examples, rng, size: int) -> Examples:
    """About ``size`` example pairs, as many observed as expected (Sec. 4.3): a pair is kept with
    probability size / (2 * |its class|)."""
    positives = max(int(ex.observed.sum()), 1)
    negatives = max(int((~ex.observed).sum()), 1)
    chance = np.where(ex.observed, size / (2 * positives), size / (2 * negatives))
    keep = rng.random(len(chance)) < chance
    return ex.where(keep)


def _entropy(positive: np.ndarray | float, total: np.ndarray | float) -> np.ndarray:
    p = np.divide(positive, total, out=np.zeros_like(np.asarray(positive, float)), where=np.asarray(total) > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(p * np.log2(p) + (1 - p) * np.log2(1 - p))
    return np.nan_to_num(h)


def _gain(mask: np.ndarray, label: np.ndarray) -> float:
    n, inside = len(label), mask.sum()
    pos_in, pos = label[mask].sum(), label.sum()
    return float(_entropy(pos, n) - (inside * _entropy(pos_in, inside) + (n - inside) * _entropy(pos - pos_in, n - inside)) / n)


def best_predicate(feature: str, column: np.ndarray, label: np.ndarray, mine) -> Predicate | None:
    """The predicate on one pair feature, true for the pair of interest (value ``mine``), with the
    highest information gain: equality for nominal features; =, <= c or >= c for numeric ones."""
    if mine is None or (isinstance(mine, float) and np.isnan(mine)):
        return None
    if column.dtype == object:
        return Predicate(feature, "=", mine)
    candidates = [Predicate(feature, "=", float(mine))]
    values = np.unique(column[~np.isnan(column)])
    candidates += [Predicate(feature, "<=", float(c)) for c in values[values > mine][:32]]
    candidates += [Predicate(feature, ">=", float(c)) for c in values[values < mine][-32:]]
    table = {feature: column}
    return max(candidates, key=lambda p: _gain(holds(table, [p]), label))


def _percentile(values: np.ndarray) -> np.ndarray:
    return pd.Series(values).rank(pct=True).to_numpy()


def grow(ex: Examples, poi: dict, features: list[str], target: np.ndarray, width: int):
    """Greedy conjunction of up to ``width`` predicates true for the pair of interest, each best by
    percentile-ranked P(target | clause) and generality (paper 004 Algorithm 1)."""
    clause: list[Predicate] = []
    inside = np.ones(len(target), dtype=bool)
    for _ in range(width):
        if inside.sum() == 0 or target[inside].all():
            break
        label = target[inside]
        options = []
        for f in features:
            p = best_predicate(f, ex.table[f][inside], label, poi[f])
            if p is not None:
                mask = holds({f: ex.table[f][inside]}, [p])
                precision, generality = precision_generality(mask, label)
                if 0 < mask.sum() < len(mask) and precision > label.mean():
                    options.append((p, precision, generality))
        if not options:
            break  # no predicate singles out more of the target: the clause cannot improve
        precision = _percentile(np.array([o[1] for o in options]))
        generality = _percentile(np.array([o[2] for o in options]))
        score = PRECISION_WEIGHT * precision + (1 - PRECISION_WEIGHT) * generality
        best = options[int(np.argmax(score))][0]
        clause.append(best)
        inside &= holds(ex.table, [best])
    return clause


def metrics(ex: Examples, despite_extra, because) -> dict:
    """Relevance P(exp | des' & des), precision P(obs | bec & des' & des), generality P(bec | des' & des)
    over the examples (Sec. 3.3)."""
    context = holds(ex.table, despite_extra)
    precision, generality = precision_generality(holds(ex.table, because)[context], ex.observed[context])
    return {"relevance": float((~ex.observed[context]).mean()) if context.any() else None, "precision": precision,
            "generality": generality, "examples": int(context.sum())}


def precision_generality(clause: np.ndarray, target: np.ndarray) -> tuple[float | None, float | None]:
    """Over some examples (a context), where ``clause`` holds and ``target`` is true: the clause's
    precision P(target | clause) and generality P(clause) (paper 004 Sec. 3.3, Def. 5 and 6); None
    where no example (or none of the clause) is there to count."""
    generality = float(clause.mean()) if len(clause) else None
    return (float(target[clause].mean()) if clause.any() else None), generality


def grow_despite(full: Examples, ex: Examples, poi: dict, features: list[str]) -> list[Predicate]:
    """The des' clause (paper 004 Sec. 4.2, "Generating the des' clause"): Algorithm 1 on the sample
    ``ex`` with relevance P(exp | p) in place of precision, one predicate at a time, extended "until
    its score reaches this threshold (DESPITE_RELEVANCE) or it can not further be improved". The score
    is Def. 4's relevance (Sec. 3.3), over the query's related pairs of the log (``full``), not over
    the balanced sample: where most related pairs perform as observed, a share of 0.8 expected pairs
    in the sample is a far lower share in the log."""
    clause: list[Predicate] = []
    while len(clause) < DESPITE_WIDTH and relevance(full, clause) < DESPITE_RELEVANCE:
        sub = ex.where(holds(ex.table, clause))
        step = grow(sub, poi, features, ~sub.observed, 1)
        if not step or relevance(full, clause + step) <= relevance(full, clause):
            break
        clause += step
    return clause


def relevance(full: Examples, despite: list[Predicate]) -> float:
    """Def. 4's relevance of a despite clause over the related pairs of the log; 0 with none left."""
    return metrics(full, despite, [])["relevance"] or 0.0


def by_importance(clause: list[Predicate], score) -> list[Predicate]:
    """The clause with its most important predicates first (paper 004 Sec. 3.3, last paragraph): a
    predicate is more important when ``score`` (relevance for des', precision for the because clause)
    loses more without it; ties keep the order the predicates were grown in. In the greedy order a
    clause could begin with a predicate that all related pairs share ("both runs having
    input_records = 2.02e+05") and name the cause second."""
    whole = score(clause)
    loss = [whole - score(clause[:i] + clause[i + 1:]) for i in range(len(clause))]
    return [clause[i] for i in sorted(range(len(clause)), key=lambda i: -loss[i])]


def because_examples(full: Examples, despite_extra: list[Predicate], rng, size: int) -> Examples:
    """The training examples of the because clause (paper 004 Sec. 4.2 and 4.3): once grown, des' joins
    the query ("it is added to the user's PXQL query"), so Algorithm 1 lines 1-2 run for that query:
    the related pairs of the log within des' AND des, sampled anew, balanced, with the sample size."""
    return sample(full.where(holds(full.table, despite_extra)), rng, size)


def candidate_features(question: Question) -> list[str]:
    """Pair features an explanation may name: all but those of the raw features the question is about
    and of their parts (PARTS: a run's blocked seconds are part of its duration)."""
    asked = {_raw_feature(p.feature) for p in question.observed + question.expected}
    asked |= {part for f in list(asked) for part in PARTS.get(f, ())}
    out = []
    for f in NUMERIC + NOMINAL:
        if f in asked:
            continue
        kinds = ("_isSame", "_compare", "") if f in NUMERIC else ("_isSame", "_diff", "")
        out += [f + k for k in kinds]
    return out


def explain(runs: pd.DataFrame, first: int, second: int, question: Question, method: str = "perfxplain",
            width: int = 3, similarity: float = 0.1, sample_size: int = 2000, seed: int = 0) -> dict:
    """The explanation of why runs ``first`` and ``second`` (positions in ``runs``) performed as
    ``question.observed`` rather than ``question.expected``, with its three metrics."""
    rng = np.random.default_rng(seed)
    if first == second:
        raise ValueError("A and B are the same run: name two runs (of one query, two of its stages or tasks)")
    poi_table = pair_features(runs, np.array([first]), np.array([second]), similarity)
    poi = {k: v[0] for k, v in poi_table.items()}
    took = f"A took {runs['duration_s'].iloc[first]:.3g} s and B {runs['duration_s'].iloc[second]:.3g} s"
    if not holds(poi_table, question.observed)[0]:
        raise ValueError(f"the pair does not perform as OBSERVED ({' AND '.join(map(str, question.observed))}): "
                         f"{took}; {_why_not(poi, question.observed, similarity)}")
    if holds(poi_table, question.expected)[0]:
        raise ValueError(f"the pair already performs as EXPECTED ({' AND '.join(map(str, question.expected))}): {took}")
    if not holds(poi_table, question.despite)[0]:
        raise ValueError("the pair does not satisfy DESPITE: " + " AND ".join(map(str, question.despite)))
    features = candidate_features(question)
    full = examples(runs, question, similarity, rng)
    ex = sample(full, rng, sample_size)
    despite_extra: list[Predicate] = []
    if method == "perfxplain":
        if not question.despite:
            despite_extra = by_importance(grow_despite(full, ex, poi, features), lambda clause: relevance(full, clause))
        sub = because_examples(full, despite_extra, rng, sample_size) if despite_extra else ex
        because = by_importance(grow(sub, poi, features, sub.observed, width),
                                lambda clause: metrics(full, despite_extra, clause)["precision"] or 0.0)
    elif method == "rule-of-thumb":
        because = rule_of_thumb(runs, poi, width, [f for f in NUMERIC + NOMINAL if f + "_isSame" in features])
    elif method == "sim-but-diff":
        because = sim_but_diff(ex, poi, features, width)
    else:
        raise ValueError(f"unknown method {method!r}; one of {', '.join(METHODS)}")
    a, b = runs.iloc[first], runs.iloc[second]
    return {"method": method, "despite": [p.as_dict() for p in list(question.despite) + despite_extra],
            "because": [p.as_dict() for p in because], **metrics(full, despite_extra, because),
            "pairs_considered": full.candidates, "features": {f: [_plain(a[f]), _plain(b[f])] for f in NUMERIC + NOMINAL}}


def rule_of_thumb(runs: pd.DataFrame, poi: dict, width: int, names: list[str]) -> list[Predicate]:
    """Sec. 5.1: the ``width`` features most related to duration over the whole log, among the raw
    features ``names`` (those an explanation may name) the two runs disagree on (importance: absolute
    rank correlation with the duration, one pass)."""
    data = runs[names].copy()
    for f in NOMINAL:
        if f in names:
            data[f] = pd.factorize(data[f])[0]
    with np.errstate(invalid="ignore", divide="ignore"):  # a constant feature has no correlation: importance 0
        importance = data.astype(float).rank().corrwith(runs["duration_s"].astype(float).rank()).abs().fillna(0.0)
    ranked = importance.sort_values(ascending=False, kind="stable").index
    return [Predicate(f + "_isSame", "=", "F") for f in ranked if poi[f + "_isSame"] == "F"][:width]


def sim_but_diff(ex: Examples, poi: dict, features: list[str], width: int) -> list[Predicate]:
    """Sec. 5.2: among example pairs agreeing with the pair of interest on 90% of the isSame features,
    the features whose disagreement most often means the expected behaviour."""
    same = [f for f in features if f.endswith("_isSame") and poi[f] is not None]
    if not same or not len(ex.observed):
        return []
    agree = np.stack([ex.table[f] == poi[f] for f in same])
    similar = agree.mean(axis=0) >= SIM_BUT_DIFF_AGREEMENT
    scores = []
    for i, f in enumerate(same):
        differ = similar & ~agree[i]
        scores.append((float((~ex.observed[differ]).mean()) if differ.any() else 0.0, f))
    ranked = sorted(scores, key=lambda s: -s[0])
    return [Predicate(f, "=", poi[f]) for _, f in ranked[:width]]


def _plain(value):
    return None if value is None or (isinstance(value, float) and np.isnan(value)) else (
        value.item() if hasattr(value, "item") else value)


def predicate_words(p: dict) -> str:
    """One predicate as a sentence says it (paper 004 Table 1's pair features in words; the PXQL
    notation stays in the JSON and the clause tables): a base feature (the value both runs share)
    reads "both runs having f <= c", so it is not read as a difference between them; ``f_isSame``
    alike or different, ``f_compare`` higher, lower or about the same in the first run, ``f_diff``
    its value in each run ("a->a" read as a change once)."""
    feature, op, value = p["feature"], p["op"], p["value"]
    if feature in NUMERIC + NOMINAL:
        return f"both runs having {feature} {op} {value_text(value)}"
    base, _, kind = feature.rpartition("_")
    if op == "=" and kind == "isSame" and value in ("T", "F"):
        return f"{base} {'alike' if value == 'T' else 'different'}"
    if op == "=" and kind == "compare" and value in COMPARED:
        return f"{base} {COMPARED[value]}"
    if op == "=" and kind == "diff" and "->" in str(value):
        a, b = str(value).split("->", 1)
        return f"{base} {a} in both" if a == b else f"{base} {a} in the first and {b} in the second"
    return f"{feature} {op} {value_text(value)}"


#: ``f_compare``'s values as a sentence says them, of the first run against the second.
COMPARED = {"GT": "higher in the first", "LT": "lower in the first", "SIM": "about the same"}


def sentence(result: dict, first: str, second: str, observed: str) -> str:
    """ "Despite X, A was slower than B most likely because Y", each clause's predicates in words
    (:func:`predicate_words`)."""
    def words(predicates: list[dict]) -> str:
        return " and ".join(predicate_words(p) for p in predicates)
    head = f"Despite {words(result['despite'])}, " if result["despite"] else ""
    because = words(result["because"]) or "nothing the log can tell apart"
    return f"{head}{first} {observed} {second} most likely because {because}."
