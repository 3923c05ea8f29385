"""The test-set bootstrap against hand-checkable cases: Fisher's z, scipy's bootstrap on the
same resamples, paired against unpaired resampling, claims' probabilities, determinism."""

import csv
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from paracomp.cli import main
from paracomp.eval import aggregate, bootstrap
from paracomp.registry import printed_table, row_refs
from paracomp.tables.build import ModelEval, build_cells
from paracomp.tables.replicates import read_replicates
from paracomp.tables.write import write_table

SUBSETS = {"sts2013": ["headlines", "OnWN", "FNWN"]}


def correlated(n: int, rho: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return x, rho * x + math.sqrt(1 - rho * rho) * rng.normal(size=n)


def test_pearson_interval_matches_fisher_z_on_a_large_sample():
    x, y = correlated(5000, 0.6, 1)
    r = stats.pearsonr(x, y).statistic
    counts = bootstrap.Resampler(resamples=2000).counts(bootstrap.Sample.whole("synthetic", 5000))
    low, high = bootstrap.interval(bootstrap.pearson(counts, x, y))
    half = 1.959964 / math.sqrt(5000 - 3)
    assert low == pytest.approx(math.tanh(math.atanh(r) - half), abs=0.01)
    assert high == pytest.approx(math.tanh(math.atanh(r) + half), abs=0.01)
    assert high - low > 0.02  # not a degenerate interval


@pytest.mark.parametrize("metric", ["pearson", "spearman"])
def test_a_cell_matches_scipy_bootstrap_on_the_same_resamples(metric):
    """scipy.stats.bootstrap (paired, percentile) from the set's generator draws the same
    index matrix; our matrix arithmetic gives the same replicates and interval. Gold scores
    with ties, as STS's are."""
    gold, pred = correlated(300, 0.5, 2)
    gold = np.round(gold * 2) / 2
    key, n_resamples = "sts2016/headlines/test", 400
    counts = bootstrap.Resampler(n_resamples, seed=7).counts(bootstrap.Sample.whole(key, 300))
    ours = bootstrap.CORRELATIONS[metric](counts, gold, pred)
    if metric == "pearson":
        statistic = lambda a, b, axis: stats.pearsonr(a, b, axis=axis).statistic  # noqa: E731
    else:
        statistic = lambda a, b: stats.spearmanr(a, b).statistic  # noqa: E731
    res = stats.bootstrap(
        (gold, pred), statistic, paired=True, vectorized=metric == "pearson",
        n_resamples=n_resamples, method="percentile", rng=bootstrap.generator(key, 7),
    )  # fmt: skip
    np.testing.assert_allclose(ours, res.bootstrap_distribution, atol=1e-12)
    low, high = bootstrap.interval(ours)
    assert low == pytest.approx(res.confidence_interval.low, abs=1e-12)
    assert high == pytest.approx(res.confidence_interval.high, abs=1e-12)


def test_a_test_set_is_drawn_once_and_sets_differ():
    first = bootstrap.indices("sts2016/headlines/test", 50, 20)
    assert np.array_equal(first, bootstrap.indices("sts2016/headlines/test", 50, 20))
    assert not np.array_equal(first, bootstrap.indices("sts2016/plagiarism/test", 50, 20))
    counts = bootstrap.counts_of(first, 50)
    assert (counts.sum(axis=1) == 50).all() and counts[3, first[3, 0]] >= 1


def synthetic_eval(preds: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]) -> ModelEval:
    """An evaluation with the given gold and predictions per (set, subset)."""
    metrics, pairs = [], []
    for (dataset, subset), (gold, pred) in preds.items():
        metrics.append(
            {"dataset": dataset, "subset": subset, "split": "test", "n": len(gold), "n_oov": 0,
             "n_dropped": 0, "pearson": stats.pearsonr(gold, pred).statistic,
             "spearman": stats.spearmanr(gold, pred).statistic, "source": "mirror", "note": ""}
        )  # fmt: skip
        pairs.append(
            pd.DataFrame(
                {
                    "dataset": dataset,
                    "subset": subset,
                    "split": "test",
                    "id": [str(i) for i in range(len(gold))],
                    "gold": gold,
                    "pred": pred,
                    "oov": False,
                    "dropped": False,
                }
            )  # fmt: skip
        )
    return ModelEval(pd.DataFrame(metrics), pd.concat(pairs, ignore_index=True))


