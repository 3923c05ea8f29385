"""Seed replicates of wieting2015: ``replicates`` trains the word grids once per seed (rule
``point``), each seed's grid is selected as the run's (``<selection>_seed<s>``) and Table 3's
PARAGRAM_WS rows are the mean over the seeds, with their sd and an interval over seeds and
SimLex pairs; the seed chain (seed s's PARAGRAM, the RNN grids that start from it, its
addition scores and SST CNNs) serves Tables 4-6."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from paracomp import artefacts
from paracomp.errors import ConfigError
from paracomp.papers import PAPERS
from paracomp.papers.wieting2015.table_cells import seed_files
from paracomp.papers.wieting2015.tables import Sources
from paracomp.papers.wieting2015.word_tables import SST_ROWS, table3, table4
from paracomp.papers.wieting2015.workflow import Inputs
from paracomp.registration import Registration, Registrations
from paracomp.registry import paper_settings
from paracomp.workflow.runs import Runs

TRAINING = {"defaults": {}, "allow_cpu_fallback": False, "grid_points": {"warn": 3, "limit": 50}}
WORDS = [f"w{i}" for i in range(60)]
GOLD = np.random.default_rng(0).uniform(0, 10, 30)


class _Selection:
    def __init__(self, selection: str) -> None:
        self.selection = selection


class _Wildcards:
    def __init__(self, **values: str) -> None:
        self.__dict__.update(values)


class _Input(dict):
    """A rule's named input, as table_args reads it."""

    def __getattr__(self, name: str):
        return self[name]


def _seeded(replicates: int, **block: object) -> tuple[Inputs, Runs]:
    block = paper_settings("wieting2015", "default", {"replicates": replicates, **block})
    found = Registrations(PAPERS)
    runs = Runs({"wieting2015": block}, TRAINING, found)
    folders = {d: f"resources/mirror/{d}" for d in ("ppdb-xl-lexicon", "sst-binary",
               "ppdb-phrase-train-60k", "ppdb-bigram-train", "annotated-ppdb", "ml2010-bigrams")}  # fmt: skip
    folders["lexical"] = folders["ppdb-xl-lexicon"]
    sets = {s: f"resources/sets/{s}.parquet" for s in ("simlex999", "ws353-sim", "ws353-rel")}
    inputs = Inputs(block, {}, folders, ("mirror",), sets, runs.seed_folders("wieting2015"))
    for paper in PAPERS:
        found.register(Registration(paper, points=inputs if paper == "wieting2015" else None))
    return inputs, runs


def test_word_and_rnn_runs_take_replicates_as_a_seed_chain():
    inputs, runs = _seeded(2)
    assert set(runs.scored_runs()) - set(inputs.point_runs()) == {
        "words-ws_seed2",
        "words-constraints_seed2",
        *(f"rnn-{d}_seed2" for d in ("phrases", "jn", "nn", "vn")),
    }
    grid = runs.scored_grid("wieting2015")
    assert grid.point_settings("words-constraints_seed2") == {
        **inputs.point_settings("words-constraints"),
        "seed": 2,
    }
    assert inputs.seed_selections() == ["ws_seed1", "ws_seed2", "constraints_seed1",
                                        "constraints_seed2"]  # fmt: skip
    seeded = inputs.word_records(_Selection("constraints_seed2"))
    assert seeded[0] == "results/wieting2015/points/words-constraints_seed2/0/record.json"
    assert inputs.word_records(_Selection("ws_seed1")) == inputs.word_records(_Selection("ws"))
    assert Inputs.criterion(_Selection("constraints_seed2")) == "ws"
    # seed 2's RNN starts from seed 2's PARAGRAM, selected from seed 2's word grid
    assert (
        grid.point_inputs("rnn-jn_seed2")["init"]
        == "results/wieting2015/words/paragram_seed2.parquet"
    )
    assert (
        grid.point_inputs("rnn-jn")["init"] == "resources/embeddings/paragram-wieting2015.parquet"
    )
    assert grid.point_settings("rnn-jn_seed2")["seed"] == 2
    assert inputs.chain_seeds() == [2]
    assert inputs.rnn_records(_Wildcards(rnn="jn_seed2"))[0] == (
        "results/wieting2015/points/rnn-jn_seed2/0/record.json"
    )
    assert inputs.addition_vectors(_Wildcards(vectors="paragram_seed2")) == inputs.paragram(2)
    assert (
        inputs.sst_vectors(_Wildcards(vectors="d25_seed2"))
        == "resources/wieting2015/init/d25.parquet"
    )
    assert inputs.sst_vectors(_Wildcards(vectors="paragram_seed2")) == inputs.paragram(2)
    own = json.loads(inputs.sst_params(_Wildcards(vectors="d50")))["seed"]
    assert json.loads(inputs.sst_params(_Wildcards(vectors="d50_seed2")))["seed"] == own + 1
    # the tables the claims read get the chain's other seeds, and its own seed
    table4 = inputs.table_inputs(_Wildcards(table="table4"))
    assert table4["seeds"] == [f"results/wieting2015/sst/{v}_seed2.json"
                               for v in ("d25", "d50", "paragram")]  # fmt: skip
    table6 = inputs.table_inputs(_Wildcards(table="table6"))
    assert table6["seeds"] == ["results/wieting2015/rnn/phrases_seed2.selected.json",
                               "results/wieting2015/scores/paragram_seed2.parquet"]  # fmt: skip
    args = inputs.table_args(_Wildcards(table="table6"), _Input(table6))
    assert args.endswith("--own-seed 1") and "phrases_seed2.selected.json" in args
    assert "seeds" not in inputs.table_inputs(_Wildcards(table="table7"))


