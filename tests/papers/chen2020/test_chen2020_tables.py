"""chen2020's score tables on hand-made sentences and scores: Table 1's counts, Table 2's News
threshold and Spearman cells, Table 3's length-normalised protocol, Table 4 from a hand-made
file in SNLI's release format (hand-made vectors), Table 7, Table 8, and every empty cell's
reason (prior work, missing data)."""

import math

import numpy as np
import pandas as pd
import pytest

from paracomp import artefacts
from paracomp.papers.chen2020.scores import ModelScores, score_model
from paracomp.papers.chen2020.sentences import SentenceSources, build_sentences
from paracomp.papers.chen2020.tables import NOT_OBTAINABLE, write_score_table

SETTING = {
    "corpus": "hand-made pairs",
    "max_tokens": 30,
    "train_pairs": None,
    "epochs": 1,
    "tuning": {"set": "stsbenchmark", "subset": "stsb", "split": "dev", "epochs": 1},
    "news_train": "without-test",
    "vectors": "hand-made",
    "runs": {},
    "grids": {},
}


def _sentences(tmp_path, rows, present, missing=None):
    frame = pd.DataFrame(rows, columns=["set", "index", "text", "tokens", "label", "gold"])
    frame["index"] = frame["index"].astype(np.int32)
    path = tmp_path / "sentences.parquet"
    frame.to_parquet(path, index=False)
    SentenceSources(present, missing or {}, {}).write(path.with_suffix(".json"))
    return path


def _scores(tmp_path, name, frame, values, meta=None):
    scores = ModelScores(
        pd.DataFrame({"set": frame["set"], "index": frame["index"], "score": values}),
        meta or {"kind": "length", "probabilistic": False},
    )
    path = tmp_path / f"{name}.parquet"
    scores.write(path)
    return path


def _news_rows():
    """News train: lengths 1-4, specific iff length ≥ 3; test: lengths 2 and 4 (4 specific)."""
    rows = []
    for i, (n, specific) in enumerate([(1, 0), (2, 0), (3, 1), (4, 1), (3, 0)]):
        rows.append(["news_train", i, "w " * n, " ".join(["w"] * n), float(specific), ""])
    for i, (n, specific) in enumerate([(2, 0), (4, 1), (4, 0), (1, 0)]):
        rows.append(["news_test", i, "w " * n, " ".join(["w"] * n), float(specific), ""])
    for i, (n, rating) in enumerate([(1, 1.0), (2, 3.0), (5, 2.0)]):
        rows.append(["twitter", i, "w " * n, " ".join(["w"] * n), rating, ""])
    return rows


def _read(out):
    return pd.read_csv(out.with_suffix(".compare.csv")).set_index(["row", "column"])


def test_table2_news_twitter_and_reasons(tmp_path):
    rows = _news_rows()
    sentences = _sentences(
        tmp_path,
        rows,
        ["news_test", "news_train", "twitter"],
        {"yelp": "no yelp here", "movie": "no movie here"},
    )
    frame = pd.read_parquet(sentences)
    lengths = frame["tokens"].str.split().str.len().to_numpy(dtype=float)
    scores = {
        "length": _scores(tmp_path, "length", frame, lengths),
        "majority": _scores(tmp_path, "majority", frame, np.zeros(len(frame))),
    }
    out = tmp_path / "table2.csv"
    write_score_table("table2", sentences, scores, SETTING, out)
    compare = _read(out)
    # train: threshold between 2 and 3 gives 4/5 (the 3-token general one is wrong);
    # test: predictions 0, 1, 1, 0 against 0, 1, 0, 0: 3/4
    assert compare.loc[("length", "news"), "ours"] == 75.0
    assert compare.loc[("length", "news"), "paper"] == 73.4
    # twitter: lengths 1, 2, 5 against ratings 1, 3, 2: Spearman 0.5
    assert compare.loc[("length", "twitter"), "ours"] == 50.0
    assert "copied from Ko et al." in compare.loc[("length", "twitter"), "note"]
    assert compare.loc[("majority", "news"), "ours"] == 75.0  # tuning majority: general, 3/4
    assert "no rank correlation" in compare.loc[("majority", "twitter"), "note"]
    assert compare.loc[("length", "yelp"), "note"] == "no yelp here"
    assert NOT_OBTAINABLE in compare.loc[("bert", "news"), "note"]
    assert "not configured" in compare.loc[("wlo", "news"), "note"]
    assert math.isnan(compare.loc[("wlo", "news"), "ours"])
    text = out.with_suffix(".md").read_text()
    assert "hand-made pairs" in text and "Empty cells:" in text


