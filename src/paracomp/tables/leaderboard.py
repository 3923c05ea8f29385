"""One table of every model on the generic evaluator's sets: the leaderboard.

Each :class:`Entry` is a model with its paper and the folder of its evaluation
(:func:`paracomp.eval.run.evaluate_model`: ``sts.csv``, ``wordsim.csv``, ``encoder.json``), or
none and a note saying why it has no scores. A row holds, ×100, per sentence-pair set the mean
Pearson r over its scored subsets (for a yearly STS set: the year's mean; each subset of such
a set also has its column ``<set>/<subset>``), per word set the Spearman ρ, the mean over the
sentence-pair sets (``sts mean``) and over the word sets (``wordsim mean``), how the model
composes and a note naming the subsets without a score. Rows are sorted by ``sts mean``.

:func:`rank_intervals` adds the uncertainty of that order: every model's ``sts mean`` on each
joint test-set resample (:mod:`paracomp.eval.bootstrap`: the same pairs of each subset for all
models), its 95% percentile interval, and the 95% interval of its rank over the resamples.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from paracomp.atomic import atomic_path
from paracomp.errors import DataError
from paracomp.eval import bootstrap

STS_MEAN = "sts mean"
RANK_COLUMNS = [f"{STS_MEAN} ci_low", f"{STS_MEAN} ci_high", "rank", "rank_low", "rank_high"]
WORDSIM_MEAN = "wordsim mean"
HEAD = ["model", "paper", "composition"]


@dataclass(frozen=True)
class Entry:
    """A model of the leaderboard: its ``paper`` ("" for a shared pretrained model), the
    folder of its evaluation (None: not evaluated) and a ``note`` (why not, or a remark)."""

    model: str
    paper: str
    evaluation: Path | None
    note: str = ""
    composition: str = ""


def read_entries(text: str) -> list[Entry]:
    """Entries from JSON ``{model: {paper, eval, note, composition}}`` (``eval`` null or a
    folder; ``composition`` only for a model without evaluation)."""
    entries = []
    for model, spec in json.loads(text).items():
        unknown = set(spec) - {"paper", "eval", "note", "composition"}
        if unknown:
            raise DataError(f"leaderboard model {model}: unknown key(s) {sorted(unknown)}")
        folder = spec.get("eval")
        entries.append(
            Entry(model, spec.get("paper", ""), Path(folder) if folder else None,
                  spec.get("note", ""), spec.get("composition", ""))
        )  # fmt: skip
    return entries


def _csv(path: Path, columns: Sequence[str]) -> pd.DataFrame:
    try:
        frame = pd.read_csv(path)
    except FileNotFoundError:
        raise DataError(f"{path}: no such evaluation file") from None
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(f"{path}: no column(s) {missing}")
    return frame


def _scored(value: object, n: object) -> float | None:
    """``value`` ×100 where it is a finite number over n > 0 pairs, else None."""
    number = pd.to_numeric(value, errors="coerce")
    if pd.isna(n) or int(n) <= 0 or pd.isna(number) or not math.isfinite(float(number)):
        return None
    return 100.0 * float(number)


def _mean(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def _composition(folder: Path) -> str:
    encoder = folder / "encoder.json"
    try:
        return str(json.loads(encoder.read_text())["composition"])
    except (FileNotFoundError, KeyError, json.JSONDecodeError) as exc:
        raise DataError(f"{encoder}: no composition ({type(exc).__name__})") from None


def _sts_scores(
    path: Path, sets: Sequence[str], unscored: list[str]
) -> tuple[dict[str, float | None], dict[str, float | None]]:
    """Per set the mean over its scored subsets, and the subsets of sets with several; what
    has no score is appended to ``unscored``."""
    sts = _csv(path, ["dataset", "subset", "n", "pearson"])
    means: dict[str, float | None] = {}
    subsets: dict[str, float | None] = {}
    for name in sets:
        found = sts[sts["dataset"] == name]
        values = {str(r.subset): _scored(r.pearson, r.n) for r in found.itertuples()}
        unscored += [name if s == "*" else f"{name}/{s}" for s, v in values.items() if v is None]
        if not len(found):
            unscored.append(name)
        means[name] = _mean(list(values.values()))
        named = {s: v for s, v in values.items() if s != "*"}
        if len(named) > 1:
            subsets.update({f"{name}/{s}": v for s, v in named.items()})
    return means, subsets


def _word_scores(path: Path, sets: Sequence[str], unscored: list[str]) -> dict[str, float | None]:
    words = _csv(path, ["dataset", "n", "spearman"])
    scores: dict[str, float | None] = {}
    for name in sets:
        found = words[words["dataset"] == name]
        scores[name] = (
            _scored(found["spearman"].iloc[0], found["n"].iloc[0]) if len(found) else None
        )
        if scores[name] is None:
            unscored.append(name)
    return scores


def model_row(
    entry: Entry, sts_sets: Sequence[str], wordsim_sets: Sequence[str]
) -> dict[str, object]:
    """One model's row (columns as the module says; absent values None)."""
    row: dict[str, object] = {"model": entry.model, "paper": entry.paper}
    notes = [entry.note] if entry.note else []
    if entry.evaluation is None:
        row["composition"] = entry.composition
        row.update(dict.fromkeys([*sts_sets, STS_MEAN, *wordsim_sets, WORDSIM_MEAN]))
        row["note"] = "; ".join(notes)
        return row
    row["composition"] = _composition(entry.evaluation)
    unscored: list[str] = []
    sts, subsets = _sts_scores(entry.evaluation / "sts.csv", sts_sets, unscored)
    words = _word_scores(entry.evaluation / "wordsim.csv", wordsim_sets, unscored)
    row.update({**sts, STS_MEAN: _mean(list(sts.values()))})
    row.update({**words, WORDSIM_MEAN: _mean(list(words.values()))})
    row.update(subsets)
    if unscored:
        notes.append(f"no score: {', '.join(unscored)}")
    row["note"] = "; ".join(notes)
    return row


