"""A 1-epoch smoke run on a small real subset: KJV–WEB verse pairs from the Debian packages,
WLO with mega-batches, scrambling and the prior, scored on the mirror's specificity sets
through the CLI, Tables 2 and 5 built from it."""

import math

import pandas as pd
import pyarrow.parquet as pq
import pytest

from paracomp.cli import main
from paracomp.corpus.english_bible import paraphrase_pairs, read_kjv_web
from paracomp.papers.chen2020.corpus import subsets
from paracomp.run_config import TrainConfig
from paracomp.train.tasks import train_pairs

SETTING = (
    '{"corpus": "400 KJV-WEB verses", "max_tokens": 30, "train_pairs": null, "epochs": 1,'
    ' "tuning": {"set": "stsbenchmark", "subset": "stsb", "split": "dev", "epochs": 1},'
    ' "news_train": "without-test", "vectors": "none", "frequencies": "training", "init": null,'
    ' "init_missing": null,'
    ' "runs": {}, "grids": {}, "note": ""}'
)


@pytest.mark.slow
def test_bible_pairs_wlo_one_epoch_and_tables(tmp_path, package_root, mirror):
    verses = read_kjv_web(package_root("sword-text-kjv"), package_root("sword-text-web"))
    assert len(verses) > 31000
    assert verses[0][0] == "Gen.1.1" and "beginning" in verses[0][1]
    table = paraphrase_pairs(verses[:400], max_tokens=30)
    assert 100 < table.num_rows < 400
    assert all(s1 != s2 for s1, s2 in zip(table["s1"].to_pylist(), table["s2"].to_pylist()))
    assert "¶" not in " ".join(table["s1"].to_pylist())
    train, tuning = subsets(table, 30, None, 50, seed=1)
    assert tuning.num_rows == 50 and set(tuning["id"].to_pylist()) <= set(train["id"].to_pylist())
    pq.write_table(train, tmp_path / "train.parquet")

    config = TrainConfig.from_dict(
        {
            "objective": "paraphrase", "composer": "wlo", "dim": 50, "score": "log_eip",
            "margin": 1.0, "shared_vocab": True, "min_count": 2, "export_unk": True,
            "optimizer": "adam", "lr": 0.001, "batch_size": 100, "megabatch": 20,
            "scramble": 0.4, "prior_weight": 0.001, "epochs": 1,
        }
    )  # fmt: skip
    run = tmp_path / "runs" / "wlo"
    result = train_pairs(config, train, run, progress=False)
    assert len(result.history) == 1 and math.isfinite(result.history["loss"].iloc[0])

    sentences = tmp_path / "sentences.parquet"
    news, ko = (tmp_path / name for name in ("specificity-news-speciteller", "specificity-ko2019"))
    for folder in (news, ko):
        if not (mirror / folder.name).is_dir():
            pytest.skip(f"the mirror has no {folder.name}")
        assert (
            main(["fetch", "mirror", folder.name, "--mirror", str(mirror), "--out", str(folder)])
            == 0
        )
    assert main(["chen2020", "sentences", "--news", str(news), "--ko", str(ko),
                 "--out", str(sentences)]) == 0  # fmt: skip
    frame = pd.read_parquet(sentences)
    assert (frame["set"] == "news_test").sum() == 885
    scores = tmp_path / "wlo.parquet"
    args = ["chen2020", "scores", "--kind", "run", "--run", str(run), "--sentences", str(sentences)]
    assert main([*args, "--out", str(scores)]) == 0
    out = tmp_path / "table2.csv"
    args = ["chen2020", "table", "table2", "--sentences", str(sentences), "--scores"]
    assert main([*args, f"wlo={scores}", "--setting", SETTING, "--out", str(out)]) == 0
    compare = pd.read_csv(out.with_suffix(".compare.csv")).set_index(["row", "column"])
    assert 40.0 < compare.loc[("wlo", "news"), "ours"] < 100.0
    assert math.isfinite(compare.loc[("wlo", "twitter"), "ours"])
    params = '{"min_count": 2, "k": 20, "quantile": 0.5}'
    out = tmp_path / "table5.csv"
    args = ["chen2020", "word-lists", "--run", str(run), "--pairs", str(tmp_path / "train.parquet")]
    assert main([*args, "--params", params, "--corpus", "KJV-WEB", "--out", str(out)]) == 0
    lists = pd.read_csv(out)
    assert len(lists) == 20 and lists.iloc[:, 1:].notna().all().all()
