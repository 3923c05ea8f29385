"""Tables 5 (ML 2010 ρ) and 6 (Annotated-PPDB ρ) of Wieting et al. (2015), and the phrase
scores Tables 5-9 read (:class:`PhraseScores`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from paracomp.papers.wieting2015.ml2010 import TYPES, item_means
from paracomp.papers.wieting2015.overlap import lemmatized_overlap, strict_overlap
from paracomp.papers.wieting2015.table_cells import (
    LITERATURE,
    TREES,
    Built,
    Sources,
    by_stem,
    chain_files,
    fmt_point,
    over_chain,
    read_json,
    rho_cell,
    steiger_marks,
)
from paracomp.tables.build import Cell

# -- the phrase scores Tables 5-9 read ---------------------------------------------------------


@dataclass(frozen=True)
class PhraseScores:
    """The scores of vector addition (``init``, ``paragram``) and the selected RNNs."""

    add: dict[str, pd.DataFrame]
    rnn: dict[str, pd.DataFrame]
    selected: dict[str, dict[str, Any]]
    pairs: dict[str, dict[str, Any]]

    @classmethod
    def load(cls, src: Sources) -> PhraseScores:
        add = {k: pd.read_parquet(p) for k, p in by_stem(src.scores).items()}
        selected = {k: read_json(p) for k, p in by_stem(src.rnn).items()}
        rnn = {k: pd.read_parquet(s["record"]["scores"]) for k, s in selected.items()}
        pairs = {k: read_json(p) for k, p in by_stem(src.pairs).items()}
        return cls(add, rnn, selected, pairs)

    def for_seed(self, files: Mapping[str, Path]) -> PhraseScores:
        """The scores of one seed of the chain: its PARAGRAM addition (``paragram``) and its
        selected RNNs (``<data>``) from ``files`` (table_cells.chain_files), the initial
        vectors' as they are; ``{}``: these."""
        if not files:
            return self
        selected = {k: read_json(p) for k, p in files.items() if k in self.selected}
        return PhraseScores(
            {**self.add, "paragram": pd.read_parquet(files["paragram"])},
            {k: pd.read_parquet(s["record"]["scores"]) for k, s in selected.items()},
            selected,
            self.pairs,
        )

    def rnn_data(self, data: str) -> str:
        chosen, counts = self.selected[data], self.pairs[data]
        return (
            f"RNN trained on {counts['ours']:,} {data} pairs (paper: {counts['paper']:,}); grid "
            f"point {fmt_point(chosen['record']['point'])} of {len(chosen['points'])}, "
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


CHAINED = ("paragram_add", "paragram_rnn")
"""The rows of Tables 5 and 6 over the seed chain's seeds (with replicates)."""


def table5(src: Sources, columns: Mapping[str, Any], ml: str) -> Built:
    """Table 5; with seed replicates the PARAGRAM rows are over the chain's seeds."""
    built = Built()
    found = PhraseScores.load(src)
    _ml_cells(built, found, ml)
    chain = chain_files(src)
    if chain:
        each = {s: _ml_cells(Built(), found.for_seed(f), ml).cells for s, f in chain.items()}
        over_chain(built, CHAINED, each)
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


def _ml_cells(built: Built, found: PhraseScores, ml: str) -> Built:
    """``built`` with the computed cells and marks of Table 5 from ``found``."""
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
    return built


def annotated(found: PhraseScores, split: str = "test") -> dict[str, pd.DataFrame]:
    return {
        "skipgram_add": _part(found.add["init"], "annotated-ppdb", "all", split),
        "paragram_add": _part(found.add["paragram"], "annotated-ppdb", "all", split),
        "paragram_rnn": _part(found.rnn["phrases"], "annotated-ppdb", "all", split),
    }


def lexical_pairs(path: Path) -> set[tuple[str, str]]:
    table = pd.read_parquet(path, columns=["s1", "s2"])
    return set(zip(table["s1"], table["s2"], strict=True))


ANNOTATED = "annotated-ppdb/all/test"


def table6(src: Sources, columns: Mapping[str, Any]) -> Built:
    """Table 6; with seed replicates the PARAGRAM rows are over the chain's seeds."""
    built = Built()
    found = PhraseScores.load(src)
    _annotated_cells(built, found)
    chain = chain_files(src)
    if chain:
        each = {s: _annotated_cells(Built(), found.for_seed(f)).cells for s, f in chain.items()}
        over_chain(built, CHAINED, each)
    test = annotated(found)["skipgram_add"]
    gold = test["gold"].to_numpy()
    where = f"Annotated-PPDB test: {len(gold):,} pairs"
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


def _annotated_cells(built: Built, found: PhraseScores) -> Built:
    """``built`` with the models' cells and marks of Table 6 from ``found``."""
    parts = annotated(found)
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
    return built


def _lemmatizer(wordnet: Path | None) -> Callable[[str], str]:
    import warnings

    from paracomp.wordnet.install import wordnet_reader
    from paracomp.wordnet.lemmas import lemmatizer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return lemmatizer(wordnet_reader(wordnet))