def leaderboard(
    entries: Sequence[Entry], sts_sets: Sequence[str], wordsim_sets: Sequence[str]
) -> pd.DataFrame:
    """Every entry's row, best ``sts mean`` first (models without one last, by name); the set
    and mean columns first, then the subset columns, then ``note``."""
    if not entries:
        raise DataError("the leaderboard has no model")
    rows = [model_row(e, sts_sets, wordsim_sets) for e in entries]
    main = [*HEAD, *sts_sets, STS_MEAN, *wordsim_sets, WORDSIM_MEAN]
    subsets = sorted({c for r in rows for c in r if c not in main and c != "note"})
    frame = pd.DataFrame(rows, columns=[*main, *subsets, "note"])
    for column in [c for c in frame.columns if c not in (*HEAD, "note")]:
        frame[column] = pd.to_numeric(frame[column])
    frame = frame.sort_values([STS_MEAN, "model"], ascending=[False, True], na_position="last")
    return frame.reset_index(drop=True)


def _scored_subsets(entry: Entry, sts_sets: Sequence[str]) -> pd.DataFrame:
    """The subsets of ``sts_sets`` with a score in the entry's ``sts.csv`` (as :func:`model_row`
    counts them)."""
    sts = _csv(entry.evaluation / "sts.csv", ["dataset", "subset", "split", "n", "pearson"])  # type: ignore[operator]
    scored = [_scored(r.pearson, r.n) is not None for r in sts.itertuples()]
    return sts[np.array(scored, bool) & sts["dataset"].isin(list(sts_sets)).to_numpy()]


