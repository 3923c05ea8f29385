import numpy as np
import pytest

from paracomp.eval.aggregate import Group, Leaf, value
from paracomp.eval.metrics import pearson


def leaf(gold, pred):
    gold, pred = np.asarray(gold, float), np.asarray(pred, float)
    return Leaf(pearson(gold, pred), len(gold), gold, pred)


A = leaf([1, 2, 3, 4], [1, 3, 2, 4])  # r = 0.8
B = leaf([1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1])  # r = -1
C = leaf([0, 1, 2], [0, 1, 2])  # r = 1
YEAR1 = Group((A, B))
YEAR2 = Group((C,))
ALL = Group((YEAR1, YEAR2))


def test_mean_is_unweighted_and_nested():
    assert value(YEAR1, "mean") == pytest.approx((0.8 - 1) / 2)
    assert value(ALL, "mean") == pytest.approx(((0.8 - 1) / 2 + 1) / 2)  # mean of year means


def test_datasets_mean_flattens():
    assert value(ALL, "datasets-mean") == pytest.approx((0.8 - 1 + 1) / 3)


def test_weighted_mean_uses_pair_counts():
    assert value(ALL, "wmean") == pytest.approx((0.8 * 4 - 1 * 6 + 1 * 3) / 13)


def test_pooled_correlates_all_pairs():
    gold = np.concatenate([A.gold, B.gold])
    pred = np.concatenate([A.pred, B.pred])
    assert value(YEAR1, "pooled") == pytest.approx(np.corrcoef(gold, pred)[0, 1])


def test_missing_leaf_propagates_and_unknown_mode_fails():
    nan_leaf = Leaf(float("nan"), 0, np.array([]), np.array([]))
    assert np.isnan(value(Group((A, nan_leaf)), "mean"))
    assert np.isnan(value(Group((A, nan_leaf)), "pooled"))
    with pytest.raises(ValueError):
        value(YEAR1, "median")
