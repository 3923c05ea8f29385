import numpy as np
import pytest
from scipy import stats

from paracomp.eval.metrics import average_ranks, pearson, spearman


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


@pytest.mark.parametrize(
    "values",
    [
        [],
        [2.0, 2.0, 2.0],
        [1.0, np.nan, 2.0],  # any NaN: all NaN, as scipy's default
        [[3, 1], [1, 2]],  # flattened
        [True, False, True],
        np.random.default_rng(0).integers(0, 5, 1000).astype(float),
        np.random.default_rng(1).normal(size=999),
        np.random.default_rng(2).integers(0, 3, 7),
    ],
)
def test_average_ranks_are_scipys(values):
    ours, theirs = average_ranks(values), stats.rankdata(values)
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)  # equal, NaN where NaN


def test_metrics_import_no_scipy():
    import subprocess
    import sys

    code = "import sys, paracomp.eval.metrics; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