def sts_mean_replicates(
    entries: Sequence[Entry], sts_sets: Sequence[str], resampler: bootstrap.Resampler
) -> dict[str, np.ndarray]:
    """Each model's ``sts mean`` ×100 on every resample, ``(B,)``, for the models with a
    score and their ``pairs.parquet``: per subset its Pearson r on the subset's shared
    resamples (one counts matrix per subset, all models' predictions at once), then the
    means as :func:`model_row` takes them."""
    found: dict[str, dict[str, list[str]]] = {}
    leaves: dict[tuple[str, int], list[tuple[str, str, np.ndarray, np.ndarray, np.ndarray]]] = {}
    for entry in entries:
        if entry.evaluation is None or not (entry.evaluation / "pairs.parquet").exists():
            continue
        wanted = _scored_subsets(entry, sts_sets)
        if not len(wanted):
            continue
        pairs = pd.read_parquet(entry.evaluation / "pairs.parquet")
        groups = dict(list(pairs.groupby(["dataset", "subset", "split"], sort=False)))
        found[entry.model] = {}
        for r in wanted.itertuples():
            split = "" if pd.isna(r.split) else str(r.split)
            group = groups.get((r.dataset, r.subset, split))
            if group is None:
                raise DataError(
                    f"{entry.evaluation}/pairs.parquet: no pairs of {r.dataset}/{r.subset}"
                )
            key = f"{r.dataset}/{r.subset}/{split}"
            kept = ~group["dropped"].to_numpy(bool)
            found[entry.model].setdefault(str(r.dataset), []).append(key)
            leaves.setdefault((key, len(group)), []).append(
                (entry.model, key, np.flatnonzero(kept), group["gold"].to_numpy()[kept],
                 group["pred"].to_numpy()[kept])
            )  # fmt: skip
    per_leaf: dict[tuple[str, str], np.ndarray] = {}
    for (key, size), items in leaves.items():
        counts = resampler.counts(bootstrap.Sample.whole(key, size))
        alike: dict[bytes, list] = {}
        for item in items:
            alike.setdefault(item[2].tobytes() + item[3].tobytes(), []).append(item)
        for same in alike.values():
            _, _, positions, gold, _ = same[0]
            preds = np.stack([item[4] for item in same], axis=1)
            reps = bootstrap.pearson(counts[:, positions], gold, preds)
            for column, item in enumerate(same):
                per_leaf[item[0], key] = reps[:, column]
    return {
        model: 100.0
        * np.mean(
            [np.mean([per_leaf[model, k] for k in keys], axis=0) for keys in sets.values()], axis=0
        )
        for model, sets in found.items()
    }


def rank_intervals(
    frame: pd.DataFrame,
    entries: Sequence[Entry],
    sts_sets: Sequence[str],
    resampler: bootstrap.Resampler | None = None,
) -> pd.DataFrame:
    """``frame`` with :data:`RANK_COLUMNS` after ``sts mean``: its 95% interval, the model's
    rank (1: best ``sts mean``) and the 95% interval of its rank over the joint resamples
    among the models with replicates (empty for the others)."""
    reps = sts_mean_replicates(entries, sts_sets, resampler or bootstrap.Resampler())
    models = [m for m in frame["model"] if m in reps]
    out = frame.copy()
    for column in RANK_COLUMNS:
        out.insert(out.columns.get_loc(STS_MEAN) + 1 + RANK_COLUMNS.index(column), column, np.nan)
    if not models:
        return out
    matrix = np.stack([reps[m] for m in models], axis=1)  # B × models
    ranks = np.argsort(np.argsort(-matrix, axis=1, kind="stable"), axis=1, kind="stable") + 1
    point = frame.set_index("model").loc[models, STS_MEAN].to_numpy()
    ends = np.array([bootstrap.interval(matrix[:, j]) for j in range(len(models))])
    where = out.set_index("model").index.get_indexer(models)
    level = bootstrap.LEVEL
    for column, values in (
        (f"{STS_MEAN} ci_low", ends[:, 0]),
        (f"{STS_MEAN} ci_high", ends[:, 1]),
        ("rank", np.argsort(np.argsort(-point, kind="stable"), kind="stable") + 1),
        ("rank_low", np.quantile(ranks, (1 - level) / 2, axis=0, method="lower")),
        ("rank_high", np.quantile(ranks, (1 + level) / 2, axis=0, method="higher")),
    ):
        out.iloc[where, out.columns.get_loc(column)] = np.asarray(values, np.float64)
    for column in ("rank", "rank_low", "rank_high"):
        out[column] = out[column].astype("Int64")
    return out


