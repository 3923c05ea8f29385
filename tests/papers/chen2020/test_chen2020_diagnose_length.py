"""``benchmarks/chen2020_diagnose.py --length``: how much of a specificity score is length."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from scipy.stats import rankdata


def _residual(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    slope, intercept = np.polyfit(x, y, 1)
    return y - (slope * x + intercept)


def test_partial_is_the_correlation_of_rank_residuals(benchmark_script) -> None:
    score = np.array([3.0, 1.0, 4.0, 1.5, 5.0, 9.0, 2.0, 6.0])
    label = np.array([2.0, 7.0, 1.0, 8.0, 2.5, 8.5, 1.8, 2.8])
    length = np.array([5.0, 3.0, 8.0, 9.0, 7.0, 9.5, 3.2, 8.4])
    r = [rankdata(v) for v in (score, label, length)]
    expected = np.corrcoef(_residual(r[0], r[2]), _residual(r[1], r[2]))[0, 1]
    assert math.isclose(
        benchmark_script("chen2020_diagnose")._partial_spearman(score, label, length), expected
    )


def test_a_score_that_is_length_has_no_partial(benchmark_script) -> None:
    length = np.arange(1.0, 9.0)
    label = np.array([1.0, 3.0, 2.0, 5.0, 4.0, 7.0, 6.0, 8.0])
    assert math.isnan(
        benchmark_script("chen2020_diagnose")._partial_spearman(-2 * length, label, length)
    )


def test_length_effect_reads_scores_and_sentences(tmp_path: Path, capsys, benchmark_script) -> None:
    tokens = ["a", "a b", "a b c", "a b c d", "a b c d e"]
    pd.DataFrame(
        {
            "set": ["yelp"] * 5,
            "index": range(5),
            "tokens": tokens,
            "label": [1.0, 2.0, 3.0, 5.0, 4.0],
        }
    ).to_parquet(tmp_path / "sentences.parquet")
    scores = tmp_path / "scores"
    scores.mkdir()
    frame = pd.DataFrame({"set": ["yelp"] * 5, "index": range(5)})
    frame.assign(score=[-1.0, -2.0, -3.0, -4.0, -5.0]).to_parquet(scores / "shrinks.parquet")
    benchmark_script("chen2020_diagnose").length_effect(scores, tmp_path / "sentences.parquet")
    out = capsys.readouterr().out
    assert "shrinks:" in out and "yelp -90.0 / -100.0 / +nan" in out


def test_hinge_forces_match_the_hand_computed_gradient(benchmark_script) -> None:
    # Rows [μ | log σ²] of 2 pairs, side 1 then side 2: pair 0 = rows 0 and 2, pair 1 = rows
    # 1 and 3; every σ² = 1, so d(a, b) = −½ (log 2 + Δ² / 2) − ½ log 2π. Mined negatives:
    # 0 → 1, 1 → 2, 2 → 1, 3 → 2. Hinges at margin 0.9: 0.9 + (Δp² − Δn²) / 4 =
    # −1.1, −0.0975, +0.15, −0.2: only row 2's is violated, m − d(2, 0) + d(2, 1), and
    # ∂d(a, b)/∂log σ²_a = −¼ + Δ²/8.
    out = torch.tensor([[0.0, 0.0], [3.0, 0.0], [1.0, 0.0], [3.1, 0.0]], dtype=torch.float64)
    found = benchmark_script("chen2020_diagnose").hinge_forces(out, 0.9)
    assert found["paraphrase_violated"].tolist() == [True, False, False, False]
    assert found["negative_of_violated"].tolist() == [0, 1, 0, 0]
    assert np.allclose(found["paraphrase_gap"].to_numpy(), [1.0, 0.01, 1.0, 0.01])
    expected = [-(1 / 4 - 1 / 8), -(-1 / 4 + 4 / 8), -(1 / 4 - 1 / 8 - 1 / 4 + 4 / 8), 0.0]
    assert np.allclose(found["push_up"].to_numpy(), expected)
