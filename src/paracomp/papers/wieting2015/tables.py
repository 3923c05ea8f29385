"""Tables 1–9 of Wieting et al. (2015) from the selected runs, the scores and the data.

Every cell is computed or empty with its reason. Values are Spearman's ρ (Tables 3, 5, 6),
accuracy (4), mean absolute error on the gold scale (7), scores (8) and percent change of
absolute error (9). The significance marks are Steiger's one-tailed test at p < 0.05
(:mod:`paracomp.eval.significance`) against the baselines the paper names; a mark whose
baseline is not computed here is left out of the table and said so, and every test's p-value
is in the cell's note of the compare file. The wide table appends our marks to the numbers,
as the paper prints them. The Spearman cells of Tables 3, 5 and 6 carry test-set bootstrap
replicates (:func:`rho_cell`: every row on the same resamples of the set's items), Table 7's
errors, Table 4's accuracies and Table 9's changes of error too (:func:`_range_replicates`,
:func:`_accuracy_cell`, :func:`_change_replicates`); Table 8 (examples) has none.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from paracomp.eval import bootstrap
from paracomp.eval.metrics import spearman
from paracomp.eval.significance import compare
from paracomp.papers.wieting2015.errors import (
    GOLD_BINS,
    LENGTH_BINS,
    OVERLAP_BINS,
    bin_index,
    error_by_gold_range,
    error_change,
    to_gold_scale,
)
from paracomp.papers.wieting2015.ml2010 import TYPES, item_means
from paracomp.papers.wieting2015.overlap import (
    lemmatized_overlap,
    length_ratio,
    overlap_ratio,
    strict_overlap,
)
from paracomp.papers.wieting2015.scoring import word_predictions
from paracomp.registry import printed_table
from paracomp.tables.build import Cell, compare_table, markdown, wide_table, with_intervals
from paracomp.tables.printed import PrintedTable
from paracomp.tables.write import write_cell_replicates, write_outputs

PAPER = "wieting2015"
ALPHA = 0.05
LITERATURE = "a value from the literature, copied by the paper: not computed"
TREES = (
    "RNN trees: right-branching over each phrase's tokens (no parser on this branch; "
    "paracomp.models.trees.binary_tree turns dependency heads into trees once a parse is "
    "supplied as heads1/heads2 columns); a bigram is one node either way"
)


RESAMPLER = bootstrap.Resampler()


def rho_cell(gold: np.ndarray, pred: np.ndarray, key: str, data: str, reason: str = "") -> Cell:
    """Spearman's ρ of ``pred`` against ``gold`` with its replicates on the resamples of test
    set ``key`` (its items in ``gold``'s order, the same for every row)."""
    value, noise = spearman(gold, pred), bootstrap.too_few(len(gold), key)
    if noise:
        return Cell(value, data, reason, noise=noise)
    counts = RESAMPLER.counts(bootstrap.Sample.whole(key, len(gold)))
    return Cell(value, data, reason, bootstrap.spearman(counts, gold, pred), (key,))


@dataclass
class Built:
    """A table's cells, our significance marks per cell, and lines for its markdown."""

    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)
    marks: dict[tuple[str, str], str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Sources:
    """The table command's inputs (unused ones None or empty)."""

    words: Sequence[Path] = ()
    init: Path | None = None
    simlex: Path | None = None
    counts: Path | None = None
    sst: Sequence[Path] = ()
    rnn: Sequence[Path] = ()
    scores: Sequence[Path] = ()
    pairs: Sequence[Path] = ()
    lexical: Path | None = None
    wordnet: Path | None = None


def _json(path: Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text())


def _by_stem(paths: Sequence[Path]) -> dict[str, Path]:
    """``{stem: path}``, ``x.selected.json`` keyed ``x``."""
    return {Path(p).name.split(".")[0]: Path(p) for p in paths}


def _fmt_point(point: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in point.items()) or "the run settings"


def steiger_marks(
    gold: np.ndarray, model: np.ndarray, baselines: Mapping[str, tuple[str, np.ndarray | None]]
) -> tuple[str, str]:
    """Our marks and the note: for each symbol, the baseline's name and scores (None where
    the baseline is not computed)."""
    found, notes = "", []
    for symbol, (name, scores) in baselines.items():
        if scores is None:
            notes.append(f"{symbol} over {name}: not computed (no {name} here)")
            continue
        test = compare(gold, model, scores)
        if test.p < ALPHA:
            found += symbol
        notes.append(f"{symbol} over {name}: z={test.z:.2f}, p={test.p:.3g}")
    return found, "Steiger one-tailed: " + "; ".join(notes)


def _empty(printed: PrintedTable, columns: Mapping[str, Any], reasons: Sequence[str]) -> Built:
    """Every cell empty: a column's configured reason, else the data's."""
    built = Built()
    why = "; ".join(reasons)
    for row in printed.rows:
        for column in printed.columns:
            spec = columns.get(column, {})
            built.cells[row, column] = Cell(None, "", spec.get("reason") or why)
    return built


# -- Table 3 ---------------------------------------------------------------------------------


def table3(src: Sources, columns: Mapping[str, Any]) -> Built:
    built = Built()
    simlex = pd.read_parquet(src.simlex)
    selected = {k: _json(p) for k, p in _by_stem(src.words).items()}
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
    counts = _json(src.counts)
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
                f"; grid point {_fmt_point(chosen['record']['point'])} of "
                f"{len(chosen['points'])}, selected by 2·WS-S − WS-R = "
                f"{chosen['record']['criterion']['ws']:.3f} (WS-S "
                f"{scores['ws353-sim']['spearman']:.3f}, WS-R {scores['ws353-rel']['spearman']:.3f})"
            )
            _, reason = steiger_marks(
                gold, pred, {"*": ("the initial vectors", preds["skipgram_25"][0])}
            )
            reason += " (the paper's * is over 1000-d skip-gram, which is unavailable)"
        built.cells[row, "sl999"] = rho_cell(row_gold, pred, "wieting2015/simlex999", data, reason)
    built.cells["skipgram_1000", "sl999"] = Cell(
        None, "", "1000-d skip-gram vectors of Wikipedia 2013 are unobtainable"
    )
    for row in ("hill2014b", "hill2014a", "inter_annotator"):
        built.cells[row, "sl999"] = Cell(None, "", LITERATURE)
    ours, paper = counts["ours"], counts["paper"]
    paragram = selected["paragram"]["record"]
    built.notes.append(
        f"PARAGRAM (selected by SimLex-999 without constraints; the vectors Tables 4-9 start "
        f"from): grid point {_fmt_point(paragram['point'])}, SL999 ρ "
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
    built = Built()
    results = {k: _json(p) for k, p in _by_stem(src.sst).items()}
    for row, vectors in SST_ROWS.items():
        result = results[vectors]
        data = (
            f"{SST_NAMES[vectors]}; SST binary train {result['train']:,} / dev {result['dev_n']:,}"
            f" / test {result['test_n']:,}; best dev accuracy {100 * result['dev']:.1f} after "
            f"{result['seen']:,} of {result['of']:,} training examples"
        )
        built.cells[row, "accuracy"] = _accuracy_cell(result, data, scale)
    return built


# -- Tables 5-9: phrase scores -----------------------------------------------------------------


@dataclass(frozen=True)
class PhraseScores:
    """The scores of vector addition (``init``, ``paragram``) and the selected RNNs."""

    add: dict[str, pd.DataFrame]
    rnn: dict[str, pd.DataFrame]
    selected: dict[str, dict[str, Any]]
    pairs: dict[str, dict[str, Any]]

    @classmethod
    def load(cls, src: Sources) -> PhraseScores:
        add = {k: pd.read_parquet(p) for k, p in _by_stem(src.scores).items()}
        selected = {k: _json(p) for k, p in _by_stem(src.rnn).items()}
        rnn = {k: pd.read_parquet(s["record"]["scores"]) for k, s in selected.items()}
        pairs = {k: _json(p) for k, p in _by_stem(src.pairs).items()}
        return cls(add, rnn, selected, pairs)

    def rnn_data(self, data: str) -> str:
        chosen, counts = self.selected[data], self.pairs[data]
        return (
            f"RNN trained on {counts['ours']:,} {data} pairs (paper: {counts['paper']:,}); grid "
            f"point {_fmt_point(chosen['record']['point'])} of {len(chosen['points'])}, "
            f"development ρ {chosen['record']['criterion']['dev']:.3f}"
        )


def _part(scores: pd.DataFrame, set_name: str, subset: str, split: str) -> pd.DataFrame:
    mask = (scores["set"] == set_name) & (scores["subset"] == subset) & (scores["split"] == split)
    part = scores[mask]
    return part.sort_values("id", kind="stable").reset_index(drop=True)


def _ml_points(part: pd.DataFrame, ml: str) -> tuple[np.ndarray, np.ndarray]:
    """The gold and predicted points ρ is computed on: every rating line, or each pair's mean
    rating and score (:func:`paracomp.papers.wieting2015.ml2010.ml_spearman`)."""
    if ml == "ratings":
        return part["gold"].to_numpy(), part["pred"].to_numpy()
    pairs, means = item_means(part["s1"], part["s2"], part["gold"])
    by_pair = dict(zip(zip(part["s1"], part["s2"], strict=True), part["pred"], strict=True))
    return means, np.array([by_pair[p] for p in pairs])


def table5(src: Sources, columns: Mapping[str, Any], ml: str) -> Built:
    built = Built()
    found = PhraseScores.load(src)
    rows = ("skipgram_add", "paragram_add", "paragram_rnn")
    values: dict[str, list[Cell]] = {r: [] for r in rows}
    for kind in TYPES:
        column = f"ml_{kind}"
        parts = {
            "skipgram_add": _part(found.add["init"], "ml2010", kind, "test"),
            "paragram_add": _part(found.add["paragram"], "ml2010", kind, "test"),
            "paragram_rnn": _part(found.rnn[kind], "ml2010", kind, "test"),
        }
        points = {row: _ml_points(part, ml) for row, part in parts.items()}
        first = parts["skipgram_add"]
        where = (
            f"ML 2010 {kind.upper()} test: {len(first):,} ratings of "
            f"{len(first.drop_duplicates(['s1', 's2']))} pairs, ρ over "
            + ("every rating" if ml == "ratings" else "the pairs' mean ratings")
        )
        for row, part in parts.items():
            gold, pred = points[row]
            oov = int(part.drop_duplicates(["s1", "s2"])["oov"].sum())
            data = f"{where}; {oov} pairs with out-of-vocabulary words"
            if row == "paragram_rnn":
                data += "; " + found.rnn_data(kind)
            reason = ""
            if row != "skipgram_add":
                baselines: dict[str, tuple[str, np.ndarray | None]] = {
                    "*": ("skip-gram +", points["skipgram_add"][1])
                }
                if row == "paragram_rnn":
                    baselines["†"] = ("PARAGRAM +", points["paragram_add"][1])
                baselines["‡"] = ("Hashimoto et al.", None)
                built.marks[row, column], reason = steiger_marks(gold, pred, baselines)
            key = f"ml2010/{kind}/test/{ml}"
            built.cells[row, column] = rho_cell(gold, pred, key, data, reason)
            values[row].append(built.cells[row, column])
    for row in rows:
        each = values[row]
        boot = None if any(c.boot is None for c in each) else np.mean([c.boot for c in each], 0)
        built.cells[row, "ml_avg"] = Cell(
            float(np.mean([c.value for c in each])), "mean of JN, NN and VN", "", boot,
            tuple(k for c in each for k in c.sets), next((c.noise for c in each if c.noise), ""),
        )  # fmt: skip
    for column in ("ml_jn", "ml_nn", "ml_vn", "ml_avg"):
        built.cells["hashimoto2014", column] = Cell(
            None, "", "Hashimoto et al.'s (2014) PAS-CLBLM vectors are unavailable here"
        )
        built.cells["mitchell_lapata2010", column] = Cell(None, "", LITERATURE)
        built.cells["human", column] = Cell(None, "", "not printed for the ML columns")
    built.notes += [
        "skip-gram rows: vector addition with our initial vectors (GloVe stand-in); the ‡ "
        "marks (over Hashimoto et al.) cannot be computed.",
        TREES,
    ]
    return built


def _annotated(found: PhraseScores, split: str = "test") -> dict[str, pd.DataFrame]:
    return {
        "skipgram_add": _part(found.add["init"], "annotated-ppdb", "all", split),
        "paragram_add": _part(found.add["paragram"], "annotated-ppdb", "all", split),
        "paragram_rnn": _part(found.rnn["phrases"], "annotated-ppdb", "all", split),
    }


def _lexical_pairs(path: Path) -> set[tuple[str, str]]:
    table = pd.read_parquet(path, columns=["s1", "s2"])
    return set(zip(table["s1"], table["s2"], strict=True))


ANNOTATED = "annotated-ppdb/all/test"


def table6(src: Sources, columns: Mapping[str, Any]) -> Built:
    built = Built()
    found = PhraseScores.load(src)
    parts = _annotated(found)
    gold = parts["skipgram_add"]["gold"].to_numpy()
    where = f"Annotated-PPDB test: {len(gold):,} pairs"
    for row, part in parts.items():
        pred = part["pred"].to_numpy()
        data = f"{where}, {int(part['oov'].sum())} with out-of-vocabulary words"
        reason = ""
        if row == "paragram_rnn":
            data += "; " + found.rnn_data("phrases")
        if row != "skipgram_add":
            baselines: dict[str, tuple[str, np.ndarray | None]] = {
                "*": ("skip-gram +", parts["skipgram_add"]["pred"].to_numpy())
            }
            if row == "paragram_rnn":
                baselines["†"] = ("PARAGRAM +", parts["paragram_add"]["pred"].to_numpy())
                baselines["‡"] = ("PPDB+SVR", None)
            built.marks[row, "annotated_ppdb"], reason = steiger_marks(gold, pred, baselines)
        built.cells[row, "annotated_ppdb"] = rho_cell(gold, pred, ANNOTATED, data, reason)
    test = parts["skipgram_add"]
    lemma = _lemmatizer(src.wordnet)
    strict = [strict_overlap(a, b) for a, b in zip(test["s1"], test["s2"], strict=True)]
    lemmatized = [
        lemmatized_overlap(a, b, lemma) for a, b in zip(test["s1"], test["s2"], strict=True)
    ]
    built.cells["overlap_strict", "annotated_ppdb"] = rho_cell(
        gold, np.array(strict, np.float64), ANNOTATED,
        f"{where}; share of the smaller phrase's tokens in the other",
    )  # fmt: skip
    built.cells["overlap_lemmatized", "annotated_ppdb"] = rho_cell(
        gold, np.array(lemmatized, np.float64), ANNOTATED,
        f"{where}; the same after WordNet 3.0 lemmatisation (verbs first, no tagger)",
    )  # fmt: skip
    built.cells["ganitkevitch2013", "annotated_ppdb"] = Cell(
        None,
        "",
        "needs PPDB 1.0's score of each Annotated-PPDB pair: the released files hold the "
        "phrases and the gold only",
    )
    built.cells["ppdb_svr", "annotated_ppdb"] = Cell(
        None,
        "",
        "needs the 33 PPDB features of each pair: the Annotated-PPDB files hold the phrases "
        "and the gold, the mirror's PPDB 2.0 human labels the phrases, their category and the "
        "human scores, neither any feature",
    )
    built.notes += [
        "skip-gram rows: vector addition with our initial vectors (GloVe stand-in); the ‡ "
        "marks (over PPDB+SVR) cannot be computed.",
        TREES,
    ]
    return built


def _lemmatizer(wordnet: Path | None) -> Callable[[str], str]:
    import warnings

    from paracomp.wordnet.install import wordnet_reader
    from paracomp.wordnet.lemmas import lemmatizer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return lemmatizer(wordnet_reader(wordnet))


def _mapped(part: pd.DataFrame, how: str) -> np.ndarray:
    return to_gold_scale(part["pred"].to_numpy(), how)


def _range_replicates(cell: Cell, gold: np.ndarray, mapped: np.ndarray, i: int, n: int) -> Cell:
    """A Table 7 cell with its replicates: the mean absolute error of the pairs in gold range
    ``i`` on every resample of the Annotated-PPDB test pairs (no interval under 10 pairs)."""
    if cell.value is None:
        return cell
    noise = bootstrap.too_few(n, f"{ANNOTATED} in gold range {i + 1}")
    if noise:
        return Cell(cell.value, cell.data, cell.reason, noise=noise)
    low, high = GOLD_BINS[i]
    inside = (gold >= low) & ((gold <= high) if i == len(GOLD_BINS) - 1 else (gold < high))
    counts = RESAMPLER.counts(bootstrap.Sample.whole(ANNOTATED, len(gold)))
    weights = counts @ inside.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = counts @ (np.abs(mapped - gold) * inside) / weights
    return Cell(cell.value, cell.data, cell.reason, boot, (ANNOTATED,))


def table7(src: Sources, columns: Mapping[str, Any], how: str) -> Built:
    built = Built()
    parts = _annotated(PhraseScores.load(src))
    gold = parts["paragram_add"]["gold"].to_numpy()
    rows = ("1-2", "2-3", "3-4", "4-5")
    counts = [
        int(((gold >= lo) & ((gold <= hi) if hi == GOLD_BINS[-1][1] else (gold < hi))).sum())
        for lo, hi in GOLD_BINS
    ]
    for column, model in (("add", "paragram_add"), ("rnn", "paragram_rnn")):
        mapped = _mapped(parts[model], how)
        errors = error_by_gold_range(gold, mapped)
        for i, (row, value, n) in enumerate(zip(rows, errors, counts, strict=True)):
            data = f"Annotated-PPDB test, {n} pairs in the range; cosines mapped to [1, 5] ({how})"
            cell = Cell(value, data, "" if value is not None else "no pair")
            built.cells[row, column] = _range_replicates(cell, gold, mapped, i, n)
    built.notes.append(TREES)
    return built


def table8(src: Sources, columns: Mapping[str, Any], printed: PrintedTable, how: str) -> Built:
    built = Built()
    found = PhraseScores.load(src)
    lexical = _lexical_pairs(src.lexical)
    both = {split: _annotated(found, split) for split in ("dev", "test")}
    for row in printed.rows:
        p1, p2 = printed.value(row, "phrase1"), printed.value(row, "phrase2")
        built.cells[row, "phrase1"] = Cell(p1, "the paper's pair")
        built.cells[row, "phrase2"] = Cell(p2, "the paper's pair")
        built.cells[row, "length_ratio"] = Cell(length_ratio(p1, p2), "tokens")
        built.cells[row, "overlap_ratio"] = Cell(overlap_ratio(p1, p2, lexical), "tokens")
        hit = None
        for split, parts in both.items():
            add = parts["paragram_add"]
            match = add[
                ((add["s1"] == p1) & (add["s2"] == p2)) | ((add["s1"] == p2) & (add["s2"] == p1))
            ]
            if len(match):
                hit = (split, match.index[0])
                break
        if hit is None:
            for column in ("gold", "rnn", "add"):
                built.cells[row, column] = Cell(None, "", "pair not in the mirror's Annotated-PPDB")
            continue
        split, index = hit
        parts = both[split]
        where = f"Annotated-PPDB {split}"
        built.cells[row, "gold"] = Cell(float(parts["paragram_add"]["gold"].iloc[index]), where)
        for column, model in (("rnn", "paragram_rnn"), ("add", "paragram_add")):
            mapped = _mapped(parts[model], how)[index]
            built.cells[row, column] = Cell(
                float(mapped), f"{where}; cosine mapped to [1, 5] ({how})"
            )
    built.notes.append(TREES)
    return built


ERROR_GROUPS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "positive": lambda gold: gold > 4,
    "negative": lambda gold: gold < 2,
    "both": lambda gold: (gold > 4) | (gold < 2),
}
"""Table 9's groups of pairs by gold score (as :func:`error_change` forms them)."""


