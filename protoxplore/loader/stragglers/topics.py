"""Causes that recur across stages (Hound, paper 002 Sec. 3.2-3.3): LDA topics over each learner's
causality profiles (meta learning), then the topics two or more learners agree on (ensemble).

Words are signed features such as ``gc_s(+)``; a stage's profile is a document, a topic is a mix of
words, and each stage gets a mix of topics.
"""
from __future__ import annotations

import numpy as np
from sklearn.cluster import AgglomerativeClustering
from sklearn.decomposition import LatentDirichletAllocation
from sklearn.metrics.pairwise import cosine_similarity

#: Algorithm 3 defaults: minimum topics, minimum document coverage of a topic, trimming threshold,
#: words per document; and our cap on topics per learner, which bounds the LDA fits per workload.
K_MIN = 5
K_MAX = 20
COVERAGE_MIN = 0.05
TRIM = 0.1
WORDS = 500
#: Documents (stages) the topics are learned on, at most (see learner_topics; bench/bench_hound.py).
LDA_DOCUMENTS = 200
#: Algorithm 4: weight of intra-cluster similarity in the HAC score.
LAMBDA = 2 / 3


def vocabulary(features) -> list[str]:
    return [f"{name}({sign})" for name in features for sign in "+-"]


def documents(profiles: np.ndarray) -> np.ndarray:
    """Algorithm 3, step 2: a profile entry C_j > 0 gives word K_j(+) the probability |C_j|, C_j < 0
    gives K_j(-); the document holds WORDS words in those proportions (expected counts, not random draws)."""
    signed = np.stack([np.clip(profiles, 0, None), np.clip(-profiles, 0, None)], axis=2).reshape(len(profiles), -1)
    return np.rint(WORDS * signed)


def _trim(weights: np.ndarray) -> np.ndarray:
    """Drop entries below TRIM and rescale each row to sum 1 (Algorithm 3 step 2, Algorithm 4 phase II)."""
    kept = np.where(weights >= TRIM, weights, 0.0)
    total = kept.sum(axis=1, keepdims=True)
    return np.divide(kept, total, out=np.zeros_like(kept), where=total > 0)


