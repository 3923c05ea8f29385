"""chen2020's score tables (1, 2, 3, 4, 7, 8) from the sentence table and each model's scores.

Rows are models (baselines, prior work, pretrained encoders, the trained runs), columns the
evaluation sets. A row whose model is not obtainable here (prior supervised systems, InferSent,
Skip-thought, BERT, ELMo) stays empty with :data:`UNAVAILABLE`'s reason; a cell whose data no
source provides stays empty with the reason the sentence sources record. Every cell's ``data``
says what it was computed on; the markdown says how the models were trained (the setting).

Cells of Tables 2, 3, 4, 7 and 8 carry test-set bootstrap replicates
(:mod:`paracomp.papers.chen2020.score_data`): the sentences (SNLI: the equal-length pairs) of
each set resampled once for every model (paired), thresholds kept at their tuned values.
Table 1's sentence counts get none, and say why (:data:`COUNT_NOISE`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from paracomp.eval import bootstrap
from paracomp.papers.chen2020.score_data import (
    NEWS_POOL,
    RESAMPLER,
    Data,
    news_replicates,
    normalised_replicates,
    share,
    sts_replicates,
    with_replicates,
)
from paracomp.papers.chen2020.scores import ModelScores
from paracomp.papers.chen2020.sentences import DOMAINS
from paracomp.papers.chen2020.snli import PAPER_COUNTS, direction_table
from paracomp.papers.chen2020.specificity import length_normalised, spearman
from paracomp.registry import printed_table
from paracomp.tables.build import Cell, cells_over_seeds
from paracomp.tables.custom import render_custom
from paracomp.tables.printed import PrintedTable
from paracomp.tables.write import write_cell_replicates, write_outputs

NOT_OBTAINABLE = "no such model is obtainable here (no registry or mirror copy)"
UNAVAILABLE = {
    "li_nenkova2015": f"Speciteller (Li & Nenkova 2015), supervised on labelled news: {NOT_OBTAINABLE}",
    "ko2019": f"Ko et al. (2019), supervised domain adaptation: {NOT_OBTAINABLE}",
    "infersent": f"InferSent: {NOT_OBTAINABLE}",
    "skipthought": f"Skip-thought: {NOT_OBTAINABLE}",
    "bert": f"BERT: {NOT_OBTAINABLE}",
    "elmo": f"ELMo: {NOT_OBTAINABLE}",
    "elmo_sum": f"ELMo SUM: {NOT_OBTAINABLE}",
    "elmo_avg": f"ELMo AVG: {NOT_OBTAINABLE}",
}
ROW_MODEL = {"glove": "glove_sum"}
"""Table 4's GloVe row: SUM (AVG ranks equal-length pairs alike)."""
INITIAL = "initial"
"""The untrained baseline row of Tables 2 and 8 (the runs' initial vectors averaged; not in
the paper)."""
INITIAL_TABLES = ("table2", "table8")
BELOW_WHY = "src/paracomp/papers/chen2020/README.md, 'Runs below their initial vectors'"
PROBABILISTIC_SCORE = "−entropy of the sentence Gaussian"
DETERMINISTIC_SCORE = "norm of the sentence vector"
COUNT_NOISE = "no interval: a count of the set's sentences, not an estimate"


def _score_kind(scores: ModelScores) -> str:
    return PROBABILISTIC_SCORE if scores.meta.get("probabilistic") else DETERMINISTIC_SCORE


def _row_note(data: Data, model: str) -> str:
    meta = data.scores[model].meta
    oov = meta.get("oov", {})
    unknown = ", ".join(f"{k} {100 * v:.1f}%" for k, v in oov.items() if not k.startswith("snli"))
    parts = {
        "majority": "a constant score: the threshold predicts the tuning set's majority class",
        "length": "tokens (the evaluation tokeniser)",
        "wordfreq_sum": "sum of the tokens' frequency ranks (unseen last)",
        "wordfreq_avg": "mean of the tokens' frequency ranks (unseen last)",
    }
    if model in parts:
        text = parts[model]
    elif model == INITIAL:
        text = f"the runs' initial vectors, untrained, averaged; score: {_score_kind(data.scores[model])}"
    elif meta.get("kind") == "run_sum":
        text = f"WORDAVG's word rows composed by sum; score: {_score_kind(data.scores[model])}"
    elif meta.get("kind") == "run":
        text = f"composer {meta.get('composer')}; score: {_score_kind(data.scores[model])}"
    else:
        text = f"pretrained vectors; score: {_score_kind(data.scores[model])}"
    return f"{text}; unknown tokens: {unknown}" if unknown else text


