"""Tables 5-9 of Wieting et al. (2015) from hand-made scores, and the tables whose data is
missing: every cell computed as worked out here, or empty with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from paracomp.papers.wieting2015.tables import Sources, build_tables, write_table

# Annotated-PPDB test: 8 pairs (cosines chosen so that 2·cos + 3 is a whole number).
PAIRS = [
    ("a b", "c d e f"),  # length ratio 0.5; overlap 0.5 with the lexical pair (a, c)
    ("a b c", "d e f g"),  # 0.75
    ("m n", "o p"),
    ("m n o", "p q"),
    ("r s", "t u"),
    ("x y", "z w"),  # 1.0
    ("p q r", "s t u v"),  # 0.75
    ("does not exceed", "is no more than"),  # Table 8's row 8: 0.75, overlap 0
]
GOLD = [1.2, 1.8, 2.5, 3.2, 3.8, 4.2, 4.6, 5.0]
ADD = [-0.5, 0.0, 0.0, 0.5, 0.5, 0.5, 1.0, 0.0]  # mapped 2, 3, 3, 4, 4, 4, 5, 3
RNN = [-1.0, -0.5, 0.0, 0.0, 0.5, 0.5, 1.0, 1.0]  # mapped 1, 2, 3, 3, 4, 4, 5, 5
INIT = [0.1, 0.3, 0.2, 0.5, 0.4, 0.7, 0.6, 0.9]
SETTING = {
    "init": {"embeddings": "glove-6b-50d", "size": 100, "dim": 50},
    "lexical": "ppdb-xl-lexicon",
    "words": {"epochs": 1, "grid": []},
    "rnn": {"epochs": 1, "grid": []},
    "mapping": "linear",
    "ml": "ratings",
}
SPEC = {"columns": {}}


def _rows(set_name, subset, split, pairs, gold, pred):
    return [
        {
            "set": set_name,
            "subset": subset,
            "split": split,
            "id": f"{split}:{i:03d}",
            "s1": a,
            "s2": b,
            "gold": g,
            "pred": p,
            "oov": False,
        }
        for i, ((a, b), g, p) in enumerate(zip(pairs, gold, pred, strict=True))
    ]


# ML 2010 test per type: 4 pairs rated by 3 participants (one line per rating).
ML_PAIRS = [("big house", "large home"), ("old man", "new car"), ("red tie", "blue sky")]
ML_PAIRS.append(("hot tea", "warm drink"))
ML_RATINGS = [[6, 7, 5], [1, 2, 1], [3, 2, 4], [5, 6, 6]]
ML_PRED = {
    "init": [0.5, 0.6, 0.2, 0.4],
    "paragram": [0.8, 0.1, 0.3, 0.6],
    "rnn": [0.9, 0.2, 0.1, 0.7],
}


def _ml(model, kind, split="test"):
    pairs = [p for p in ML_PAIRS for _ in range(3)]
    gold = [float(r) for ratings in ML_RATINGS for r in ratings]
    pred = [p for p in ML_PRED[model] for _ in range(3)]
    return _rows("ml2010", kind, split, pairs, gold, pred)


@pytest.fixture()
def sources(tmp_path: Path) -> Sources:
    def scores(name, model_annotated, model_ml):
        rows = _rows("annotated-ppdb", "all", "test", PAIRS, GOLD, model_annotated)
        rows += _rows("annotated-ppdb", "all", "dev", PAIRS[:2], GOLD[:2], model_annotated[:2])
        for kind in ("jn", "nn", "vn"):
            rows += _ml(model_ml, kind) + _ml(model_ml, kind, "dev")
        path = tmp_path / f"{name}.parquet"
        pd.DataFrame(rows).to_parquet(path)
        return path

    init, paragram = scores("init", INIT, "init"), scores("paragram", ADD, "paragram")
    rnn, pairs = [], []
    for data in ("phrases", "jn", "nn", "vn"):
        run = scores(f"rnn-{data}", RNN, "rnn")
        selected = tmp_path / f"{data}.selected.json"
        record = {"point": {"reg_initial": 0.1}, "scores": str(run), "criterion": {"dev": 0.5}}
        selected.write_text(json.dumps({"record": record, "points": [record]}))
        rnn.append(selected)
        counts = tmp_path / f"{data}.json"
        counts.write_text(json.dumps({"kind": data, "ours": 10, "paper": 20}))
        pairs.append(counts)
    lexical = tmp_path / "lexical.parquet"
    pd.DataFrame({"s1": ["a"], "s2": ["c"]}).to_parquet(lexical)
    return Sources(rnn=rnn, scores=[init, paragram], pairs=pairs, lexical=lexical)


def _cells(table, sources, key=None):
    blocks = build_tables(table, sources, {"columns": {"x": {"stat": "x"}}}, SETTING, [])
    printed, built = next((p, b) for p, b in blocks if key is None or p.key == key)
    return {k: c.value for k, c in built.cells.items()}, built


def test_table7_by_hand(sources):
    cells, _ = _cells("table7", sources)
    expected_add = [1.0, 0.5, 0.5, 2.6 / 3]  # |mapped − gold| per gold range
    expected_rnn = [0.2, 0.5, 0.2, 0.2]
    for row, add, rnn in zip(("1-2", "2-3", "3-4", "4-5"), expected_add, expected_rnn, strict=True):
        assert cells[row, "add"] == pytest.approx(add)
        assert cells[row, "rnn"] == pytest.approx(rnn)


def test_table9_by_hand(sources):
    length, _ = _cells("table9", sources, "table9_length")
    overlap, _ = _cells("table9", sources, "table9_overlap")
    change = 100 * (0.2 - 1.2) / 1.2
    assert length["positive", "low"] is None  # no positive pair with a length ratio <= 0.6
    assert length["positive", "mid"] == pytest.approx(change)  # rows 7, 8
    assert length["positive", "high"] == pytest.approx(0.0)  # row 6: equal errors
    assert length["negative", "low"] == pytest.approx(-75.0)  # row 1: 0.8 -> 0.2
    assert length["negative", "mid"] == pytest.approx(change)  # row 2: 1.2 -> 0.2
    assert length["both", "mid"] == pytest.approx(change)  # rows 2, 7, 8: 1.2 -> 0.2
    assert overlap["negative", "mid"] == pytest.approx(-75.0)  # row 1 via (a, c)
    assert overlap["both", "low"] == pytest.approx(100 * (0.2 - 0.95) / 0.95)  # 2, 6, 7, 8


def test_table8_finds_the_printed_pair(sources):
    cells, built = _cells("table8", sources)
    assert cells["8", "gold"] == 5.0
    assert cells["8", "add"] == pytest.approx(3.0) and cells["8", "rnn"] == pytest.approx(5.0)
    assert cells["8", "length_ratio"] == 0.75 and cells["8", "overlap_ratio"] == 0.0
    assert cells["1", "gold"] is None
    assert "not in the mirror" in built.cells["1", "gold"].reason


def test_table5_spearman_over_ratings_and_marks(sources):
    cells, built = _cells("table5", sources)
    gold = [r for ratings in ML_RATINGS for r in ratings]
    for row, model in (
        ("skipgram_add", "init"),
        ("paragram_add", "paragram"),
        ("paragram_rnn", "rnn"),
    ):
        pred = [p for p in ML_PRED[model] for _ in range(3)]
        expected = spearmanr(gold, pred).statistic
        for kind in ("jn", "nn", "vn"):
            assert cells[row, f"ml_{kind}"] == pytest.approx(expected)
        assert cells[row, "ml_avg"] == pytest.approx(expected)
    note = built.cells["paragram_rnn", "ml_jn"].reason
    assert "* over skip-gram +: z=" in note and "‡ over Hashimoto et al.: not computed" in note
    assert cells["hashimoto2014", "ml_jn"] is None


def test_written_table_has_marks_and_notes(sources, tmp_path):
    out = tmp_path / "table9.csv"
    write_table("table9", sources, SPEC, SETTING, [], out)
    wide = pd.read_csv(out)
    assert list(wide.columns) == ["block", "row", "bin 1", "bin 2", "bin 3", "bins"]
    assert list(wide["block"]) == ["length"] * 3 + ["overlap"] * 3
    assert wide["bins"].iloc[0] == "[0, 0.6] | (0.6, 0.8] | (0.8, 1]"
    compare = pd.read_csv(tmp_path / "table9.compare.csv")
    assert "length:positive" in set(compare["row"]) and len(compare) == 18


def test_unavailable_data_empties_every_cell(tmp_path):
    reason = "annotated-ppdb is unavailable: no source in mirror, registry provides it"
    out = tmp_path / "table6.csv"
    spec = {"columns": {"annotated_ppdb": {"stat": "annotated_ppdb"}}}
    write_table("table6", Sources(), spec, SETTING, [reason], out)
    compare = pd.read_csv(tmp_path / "table6.compare.csv")
    assert compare["ours"].isna().all() and (compare["note"] == reason).all()


def test_table1_empty_with_the_configured_reason(tmp_path):
    spec = {
        "columns": {"md": {"reason": "raw scores unobtainable"}, "pct_data": {"reason": "idem"}}
    }
    write_table("table1", Sources(), spec, SETTING, [], tmp_path / "table1.csv")
    compare = pd.read_csv(tmp_path / "table1.compare.csv")
    assert compare["ours"].isna().all()
    assert set(compare["note"]) == {"raw scores unobtainable", "idem"}
    assert np.isclose(compare["paper"].sum(), 0.66 + 1.05 + 0.93 + 0.59 + 8.1 + 20.0 + 34.9 + 36.9)


def test_spearman_cells_carry_replicates_or_say_why_not(sources):
    """ML 2010 (12 ratings a type): each type's ρ on its own set's resamples, the same for
    every row; the average the mean of the three; Annotated-PPDB's 8 test pairs: no interval."""
    from paracomp.eval import bootstrap
    from paracomp.papers.wieting2015.phrase_tables import ANNOTATED
    from paracomp.papers.wieting2015.table_cells import rho_cell

    _, built = _cells("table5", sources)
    jn = built.cells["paragram_rnn", "ml_jn"]
    assert jn.sets == ("ml2010/jn/test/ratings",)
    index = bootstrap.indices("ml2010/jn/test/ratings", 12)[3]
    gold = np.array([r for ratings in ML_RATINGS for r in ratings], float)
    pred = np.array([p for p in ML_PRED["rnn"] for _ in range(3)])
    expected = spearmanr(gold[index], pred[index]).statistic
    assert jn.boot[3] == pytest.approx(expected) or np.isnan(expected) and np.isnan(jn.boot[3])
    kinds = [built.cells["paragram_rnn", f"ml_{k}"].boot for k in ("jn", "nn", "vn")]
    np.testing.assert_allclose(built.cells["paragram_rnn", "ml_avg"].boot, np.mean(kinds, 0))
    assert not np.array_equal(kinds[0], kinds[1])  # the types are resampled independently
    cell = rho_cell(np.array(GOLD), np.array(RNN), ANNOTATED, "")
    assert cell.boot is None and cell.noise.endswith("annotated-ppdb/all/test has 8 pairs (< 10)")