def test_without_replicates_the_tables_read_what_they_read():
    inputs, runs = _seeded(1)
    assert set(runs.scored_runs()) == set(inputs.point_runs())
    assert inputs.seed_selections() == [] and inputs.chain_seeds() == []
    for table in ("table3", "table4", "table5", "table6"):
        found = inputs.table_inputs(_Wildcards(table=table))
        assert "seeds" not in found
        assert "--own-seed" not in inputs.table_args(_Wildcards(table=table), _Input(found))


def test_a_chain_needs_the_rnn_on_the_word_runs_seed():
    block = paper_settings("wieting2015", "default", {})
    rnn = {**block["rnn"], "run": {**block["rnn"]["run"], "seed": 7}}
    inputs, _ = _seeded(2, rnn=rnn)
    with pytest.raises(ConfigError, match="rnn runs' seed \\(7\\) must be the word runs' \\(1\\)"):
        inputs.chain_seeds()


def test_seed_files_are_named_by_their_seed():
    files = [Path("s/paragram_seed2.parquet"), Path("s/phrases_seed3.selected.json")]
    assert seed_files(files) == [("paragram", 2, files[0]), ("phrases", 3, files[1])]
    with pytest.raises(ValueError, match="s/paragram.parquet: a --seeds file is named"):
        seed_files([Path("s/paragram.parquet")])


def _embeddings(path: Path, noise: float, seed: int) -> Path:
    """Word i at an angle that grows with i plus noise, so cosines track a pair's gap."""
    rng = np.random.default_rng(seed)
    angles = np.linspace(0, np.pi / 2, len(WORDS)) + noise * rng.normal(size=len(WORDS))
    matrix = np.stack([np.cos(angles), np.sin(angles), 0.1 * np.ones(len(WORDS))], axis=1)
    prov = artefacts.Provenance("toy", "test", {}, {})
    artefacts.write_embeddings(WORDS, matrix, path, prov)
    return path


def _selected(path: Path, embeddings: Path, point: int) -> Path:
    record = {"embeddings": str(embeddings), "point": {"lr": [0.5, 0.05][point]},
              "criterion": {"ws": 0.3, "simlex": 0.4},
              "scores": {"ws353-sim": {"spearman": 0.5}, "ws353-rel": {"spearman": 0.4}}}  # fmt: skip
    path.write_text(json.dumps({"record": record, "points": [0.3, 0.2]}))
    return path


