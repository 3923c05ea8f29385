"""Tables 3 (SimLex-999 ρ of the word vectors) and 4 (SST binary accuracy) of Wieting et
al. (2015). Table 4's accuracies carry test-set bootstrap replicates (:func:`_accuracy_cell`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from paracomp.eval import bootstrap
from paracomp.papers.wieting2015.scoring import word_predictions
from paracomp.papers.wieting2015.table_cells import (
    LITERATURE,
    RESAMPLER,
    Built,
    Sources,
    by_stem,
    chain_files,
    fmt_point,
    over_chain,
    read_json,
    rho_cell,
    seed_files,
    steiger_marks,
)
from paracomp.tables.build import Cell, over_seeds

# -- Table 3 ---------------------------------------------------------------------------------


def table3(src: Sources, columns: Mapping[str, Any]) -> Built:
    built = Built()
    simlex = pd.read_parquet(src.simlex)
    selected = {k: read_json(p) for k, p in by_stem(src.words).items()}
    seeded: dict[str, dict[int, dict[str, Any]]] = {}
    for name, seed, path in seed_files(src.seeds):
        seeded.setdefault(name, {})[seed] = read_json(path)
    models = {
        "skipgram_25": (src.init, "the initial vectors"),
        "paragram_ws": (Path(selected["ws"]["record"]["embeddings"]), "PARAGRAM_WS"),
        "paragram_ws_constraints": (
            Path(selected["constraints"]["record"]["embeddings"]),
            "+ constraints",
        ),
    }
    preds = {row: word_predictions(path, simlex) for row, (path, _) in models.items()}
    gold = preds["skipgram_25"][1]
    counts = read_json(src.counts)
    for row, (pred, row_gold, left_out) in preds.items():
        if len(row_gold) != len(gold) or not np.array_equal(row_gold, gold):
            raise ValueError(f"table3: {row} scores other SimLex pairs than the initial vectors")
        data = f"SimLex-999: {len(pred)} pairs, {left_out} with a word outside the vocabulary"
        reason = ""
        if row != "skipgram_25":
            chosen = selected["ws" if row == "paragram_ws" else "constraints"]
            scores = chosen["record"]["scores"]
            data += (
                f"; trained on {counts['ours']['kept']:,} {counts['source']} pairs"
                f"; grid point {fmt_point(chosen['record']['point'])} of "
                f"{len(chosen['points'])}, selected by 2·WS-S − WS-R = "
                f"{chosen['record']['criterion']['ws']:.3f} (WS-S "
                f"{scores['ws353-sim']['spearman']:.3f}, WS-R {scores['ws353-rel']['spearman']:.3f})"
            )
            _, reason = steiger_marks(
                gold, pred, {"*": ("the initial vectors", preds["skipgram_25"][0])}
            )
            reason += " (the paper's * is over 1000-d skip-gram, which is unavailable)"
        built.cells[row, "sl999"] = rho_cell(row_gold, pred, "wieting2015/simlex999", data, reason)
    for row, name in SEEDED_ROWS.items():
        if name in seeded:
            built.cells[row, "sl999"] = _over_seeds(built.cells[row, "sl999"], name, seeded[name],
                                                    simlex, gold)  # fmt: skip
            seeds = ", ".join(map(str, seeded[name]))
            built.notes.append(f"{row}: the mean over seeds {seeds} (each seed's word grid "
                               "trained and selected as the run's; ± over seeds and SimLex pairs).")  # fmt: skip
    built.cells["skipgram_1000", "sl999"] = Cell(
        None, "", "1000-d skip-gram vectors of Wikipedia 2013 are unobtainable"
    )
    for row in ("hill2014b", "hill2014a", "inter_annotator"):
        built.cells[row, "sl999"] = Cell(None, "", LITERATURE)
    ours, paper = counts["ours"], counts["paper"]
    paragram = selected["paragram"]["record"]
    built.notes.append(
        f"PARAGRAM (selected by SimLex-999 without constraints; the vectors Tables 4-9 start "
        f"from): grid point {fmt_point(paragram['point'])}, SL999 ρ "
        f"{paragram['criterion']['simlex']:.2f} (the paper's text: 0.57)."
    )
    built.notes += [
        f"Lexical training pairs ({counts['source']}): {ours['source']:,} read, "
        f"{ours['digits_or_oov']:,} with digits or out-of-vocabulary words and "
        f"{ours['redundant']:,} redundant removed, {ours['kept']:,} kept (paper: "
        f"{paper['source']:,}, {paper['digits_or_oov']:,}, {paper['redundant']:,}, "
        f"{paper['kept']:,}); constraint lists for {counts['constraint_words']:,} words "
        "(partners and their WordNet 3.0 lemmas).",
        "Marks: the paper's * is over 1000-d skip-gram (unavailable), so no mark is printed; "
        "the test over the initial vectors is in the compare file's notes.",
    ]
    return built


SEEDED_ROWS = {"paragram_ws": "ws", "paragram_ws_constraints": "constraints"}
"""Table 3's rows over the seeds of their word selection (``--seeds``)."""