def test_table3_length_normalised_and_majority(tmp_path):
    rows = _news_rows()
    sentences = _sentences(tmp_path, rows, ["news_test", "news_train", "twitter"])
    frame = pd.read_parquet(sentences)
    values = np.where(frame["label"].to_numpy() > 0, 1.0, 0.0)  # an oracle
    scores = {
        "wordsum": _scores(tmp_path, "wordsum", frame, values),
        "majority": _scores(tmp_path, "majority", frame, np.zeros(len(frame))),
    }
    out = tmp_path / "table3.csv"
    write_score_table("table3", sentences, scores, SETTING, out)
    compare = _read(out)
    assert compare.loc[("wordsum", "full"), "ours"] == 100.0
    assert compare.loc[("wordsum", "full"), "note"].startswith("trained on hand-made pairs")
    # pooled News lengths 1..4; tested groups k-1 = 1, 2, 3: the 9 sentences but the 3 of
    # length 4; 1 of those 6 is specific (a length-3 one)
    assert compare.loc[("wordsum", "length_norm"), "ours"] == 100.0
    assert "pool of 6 sentences" in compare.loc[("wordsum", "length_norm"), "data"]
    assert compare.loc[("majority", "length_norm"), "ours"] == pytest.approx(83.3, abs=0.05)
    assert "not configured" in compare.loc[("wlo", "full"), "note"]
    assert (
        "the length-normalised pool has 6 pairs (< 10)"
        in compare.loc[("wordsum", "length_norm"), "note"]
    )


def test_table3_normalised_interval_resamples_news_train_and_test(tmp_path):
    """Table 3's length-normalised cells on 60 + 40 random News sentences: on resample b,
    the pool's sentences that b draws from News training and test (each set's shared
    resamples, those of Table 2's News column), each at its length's fixed prediction: by
    hand with the same indices; the majority row the larger class's share of them."""
    from paracomp.eval import bootstrap
    from paracomp.papers.chen2020.specificity import length_normalised
    from paracomp.tables.replicates import read_replicates

    rng = np.random.default_rng(3)
    rows, sizes = [], {"news_train": 60, "news_test": 40}
    for name, n in sizes.items():
        for i in range(n):
            k = int(rng.integers(1, 6))
            rows.append([name, i, "w " * k, " ".join(["w"] * k), float(rng.random() < k / 6), ""])
    sentences = _sentences(tmp_path, rows, ["news_test", "news_train"])
    frame = pd.read_parquet(sentences)
    values = rng.normal(size=len(frame)) + frame["label"].to_numpy()
    scores = {"wordsum": _scores(tmp_path, "wordsum", frame, values),
              "majority": _scores(tmp_path, "majority", frame, np.zeros(len(frame)))}  # fmt: skip
    out = tmp_path / "table3.csv"
    write_score_table("table3", sentences, scores, SETTING, out)
    reps = read_replicates(out.with_name("table3.replicates.parquet"))
    assert reps.sets["wordsum|length_norm"] == ["chen2020/news_train", "chen2020/news_test"]
    ordered = frame  # written in order: News training 0-59, then test 0-39
    labels = ordered["label"].to_numpy() > 0
    lengths = ordered["tokens"].str.split().str.len().to_numpy()
    result = length_normalised(values, labels, lengths)
    index = np.concatenate([bootstrap.indices(f"chen2020/{name}", n) + offset for (name, n),
                            offset in zip(sizes.items(), (0, 60), strict=True)], axis=1)  # fmt: skip
    right = result.predicted == labels
    by_hand = [100 * np.mean([right[i] for i in row if result.tested[i]]) for row in index]
    np.testing.assert_allclose(reps.values["wordsum|length_norm"], by_hand, rtol=1e-12)
    share = [np.mean([labels[i] for i in row if result.tested[i]]) for row in index]
    majority = 100 * np.maximum(share, 1 - np.asarray(share))
    np.testing.assert_allclose(reps.values["majority|length_norm"], majority, rtol=1e-12)
    cell = _read(out).loc[("wordsum", "length_norm")]
    assert cell["ci_low"] <= cell["ours"] <= cell["ci_high"]
    first = out.with_suffix(".compare.csv").read_bytes()
    write_score_table("table3", sentences, scores, SETTING, out)  # same seed: same bytes
    assert out.with_suffix(".compare.csv").read_bytes() == first