def two_models(noise_a: float, noise_b: float, n: int = 400, seed: int = 3):
    """Models a and b on STS 2013's three subsets: gold plus noise of the given scales."""
    rng = np.random.default_rng(seed)
    evals = {"a": {}, "b": {}}
    for subset in SUBSETS["sts2013"]:
        gold = rng.uniform(0, 5, n)
        shared = rng.normal(size=n)  # the models err alike: correlated models
        for model, scale in (("a", noise_a), ("b", noise_b)):
            own = rng.normal(size=n)
            evals[model]["sts2013", subset] = (gold, gold + scale * (shared + 0.3 * own))
    return {m: synthetic_eval(p) for m, p in evals.items()}


COLUMNS = {"glove": {"model": "a"}, "paragram": {"model": "b"}}


def cells_of(evals, resampler=None):
    return build_cells(
        printed_table("elgohary2016", "table3"),
        row_refs("elgohary2016", "table3"),
        COLUMNS,
        "mean",
        evals,
        resampler=resampler,
    )


def width(values: np.ndarray) -> float:
    low, high = bootstrap.interval(values)
    return high - low


def test_paired_resampling_narrows_a_difference_of_correlated_models():
    """The year average of two models that err alike: their difference's interval from the
    table's own replicates (both columns on the same resamples) is far narrower than from
    independent resamples of each (another seed for the second model)."""
    evals = two_models(1.0, 1.1)
    cells = cells_of(evals)
    a, b = cells["2013 Avg", "glove"], cells["2013 Avg", "paragram"]
    assert a.sets == b.sets == ("sts2013/headlines/test", "sts2013/OnWN/test", "sts2013/FNWN/test")
    paired = width(a.boot - b.boot)
    other = cells_of(evals, bootstrap.Resampler(seed=1))["2013 Avg", "paragram"]
    unpaired = width(a.boot - other.boot)
    assert paired < 0.5 * unpaired
    # each cell alone is as noisy either way
    assert width(b.boot) == pytest.approx(width(other.boot), rel=0.2)


def test_a_year_mean_resamples_each_subset_and_averages():
    evals = two_models(1.0, 1.1)
    cells = cells_of(evals, bootstrap.Resampler(resamples=200))
    leaves = [cells[row, "glove"] for row in ("headline-2013", "OnWN-2013", "FNWN")]
    mean = np.mean([leaf.boot for leaf in leaves], axis=0)
    np.testing.assert_allclose(cells["2013 Avg", "glove"].boot, mean)
    assert cells["2013 Avg", "glove"].value == pytest.approx(np.mean([c.value for c in leaves]))


def test_pooled_replicates_are_one_correlation_over_every_resampled_subset():
    evals = two_models(1.0, 1.1, n=50)
    resampler = bootstrap.Resampler(resamples=30)
    ev = evals["a"]
    nodes = [aggregate.Leaf(0.0, 50, *ev_pairs(ev, s), bootstrap.Sample.whole(k, 50))
             for s, k in (("headlines", "h"), ("OnWN", "o"))]  # fmt: skip
    for node in nodes:
        object.__setattr__(node, "value", stats.pearsonr(node.gold, node.pred).statistic)
    pooled = aggregate.replicates(aggregate.Group(tuple(nodes)), "pooled", "pearson", resampler)
    for b in (0, 17):
        idx = [bootstrap.indices(k, 50, 30)[b] for k in ("h", "o")]
        gold = np.concatenate([n.gold[i] for n, i in zip(nodes, idx)])
        pred = np.concatenate([n.pred[i] for n, i in zip(nodes, idx)])
        assert pooled[b] == pytest.approx(stats.pearsonr(gold, pred).statistic, abs=1e-12)


