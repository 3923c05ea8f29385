"""scheepers2018 Table 1 from run scores, and the composing sentence encoder."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from paracomp.eval.composed import ComposedEncoder
from paracomp.models.registry import COMPOSERS
from paracomp.papers.scheepers2018.table1 import row_keys, write_table1

MEASURES = ["mrr", "sts14", "sts15", "sick_e", "sick_r", "simlex", "simverb", "ws353"]


def _write_scores(root, composition, variant, value):
    folder = root / composition / variant / "0"  # the run's one scored grid point
    folder.mkdir(parents=True)
    measures = {
        m: {"value": value, "data": f"{m} data", "reason": ""} for m in MEASURES if m != "sick_e"
    }
    measures["sick_e"] = {"value": None, "data": "", "reason": "SICK not available"}
    compvec = {"all": {"mrr": value}, "test": {"mrr": value + 0.05}}
    (folder / "scores.json").write_text(json.dumps({"measures": measures, "compvec": compvec}))


def test_table1_from_scores(tmp_path) -> None:
    root = tmp_path / "runs"
    compositions = ["sum", "gru"]
    for composition in compositions:
        _write_scores(root, composition, "original", 0.1190)
        _write_scores(root, composition, "compvec", 0.2654)
    columns = {
        "glove": {"embeddings": "glove-6b-50d", "note": "small run"},
        "word2vec": {"reason": "not configured here"},
    }
    out = tmp_path / "table1.csv"
    write_table1(columns, {"glove": root}, compositions, "test method", out)
    compare = pd.read_csv(tmp_path / "table1.compare.csv").set_index(["row", "column"])
    assert len(compare) == len(row_keys()) * 12
    assert compare.loc[("mrr/sum", "glove_original"), "ours"] == pytest.approx(11.9)
    assert compare.loc[("mrr/sum", "glove_original"), "paper"] == pytest.approx(11.9)
    assert compare.loc[("mrr/sum", "glove_compvec"), "ours"] == pytest.approx(26.5)
    # the delta comes from unrounded scores: 26.54 − 11.90 = 14.64 → 14.6
    assert compare.loc[("mrr/sum", "glove_delta"), "ours"] == pytest.approx(14.6)
    assert "small run" in compare.loc[("mrr/sum", "glove_delta"), "note"]
    assert np.isnan(compare.loc[("sick_e/gru", "glove_original"), "ours"])
    assert "SICK not available" in compare.loc[("sick_e/gru", "glove_original"), "note"]
    assert "not configured" in compare.loc[("mrr/rnn", "glove_original"), "note"]
    assert "not configured here" in compare.loc[("mrr/sum", "word2vec_compvec"), "note"]
    candidates = pd.read_csv(tmp_path / "table1.candidates.csv")
    row = candidates[(candidates.composition == "sum") & (candidates.variant == "original")]
    assert row[["mrr_all", "mrr_test", "paper"]].values.tolist() == [[11.9, 16.9, 11.9]]
    assert row["closer"].item() == "all"
    markdown = (tmp_path / "table1.md").read_text()
    assert "glove sum: all lemmas 11.9, test lemmas 16.9, paper 11.9 (closer: all)" in markdown
    wide = pd.read_csv(out)
    assert wide.shape == (len(row_keys()), 13)


def test_composed_encoder_fallback_and_truncation() -> None:
    vocabulary = ["PAD", "UNK", "dog", "cat"]
    matrix = np.array([[0, 0], [9, 9], [1, 0], [0, 1]], dtype=np.float32)
    fallback = np.array([[5, 5], [2, 2]], dtype=np.float32)
    encoder = ComposedEncoder(
        COMPOSERS["sum"](2), vocabulary, matrix, ["dog", "bird"], fallback, max_length=3
    )
    assert encoder.known("bird") and encoder.known("cat") and not encoder.known("UNK")
    out = encoder.encode([["dog", "bird", "zebra"], ["zebra"], ["cat", "cat", "cat", "dog"], []])
    # the tuned row wins over the fallback; zebra is skipped; at most 3 tokens are kept
    np.testing.assert_array_equal(out, [[3, 2], [0, 0], [0, 3], [0, 0]])


def test_table1_intervals_from_the_runs_items(tmp_path) -> None:
    """Hand-made items of two runs on the same 50 test definitions: a MRR cell's replicates
    are the mean reciprocal rank ×100 on each resample of the definitions, the delta's the
    difference of the two runs' on the same resamples; a measure without items says so."""
    from paracomp.eval import bootstrap
    from paracomp.papers.scheepers2018.evaluate import COMPVEC_KEY, ITEM_COLUMNS
    from paracomp.tables.replicates import read_replicates

    root, rng = tmp_path / "runs", np.random.default_rng(0)
    ranks = {}
    for variant, top in (("original", 40), ("compvec", 10)):
        ranks[variant] = rng.integers(1, top, 50).astype(float)
        _write_scores(root, "sum", variant, float(np.mean(1 / ranks[variant])))
        pd.DataFrame({
            "measure": "mrr", "key": COMPVEC_KEY, "size": 50, "position": np.arange(50),
            "gold": np.nan, "pred": 1 / ranks[variant],
        })[ITEM_COLUMNS].to_parquet(root / "sum" / variant / "0" / "items.parquet")  # fmt: skip
    out = tmp_path / "table1.csv"
    write_table1({"glove": {"embeddings": "glove-6b-50d"}}, {"glove": root}, ["sum"], "m", out)
    reps = read_replicates(tmp_path / "table1.replicates.parquet").values
    counts = bootstrap.counts_of(bootstrap.indices(COMPVEC_KEY, 50), 50)
    each = {v: 100 * counts @ (1 / ranks[v]) / 50 for v in ranks}
    np.testing.assert_allclose(reps["mrr/sum|glove_original"], each["original"])
    np.testing.assert_allclose(reps["mrr/sum|glove_delta"], each["compvec"] - each["original"])
    compare = pd.read_csv(tmp_path / "table1.compare.csv").set_index(["row", "column"])
    cell = compare.loc[("mrr/sum", "glove_delta")]
    assert cell["ci_low"] < cell["ours"] < cell["ci_high"]
    assert (
        "no interval: the run keeps no items of sts14"
        in compare.loc[("sts14/sum", "glove_original"), "note"]
    )


