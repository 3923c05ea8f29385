"""CompVecEval on a hand-made example, against a brute-force ranking, and both candidate sets."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from paracomp.papers.scheepers2018.compvec_eval import compvec_both, compvec_eval, group_queries
from paracomp.papers.scheepers2018.dataset import DefinitionData
from paracomp.papers.scheepers2018.evaluate import compvec_measure
from paracomp.run_config import TrainConfig
from paracomp.train.targets.task import build_model

# four 1-d candidates; three queries
CANDIDATES = np.array([[1.0], [2.0], [3.0], [-3.0]])
QUERIES = np.array([[0.0], [2.1], [1.0]])
RELEVANT = [{2}, {1, 2}, {2, 3}]
# query 0 (x=0): distances 1, 2, 3, 3; relevant c2 ties with c3 -> conservative rank 4
#   RR 1/4, AP 1/4, P@10 1/10, NR 4/4
# query 1 (x=2.1): c1 0.1, c2 0.9, c0 1.1, c3 5.1; relevant ranks 1, 2
#   RR 1, AP (1/1 + 2/2)/2 = 1, P@10 2/10, NR 1/4
# query 2 (x=1): c0 0, c1 1, c2 2, c3 4; relevant ranks 3, 4
#   RR 1/3, AP (1/3 + 2/4)/2 = 5/12, P@10 2/10, NR 3/4
# MRR = 100 (1/4 + 1 + 1/3)/3 = 100·19/36; MNR = 100 (1 − (1 + 1/4 + 3/4)/3) = 100/3
# MAP = 100 (1/4 + 1 + 5/12)/3 = 100·5/9; P@10 = 100 (0.1 + 0.2 + 0.2)/3 = 50/3


def test_hand_example() -> None:
    result = compvec_eval(QUERIES, CANDIDATES, RELEVANT)
    assert result.first_ranks.tolist() == [4, 1, 3]
    assert result.mrr == pytest.approx(100 * 19 / 36)
    assert result.mnr == pytest.approx(100 / 3)
    assert result.map == pytest.approx(100 * 5 / 9)
    assert result.p_at_10 == pytest.approx(50 / 3)
    assert result.candidates == 4


def test_matches_brute_force_with_duplicates() -> None:
    rng = np.random.default_rng(1)
    cands = rng.integers(-2, 3, size=(200, 3)).astype(float)  # many exact ties
    queries = rng.integers(-2, 3, size=(40, 3)).astype(float) * 1.5
    relevant = [
        set(rng.choice(200, size=rng.integers(1, 4), replace=False).tolist()) for _ in queries
    ]
    result = compvec_eval(queries, cands, relevant, chunk=7)
    for i, (q, rel) in enumerate(zip(queries, relevant, strict=True)):
        dist = np.sum((cands - q) ** 2, axis=1)
        rel_d = sorted(dist[list(rel)])
        nonrel = np.delete(dist, list(rel))
        ranks = [k + 1 + int(np.sum(nonrel <= d)) for k, d in enumerate(rel_d)]
        assert result.first_ranks[i] == ranks[0]


def test_both_candidate_sets() -> None:
    names = ["a", "b", "c", "d"]
    texts, lemmas = group_queries(["c", "b", "c", "d"], ["x y", "z", "z", "x y"])
    assert texts == ["x y", "z"] and lemmas == [["c", "d"], ["b", "c"]]
    both = compvec_both(QUERIES[[2, 1]], lemmas, names, CANDIDATES)
    assert both["all"].first_ranks.tolist() == [3, 1]
    # test candidates b, c, d: query x=1 -> b 1, c 2, d 4 -> first relevant rank 2
    assert both["test"].candidates == 3
    assert both["test"].first_ranks.tolist() == [2, 1]


# A hand-made vocabulary: 3-d word vectors with negative entries, eight lemmas, six test pairs
WORDS = ["PAD", "UNK", "cold", "ice", "sun", "warm", "dog", "cat", "pet", "tree", "a", "b", "c"]
LEMMAS = ["cold", "ice", "sun", "warm", "dog", "cat", "pet", "tree"]
TEST = pa.table(
    {
        "lemma": ["cold", "ice", "sun", "dog", "pet", "cat"],
        "definition": ["a b", "b cold c", "warm a", "pet a c", "cat dog", "cat dog"],
    }
)


def _mrr(queries: np.ndarray, candidates: np.ndarray, relevant: list[set[int]]) -> float:
    """Mean of 1 / rank of the best relevant candidate by Euclidean distance (no ties)."""
    reciprocal = []
    for query, rel in zip(queries, relevant, strict=True):
        dist = np.sum((candidates - query) ** 2, axis=1)
        best = min(dist[list(rel)])
        reciprocal.append(1.0 / (1 + np.sum(np.delete(dist, list(rel)) < best)))
    return float(np.mean(reciprocal))


@pytest.mark.parametrize("composer", ["max_pad", "max"])
def test_untrained_max_matches_numpy(composer) -> None:
    matrix = np.random.default_rng(5).normal(size=(len(WORDS), 3)).astype(np.float32)
    matrix[0] = 0.0
    data = DefinitionData(train=TEST, test=TEST, vocabulary=WORDS, targets=LEMMAS)
    config = TrainConfig.from_dict(
        {"objective": "targets", "optimizer": "adam", "composer": composer, "steps": 0}
    )
    result = compvec_measure(build_model(config, matrix), data, max_length=32)

    index = {word: i for i, word in enumerate(WORDS)}
    definitions = ["a b", "b cold c", "warm a", "pet a c", "cat dog"]  # distinct, in order
    relevant = [{"cold"}, {"ice"}, {"sun"}, {"dog"}, {"pet", "cat"}]
    queries = np.stack([matrix[[index[w] for w in d.split()]].max(0) for d in definitions])
    if composer == "max_pad":  # the authors' zero pads of definitions shorter than 32 tokens
        queries = np.maximum(queries, 0.0)
    tests = sorted({lemma for group in relevant for lemma in group})
    for name, names in (("all", LEMMAS), ("test", tests)):
        candidates = matrix[[index[lemma] for lemma in names]]  # the word vectors themselves
        rel = [{names.index(lemma) for lemma in group} for group in relevant]
        assert result[name]["mrr"] == pytest.approx(_mrr(queries, candidates, rel), abs=1e-12)
        assert result[name]["queries"] == 5 and result[name]["candidates"] == len(names)
    # candidates with their negative entries clipped (pads in the lemmas' max) rank otherwise
    clipped = np.maximum(matrix[[index[lemma] for lemma in LEMMAS]], 0.0)
    rel = [{LEMMAS.index(lemma) for lemma in group} for group in relevant]
    assert _mrr(queries, clipped, rel) != pytest.approx(result["all"]["mrr"])