def _change_replicates(
    cell: Cell, gold: np.ndarray, add: np.ndarray, rnn: np.ndarray, inside: np.ndarray
) -> Cell:
    """A Table 9 cell with its replicates: the relative change of the mean absolute error
    from the additive model to the RNN among the ``inside`` pairs, on every resample of the
    Annotated-PPDB test pairs."""
    if cell.value is None:
        return cell
    noise = bootstrap.too_few(int(inside.sum()), f"{ANNOTATED} in this cell")
    if noise:
        return Cell(cell.value, cell.data, cell.reason, noise=noise)
    counts = RESAMPLER.counts(bootstrap.Sample.whole(ANNOTATED, len(gold)))
    base = counts @ (np.abs(add - gold) * inside)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = counts @ (np.abs(rnn - gold) * inside) / base - 1.0
    return Cell(cell.value, cell.data, cell.reason, boot, (ANNOTATED,))


def table9(src: Sources, how: str) -> dict[str, Built]:
    found = PhraseScores.load(src)
    parts = _annotated(found)
    lexical = _lexical_pairs(src.lexical)
    test = parts["paragram_add"]
    gold = test["gold"].to_numpy()
    add, rnn = _mapped(parts["paragram_add"], how), _mapped(parts["paragram_rnn"], how)
    pairs = list(zip(test["s1"], test["s2"], strict=True))
    ratios = {
        "table9_length": (np.array([length_ratio(a, b) for a, b in pairs]), LENGTH_BINS),
        "table9_overlap": (
            np.array([overlap_ratio(a, b, lexical) for a, b in pairs]),
            OVERLAP_BINS,
        ),
    }
    built = {}
    for key, (values, edges) in ratios.items():
        block = Built()
        change = error_change(gold, add, rnn, values, edges)
        bins = bin_index(values, edges)
        for group, row in change.items():
            for b, (column, value) in enumerate(zip(("low", "mid", "high"), row, strict=True)):
                cell = Cell(
                    None if value is None else value / 100.0,
                    f"Annotated-PPDB test; cosines mapped to [1, 5] ({how})",
                    "" if value is not None else "no pair in the cell",
                )
                inside = ERROR_GROUPS[group](gold) & (bins == b)
                block.cells[group, column] = _change_replicates(cell, gold, add, rnn, inside)
        block.notes.append(TREES)
        built[key] = block
    return built


