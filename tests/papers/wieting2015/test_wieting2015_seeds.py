"""Seed replicates of wieting2015's word runs: ``replicates`` trains the word grids once per
seed (rule ``point``), each seed's grid is selected as the run's (``<selection>_seed<s>``) and
Table 3's PARAGRAM_WS rows are the mean over the seeds, with their sd and an interval over
seeds and SimLex pairs; the RNN and PARAGRAM's selection keep one seed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from paracomp import artefacts
from paracomp.papers import PAPERS
from paracomp.papers.wieting2015.tables import Sources
from paracomp.papers.wieting2015.word_tables import table3
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


def test_word_runs_take_replicates_and_the_rnn_keeps_one_seed():
    block = paper_settings("wieting2015", "default", {"replicates": 2})
    found = Registrations(PAPERS)
    runs = Runs({"wieting2015": block}, TRAINING, found)
    inputs = Inputs(block, {}, {}, ("mirror",), {}, runs.seed_folders("wieting2015"))
    for paper in PAPERS:
        found.register(Registration(paper, points=inputs if paper == "wieting2015" else None))
    assert set(runs.scored_runs()) - set(inputs.point_runs()) == {
        "words-ws_seed2",
        "words-constraints_seed2",
    }
    assert runs.scored_grid("wieting2015").point_settings("words-constraints_seed2") == {
        **inputs.point_settings("words-constraints"),
        "seed": 2,
    }
    assert inputs.seed_selections() == ["ws_seed1", "ws_seed2", "constraints_seed1",
                                        "constraints_seed2"]  # fmt: skip
    seeded = inputs.word_records(_Selection("constraints_seed2"))
    assert seeded[0] == "results/wieting2015/points/words-constraints_seed2/0/record.json"
    assert inputs.word_records(_Selection("ws_seed1")) == inputs.word_records(_Selection("ws"))
    assert Inputs.criterion(_Selection("constraints_seed2")) == "ws"
    # without replicates: no seed selections, the table reads what it read
    alone = Inputs(block, {}, {}, ("mirror",), {})
    assert alone.seed_selections() == []


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