def test_table3_paragram_rows_over_seeds(tmp_path):
    pairs = pd.DataFrame({"w1": WORDS[:30], "w2": WORDS[30:], "score": GOLD})
    pairs.to_parquet(tmp_path / "simlex.parquet")
    counts = {"source": "toy", "constraint_words": 3,
              "ours": {"source": 9, "digits_or_oov": 1, "redundant": 1, "kept": 7},
              "paper": {"source": 9, "digits_or_oov": 1, "redundant": 1, "kept": 7}}  # fmt: skip
    (tmp_path / "counts.json").write_text(json.dumps(counts))
    vectors = {s: _embeddings(tmp_path / f"e{s}.parquet", 0.05 * s, s) for s in (1, 2, 3)}
    words = [_selected(tmp_path / f"{n}.selected.json", vectors[1], 0)
             for n in ("ws", "constraints", "paragram")]  # fmt: skip
    seeds = [
        _selected(tmp_path / f"ws_seed{s}.selected.json", vectors[s], (s + 1) % 2) for s in vectors
    ]
    init = _embeddings(tmp_path / "init.parquet", 0.5, 9)
    src = Sources(words=words, init=init, simlex=tmp_path / "simlex.parquet",
                  counts=tmp_path / "counts.json")  # fmt: skip
    one = table3(src, {}).cells
    built = table3(Sources(**{**vars(src), "seeds": seeds}), {})
    cells = built.cells
    assert any(n.startswith("paragram_ws: the mean over seeds 1, 2, 3") for n in built.notes)
    rhos = []
    for s in vectors:
        _, matrix = artefacts.read_embeddings(vectors[s])
        unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
        rhos.append(spearmanr(GOLD, np.sum(unit[:30] * unit[30:], axis=1)).statistic)
    cell = cells["paragram_ws", "sl999"]
    assert cell.value == pytest.approx(np.mean(rhos)) and cell.replicates == 3
    assert cell.sd == pytest.approx(np.std(rhos, ddof=1)) and cell.sd > 0
    assert one["paragram_ws", "sl999"].value == pytest.approx(rhos[0])
    assert one["paragram_ws", "sl999"].replicates == 1
    assert "mean over 3 seeds (1, 2, 3)" in cell.reason and "Steiger" in cell.reason
    assert (
        "seed 1: lr=0.5, seed 2: lr=0.05" in cell.data
        and cell.boot is not None
        and cell.test is not None
    )
    plain = cells["paragram_ws_constraints", "sl999"]  # no seeds of its selection given
    assert plain.value == one["paragram_ws_constraints", "sl999"].value and plain.replicates == 1


def _sst(path: Path, hits: np.ndarray) -> Path:
    result = {"test": float(hits.mean()), "test_correct": hits.astype(int).tolist(),
              "dev": 0.8, "train": 100, "dev_n": 20, "test_n": len(hits), "seen": 50, "of": 300}  # fmt: skip
    path.write_text(json.dumps(result))
    return path


def test_table4_rows_over_the_chain_seeds(tmp_path):
    rng = np.random.default_rng(4)
    hits = {(v, s): rng.permutation(60) < 30 + 3 * s + i  # 55-72%: no seed collapsed
            for i, v in enumerate(SST_ROWS.values()) for s in (1, 2, 3)}  # fmt: skip
    own = [_sst(tmp_path / f"{v}.json", hits[v, 1]) for v in SST_ROWS.values()]
    seeds = [_sst(tmp_path / f"{v}_seed{s}.json", hits[v, s])
             for s in (2, 3) for v in SST_ROWS.values()]  # fmt: skip
    one = table4(Sources(sst=own), {}, 100.0).cells
    built = table4(Sources(sst=own, seeds=seeds, own_seed=1), {}, 100.0)
    for row, vectors in SST_ROWS.items():
        cell = built.cells[row, "accuracy"]
        each = [100 * hits[vectors, s].mean() for s in (1, 2, 3)]
        assert cell.value == pytest.approx(np.mean(each)) and cell.replicates == 3
        assert cell.sd == pytest.approx(np.std(each, ddof=1))
        assert cell.test == pytest.approx(one[row, "accuracy"].boot)  # the own seed's
    assert any("the mean over seeds 1, 2, 3 of the seed chain" in n for n in built.notes)
    with pytest.raises(ValueError, match="--own-seed"):
        table4(Sources(sst=own, seeds=seeds), {}, 100.0)


@pytest.mark.slow
def test_the_seed_chain_in_the_dag(tmp_path, mirror, dry_run):
    targets = [f"results/wieting2015/table{n}.csv" for n in (4, 5, 6)]
    _, plain = dry_run(tmp_path / "plain", *targets, mirror=mirror)
    override = "papers: {wieting2015: {replicates: 2}}"
    out, seeded = dry_run(tmp_path / "seeded", *targets, mirror=mirror, override=override)
    more = {r: int(n) - int(plain.get(r, 0)) for r, n in seeded.items() if plain.get(r) != n}
    # seed 2: its word grids (2 variants × 2 points) and RNN grids (4 data × 2 points), its
    # PARAGRAM's selection and vectors, its 4 RNN selections, addition scores and 3 SST CNNs
    assert more == {
        "point": 4 + 8,
        "wieting2015_word_select": 1,
        "wieting2015_paragram_seed": 1,
        "wieting2015_rnn_select": 4,
        "wieting2015_add_scores": 1,
        "wieting2015_sst": 3,
        "total": 22,
    }
    assert "--init results/wieting2015/words/paragram_seed2.parquet" in out
    assert "--out results/wieting2015/points/rnn-vn_seed2/1 " in out
    assert "--seeds results/wieting2015/rnn/phrases_seed2.selected.json " in out
    assert out.count("--own-seed 1") == 3