# -- writing -----------------------------------------------------------------------------------


def _scaled(built: Built, printed: PrintedTable, text_columns: Sequence[str] = ()) -> None:
    """Scale numeric cells by the printed table's scale (values are fractions)."""
    if printed.scale == 1:
        return
    for key, cell in built.cells.items():
        if isinstance(cell.value, (int, float)) and key[1] not in text_columns:
            built.cells[key] = cell.scaled(printed.scale)


def render(
    printed: PrintedTable, built: Built, columns: Mapping[str, Any], setting: str
) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """The wide table (our marks after the numbers), the compare file and the markdown."""
    for row in printed.rows:
        for column in printed.columns:
            reason = columns.get(column, {}).get("reason", "not computed")
            built.cells.setdefault((row, column), Cell(None, "", reason))
    wide = wide_table(printed, built.cells)
    for (row, column), mark in built.marks.items():
        if mark:
            i = printed.rows.index(row)
            label = printed.column_label_of(column)
            wide.loc[i, label] = f"{wide.loc[i, label]}{mark}"
    compare = compare_table(printed, built.cells, dict(columns))
    empty = [(r, c) for (r, c), cell in built.cells.items() if cell.value is None]
    for row, column in empty:  # the column's note is about how its computed cells were made
        hit = (compare["row"] == row) & (compare["column"] == column)
        compare.loc[hit, "note"] = built.cells[row, column].reason
    for (row, column), mark in built.marks.items():
        hit = (compare["row"] == row) & (compare["column"] == column)
        printed_mark = _printed_mark(printed, row, column)
        compare.loc[hit, "note"] = compare.loc[hit, "note"].map(
            lambda n, m=mark, p=printed_mark: f"{n}; marks ours '{m}', paper '{p}'"
        )
    described = {  # the generic markdown calls `stat` columns training-set statistics
        c: {
            "model": "computed by rules/papers/wieting2015.smk",
            **({"note": s["note"]} if "note" in s else {}),
        }
        if s.get("stat")
        else s
        for c, s in columns.items()
    }
    text = markdown(
        printed, with_intervals(wide, printed, built.cells), compare, described, setting
    )
    if built.notes:
        text += "\nNotes:\n" + "".join(f"- {n}\n" for n in built.notes)
    return wide, compare, text