def test_word_set_items_keep_their_place_in_the_set(tmp_path) -> None:
    """A word set of 14 pairs, 2 with a word outside the vocabulary: the 12 scored pairs'
    items carry their positions among the 14, gold and cosine, and their Spearman ρ is the
    measure's value."""
    import pyarrow as pa
    from scipy import stats

    from paracomp import artefacts
    from paracomp.papers.scheepers2018.evaluate import _wordsim

    rng = np.random.default_rng(4)
    words = [f"w{i}" for i in range(8)]
    pairs = [(words[i % 8], words[(i * 3 + 1) % 8]) for i in range(12)]
    pairs[3:3] = [("w0", "zebra")]
    pairs.append(("yak", "w1"))
    table = pa.table({"dataset": ["toy"] * 14, "w1": [a for a, _ in pairs],
                      "w2": [b for _, b in pairs], "score": rng.uniform(0, 10, 14)})  # fmt: skip
    path = tmp_path / "toy.parquet"
    artefacts.write(table, path, artefacts.WORD_PAIRS, artefacts.Provenance("toy", "t", {}, {}))
    items: list[pd.DataFrame] = []
    cell = _wordsim(path, words, rng.normal(size=(8, 5)), "simlex", items)
    (found,) = items
    assert cell["n"] == 12 and cell["n_total"] == 14
    assert (found["key"] == "scheepers2018/toy").all() and (found["size"] == 14).all()
    assert 3 not in found["position"].tolist() and 13 not in found["position"].tolist()
    rho = stats.spearmanr(found["gold"], found["pred"]).statistic
    assert cell["value"] == pytest.approx(rho)