def test_table1_counts_and_missing_sets(tmp_path):
    sentences = _sentences(
        tmp_path, _news_rows(), ["news_test", "news_train", "twitter"], {"yelp": "why"}
    )
    out = tmp_path / "table1.csv"
    write_score_table("table1", sentences, {}, SETTING, out)
    compare = _read(out)
    assert compare.loc[("instances", "news"), "ours"] == 4
    assert compare.loc[("instances", "news"), "paper"] == 900
    assert compare.loc[("instances", "twitter"), "ours"] == 3
    assert compare.loc[("instances", "yelp"), "note"] == "why"
    assert (
        "no interval: a count of the set's sentences" in compare.loc[("instances", "news"), "note"]
    )


SNLI_HEADER = (
    "gold_label\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\t"
    "sentence2_parse\tsentence1\tsentence2\tcaptionID\tpairID\tlabel1\tlabel2\tlabel3\t"
    "label4\tlabel5"
)


def _snli_line(label, premise, hypothesis, pair_id):
    parse = lambda words: "( " + " ".join(words.split()) + " )"  # noqa: E731
    fields = [label, parse(premise), parse(hypothesis), "(ROOT)", "(ROOT)", premise, hypothesis]
    return "\t".join([*fields, "c", pair_id, label, label, label, label, label])


def test_table4_on_a_hand_made_snli_file(tmp_path):
    """Premise/hypothesis norms of summed hand-made 1-d vectors: the hypothesis is less
    specific (smaller norm) in pairs 1 and 4 only."""
    folder = tmp_path / "snli"
    folder.mkdir()
    lines = [
        SNLI_HEADER,
        _snli_line("entailment", "big dog runs", "an animal moves", "1"),  # 6 > 3: counts
        _snli_line("entailment", "a dog", "an animal", "2"),  # 2 < 3: does not
        _snli_line("neutral", "a dog", "a big dog", "3"),  # unequal lengths: dropped
        _snli_line("neutral", "a cat", "the cat", "4"),  # 2 > 1: counts
        _snli_line("contradiction", "a cat", "no cat", "5"),  # 2 = 2: a tie does not count
        _snli_line("-", "a cat", "one cat", "6"),  # no gold label: dropped
    ]
    (folder / "snli_1.0_test.txt").write_text("\n".join(lines) + "\n")
    table, sources = build_sentences(None, None, folder, tokenizer="whitespace", lowercase=True)
    assert sources.facts["snli_equal_length"] == {
        "entailment": 2,
        "neutral": 1,
        "contradiction": 1,
    }
    assert "news_test" in sources.missing
    path = tmp_path / "sentences.parquet"
    table.to_parquet(path, index=False)
    sources.write(path.with_suffix(".json"))
    words = ["big", "dog", "runs", "an", "animal", "moves", "a", "cat", "the", "no"]
    values = [3.0, 2.0, 1.0, 1.0, 1.0, 1.0, 0.0, 2.0, -1.0, 0.0]  # "the cat": |−1 + 2| = 1
    vectors = tmp_path / "vectors.parquet"
    prov = artefacts.Provenance("hand", "test", {}, {})
    artefacts.write_embeddings(words, np.array(values, dtype=np.float32)[:, None], vectors, prov)
    scores = score_model("vectors_sum", table, vectors=vectors)
    scores_path = tmp_path / "glove_sum.parquet"
    scores.write(scores_path)
    out = tmp_path / "table4.csv"
    write_score_table("table4", path, {"glove_sum": scores_path}, SETTING, out)
    compare = _read(out)
    assert compare.loc[("glove", "entailment"), "ours"] == 50.0
    assert compare.loc[("glove", "neutral"), "ours"] == 100.0
    assert compare.loc[("glove", "contradiction"), "ours"] == 0.0
    assert (
        "1/2 equal-length test pairs (paper: 120)" in compare.loc[("glove", "entailment"), "data"]
    )
    assert NOT_OBTAINABLE in compare.loc[("infersent", "neutral"), "note"]
    assert "Equal-length SNLI test pairs" in out.with_suffix(".md").read_text()
    assert (
        "no interval: chen2020/snli_premise has 4 pairs (< 10)"
        in compare.loc[("glove", "neutral"), "note"]
    )
    # three copies of the pairs: each label's share on every resample of the 12 pairs
    (folder / "snli_1.0_test.txt").write_text("\n".join([SNLI_HEADER, *lines[1:] * 3]) + "\n")
    table, sources = build_sentences(None, None, folder, tokenizer="whitespace", lowercase=True)
    table.to_parquet(path, index=False)
    sources.write(path.with_suffix(".json"))
    score_model("vectors_sum", table, vectors=vectors).write(scores_path)
    write_score_table("table4", path, {"glove_sum": scores_path}, SETTING, out)
    from paracomp.eval import bootstrap
    from paracomp.tables.replicates import read_replicates

    reps = read_replicates(out.with_name("table4.replicates.parquet")).values
    premise = table[table["set"] == "snli_premise"].sort_values("index")
    labels = premise["gold"].to_numpy()
    less = np.tile([True, False, True, False], 3)  # pairs 1 and 4 of each copy
    for b in (0, 99):
        drawn = bootstrap.indices("chen2020/snli_premise", 12)[b]
        entail = labels[drawn] == "entailment"
        expected = 100 * less[drawn][entail].mean() if entail.any() else np.nan
        np.testing.assert_allclose(reps["glove|entailment"][b], expected)