def ev_pairs(ev: ModelEval, subset: str) -> tuple[np.ndarray, np.ndarray]:
    sel = ev.pairs[ev.pairs["subset"] == subset]
    return sel["gold"].to_numpy(), sel["pred"].to_numpy()


def test_fewer_than_ten_pairs_get_no_interval_and_say_why():
    evals = two_models(1.0, 1.1, n=8)
    cell = cells_of(evals)["headline-2013", "glove"]
    assert cell.value is not None and cell.boot is None
    assert cell.noise == "no interval: sts2013/headlines/test has 8 pairs (< 10)"


def write_tables(evals, out_dir, name="table3"):
    out = out_dir / f"{name}.csv"
    out_dir.mkdir(parents=True, exist_ok=True)
    folders = {}
    for model, ev in evals.items():
        folder = out_dir / "eval" / model
        folder.mkdir(parents=True, exist_ok=True)
        ev.metrics.to_csv(folder / "sts.csv", index=False)
        ev.pairs.to_parquet(folder / "pairs.parquet", index=False)
        folders[model] = folder
    write_table(
        printed_table("elgohary2016", "table3"),
        row_refs("elgohary2016", "table3"),
        {"columns": COLUMNS},
        folders,
        out,
    )
    return out


def test_compare_file_intervals_and_determinism(tmp_path):
    evals = two_models(1.0, 1.1)
    first = write_tables(evals, tmp_path / "one")
    second = write_tables(evals, tmp_path / "two")
    for suffix in (".compare.csv", ".replicates.parquet", ".md", ".csv"):
        one, two = first.with_suffix(suffix), second.with_suffix(suffix)
        assert one.read_bytes() == two.read_bytes(), suffix
    compare = pd.read_csv(first.with_suffix(".compare.csv")).set_index(["row", "column"])
    avg = compare.loc[("2013 Avg", "glove")]
    assert avg["ci_low"] < avg["ours"] < avg["ci_high"] and avg["replicates"] == 1
    assert pd.isna(avg["sd"]) and avg["printed_inside"] in ("yes", "no")
    printed = avg["paper"]
    assert (avg["printed_inside"] == "yes") == (avg["ci_low"] <= printed <= avg["ci_high"])
    empty = compare.loc[("2012 Avg", "glove")]
    assert pd.isna(empty["ci_low"]) and pd.isna(empty["replicates"])
    reps = read_replicates(first.with_suffix(".replicates.parquet"))
    assert reps.resamples == bootstrap.RESAMPLES and len(reps.values["2013 Avg|glove"]) == 1000
    low, high = bootstrap.interval(reps.values["2013 Avg|glove"])
    assert round(low, 2) == avg["ci_low"] and round(high, 2) == avg["ci_high"]
    md = first.with_suffix(".md").read_text()
    half = (high - low) / 2
    assert f"{avg['ours']:.2f} ±{half:.2f}" in md


def run_findings(tmp_path, evals, test: str) -> dict[str, str]:
    out = write_tables(evals, tmp_path / "t")
    claims = tmp_path / "findings.yaml"
    claims.write_text(f"claims:\n- id: c\n  quote: q\n  where: w\n  test: '{test}'\n")
    found, md = tmp_path / "findings.csv", tmp_path / "findings.md"
    main(["findings", "--claims", str(claims), "--compare", f"table3={out.with_suffix('.compare.csv')}",
          "--replicates", f"table3={out.with_suffix('.replicates.parquet')}", "--title", "x",
          "--out", str(found), "--markdown", str(md)])  # fmt: skip
    with open(found, newline="") as handle:
        (row,) = csv.DictReader(handle)
    return row


