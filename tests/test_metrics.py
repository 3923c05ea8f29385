import numpy as np
import pytest
from scipy import stats

from paracomp.eval.metrics import pearson, spearman


@pytest.mark.parametrize("seed", range(5))
def test_against_scipy(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=200)
    y = 0.5 * x + rng.normal(size=200)
    y[:20] = np.round(y[:20])  # ties
    assert pearson(x, y) == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)
    assert spearman(x, y) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)


def test_known_values():
    assert pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    # ranks of [1, 2, 2, 3] are [1, 2.5, 2.5, 4]
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(
        np.corrcoef([1, 2.5, 2.5, 4], [1, 2, 3, 4])[0, 1]
    )


def test_degenerate_inputs_are_nan():
    assert np.isnan(pearson([1.0], [2.0]))
    assert np.isnan(pearson([1, 1, 1], [1, 2, 3]))
    with pytest.raises(ValueError):
        pearson([1, 2], [1, 2, 3])