def test_table4_without_snli_is_empty_with_the_reason(tmp_path):
    why = "no configured source (mirror, registry) provides dataset snli"
    table, sources = build_sentences(
        None, None, None, tokenizer="whitespace", lowercase=True, unavailable={"snli": why}
    )
    assert sources.reason("snli_premise") == why
    path = tmp_path / "sentences.parquet"
    table.to_parquet(path, index=False)
    sources.write(path.with_suffix(".json"))
    frame = pd.read_parquet(path)
    scores = {"wlo": _scores(tmp_path, "wlo", frame, np.zeros(0))}
    out = tmp_path / "table4.csv"
    write_score_table("table4", path, scores, SETTING, out)
    compare = _read(out)
    assert compare.loc[("wlo", "entailment"), "note"] == why
    assert compare["ours"].isna().all()


def test_table7_and_table8(tmp_path):
    sentences = _sentences(tmp_path, _news_rows(), ["news_test", "news_train", "twitter"])
    frame = pd.read_parquet(sentences)
    lengths = frame["tokens"].str.split().str.len().to_numpy(dtype=float)
    meta = {
        "kind": "run",
        "probabilistic": True,
        "sts": {"pearson": 0.5, "n": 10, "n_oov": 2, "split": "test"},
    }
    scores = {
        "wlo": _scores(tmp_path, "wlo", frame, lengths, meta),
        "wlo_noprior": _scores(tmp_path, "wlo_noprior", frame, -lengths, meta),
    }
    out = tmp_path / "table7.csv"
    write_score_table("table7", sentences, scores, SETTING, out)
    compare = _read(out)
    assert compare.loc[("wlo", "with_prior_acc"), "ours"] == 75.0
    # test predictions 0, 1, 1, 0 against 0, 1, 0, 0: F1(specific) = 2·1 / (2 + 1)
    assert compare.loc[("wlo", "with_prior_f1"), "ours"] == pytest.approx(66.7, abs=0.05)
    assert compare.loc[("wlo", "without_prior_acc"), "ours"] == 75.0  # all general
    out = tmp_path / "table8.csv"
    write_score_table("table8", sentences, {"wlo": scores["wlo"]}, SETTING, out)
    compare = _read(out)
    assert compare.loc[("wlo", "stsb"), "ours"] == 50.0
    assert "[μ ; σ²]" in compare.loc[("wlo", "stsb"), "data"]
    assert "not configured" in compare.loc[("wordavg", "stsb"), "note"]