def _printed_mark(printed: PrintedTable, row: str, column: str) -> str:
    shown = _PRINTED.get(printed.key, {}).get(row, {}).get(column)
    return "" if shown is None else "".join(c for c in str(shown) if c in "*†‡")


def _printed_marks() -> dict[str, dict[str, dict[str, str]]]:
    from paracomp.registry import resource
    from paracomp.yamltext import safe_load

    raw = safe_load(resource(PAPER, "printed.yaml").read_text())
    return {k: v.get("printed", {}) for k, v in raw["tables"].items()}


_PRINTED = _printed_marks()


def build_tables(
    table: str,
    src: Sources,
    spec: Mapping[str, Any],
    setting: Mapping[str, Any],
    unavailable: Sequence[str],
) -> list[tuple[PrintedTable, Built]]:
    """The printed table(s) of ``table`` (Table 9 is two) with their cells."""
    columns = spec.get("columns", {})
    keys = ["table9_length", "table9_overlap"] if table == "table9" else [table]
    printed = [printed_table(PAPER, k) for k in keys]
    computed = any(c.get("stat") for c in columns.values())
    if unavailable or not computed:
        return [(p, _empty(p, columns, unavailable)) for p in printed]
    if table == "table3":
        built = [table3(src, columns)]
    elif table == "table4":
        built = [table4(src, columns, printed[0].scale)]
    elif table == "table5":
        built = [table5(src, columns, setting["ml"])]
    elif table == "table6":
        built = [table6(src, columns)]
    elif table == "table7":
        built = [table7(src, columns, setting["mapping"])]
    elif table == "table8":
        built = [table8(src, columns, printed[0], setting["mapping"])]
    else:
        blocks = table9(src, setting["mapping"])
        built = [blocks[p.key] for p in printed]
        for p, b in zip(printed, built, strict=True):
            _scaled(b, p)
    return list(zip(printed, built, strict=True))