def test_exchangeable_models_give_an_unresolved_claim(tmp_path):
    """b's pairs are a's with the predictions of each pair and its twin swapped (twins share
    the gold): the two cells are equal, and exchangeable on every resample, so P ≈ 0.5."""
    rng = np.random.default_rng(5)
    preds = {"a": {}, "b": {}}
    for subset in SUBSETS["sts2013"]:
        gold = np.tile(rng.uniform(0, 5, 200), 2)
        pred = gold + rng.normal(size=400)
        preds["a"]["sts2013", subset] = (gold, pred)
        preds["b"]["sts2013", subset] = (gold, np.r_[pred[200:], pred[:200]])
    evals = {m: synthetic_eval(p) for m, p in preds.items()}
    row = run_findings(tmp_path, evals, "[table3|2013 Avg|glove] > [table3|2013 Avg|paragram]")
    assert row["holds"] == "no" and row["verdict"] == "unresolved"
    assert 0.4 < float(row["p_holds"]) < 0.6
    assert row["noise"].startswith("test pairs, paired: every cell on sts2013")
    from paracomp.tables.overview import write_overview

    compare = {"table3": tmp_path / "t" / "table3.compare.csv"}
    replicates = {"table3": tmp_path / "t" / "table3.replicates.parquet"}
    paths = [tmp_path / f"overview.{x}" for x in ("csv", "md", "html")]
    write_overview("x", compare, replicates, tmp_path / "findings.csv", *paths)
    assert (
        "On the test-set bootstrap (P(holds) ≥ 0.95 holds, ≤ 0.05 fails): 0 holds, 0 fails, 1 unresolved."
        in (paths[1].read_text())
    )


def test_a_large_margin_holds_and_its_reverse_fails(tmp_path):
    evals = two_models(0.5, 2.0)
    row = run_findings(
        tmp_path, evals, "[table3|2013 Avg|glove] - [table3|2013 Avg|paragram] > 0.1"
    )
    assert row["holds"] == "yes" and row["verdict"] == "holds" and float(row["p_holds"]) >= 0.95
    row = run_findings(tmp_path, evals, "[table3|2013 Avg|paragram] > [table3|2013 Avg|glove]")
    assert row["verdict"] == "fails" and float(row["p_holds"]) == 0.0


def test_cells_on_different_sets_are_resampled_independently_and_said_so(tmp_path):
    evals = two_models(1.0, 1.0)
    row = run_findings(tmp_path, evals, "[table3|FNWN|glove] > [table3|OnWN-2013|glove]")
    assert "cells on different test sets, resampled independently per set" in row["noise"]
    row = run_findings(tmp_path, evals, "[table3|FNWN|glove] > 0.5 + [table3|SICK|glove|paper]")
    assert row["noise"].startswith("test pairs, paired: every cell on sts2013")


def test_on_the_real_bootstrap_the_sd_is_of_the_paired_difference(tmp_path):
    """The printed margin against our noise (tables.margins) through `paracomp findings` on a
    table the bootstrap built (elgohary2016 Table 3's printed numbers, two synthetic models on
    STS 2013): the sd is that of the two cells' difference over the replicates file's
    resamples, and the margin the printed numbers' difference."""
    test = "[table3|2013 Avg|paragram] > [table3|2013 Avg|glove]"
    row = run_findings(tmp_path, two_models(1.0, 1.2), test)
    reps = read_replicates(tmp_path / "t" / "table3.replicates.parquet").values
    sd = np.std(reps["2013 Avg|paragram"] - reps["2013 Avg|glove"], ddof=1)
    assert row["noise_sd"] == f"{sd:.3g}"
    printed = dict(part.split(" = ") for part in row["paper_values"].split(", "))
    margin = float(printed["[table3|2013 Avg|paragram]"]) - float(
        printed["[table3|2013 Avg|glove]"]
    )
    assert float(row["printed_margin"]) == pytest.approx(margin)
    assert row["margin_resolvable"] == ("yes" if abs(margin) > 1.96 * sd else "no")