def test_cells_over_seed_replicates(tmp_path, capsys):
    """A model's cells over its seeds (``seeds``: every seed's scores): the mean, their sd, a
    seed that collapsed left out and named; the other models' cells are their own."""
    sentences = _sentences(tmp_path, _news_rows(), ["news_test", "news_train", "twitter"])
    frame = pd.read_parquet(sentences)
    lengths = frame["tokens"].str.split().str.len().to_numpy(dtype=float)

    def run(name, values, r):
        sts = {"pearson": r, "n": 10, "n_oov": 0, "split": "test"}
        return _scores(tmp_path, name, frame, values, {"kind": "run", "sts": sts})

    seeds = {"wlo": {1: run("wlo", lengths, 0.5), 2: run("s2", -lengths, 0.6)}}
    seeds["wlo"][3] = run("s3", lengths, 0.7)
    scores = {"wlo": seeds["wlo"][1], "wlo_noprior": run("np", -lengths, 0.1)}
    out = tmp_path / "table8.csv"
    write_score_table("table8", sentences, scores, SETTING, out, seeds)
    compare = _read(out)
    assert compare.loc[("wlo", "stsb"), "ours"] == 60.0  # (50 + 60 + 70) / 3
    assert compare.loc[("wlo", "stsb"), "sd"] == pytest.approx(10.0)
    assert compare.loc[("wlo", "stsb"), "replicates"] == 3
    assert "mean over 3 seeds (1, 2, 3)" in compare.loc[("wlo", "stsb"), "note"]
    assert "Over seeds" in out.with_suffix(".md").read_text()
    out = tmp_path / "table7.csv"
    write_score_table("table7", sentences, scores, SETTING, out, seeds)
    compare = _read(out)
    # F1(specific): 66.7 for seeds 1 and 3, 0 for seed 2 (it predicts all general): collapsed
    assert compare.loc[("wlo", "with_prior_f1"), "ours"] == pytest.approx(66.7, abs=0.05)
    assert "seed 2 collapsed" in compare.loc[("wlo", "with_prior_f1"), "note"]
    assert compare.loc[("wlo", "with_prior_acc"), "ours"] == 75.0
    assert compare.loc[("wlo", "without_prior_acc"), "ours"] == 75.0
    assert pd.isna(compare.loc[("wlo", "without_prior_acc"), "sd"])  # one seed: its own
    # the command line: --seed-scores MODEL:SEED=PARQUET, a malformed one refused in one line
    import json

    from paracomp.cli import main

    args = ["chen2020", "table", "table8", "--sentences", str(sentences), "--setting"]
    args += [json.dumps({**SETTING, "frequencies": "training", "init": None,
                         "init_missing": None, "note": ""})]  # fmt: skip
    args += ["--scores", *(f"{m}={p}" for m, p in scores.items()), "--seed-scores"]
    seeded = [f"wlo:{s}={p}" for s, p in seeds["wlo"].items()]
    assert main([*args, *seeded, "--out", str(tmp_path / "cli.csv")]) == 0
    assert _read(tmp_path / "cli.csv").loc[("wlo", "stsb"), "ours"] == 60.0
    assert main([*args, f"wlo={seeds['wlo'][1]}", "--out", str(tmp_path / "bad.csv")]) != 0
    assert "--seed-scores: expected NAME:SEED=VALUE, got wlo=" in capsys.readouterr().err


def test_news_and_spearman_cells_have_paired_intervals(tmp_path):
    """40 News test and 30 Twitter sentences: a News cell's replicates are the accuracy (and
    F1) of the fixed-threshold predictions on each resample of the test sentences, a Twitter
    cell's the Spearman ρ on each resample; every model on the same resamples."""
    from scipy import stats

    from paracomp.eval import bootstrap
    from paracomp.papers.chen2020.specificity import binary_metrics
    from paracomp.tables.replicates import read_replicates

    rng = np.random.default_rng(0)
    rows = [r for r in _news_rows() if r[0] == "news_train"]
    for i in range(40):
        n = int(rng.integers(1, 6))
        rows.append(
            ["news_test", i, "w " * n, " ".join(["w"] * n), float(rng.random() < n / 6), ""]
        )
    for i in range(30):
        n = int(rng.integers(1, 8))
        rows.append(["twitter", i, "w " * n, " ".join(["w"] * n), n + rng.normal(), ""])
    sentences = _sentences(tmp_path, rows, ["news_test", "news_train", "twitter"])
    frame = pd.read_parquet(sentences)
    lengths = frame["tokens"].str.split().str.len().to_numpy(dtype=float)
    scores = {"length": _scores(tmp_path, "length", frame, lengths)}
    meta = {"kind": "run", "probabilistic": True}
    scores["wlo"] = _scores(tmp_path, "wlo", frame, lengths + rng.normal(size=len(frame)), meta)
    out = tmp_path / "table2.csv"
    write_score_table("table2", sentences, scores, SETTING, out)
    reps = read_replicates(out.with_name("table2.replicates.parquet"))
    assert reps.sets["length|news"] == reps.sets["wlo|news"] == ["chen2020/news_test"]
    test = frame[frame["set"] == "news_test"].sort_values("index")
    gold, predicted = test["label"].to_numpy() > 0, test["tokens"].str.split().str.len() > 2
    index = bootstrap.indices("chen2020/news_test", 40)
    for b in (0, 511):
        acc, f1, _ = binary_metrics(predicted.to_numpy()[index[b]], gold[index[b]])
        assert reps.values["length|news"][b] == pytest.approx(acc)
    twitter = frame[frame["set"] == "twitter"].sort_values("index")
    index = bootstrap.indices("chen2020/twitter", 30)[7]
    rho = stats.spearmanr(lengths[twitter.index][index], twitter["label"].to_numpy()[index])
    assert reps.values["length|twitter"][7] == pytest.approx(100 * rho.statistic)
    compare = _read(out)
    cell = compare.loc[("length", "twitter")]
    assert cell["ci_low"] <= cell["ours"] <= cell["ci_high"]
    out = tmp_path / "table7.csv"
    write_score_table("table7", sentences, {"wlo": scores["wlo"], "wlo_noprior": scores["wlo"]},
                      SETTING, out)  # fmt: skip
    f1 = read_replicates(out.with_name("table7.replicates.parquet")).values["wlo|with_prior_f1"]
    assert f1.shape == (bootstrap.RESAMPLES,) and np.isfinite(f1).all()