def to_markdown(frame: pd.DataFrame, sts_sets: Sequence[str], wordsim_sets: Sequence[str]) -> str:
    """The leaderboard as markdown: per-set and mean columns (no subset columns), ×100 with
    one decimal, an empty cell where a model has no score."""
    columns = [*HEAD, *sts_sets, STS_MEAN, *wordsim_sets, WORDSIM_MEAN, "note"]
    ranked = all(c in frame.columns for c in RANK_COLUMNS)
    shown = [*columns[:-1], "rank (95%)", "note"] if ranked else columns
    lines = [
        "# Leaderboard",
        "",
        "Pearson r ×100 per sentence-pair set (a yearly STS set: the mean over its scored "
        "subsets), Spearman ρ ×100 per word set, every model through the same evaluator; "
        f"sorted by {STS_MEAN}.",
        *(
            [
                f"{STS_MEAN} ±h: h half the width of its 95% test-set bootstrap interval; rank "
                "(95%): the rank and its 95% interval over the joint resamples (the same pairs "
                "of each subset for every model)."
            ]
            if ranked
            else []
        ),
        "",
        "| " + " | ".join(shown) + " |",
        "|" + "|".join("---" for _ in shown) + "|",
    ]
    for record in frame.to_dict("records"):
        cells = [
            "" if pd.isna(v) else (f"{v:.1f}" if isinstance(v, float) else str(v))
            for v in (record[c] for c in columns)
        ]
        if ranked:
            low, high = record[f"{STS_MEAN} ci_low"], record[f"{STS_MEAN} ci_high"]
            at = columns.index(STS_MEAN)
            if not pd.isna(low):
                cells[at] += f" ±{(high - low) / 2:.1f}"
            rank = record["rank"]
            cells.insert(
                -1,
                "" if pd.isna(rank) else f"{rank} ({record['rank_low']}–{record['rank_high']})",
            )
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def plot(frame: pd.DataFrame, out_png: Path) -> None:
    """Horizontal bars of each scored model's ``sts mean``, coloured by paper."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    scored = frame[frame[STS_MEAN].notna()].iloc[::-1]
    papers = sorted(set(frame["paper"].fillna("")))
    colours = {p: f"C{i}" for i, p in enumerate(papers)}
    fig, ax = plt.subplots(figsize=(8, 1.5 + 0.25 * max(len(scored), 1)))
    if len(scored):
        labels = scored["paper"].fillna("")
        low, high = scored.get(f"{STS_MEAN} ci_low"), scored.get(f"{STS_MEAN} ci_high")
        errors = None
        if low is not None and high is not None and low.notna().any():
            errors = [(scored[STS_MEAN] - low).fillna(0), (high - scored[STS_MEAN]).fillna(0)]
        ax.barh(scored["model"], scored[STS_MEAN], color=[colours[p] for p in labels],
                xerr=errors, error_kw={"elinewidth": 0.6, "capsize": 1.5})  # fmt: skip
        handles = [Patch(color=colours[p], label=p or "pretrained") for p in sorted(set(labels))]
        ax.legend(handles=handles, fontsize=7, loc="lower right")
    else:
        ax.text(0.5, 0.5, "no model has a score", ha="center", va="center")
    ax.set_xlabel(
        f"{STS_MEAN}: mean Pearson r ×100 over the sentence-pair sets"
        " (error bars: 95% test-set bootstrap interval)"
    )
    ax.tick_params(axis="y", labelsize=7)
    fig.tight_layout()
    with atomic_path(out_png) as tmp:
        fig.savefig(tmp, format="png", dpi=120)
    plt.close(fig)


def write_leaderboard(
    entries: Sequence[Entry],
    sts_sets: Sequence[str],
    wordsim_sets: Sequence[str],
    out: Path,
    markdown: Path,
    png: Path,
) -> pd.DataFrame:
    """Write the leaderboard's CSV, markdown and plot; return the table."""
    frame = rank_intervals(leaderboard(entries, sts_sets, wordsim_sets), entries, sts_sets)
    with atomic_path(out) as tmp:
        frame.to_csv(tmp, index=False, float_format="%.2f")
    with atomic_path(markdown) as tmp:
        tmp.write_text(to_markdown(frame, sts_sets, wordsim_sets))
    plot(frame, png)
    return frame