def _over_seeds(
    cell: Cell,
    name: str,
    seeds: Mapping[int, Mapping[str, Any]],
    simlex: pd.DataFrame,
    gold: np.ndarray,
) -> Cell:
    """A row's cell over the seeds of selection ``name`` (seed -> its selected record): each
    seed's picked vectors scored on SimLex-999 as the run's own (``cell``), then combined
    (:func:`paracomp.tables.build.over_seeds`); the data and notes of the run's own seed."""
    per = {}
    for seed, chosen in seeds.items():
        pred = word_predictions(Path(chosen["record"]["embeddings"]), simlex)[0]
        per[seed] = rho_cell(gold, pred, "wieting2015/simlex999", cell.data)
    found = over_seeds(f"wieting2015/{name}", per)
    points = ", ".join(f"seed {s}: {fmt_point(c['record']['point'])}" for s, c in seeds.items())
    data = f"{cell.data}; over seeds, the grid point each picked: {points}"
    return dataclasses.replace(
        found, data=data, reason="; ".join(filter(None, [found.reason, cell.reason]))
    )


# -- Table 4 ---------------------------------------------------------------------------------

SST_ROWS = {"skipgram_25": "d25", "skipgram_50": "d50", "paragram_25": "paragram"}
SST_NAMES = {"d25": "GloVe 6B PCA 25d", "d50": "GloVe 6B 50d", "paragram": "our PARAGRAM"}


SST_TEST = "sst-binary/test"


def _accuracy_cell(result: Mapping[str, Any], data: str, scale: float) -> Cell:
    """A Table 4 cell with its test accuracy on every resample of the SST test sentences
    (every row on the same resamples), from the result's ``test_correct``."""
    value = result["test"] * scale
    hits = result.get("test_correct")
    if hits is None:
        return Cell(value, data, noise="no interval: the result keeps no test predictions")
    noise = bootstrap.too_few(len(hits), SST_TEST)
    if noise:
        return Cell(value, data, noise=noise)
    counts = RESAMPLER.counts(bootstrap.Sample.whole(SST_TEST, len(hits)))
    return Cell(value, data, "", bootstrap.mean(counts, np.asarray(hits)) * scale, (SST_TEST,))


def table4(src: Sources, columns: Mapping[str, Any], scale: float) -> Built:
    """Table 4; with seed replicates every row is over the chain's seeds (the CNN's seed and,
    for PARAGRAM, its vectors)."""
    built = Built()
    own = {k: read_json(p) for k, p in by_stem(src.sst).items()}
    built.cells.update(_table4_cells(own, scale))
    chain = chain_files(src)
    if chain:
        each = {
            seed: _table4_cells({k: read_json(p) for k, p in files.items()}, scale)
            if files
            else built.cells
            for seed, files in chain.items()
        }
        over_chain(built, list(SST_ROWS), each, scale)
    return built


def _table4_cells(results: Mapping[str, Mapping[str, Any]], scale: float) -> dict:
    """Table 4's cells from the CNN's result per vectors."""
    cells = {}
    for row, vectors in SST_ROWS.items():
        result = results[vectors]
        data = (
            f"{SST_NAMES[vectors]}; SST binary train {result['train']:,} / dev {result['dev_n']:,}"
            f" / test {result['test_n']:,}; best dev accuracy {100 * result['dev']:.1f} after "
            f"{result['seen']:,} of {result['of']:,} training examples"
        )
        cells[row, "accuracy"] = _accuracy_cell(result, data, scale)
    return cells