def test_table8_resamples_the_kept_sts_b_pairs(tmp_path):
    """Table 8 from scores that keep their 30 STS-B test pairs: the cell's replicates are the
    Pearson r ×100 on every resample of those pairs, under the generic evaluator's key."""
    from paracomp.eval import bootstrap
    from paracomp.tables.replicates import read_replicates

    sentences = _sentences(tmp_path, _news_rows(), ["news_test", "news_train", "twitter"])
    frame = pd.read_parquet(sentences)
    rng = np.random.default_rng(5)
    gold = rng.uniform(0, 5, 30)
    pred = gold + rng.normal(size=30)
    sts = {"pearson": float(np.corrcoef(gold, pred)[0, 1]), "n": 30, "n_oov": 0, "split": "test",
           "key": "stsbenchmark/stsb/test", "gold": gold.tolist(), "pred": pred.tolist()}  # fmt: skip
    meta = {"kind": "run", "probabilistic": True, "sts": sts}
    scores = {"wlo": _scores(tmp_path, "wlo", frame, np.zeros(len(frame)), meta)}
    out = tmp_path / "table8.csv"
    write_score_table("table8", sentences, scores, SETTING, out)
    reps = read_replicates(out.with_name("table8.replicates.parquet"))
    assert reps.sets["wlo|stsb"] == ["stsbenchmark/stsb/test"]
    drawn = bootstrap.indices("stsbenchmark/stsb/test", 30)[9]
    expected = 100 * np.corrcoef(gold[drawn], pred[drawn])[0, 1]
    assert reps.values["wlo|stsb"][9] == pytest.approx(expected)


def test_table8_and_table2_report_the_untrained_baseline(tmp_path):
    """The initial vectors' row sits before the trained rows (no paper value, left out of the
    mean |Δ|); a trained cell below it in its column is noted, one above it is not."""
    sentences = _sentences(tmp_path, _news_rows(), ["news_test", "news_train", "twitter"])
    frame = pd.read_parquet(sentences)
    lengths = frame["tokens"].str.split().str.len().to_numpy(dtype=float)

    def meta(r, kind="run"):
        return {"kind": kind, "probabilistic": False, "sts": {"pearson": r, "n": 10, "n_oov": 1, "split": "test"}}  # fmt: skip

    scores = {
        "initial": _scores(tmp_path, "initial", frame, lengths, meta(0.4, "vectors_avg")),
        "wordavg": _scores(tmp_path, "wordavg", frame, lengths, meta(0.6)),
        "wlo": _scores(tmp_path, "wlo", frame, -lengths, meta(0.3)),
    }
    setting = {**SETTING, "init": {"embeddings": "hand-made-init"}}
    out = tmp_path / "table8.csv"
    write_score_table("table8", sentences, scores, setting, out)
    compare = _read(out)
    rows = list(dict.fromkeys(compare.index.get_level_values("row")))
    assert rows == ["initial", "wordavg", "lstm_avg", "lstm_gaussian", "wlo"]
    assert compare.loc[("initial", "stsb"), "ours"] == 40.0
    assert math.isnan(compare.loc[("initial", "stsb"), "paper"])
    assert (
        "below the untrained initial vectors averaged (40.0" in compare.loc[("wlo", "stsb"), "note"]
    )
    assert "below" not in compare.loc[("wordavg", "stsb"), "note"]
    markdown = out.with_suffix(".md").read_text()
    assert "Initial vectors AVG (hand-made-init, untrained)" in markdown
    assert "1 of the 2 trained cells are below it" in markdown
    assert "over 2 comparable cells" in markdown
    out = tmp_path / "table2.csv"
    write_score_table("table2", sentences, scores, setting, out)
    compare = _read(out)
    # lengths predict News and Twitter perfectly in rank: WLO's negated lengths fall below
    assert compare.loc[("initial", "twitter"), "ours"] == 50.0
    assert compare.loc[("wlo", "twitter"), "ours"] == -50.0
    assert "below the untrained" in compare.loc[("wlo", "twitter"), "note"]
    assert "below the untrained" not in compare.loc[("wordavg", "twitter"), "note"]
    # without the baseline's scores the tables are as before
    out = tmp_path / "plain8.csv"
    write_score_table("table8", sentences, {"wlo": scores["wlo"]}, SETTING, out)
    assert "initial" not in _read(out).index.get_level_values("row")