def test_table7_errors_per_gold_range_on_every_resample():
    from paracomp.eval import bootstrap
    from paracomp.papers.wieting2015.error_tables import ANNOTATED, Cell, _range_replicates

    rng = np.random.default_rng(1)
    gold = rng.uniform(1, 5, 60)
    mapped = gold + rng.normal(size=60)
    inside = (gold >= 2) & (gold < 3)
    cell = _range_replicates(Cell(1.0, ""), gold, mapped, 1, int(inside.sum()))
    drawn = bootstrap.indices(ANNOTATED, 60)[5]
    expected = np.abs(mapped - gold)[drawn][inside[drawn]].mean()
    assert cell.boot[5] == pytest.approx(expected) and cell.sets == (ANNOTATED,)
    few = _range_replicates(Cell(1.0, ""), gold[:20], mapped[:20], 1, 4)
    assert few.boot is None and few.noise.endswith("in gold range 2 has 4 pairs (< 10)")


def test_table9_change_of_error_on_every_resample():
    """A cell's replicate is :func:`error_change` on the resampled pairs."""
    from paracomp.eval import bootstrap
    from paracomp.papers.wieting2015.error_tables import (
        ANNOTATED,
        ERROR_GROUPS,
        Cell,
        _change_replicates,
    )  # fmt: skip
    from paracomp.papers.wieting2015.errors import LENGTH_BINS, bin_index, error_change

    rng = np.random.default_rng(2)
    gold = rng.uniform(1, 5, 120)
    add, rnn = gold + rng.normal(size=120), gold + 0.7 * rng.normal(size=120)
    ratios = rng.uniform(0.3, 1.0, 120)
    inside = ERROR_GROUPS["both"](gold) & (bin_index(ratios, LENGTH_BINS) == 1)
    cell = _change_replicates(Cell(0.0, ""), gold, add, rnn, inside)
    drawn = bootstrap.indices(ANNOTATED, 120)[4]
    changed = error_change(gold[drawn], add[drawn], rnn[drawn], ratios[drawn], LENGTH_BINS)
    assert cell.boot[4] == pytest.approx(changed["both"][1] / 100)