def learner_topics(counts: np.ndarray, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 3: LDA with k = K_MIN, K_MIN + 1, ... topics (at most one per document), keeping the
    largest k (up to K_MAX) whose every trimmed topic covers at least COVERAGE_MIN of the documents.
    The topics are learned on at most LDA_DOCUMENTS documents (a seeded random sample: scikit-learn's
    LDA updates one document at a time in Python), then every document gets its mix from them.
    A document without words (the learner found nothing) gets no topic.
    Returns (topics: k x words, mixtures: documents x k), both trimmed."""
    best = np.zeros((0, counts.shape[1])), np.zeros((len(counts), 0))
    if not counts.any():
        return best
    sample = counts
    if len(counts) > LDA_DOCUMENTS:
        sample = counts[np.sort(np.random.default_rng(seed).choice(len(counts), LDA_DOCUMENTS, replace=False))]
    chosen = None
    for k in range(min(K_MIN, len(sample)), min(K_MAX, len(sample)) + 1):
        lda = LatentDirichletAllocation(n_components=k, random_state=seed).fit(sample)
        topics = _trim(lda.components_ / lda.components_.sum(axis=1, keepdims=True))
        kept = topics.any(axis=1)  # a topic of only trivial words is no topic
        mixtures = _trim(lda.transform(sample)[:, kept]) * (sample.sum(axis=1, keepdims=True) > 0)
        if chosen is not None and (not kept.any() or (mixtures > 0).mean(axis=0).min() < COVERAGE_MIN):
            break
        chosen = lda, topics, kept
    lda, topics, kept = chosen
    return topics[kept], _trim(lda.transform(counts)[:, kept]) * (counts.sum(axis=1, keepdims=True) > 0)


def _hac_score(similarity: np.ndarray, labels: np.ndarray) -> float:
    """Algorithm 4: lambda * mean intra-cluster similarity + (1 - lambda) * (1 - mean inter-cluster similarity)."""
    same = labels[:, None] == labels[None, :]
    pairs = ~np.eye(len(labels), dtype=bool)
    intra = similarity[same & pairs].mean() if (same & pairs).any() else 0.0
    inter = similarity[~same].mean() if (~same).any() else 0.0
    return LAMBDA * intra + (1 - LAMBDA) * (1 - inter)


def ensemble(per_learner: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 4: cluster all learners' topics (HAC, cosine, the number of clusters from 1 to
    max_causes with the best score); a cluster with topics of two or more learners gives an ensemble
    topic, its centroid. A stage's mix is the mean over learners of its mix mapped to ensemble
    topics, trimmed.
    Returns (topics: E x words, mixtures: documents x E)."""
    topics = np.vstack([t for t, _ in per_learner])
    learner = np.concatenate([np.full(len(t), i) for i, (t, _) in enumerate(per_learner)])
    words, documents_count = topics.shape[1], len(per_learner[0][1])
    if len(topics) < 2:
        return np.zeros((0, words)), np.zeros((documents_count, 0))
    similarity = cosine_similarity(topics)
    # Algorithm 4's maximum number of causes m2: the most topics one learner found (a cause is one
    # topic per learner, so more clusters could only split agreeing learners apart).
    max_causes = max(len(t) for t, _ in per_learner)
    candidates = [AgglomerativeClustering(n_clusters=m, metric="cosine", linkage="average").fit_predict(topics)
                  if m > 1 else np.zeros(len(topics), dtype=int) for m in range(1, max_causes + 1)]
    labels = max(candidates, key=lambda lab: _hac_score(similarity, lab))
    agreed = [c for c in np.unique(labels) if len(set(learner[labels == c])) >= 2]
    centroids = np.array([topics[labels == c].mean(axis=0) for c in agreed]).reshape(len(agreed), words)
    mixtures = np.zeros((documents_count, len(agreed)))
    offset = 0
    for _, mix in per_learner:
        for j in range(mix.shape[1]):
            if labels[offset + j] in agreed:
                mixtures[:, agreed.index(labels[offset + j])] += mix[:, j] / len(per_learner)
        offset += mix.shape[1]
    return centroids / centroids.sum(axis=1, keepdims=True), _trim(mixtures)


def topics(profiles: dict[str, np.ndarray], features, map_jobs=None) -> tuple[list[dict], np.ndarray]:
    """Ensemble topics over the stages' profiles (learner -> stages x features), as plain data with
    their words, coverage and dominant coverage (paper 002 Sec. 5.3), and each stage's topic mix.
    ``map_jobs(function, jobs)``, if given, runs the learners' topic models (hound.map_jobs: in
    worker processes)."""
    jobs = [(documents(p),) for p in profiles.values()]
    per_learner = map_jobs(learner_topics, jobs) if map_jobs else [learner_topics(*job) for job in jobs]
    centroids, mixtures = ensemble(per_learner)
    words = vocabulary(features)
    result, major = [], dominant(mixtures)
    for i, centroid in enumerate(centroids):
        order = [w for w in np.argsort(-centroid, kind="stable") if centroid[w] > 0]
        result.append({"topic": i, "words": [{"word": words[w], "weight": float(centroid[w])} for w in order],
                       "coverage": float((mixtures[:, i] > 0).mean()),
                       "dominant_coverage": float(major[:, i].mean())})
    return result, mixtures


def dominant(mixtures: np.ndarray) -> np.ndarray:
    """Stages x topics: whether the topic is the stage's dominant cause, one that explains the majority
    of its stragglers (paper 002 Sec. 5.3: its weight above the sum of the others', Table 5). A stage's
    heaviest topic is not always one: until 2026-11-27 it was counted so (at weights of 0.41 and 0.42
    on real logs), and dominant coverage read as high as coverage."""
    others = mixtures.sum(axis=1, keepdims=True) - mixtures
    return (mixtures > 0) & (mixtures > others)
