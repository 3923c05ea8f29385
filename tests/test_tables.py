"""Table machinery on a small hand-made evaluation: layout, rounding, groups, compare file."""

import json

import numpy as np
import pandas as pd
import pytest

from paracomp.cli import main
from paracomp.registry import printed_table, row_refs
from paracomp.tables.build import ModelEval, build

SUBSETS = {
    "sts2012": ["MSRpar", "MSRvid", "SMTeuroparl", "surprise.SMTnews", "surprise.OnWN"],
    "sts2013": ["headlines", "OnWN", "FNWN"],
    "sts2014": ["deft-forum", "deft-news", "headlines", "images", "OnWN", "tweet-news"],
    "sts2015": ["answers-forums", "answers-students", "headlines", "belief", "images"],
    "sick2014": ["sick"],
}


def toy_eval(drop=()):
    """Each subset gets 4 pairs whose correlation is known exactly."""
    rng = np.random.default_rng(0)
    metrics, pairs = [], []
    for dataset, subsets in SUBSETS.items():
        for subset in subsets:
            if (dataset, subset) in drop:
                metrics.append(
                    {
                        "dataset": dataset,
                        "subset": subset,
                        "split": "test",
                        "n": 0,
                        "n_oov": 0,
                        "n_dropped": 0,
                        "pearson": None,
                        "spearman": None,
                        "source": "registry",
                        "note": f"{subset} not in the STS-B-recoverable subset",
                    }
                )
                continue
            gold = np.array([0.0, 1.0, 2.0, 3.0])
            pred = gold + rng.normal(scale=0.8, size=4)
            r = float(np.corrcoef(gold, pred)[0, 1])
            metrics.append(
                {
                    "dataset": dataset,
                    "subset": subset,
                    "split": "test",
                    "n": 4,
                    "n_oov": 1,
                    "n_dropped": 0,
                    "pearson": r,
                    "spearman": r,
                    "source": "mirror",
                    "note": "",
                }
            )
            pairs += [
                {
                    "dataset": dataset,
                    "subset": subset,
                    "split": "test",
                    "id": str(i),
                    "gold": g,
                    "pred": p,
                    "oov": False,
                    "dropped": False,
                }
                for i, (g, p) in enumerate(zip(gold, pred))
            ]
    return ModelEval(pd.DataFrame(metrics), pd.DataFrame(pairs))


COLUMNS = {
    "glove": {"model": "g", "note": "GloVe 6B 50d, not 840B"},
    "mono_jbi": {"model": None, "reason": "not trained yet"},
}


def test_layout_rows_resolve():
    refs = row_refs("elgohary2016", "table3")
    assert refs["SMT-eur"].subset == "SMTeuroparl"
    assert [m.name for m in refs["2013 Avg"].members] == ["headline-2013", "OnWN-2013", "FNWN"]


def test_table3_cells_groups_and_compare():
    ev = toy_eval()
    wide, compare, md = build(
        printed_table("elgohary2016", "table3"),
        row_refs("elgohary2016", "table3"),
        COLUMNS,
        "mean",
        {"g": ev},
    )
    m = ev.metrics.set_index(["dataset", "subset"])["pearson"]
    assert wide.columns[0] == "Dataset" and len(wide) == 24
    glove = compare[compare["column"] == "glove"].set_index("row")
    assert glove.loc["MSRpar", "ours"] == round(m["sts2012", "MSRpar"], 2)
    assert glove.loc["2013 Avg", "ours"] == round(
        np.mean([m["sts2013", s] for s in SUBSETS["sts2013"]]), 2
    )
    assert glove.loc["SICK", "paper"] == 0.66
    assert glove.loc["SICK", "delta"] == pytest.approx(glove.loc["SICK", "ours"] - 0.66)
    assert "GloVe 6B 50d" in glove.loc["SICK", "note"] and "4 pairs" in glove.loc["SICK", "data"]
    mono = compare[compare["column"] == "mono_jbi"]
    assert mono["ours"].isna().all() and (mono["note"] == "not trained yet").all()
    label = printed_table("elgohary2016", "table3").column_label_of("mono_jbi")
    assert (wide[label] == "").all() and (
        wide[printed_table("elgohary2016", "table3").column_label_of("glove")] != ""
    ).all()
    assert "not trained yet" in md