def _setting_text(setting: Mapping[str, Any]) -> str:
    init = setting["init"]
    return (
        f"initial vectors {init['embeddings']} ({init['size']:,} most frequent words, "
        f"{init['dim']}d); lexical pairs from {setting['lexical']}; words: "
        f"{setting['words']['epochs']} epochs over {json.dumps(setting['words']['grid'])}; "
        f"RNN: {setting['rnn']['epochs']} epochs over {json.dumps(setting['rnn']['grid'])}"
    )


def write_table(
    table: str,
    src: Sources,
    spec: Mapping[str, Any],
    setting: Mapping[str, Any],
    unavailable: Sequence[str],
    out: Path,
) -> None:
    """Write ``tableN.csv``, ``.compare.csv`` and ``.md``; Table 9's two printed blocks go
    into the same files, told apart by a ``block`` column (wide: ``bin 1``–``bin 3`` and the
    block's ``bins``) and a ``length:`` or ``overlap:`` row prefix (compare)."""
    columns, text = spec.get("columns", {}), _setting_text(setting)
    built = build_tables(table, src, spec, setting, unavailable)
    parts = [render(printed, cells, columns, text) for printed, cells in built]
    merged = {
        (f"{p.key.removeprefix('table9_')}:{r}" if len(built) > 1 else r, c): cell
        for p, b in built
        for (r, c), cell in b.cells.items()
    }
    write_cell_replicates(out, merged, RESAMPLER)
    if len(parts) == 1:
        write_outputs(out, *parts[0])
        return
    wides, compares = [], []
    for (printed, _), (wide, table_compare, _) in zip(built, parts, strict=True):
        block = printed.key.removeprefix("table9_")
        names = ["row", *(f"bin {i + 1}" for i in range(len(wide.columns) - 1))]
        bins = " | ".join(wide.columns[1:])
        wide = wide.set_axis(names, axis=1).assign(block=block, bins=bins)
        wides.append(wide[["block", *names, "bins"]])
        compares.append(table_compare.assign(row=block + ":" + table_compare["row"]))
    markdown_text = "\n".join(part[2] for part in parts)
    write_outputs(out, pd.concat(wides, ignore_index=True), pd.concat(compares), markdown_text)
