"""One table of every model on the generic evaluator's sets: the leaderboard.

Each :class:`Entry` is a model with its paper and the folder of its evaluation
(:func:`paracomp.eval.run.evaluate_model`: ``sts.csv``, ``wordsim.csv``, ``encoder.json``), or
none and a note saying why it has no scores. A row holds, ×100, per sentence-pair set the mean
Pearson r over its scored subsets (for a yearly STS set: the year's mean; each subset of such
a set also has its column ``<set>/<subset>``), per word set the Spearman ρ, the mean over the
sentence-pair sets (``sts mean``) and over the word sets (``wordsim mean``), how the model
composes and a note naming the subsets without a score. Rows are sorted by ``sts mean``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from paracomp.atomic import atomic_path
from paracomp.errors import DataError

STS_MEAN = "sts mean"
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


def to_markdown(frame: pd.DataFrame, sts_sets: Sequence[str], wordsim_sets: Sequence[str]) -> str:
    """The leaderboard as markdown: per-set and mean columns (no subset columns), ×100 with
    one decimal, an empty cell where a model has no score."""
    columns = [*HEAD, *sts_sets, STS_MEAN, *wordsim_sets, WORDSIM_MEAN, "note"]
    lines = [
        "# Leaderboard",
        "",
        "Pearson r ×100 per sentence-pair set (a yearly STS set: the mean over its scored "
        "subsets), Spearman ρ ×100 per word set, every model through the same evaluator; "
        f"sorted by {STS_MEAN}.",
        "",
        "| " + " | ".join(columns) + " |",
        "|" + "|".join("---" for _ in columns) + "|",
    ]
    for row in frame[columns].itertuples(index=False):
        cells = [
            "" if pd.isna(v) else (f"{v:.1f}" if isinstance(v, float) else str(v)) for v in row
        ]
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
        ax.barh(scored["model"], scored[STS_MEAN], color=[colours[p] for p in labels])
        handles = [Patch(color=colours[p], label=p or "pretrained") for p in sorted(set(labels))]
        ax.legend(handles=handles, fontsize=7, loc="lower right")
    else:
        ax.text(0.5, 0.5, "no model has a score", ha="center", va="center")
    ax.set_xlabel(f"{STS_MEAN}: mean Pearson r ×100 over the sentence-pair sets")
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
    frame = leaderboard(entries, sts_sets, wordsim_sets)
    with atomic_path(out) as tmp:
        frame.to_csv(tmp, index=False, float_format="%.2f")
    with atomic_path(markdown) as tmp:
        tmp.write_text(to_markdown(frame, sts_sets, wordsim_sets))
    plot(frame, png)
    return frame