def _chain_seed(folder: Path, seed: int, shift: float) -> list[Path]:
    """Seed ``seed``'s chain files: its RNNs and PARAGRAM addition, predictions moved by
    ``shift`` on the pairs they rank (the marks are the own seed's)."""

    def scores(name, annotated, ml):
        rows = _rows("annotated-ppdb", "all", "test", PAIRS, GOLD, annotated)
        ratings = [float(r) for each in ML_RATINGS for r in each]
        for kind in ("jn", "nn", "vn"):
            pairs = [p for p in ML_PAIRS for _ in range(3)]
            rows += _rows("ml2010", kind, "test", pairs, ratings, [p for p in ml for _ in range(3)])
        path = folder / f"{name}.parquet"
        pd.DataFrame(rows).to_parquet(path)
        return path

    moved_rnn = [p + shift * (i % 3) for i, p in enumerate(RNN)]
    moved_ml = [p + shift * (i % 2) for i, p in enumerate(ML_PRED["rnn"])]
    run = scores(f"rnn_seed{seed}", moved_rnn, moved_ml)
    files = []
    for data in ("phrases", "jn", "nn", "vn"):
        record = {"point": {"reg_initial": 0.01}, "scores": str(run), "criterion": {"dev": 0.4}}
        selected = folder / f"{data}_seed{seed}.selected.json"
        selected.write_text(json.dumps({"record": record, "points": [record]}))
        files.append(selected)
    moved_add = [p - shift * (i % 2) for i, p in enumerate(ADD)]
    moved_ml_add = [p - shift * (i % 3) for i, p in enumerate(ML_PRED["paragram"])]
    scores(f"paragram_seed{seed}", moved_add, moved_ml_add)
    return [*files, folder / f"paragram_seed{seed}.parquet"]