def leaderboard_model(folder, noise: float, seed: int):
    """An evaluation folder on STS 2012's two subsets and STS-B: gold plus noise ``noise``."""
    from paracomp.eval.sts import subset_metrics

    rng, frames = np.random.default_rng(seed), []
    for dataset, subset, split, n in (
        ("sts2012", "MSRpar", "test", 300), ("sts2012", "MSRvid", "test", 200),
        ("stsbenchmark", "stsb", "test", 400),
    ):  # fmt: skip
        gold = np.random.default_rng(n).uniform(0, 5, n)  # the same gold for every model
        frames.append(
            pd.DataFrame(
                {
                    "dataset": dataset,
                    "subset": subset,
                    "split": split,
                    "id": [str(i) for i in range(n)],
                    "gold": gold,
                    "pred": gold + noise * rng.normal(size=n),
                    "oov": False,
                    "dropped": False,
                }
            )  # fmt: skip
        )
    pairs = pd.concat(frames, ignore_index=True)
    folder.mkdir(parents=True)
    pairs.to_parquet(folder / "pairs.parquet", index=False)
    subset_metrics(pairs).assign(source="mirror", note="").to_csv(folder / "sts.csv", index=False)
    (folder / "wordsim.csv").write_text("dataset,n_total,n,n_oov,spearman,pearson,source,note\n")
    (folder / "encoder.json").write_text('{"composition": "averaged word rows"}')
    return folder


def test_leaderboard_rank_intervals(tmp_path):
    """A clearly best and a clearly worst model keep their ranks on every resample; two
    models of the same noise share ranks 2-3; the sts mean replicates are each model's subset
    replicates averaged per set, then over sets."""
    from paracomp.tables import leaderboard as board

    Entry, leaderboard, rank_intervals = board.Entry, board.leaderboard, board.rank_intervals
    noise = {"best": 0.3, "twin1": 1.5, "twin2": 1.5, "worst": 6.0}
    entries = [
        Entry(m, "", leaderboard_model(tmp_path / m, s, i))
        for i, (m, s) in enumerate(noise.items())
    ]
    entries.append(Entry("none", "", None, "not evaluated"))
    sets = ["sts2012", "stsbenchmark"]
    frame = rank_intervals(leaderboard(entries, sets, []), entries, sets).set_index("model")
    assert (frame.loc["best", ["rank", "rank_low", "rank_high"]] == [1, 1, 1]).all()
    assert (frame.loc["worst", ["rank", "rank_low", "rank_high"]] == [4, 4, 4]).all()
    for twin in ("twin1", "twin2"):
        assert frame.loc[twin, "rank_low"] == 2 and frame.loc[twin, "rank_high"] == 3
    assert pd.isna(frame.loc["none", "rank"])
    low, high = frame["sts mean ci_low"], frame["sts mean ci_high"]
    assert ((low < frame["sts mean"]) & (frame["sts mean"] < high)).drop("none").all()
    reps = board.sts_mean_replicates(entries, sets, bootstrap.Resampler())["twin1"]
    pairs = pd.read_parquet(tmp_path / "twin1" / "pairs.parquet")
    resampler = bootstrap.Resampler()

    def subset(dataset, name):
        sel = pairs[(pairs["dataset"] == dataset) & (pairs["subset"] == name)]
        counts = resampler.counts(bootstrap.Sample.whole(f"{dataset}/{name}/test", len(sel)))
        return bootstrap.pearson(counts, sel["gold"].to_numpy(), sel["pred"].to_numpy())

    by_hand = ((subset("sts2012", "MSRpar") + subset("sts2012", "MSRvid")) / 2
               + subset("stsbenchmark", "stsb")) / 2  # fmt: skip
    np.testing.assert_allclose(reps, 100 * by_hand, atol=1e-10)
    md = board.to_markdown(frame.reset_index(), sets, [])
    assert "| 1 (1–1) |" in md and "rank (95%)" in md