def test_sick_e_interval_is_the_accuracy_on_each_resample_of_the_test_pairs() -> None:
    """SICK-E's items are 1/0 per test pair (classified right or not): its replicates are
    the share right among the pairs each resample draws, by hand from the same indices on
    SICK's key (so paired with SICK-R); too few pairs give no interval and say why."""
    from paracomp.eval import bootstrap
    from paracomp.papers.scheepers2018.evaluate import ITEM_COLUMNS
    from paracomp.papers.scheepers2018.table1 import measure_replicates

    key, n = "sick2014/sick/test", 40
    right = (np.random.default_rng(1).random(n) < 0.7).astype(float)
    items = pd.DataFrame({"measure": "sick_e", "key": key, "size": n, "position": np.arange(n),
                          "gold": np.nan, "pred": right})[ITEM_COLUMNS]  # fmt: skip
    boot, keys, noise = measure_replicates(items, "sick_e", bootstrap.Resampler(resamples=300))
    by_hand = [right[row].mean() for row in bootstrap.indices(key, n, 300)]
    np.testing.assert_allclose(boot, by_hand, rtol=1e-12)
    assert keys == (key,) and noise == ""
    few = items.iloc[:9].assign(size=9)
    assert measure_replicates(few, "sick_e", bootstrap.Resampler())[2] == (
        f"no interval: {key} has 9 pairs (< 10)"
    )


def test_table1_cells_over_seeds(tmp_path) -> None:
    """Three seeds of a composition's two runs, each with items on the same 50 definitions:
    a cell is the mean of its seeds' values with their sd, its replicate b the value of the
    seed drawn for b (one draw per composition, so both variants and the delta are paired) on
    resample b, and the delta over the seeds' own deltas; the markdown names the seeds."""
    from paracomp.eval import bootstrap
    from paracomp.papers.scheepers2018.evaluate import COMPVEC_KEY, ITEM_COLUMNS
    from paracomp.tables.replicates import read_replicates
    from paracomp.tables.seeds import draws

    root, rng = tmp_path / "runs", np.random.default_rng(1)
    seed_runs: dict[str, dict[int, object]] = {}
    values: dict[str, dict[int, np.ndarray]] = {"original": {}, "compvec": {}}
    for seed in (1, 2, 3):
        for variant, top in (("original", 40), ("compvec", 10)):
            name = variant if seed == 1 else f"{variant}_seed{seed}"
            recip = 1 / rng.integers(1, top, 50).astype(float)
            values[variant][seed] = recip
            _write_scores(root, "sum", name, float(recip.mean()))
            pd.DataFrame({
                "measure": "mrr", "key": COMPVEC_KEY, "size": 50, "position": np.arange(50),
                "gold": np.nan, "pred": recip,
            })[ITEM_COLUMNS].to_parquet(root / "sum" / name / "0" / "items.parquet")  # fmt: skip
            seed_runs.setdefault(f"runs/sum/{variant}", {})[seed] = root / "sum" / name / "0"
    out = tmp_path / "table1.csv"
    columns = {"glove": {"embeddings": "glove-6b-50d"}}
    write_table1(columns, {"glove": root}, ["sum"], "m", out, seed_runs)

    compare = pd.read_csv(tmp_path / "table1.compare.csv").set_index(["row", "column"])
    reps = read_replicates(tmp_path / "table1.replicates.parquet").values
    counts = bootstrap.counts_of(bootstrap.indices(COMPVEC_KEY, 50), 50)
    picks = draws("scheepers2018/runs/sum", 3)
    each = {v: {s: 100 * counts @ r / 50 for s, r in by.items()} for v, by in values.items()}
    for variant in ("original", "compvec"):
        means = [100 * values[variant][s].mean() for s in (1, 2, 3)]
        cell = compare.loc[("mrr/sum", f"glove_{variant}")]
        assert cell["ours"] == pytest.approx(np.mean(means), abs=0.05)  # printed precision
        assert cell["sd"] == pytest.approx(np.std(means, ddof=1), abs=0.05)
        assert cell["replicates"] == 3
        expected = np.array([each[variant][1 + d][b] for b, d in enumerate(picks)])
        np.testing.assert_allclose(reps[f"mrr/sum|glove_{variant}"], expected)
    delta = np.array([each["compvec"][1 + d][b] - each["original"][1 + d][b]
                      for b, d in enumerate(picks)])  # fmt: skip
    np.testing.assert_allclose(reps["mrr/sum|glove_delta"], delta)
    assert "over seeds [1, 2, 3]" in (tmp_path / "table1.md").read_text()

    del seed_runs["runs/sum/original"][3]
    with pytest.raises(ValueError, match="the variants' seeds differ"):
        write_table1(columns, {"glove": root}, ["sum"], "m", tmp_path / "t.csv", seed_runs)
