"""CompVecEval (Scheepers et al. 2018, §5.1): rank lemma vectors by Euclidean distance to a
composed definition vector.

Every candidate is ranked for every query (a distinct definition) by Euclidean distance on the
unnormalised vectors, as the authors' ball tree does. Ties are counted conservatively: a
non-relevant candidate at exactly the distance of a relevant one is ranked before it (ties
among relevant candidates do not matter). Distances come from a float64 matrix product; any
candidate within rounding error of a relevant one is re-checked with the direct formula, so
the ranking is exact in float64 (identical vectors tie exactly).

Per query, with ``rank_k`` the rank of its k-th relevant candidate and ``N`` candidates:
``RR = 1/rank_1``, ``NR = rank_1/N``, ``AP = mean_k k/rank_k``, ``P@10 = #{rank_k <= 10}/10``.
Reported ×100: MRR (Table 1), MNR ``= 100·(1 − mean NR)``, MAP and P@10.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

_EPS = np.finfo(np.float64).eps


@dataclass(frozen=True)
class CompVecResult:
    """Scores ×100 and the per-query rank of the best-ranked relevant candidate."""

    mrr: float
    mnr: float
    map: float
    p_at_10: float
    first_ranks: np.ndarray
    candidates: int


def compvec_eval(
    queries: np.ndarray,
    candidates: np.ndarray,
    relevant: Sequence[Collection[int]],
    *,
    chunk: int = 128,
) -> CompVecResult:
    """Score composed ``queries`` (n × d) against ``candidates`` (N × d).

    ``relevant[i]`` holds the candidate indices correct for query ``i`` (at least one).
    """
    queries = np.asarray(queries, dtype=np.float64)
    cands = np.asarray(candidates, dtype=np.float64)
    if len(relevant) != len(queries) or any(not r for r in relevant):
        raise ValueError("every query needs a non-empty set of relevant candidates")
    cand_sq = np.einsum("ij,ij->i", cands, cands)
    firsts, aps, p10s = [], [], []
    for start in range(0, len(queries), chunk):
        stop = min(start + chunk, len(queries))
        first, ap, p10 = _score_chunk(queries[start:stop], cands, cand_sq, relevant[start:stop])
        firsts.append(first)
        aps.append(ap)
        p10s.append(p10)
    first_ranks = np.concatenate(firsts)
    return CompVecResult(
        mrr=100 * float(np.mean(1.0 / first_ranks)),
        mnr=100 * (1 - float(np.mean(first_ranks / len(cands)))),
        map=100 * float(np.mean(np.concatenate(aps))),
        p_at_10=100 * float(np.mean(np.concatenate(p10s))),
        first_ranks=first_ranks,
        candidates=len(cands),
    )


def _score_chunk(
    queries: np.ndarray,
    cands: np.ndarray,
    cand_sq: np.ndarray,
    relevant: Sequence[Collection[int]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """First relevant rank, AP and P@10 for a block of queries."""
    query_sq = np.einsum("ij,ij->i", queries, queries)
    approx = query_sq[:, None] + cand_sq[None, :] - 2.0 * (queries @ cands.T)
    is_rel = np.zeros(approx.shape, dtype=bool)
    qi = np.concatenate([np.full(len(r), i) for i, r in enumerate(relevant)])
    ci = np.concatenate([np.fromiter(r, dtype=np.int64) for r in relevant])
    is_rel[qi, ci] = True
    exact = np.sum((queries[qi] - cands[ci]) ** 2, axis=1)
    rows, rows_rel = approx[qi], is_rel[qi]
    tol = 64 * _EPS * (query_sq[qi] + cand_sq.max() + 1.0)
    before = np.sum((rows < (exact - tol)[:, None]) & ~rows_rel, axis=1)
    near_r, near_c = np.nonzero((np.abs(rows - exact[:, None]) <= tol[:, None]) & ~rows_rel)
    near = np.sum((queries[qi[near_r]] - cands[near_c]) ** 2, axis=1) <= exact[near_r]
    before += np.bincount(near_r[near], minlength=len(qi))
    # order each query's relevant candidates by distance: the k-th has rank k + before
    order = np.lexsort((exact, qi))
    qi, before = qi[order], before[order]
    counts = np.bincount(qi, minlength=len(queries))
    starts = np.cumsum(counts) - counts
    k = np.arange(len(qi)) - starts[qi] + 1
    ranks = k + before
    first = ranks[starts].astype(np.float64)
    ap = np.bincount(qi, weights=k / ranks, minlength=len(queries)) / counts
    p10 = np.bincount(qi, weights=ranks <= 10, minlength=len(queries)) / 10
    return first, ap, p10


def group_queries(
    lemmas: Sequence[str], definitions: Sequence[str]
) -> tuple[list[str], list[list[str]]]:
    """Distinct definitions (first-occurrence order) and the lemmas paired with each."""
    grouped: dict[str, list[str]] = {}
    for lemma, definition in zip(lemmas, definitions, strict=True):
        lemmas_of = grouped.setdefault(definition, [])
        if lemma not in lemmas_of:
            lemmas_of.append(lemma)
    return list(grouped), list(grouped.values())


def compvec_both(
    queries: np.ndarray,
    query_lemmas: Sequence[Collection[str]],
    lemma_names: Sequence[str],
    lemma_vectors: np.ndarray,
    test_vectors: np.ndarray | None = None,
) -> dict[str, CompVecResult]:
    """CompVecEval under both candidate sets of the authors' code (digest §2.2).

    ``"all"``: every target lemma (``lemma_names``/``lemma_vectors``, e.g. the 33,186).
    ``"test"``: only the distinct lemmas of the queries, in sorted order, with rows of
    ``test_vectors`` when given (e.g. passed through the composition function) or else the
    matching rows of ``lemma_vectors``.
    """
    index = {name: i for i, name in enumerate(lemma_names)}
    missing = {lemma for lemmas in query_lemmas for lemma in lemmas} - index.keys()
    if missing:
        raise ValueError(
            f"{len(missing)} query lemmas are not candidates, e.g. {sorted(missing)[:3]}"
        )
    test_names = sorted({lemma for lemmas in query_lemmas for lemma in lemmas})
    test_index = {name: i for i, name in enumerate(test_names)}
    if test_vectors is None:
        test_vectors = np.asarray(lemma_vectors)[[index[name] for name in test_names]]
    elif len(test_vectors) != len(test_names):
        raise ValueError(f"test_vectors has {len(test_vectors)} rows for {len(test_names)} lemmas")
    return {
        "all": compvec_eval(
            queries, lemma_vectors, [{index[x] for x in ls} for ls in query_lemmas]
        ),
        "test": compvec_eval(
            queries, test_vectors, [{test_index[x] for x in ls} for ls in query_lemmas]
        ),
    }