def test_tables5_and_6_paragram_rows_over_the_chain_seeds(sources, tmp_path, monkeypatch):
    from paracomp.papers.wieting2015 import phrase_tables

    # Table 6's overlap rows lemmatise with WordNet: words as they are (no WordNet here)
    monkeypatch.setattr(phrase_tables, "_lemmatizer", lambda wordnet: lambda word: word)
    chain = tmp_path / "chain"
    chain.mkdir()
    seeds = [path for s in (2, 3) for path in _chain_seed(chain, s, 0.2 * (s - 1))]
    seeded = Sources(**{**vars(sources), "seeds": seeds, "own_seed": 1})
    ml_gold = [r for ratings in ML_RATINGS for r in ratings]
    for table, column, gold in (("table6", "annotated_ppdb", GOLD), ("table5", "ml_nn", ml_gold)):
        one, _ = _cells(table, sources)
        _, built = _cells(table, seeded)
        for row in ("paragram_add", "paragram_rnn"):
            name = "rnn" if row == "paragram_rnn" else "paragram"
            each = [one[row, column]]
            for s in (2, 3):
                part = pd.read_parquet(chain / f"{name}_seed{s}.parquet")
                name_, subset = ("annotated-ppdb", "all") if table == "table6" else ("ml2010", "nn")
                part = part[(part["set"] == name_) & (part["subset"] == subset)]
                each.append(spearmanr(gold, part["pred"]).statistic)
            cell = built.cells[row, column]
            assert cell.value == pytest.approx(np.mean(each)) and cell.replicates == 3
            assert cell.sd == pytest.approx(np.std(each, ddof=1)) and cell.sd > 0
            assert "mean over 3 seeds (1, 2, 3)" in cell.reason and "Steiger" in cell.reason
        plain = built.cells["skipgram_add", column]  # the initial vectors: no seed
        assert plain.value == one["skipgram_add", column] and plain.replicates == 1
        assert any("of the seed chain" in n for n in built.notes)
    _, five = _cells("table5", seeded)
    avg = five.cells["paragram_rnn", "ml_avg"]  # each seed's mean of JN, NN, VN, then over seeds
    assert avg.value == pytest.approx(five.cells["paragram_rnn", "ml_nn"].value)
    assert avg.boot is not None and avg.test is not None