def test_missing_subset_empties_its_group_with_reason():
    ev = toy_eval(drop={("sts2012", "SMTeuroparl")})
    _, compare, _ = build(
        printed_table("elgohary2016", "table3"),
        row_refs("elgohary2016", "table3"),
        COLUMNS,
        "mean",
        {"g": ev},
    )
    glove = compare[compare["column"] == "glove"].set_index("row")
    assert (
        pd.isna(glove.loc["SMT-eur", "ours"])
        and "STS-B-recoverable" in glove.loc["SMT-eur", "note"]
    )
    assert pd.isna(glove.loc["2012 Avg", "ours"]) and "SMT-eur" in glove.loc["2012 Avg", "note"]
    assert not pd.isna(glove.loc["2013 Avg", "ours"])


def test_cli_writes_three_files(tmp_path):
    ev = toy_eval()
    folder = tmp_path / "eval"
    folder.mkdir()
    ev.metrics.to_csv(folder / "sts.csv", index=False)
    ev.pairs.to_parquet(folder / "pairs.parquet")
    spec = {"aggregation": "pooled", "columns": {"glove": {"model": "g"}}}
    out = tmp_path / "table6.csv"
    assert (
        main(
            [
                "table",
                "elgohary2016",
                "table6",
                "--spec",
                json.dumps(spec),
                "--eval",
                f"g={folder}",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    table = pd.read_csv(out, dtype=str, keep_default_na=False)
    compare = pd.read_csv(tmp_path / "table6.compare.csv", dtype={"row": str})
    assert list(compare.columns) == [
        "row", "column", "ours", "paper", "delta", "ci_low", "ci_high", "sd", "replicates",
        "printed_inside", "data", "note",
    ]  # fmt: skip
    assert (tmp_path / "table6.replicates.parquet").exists()
    pooled = ev.pairs[ev.pairs["dataset"] == "sts2014"]
    expected = np.corrcoef(pooled["gold"], pooled["pred"])[0, 1]
    row = compare[(compare["row"] == "2014") & (compare["column"] == "glove")].iloc[0]
    assert row["ours"] == pytest.approx(round(expected, 2))
    assert table.iloc[2, -1] == f"{expected:.2f}"
    assert (tmp_path / "table6.md").read_text().startswith("# elgohary2016 table6")


def test_table6_plot_is_written(tmp_path):
    from paracomp.papers.elgohary2016.plot import plot_training_size

    columns = {
        c: {"model": "g"} for c in ["biphr_0.5m", "biphr_1m", "biphr_1.9m", "biphr_3m", "glove"]
    }
    _, compare, _ = build(
        printed_table("elgohary2016", "table6"),
        row_refs("elgohary2016", "table6"),
        columns,
        "mean",
        {"g": toy_eval()},
    )
    compare.to_csv(tmp_path / "table6.compare.csv", index=False)
    plot_training_size(tmp_path / "table6.compare.csv", tmp_path / "table6.png")
    assert (tmp_path / "table6.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_statistic_cell_says_why_it_has_no_interval():
    """A column read from a statistics file (Tables 2, 4, 5) is not computed from resampled
    test pairs: no interval, and the compare file's note says so, naming the statistic."""
    from paracomp.tables.build import STAT_NOISE, build_cells, compare_table

    printed = printed_table("elgohary2016", "table2")
    row = printed.rows[0]
    stats = {"rows": {row: {"pairs": 1234}}, "data": {row: "counted"}}
    columns = {c: {"stat": "pairs"} for c in printed.columns}
    cells = build_cells(printed, {}, columns, "mean", {}, stats)
    compare = compare_table(printed, cells, columns).set_index(["row", "column"])
    first = compare.loc[(row, printed.columns[0])]
    assert first["ours"] == 1234 and pd.isna(first["ci_low"])
    assert STAT_NOISE.format(stat="pairs") in first["note"]