def test_vectors_score_the_sts_benchmark(tmp_path):
    """A vectors kind given the STS Benchmark scores it averaged (unknown words skipped)."""
    sentences = _sentences(tmp_path, _news_rows(), ["news_test", "news_train", "twitter"])
    words = ["a", "cat", "dog", "car", "w"]
    vectors = np.array([[1, 1], [1, 0], [0.9, 0.1], [0, 1], [1, 1]], dtype=np.float32)
    path = tmp_path / "vectors.parquet"
    artefacts.write_embeddings(words, vectors, path, artefacts.Provenance("hand", "hand", {}, {}))
    sts = pd.DataFrame(
        {
            "dataset": "stsbenchmark",
            "subset": "stsb",
            "split": "test",
            "id": ["1", "2", "3"],
            "s1": ["a cat", "a cat", "a cat zzz"],
            "s2": ["a dog", "a car", "a cat"],
            "score": [4.0, 1.0, 5.0],
        }
    )
    sts_path = tmp_path / "sts.parquet"
    sts.to_parquet(sts_path, index=False)
    result = score_model(
        "vectors_avg",
        pd.read_parquet(sentences),
        vectors=path,
        sts=sts_path,
        sts_args=("stsb", "test", "whitespace", True),
    )
    assert result.meta["sts"]["n"] == 3 and result.meta["sts"]["n_oov"] == 1
    assert result.meta["sts"]["pearson"] > 0.9  # cosines 0.995, 0.8, 1 against 4, 1, 5


def test_an_unknown_scorer_is_one_line_naming_the_known_ones():
    from paracomp.errors import ConfigError

    with pytest.raises(ConfigError, match=r"^--kind: 'x' is not a scorer; known: run, run_sum"):
        score_model("x", pd.DataFrame({"set": [], "index": [], "tokens": []}))


def test_setting_names_the_kept_weights():
    from paracomp.papers.chen2020.tables import row_notes, setting_lines

    assert "; 1 epochs (the paper" in setting_lines(SETTING)[0]
    kept = {**SETTING, "epochs": 8, "runs": {"wlo": {"keep_best": True, "evals_per_epoch": 4}}}
    said = "8 epochs, each run's weights at its best stsb dev r of 4 evaluations an epoch"
    assert said in setting_lines(kept)[0]
    assert said in row_notes(kept)["wlo"] and said in row_notes(kept)["wordavg"]


@pytest.mark.parametrize("settings", ["default", "published"])
def test_the_workflows_setting_is_what_the_table_command_reads(settings):
    """Every key the workflow passes as ``--setting`` is one the table command knows."""
    import json

    from paracomp.papers.chen2020.cli import _setting
    from paracomp.papers.chen2020.workflow import Inputs
    from paracomp.registry import paper_settings

    inputs = Inputs(paper_settings("chen2020", settings), {}, {}, None, None, "moses", True)
    setting = inputs.setting("a note")
    assert _setting(json.dumps(setting)) == setting
    assert setting["frequencies"] == ("glove-6b-50d" if settings == "default" else "training")