def _cells(
    printed: PrintedTable,
    data: Data,
    compute: Callable[[str, str], Cell],
    models: Mapping[str, str] | None = None,
) -> dict[tuple[str, str], Cell]:
    """Every cell: rows of :data:`UNAVAILABLE` empty with their reason, rows without scores
    empty with 'not configured', the others from ``compute(row, column)``."""
    models = dict(models or {})
    cells = {}
    for row in printed.rows:
        model = models.get(row, ROW_MODEL.get(row, row))
        for column in printed.columns:
            if row in UNAVAILABLE:
                cells[row, column] = Cell(None, "", UNAVAILABLE[row])
            elif model not in data.scores:
                cells[row, column] = Cell(None, "", f"model {model!r} is not configured")
            else:
                cells[row, column] = compute(row, column)
    return cells


def _finite(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else value


def table1(data: Data) -> dict[tuple[str, str], Cell]:
    sets = {"news": "news_test", **{d: d for d in DOMAINS}}
    cells = {}
    for column, name in sets.items():
        if not data.has(name):
            cells["instances", column] = Cell(None, "", data.missing(name))
            continue
        note = ""
        if column == "news":
            note = (
                "Speciteller's released News test set (louisdata) has 885 sentences; the "
                "paper's 900 is rounded or another release (majority 54.6% fits both)"
            )
        else:
            note = f"Ko et al.'s {name}s.txt, every line"
        cells["instances", column] = Cell(float(len(data.labels(name))), note, noise=COUNT_NOISE)
    return cells


def table2(data: Data, printed: PrintedTable) -> dict[tuple[str, str], Cell]:
    def compute(row: str, column: str) -> Cell:
        model = row
        if column == "news":
            why = data.missing("news_train", "news_test")
            if why:
                return Cell(None, "", why)
            result = data.news(model)
            cell = Cell(
                result.accuracy,
                f"{result.n} News test sentences; threshold {result.threshold:.4g} tuned on "
                f"{len(data.labels('news_train'))} news training sentences; F1(specific) "
                f"{result.f1_specific:.1f}; {_row_note(data, model)}",
            )
            return with_replicates(cell, data, "news_test", lambda: news_replicates(data, model))
        if data.missing(column):
            return Cell(None, "", data.missing(column))
        if row == "majority":
            return Cell(None, "", "a constant score has no rank correlation (the paper: -)")
        scores, labels = data.scores[model].of(column), data.labels(column)
        value = _finite(spearman(scores, labels))
        cell = Cell(
            value,
            f"{len(labels)} sentences; {_row_note(data, model)}",
            "" if value is not None else "correlation undefined",
        )
        return with_replicates(
            cell,
            data,
            column,
            lambda: 100.0 * bootstrap.spearman(data.counts(column), scores, labels),
        )

    return _cells(printed, data, compute)


def table3(data: Data, printed: PrintedTable) -> dict[tuple[str, str], Cell]:
    def compute(row: str, column: str) -> Cell:
        why = data.missing("news_train", "news_test")
        if why:
            return Cell(None, "", why)
        if column == "full":
            result = data.news(row)
            cell = Cell(result.accuracy, f"{result.n} News test sentences (Table 2's News)")
            return with_replicates(cell, data, "news_test", lambda: news_replicates(data, row))
        scores = np.concatenate([data.scores[row].of(n) for n in NEWS_POOL])
        labels = np.concatenate([data.labels(n) for n in NEWS_POOL])
        lengths = np.concatenate([data.lengths(n) for n in NEWS_POOL])
        result = length_normalised(scores, labels, lengths)
        value = result.majority if row == "majority" else result.accuracy
        what = "the majority class's share of the pool" if row == "majority" else "accuracy"
        cell = Cell(
            _finite(value),
            f"{what} over a pool of {result.pool} sentences (paper: 3,582) from News training "
            f"and test, lengths {min(result.lengths, default=0)}-{max(result.lengths, default=0)}",
        )
        if cell.value is None:
            return cell
        noise = bootstrap.too_few(result.pool, "the length-normalised pool")
        if noise:
            return dataclasses.replace(cell, noise=noise)
        boot = normalised_replicates(data, result, majority=row == "majority")
        return dataclasses.replace(cell, boot=boot, sets=tuple(f"chen2020/{n}" for n in NEWS_POOL))

    return _cells(printed, data, compute)


def table4(data: Data, printed: PrintedTable) -> dict[tuple[str, str], Cell]:
    def compute(row: str, column: str) -> Cell:
        why = data.missing("snli_premise", "snli_hypothesis")
        if why:
            return Cell(None, "", why)
        model = ROW_MODEL.get(row, row)
        gold = data.column("snli_premise", "gold")
        pairs = [_Pair(label) for label in gold]
        scores = data.scores[model]
        table = direction_table(pairs, scores.of("snli_premise"), scores.of("snli_hypothesis"))
        found = table[column]
        cell = Cell(
            _finite(found.percent),
            f"{found.less_specific}/{found.pairs} equal-length test pairs (paper: "
            f"{PAPER_COUNTS[column]}); {_row_note(data, model)}",
        )
        less = scores.of("snli_hypothesis") < scores.of("snli_premise")
        labelled = np.array([label == column for label in gold], np.float64)
        return with_replicates(
            cell, data, "snli_premise", partial(share, data, less * labelled, labelled)
        )

    return _cells(printed, data, compute, ROW_MODEL)


class _Pair:
    """What :func:`direction_table` reads of a pair: its label."""

    def __init__(self, label: str):
        self.label = label


def table7(data: Data, printed: PrintedTable) -> dict[tuple[str, str], Cell]:
    cells = {}
    for column in printed.columns:
        model, metric = cell_model("table7", ("wlo", column)), column.rsplit("_", 1)[1]
        why = data.missing("news_train", "news_test")
        if model not in data.scores:
            cells["wlo", column] = Cell(None, "", f"model {model!r} is not configured")
        elif why:
            cells["wlo", column] = Cell(None, "", why)
        else:
            result = data.news(model)
            value = result.accuracy if metric == "acc" else result.f1_specific
            cell = Cell(
                value,
                f"run {model}; {result.n} News test sentences; F1 of the class specific "
                f"(macro F1 {result.f1_macro:.1f})",
            )
            cells["wlo", column] = with_replicates(
                cell, data, "news_test", partial(news_replicates, data, model, metric)
            )
    return cells


def table8(data: Data, printed: PrintedTable) -> dict[tuple[str, str], Cell]:
    def compute(row: str, column: str) -> Cell:
        sts = data.scores[row].meta.get("sts")
        if not sts:
            return Cell(None, "", "no source provides the STS Benchmark")
        if sts.get("pearson") is None:
            return Cell(None, "", sts.get("reason", "correlation undefined"))
        vectors = "[μ ; σ²]" if data.scores[row].meta.get("probabilistic") else "the vectors"
        cell = Cell(
            sts["pearson"] * 100.0,
            f"{sts['n']} STS-B {sts['split']} pairs ({sts['n_oov']} with unknown words); "
            f"cosine of {vectors}",
        )
        return sts_replicates(cell, sts)

    return _cells(printed, data, compute)


BUILDERS = {
    "table1": lambda data, printed: table1(data),
    "table2": table2,
    "table3": table3,
    "table4": table4,
    "table7": table7,
    "table8": table8,
}


TABLE7_MODELS = {"with_prior": "wlo", "without_prior": "wlo_noprior"}
"""Table 7's column groups and the runs they read."""


def cell_model(table: str, key: tuple[str, str]) -> str:
    """The model whose scores cell ``key`` (row, column) of ``table`` reads."""
    if table == "table7":
        return TABLE7_MODELS[key[1].rsplit("_", 1)[0]]
    return ROW_MODEL.get(key[0], key[0])


def over_seeds(
    table: str,
    data: Data,
    printed: PrintedTable,
    cells: dict[tuple[str, str], Cell],
    seeds: Mapping[str, Mapping[int, Path]],
) -> dict[tuple[str, str], Cell]:
    """``cells`` with each cell of a model of ``seeds`` (model -> seed -> its scores, every
    seed) the mean over its seeds' cells, ± over seeds and test sentences."""
    each = {
        model: {s: BUILDERS[table](data.alone(model, p), printed) for s, p in by_seed.items()}
        for model, by_seed in seeds.items()
    }
    return cells_over_seeds("chen2020", cells, partial(cell_model, table), each, 100.0)


def seeds_line(seeds: Mapping[str, Mapping[int, Path]]) -> str:
    """The markdown's line on the models over seeds."""
    models = ", ".join(f"`{m}` ({', '.join(map(str, found))})" for m, found in seeds.items())
    return (
        f"Over seeds (each seed's run trained at the run's selected grid point; the cell the "
        f"mean, ± over seeds and test sentences, `sd` in the compare file): {models}."
    )


def _epochs(setting: Mapping[str, Any]) -> str:
    """The final runs' epochs, and which weights they keep where a run keeps its best."""
    kept = [r for r in setting.get("runs", {}).values() if r.get("keep_best")]
    if not kept:
        return f"{setting['epochs']} epochs"
    evals = kept[0].get("evals_per_epoch", 1)
    tuning = setting["tuning"]
    return (
        f"{setting['epochs']} epochs, each run's weights at its best {tuning['subset']} "
        f"{tuning['split']} r of {evals} evaluations an epoch"
    )


def setting_lines(setting: Mapping[str, Any]) -> list[str]:
    """The training setting, for every table's markdown."""
    runs = setting.get("runs", {})
    lines = [
        f"Training data: {setting['corpus']}"
        + (
            f", pairs of at most {setting['max_tokens']} tokens a side"
            if setting.get("max_tokens")
            else ""
        )
        + (
            f", a seeded subset of {setting['train_pairs']:,} pairs"
            if setting.get("train_pairs")
            else ""
        )
        + f"; {_epochs(setting)} (the paper: ParaNMT-50M's 5M processed pairs, epochs not stated).",
        f"Tuning: each run's grid point by Pearson r on {setting['tuning']['set']} "
        f"{setting['tuning']['subset']} {setting['tuning']['split']} after "
        f"{setting['tuning']['epochs']} epoch(s) on the tuning subset; grids {setting['grids']}.",
        f"News threshold tuned on Ko et al.'s labelled news sentences ({setting['news_train']}); "
        f"GloVe rows: {setting['vectors']}.",
        _init_line(setting),
    ]
    for run, spec in runs.items():
        shown = {k: v for k, v in spec.items() if k not in ("data", "objective")}
        lines.append(f"- run `{run}`: {shown}")
    if setting.get("note"):
        lines.append(setting["note"])
    return lines


def _init_line(setting: Mapping[str, Any]) -> str:
    """Where the runs' word rows start (the paper: randomly, A.1)."""
    init = setting.get("init")
    if init:
        return (
            f"Word rows: from {init['embeddings']} (WLO: A = 1, B the vector), every word of it "
            "kept (the words the pairs do not train at their initial vectors; unknown only the "
            "words it lacks), as the authors' code keeps its initial vectors' vocabulary; the "
            "paper initialises randomly (A.1) on ParaNMT's 5M pairs."
        )
    why = f" ({setting['init_missing']})" if setting.get("init_missing") else ""
    return f"Word rows: random, the paper's (A.1){why}; unknown: words the pairs do not train."


TRAINED = ("wordavg", "wordsum", "lstm_avg", "lstm_gaussian", "wlo")


def with_initial(printed: PrintedTable, init: str) -> PrintedTable:
    """``printed`` with the untrained baseline row (:data:`INITIAL`, no paper value) before
    the trained rows."""
    rows = [r for r in printed.rows if r not in TRAINED]
    rows += [INITIAL, *(r for r in printed.rows if r in TRAINED)]
    labels = {**printed.row_labels, INITIAL: f"Initial vectors AVG ({init}, untrained)"}
    return dataclasses.replace(printed, rows=rows, row_labels=labels)


def below_initial(
    cells: dict[tuple[str, str], Cell], columns: list[str]
) -> tuple[dict[tuple[str, str], Cell], str]:
    """The trained rows' cells noted where they score below the untrained baseline's cell of
    their column, and the markdown line that reports it."""
    out, below, compared = dict(cells), 0, 0
    for column in columns:
        floor = cells[INITIAL, column].value
        if floor is None:
            continue
        note = f"below the untrained initial vectors averaged ({floor:.1f}; why: {BELOW_WHY})"
        for row in TRAINED:
            cell = cells.get((row, column))
            if cell is None or cell.value is None:
                continue
            compared += 1
            if cell.value < floor:
                below += 1
                reason = "; ".join(filter(None, (note, cell.reason)))
                out[row, column] = dataclasses.replace(cell, reason=reason)
    line = (
        "Untrained baseline: the row 'Initial vectors AVG' scores the runs' initial vectors "
        f"averaged (words without a vector skipped); {below} of the {compared} trained cells "
        "are below it in their column, each noted."
    )
    return out, line


def row_notes(setting: Mapping[str, Any]) -> dict[str, str]:
    """How each row's setting differs from the paper's (the compare files' notes)."""
    limit = (
        f", pairs of at most {setting['max_tokens']} tokens" if setting.get("max_tokens") else ""
    )
    subset = f", {setting['train_pairs']:,} of them" if setting.get("train_pairs") else ""
    trained = f"trained on {setting['corpus']}{limit}{subset}, {_epochs(setting)}"
    notes = dict.fromkeys(TRAINED, trained)
    notes.update(
        {
            "wordfreq_sum": _frequencies(setting),
            "wordfreq_avg": _frequencies(setting),
            "glove_sum": f"{setting['vectors']} (the paper's GloVe version is not stated)",
            "glove_avg": f"{setting['vectors']} (the paper's GloVe version is not stated)",
            "glove": f"{setting['vectors']} SUM (AVG ranks equal-length pairs alike)",
            "length": "the paper's Twitter/Yelp/Movie cells are copied from Ko et al. (2019)",
            INITIAL: "not in the paper: the runs' initial vectors "
            f"({(setting.get('init') or {}).get('embeddings')}) averaged, untrained",
        }
    )
    return notes


def _frequencies(setting: Mapping[str, Any]) -> str:
    """Where the Word Freq. rows' ranks come from (papers.chen2020.frequencies)."""
    source = setting.get("frequencies", "training")
    if source == "training":
        return f"frequencies counted in the training pairs (both sides): {setting['corpus']}"
    return (
        f"frequency ranks: {source}'s vocabulary order (descending corpus frequency; the paper "
        "names no source, ParaNMT's own counts are the published setting's)"
    )


def write_score_table(
    table: str,
    sentences: Path,
    scores: Mapping[str, Path],
    setting: Mapping[str, Any],
    out: Path,
    seeds: Mapping[str, Mapping[int, Path]] | None = None,
) -> None:
    """Build ``table`` (one of :data:`BUILDERS`) and write its three files; ``seeds``: model
    -> seed -> its scores, for the models over seed replicates."""
    printed = printed_table("chen2020", table)
    data = Data(sentences, scores)
    initial = table in INITIAL_TABLES and INITIAL in data.scores
    if initial:
        printed = with_initial(printed, setting["init"]["embeddings"])
    cells = BUILDERS[table](data, printed)
    extra = []
    if seeds:
        cells = over_seeds(table, data, printed, cells, seeds)
        extra.append(seeds_line(seeds))
    if initial:
        cells, line = below_initial(cells, printed.columns)
        extra.append(line)
    if table == "table4" and data.sources.facts.get("snli_equal_length"):
        counts = data.sources.facts["snli_equal_length"]
        extra.append(f"Equal-length SNLI test pairs: {counts} (paper: {PAPER_COUNTS}).")
    if data.sources.facts.get("news_train"):
        extra.append(f"News training sentences: {data.sources.facts['news_train']}.")
    rendered = render_custom(
        printed, cells, setting_lines(setting), extra, row_notes=row_notes(setting)
    )
    write_outputs(out, *rendered)
    write_cell_replicates(out, cells, RESAMPLER)
