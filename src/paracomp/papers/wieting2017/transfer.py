"""Transfer evaluation of one grid point and the two model selections of Tables 1-4.

:func:`score_point` scores a trained run, :func:`score_initial` the initial vectors averaged
(the untrained baseline), on every transfer and selection set (:class:`ScoringSets`): the
cosine of the two sentences' encodings against the gold score, Pearson's r per subset
(:mod:`paracomp.eval.sts`, the generic evaluation's code), with the reason of each absent
subset (STS 2013 SMT: LDC-licensed). :class:`PointScores` holds one point's r per subset;
:func:`select` picks a run's point by "oracle" (the mean r over the 22 transfer subsets) or
"sts2016" (the mean r over the 5 STS 2016 subsets); the reported number is always the 22-set
mean of the picked point, ×100, each subset counted once (no per-year averaging).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from paracomp.data.parsers import EXPECTED_SUBSETS
from paracomp.errors import DataError

TRANSFER_SUBSETS: tuple[tuple[str, str], ...] = (
    *(
        (year, subset)
        for year in ("sts2012", "sts2013", "sts2014", "sts2015")
        for subset in EXPECTED_SUBSETS[year]
    ),
    ("sick2014", "sick"),
    ("twitter-pit2015", "pit2015"),
)
"""The paper's 22 evaluation subsets (20 STS 2012-2015, SICK, Twitter)."""
SELECTION_SUBSETS: tuple[tuple[str, str], ...] = tuple(
    ("sts2016", subset) for subset in EXPECTED_SUBSETS["sts2016"]
)
CRITERIA = {"oracle": TRANSFER_SUBSETS, "sts2016": SELECTION_SUBSETS}
"""Selection criterion -> the subsets whose mean r picks the point."""
STS_SUBSETS = TRANSFER_SUBSETS[:20]
"""The 20 STS 2012-2015 subsets (Table 7's pairs)."""


@dataclass(frozen=True)
class ScoringSets:
    """What a model is scored on: the parsed sets (name -> artefact), the split scored of
    each set that has several, the reason of each set not available, the tokenisation."""

    sets: Mapping[str, Path]
    splits: Mapping[str, str]
    unavailable: Mapping[str, str]
    tokenizer: str
    lowercase: bool

    def score(self, encoder) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Per-subset metrics (``STS_COLUMNS``) and per-pair predictions of ``encoder``; an
        unavailable set gets a row with its reason."""
        from paracomp.eval.run import score_sets

        return score_sets(list(self.sets.values()), encoder, self.splits, self.unavailable,
                          self.tokenizer, self.lowercase, "skip")  # fmt: skip


def score_point(run_dir: Path, on: ScoringSets) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:meth:`ScoringSets.score` of the run trained in ``run_dir``."""
    from paracomp.eval.trained import load_run

    return on.score(load_run(run_dir)[1])


def collapsed_loss(train: Mapping) -> float | None:
    """The final training loss of a run that ended collapsed, else None. Collapsed: within
    0.5% of 2δ (δ the margin), the loss of Eq. 2 when every sentence has the same vector
    (both hinge terms at δ)."""
    params = train.get("params", {})
    loss, margin = train.get("final_loss"), params.get("margin")
    if loss is None or not margin or params.get("objective") != "paraphrase":
        return None
    return float(loss) if abs(float(loss) - 2 * margin) <= 0.01 * margin else None


def score_initial(embeddings: Path, on: ScoringSets) -> pd.DataFrame:
    """Per-subset metrics of the untrained baseline: the initial vectors averaged (words
    without a vector skipped), the floor a trained run should clear."""
    from paracomp import artefacts
    from paracomp.eval.encode import AveragedEmbeddings

    words, matrix = artefacts.read_embeddings(embeddings)
    return on.score(AveragedEmbeddings(words, matrix, "skip"))[0]


@dataclass
class PointScores:
    """One grid point: its run, index, settings (the point) and Pearson r per (set,
    subset); ``reasons``: why a subset has no r; ``collapse``: the training loss it ended
    at when that is the collapsed run's 2δ (else None)."""

    run: str
    point: int
    settings: dict
    pearson: dict[tuple[str, str], float] = field(default_factory=dict)
    reasons: dict[tuple[str, str], str] = field(default_factory=dict)
    folder: Path | None = None
    collapse: float | None = None

    @classmethod
    def from_frame(
        cls, run: str, point: int, settings: dict, frame: pd.DataFrame, folder: Path | None = None
    ) -> PointScores:
        pearson: dict[tuple[str, str], float] = {}
        reasons: dict[tuple[str, str], str] = {}
        for row in frame.itertuples():
            key = (str(row.dataset), str(row.subset))
            value = getattr(row, "pearson", float("nan"))
            if int(row.n) > 0 and isinstance(value, float) and math.isfinite(value):
                pearson[key] = float(value)
            else:
                note = row.note if isinstance(row.note, str) and row.note else "not evaluated"
                reasons[key] = note
        return cls(run, point, settings, pearson, reasons, folder)

    @classmethod
    def load(cls, run: str, folder: Path) -> PointScores:
        record = json.loads((folder / "record.json").read_text())
        frame = pd.read_csv(folder / "scores.csv")
        point = cls.from_frame(run, int(record["index"]), record["point"], frame, folder)
        point.collapse = collapsed_loss(record.get("train", {}))
        return point

    def reason(self, key: tuple[str, str]) -> str:
        dataset, subset = key
        return (
            self.reasons.get(key)
            or self.reasons.get((dataset, "*"))
            or (f"{dataset}/{subset} was not evaluated")
        )

    def mean(self, subsets: Sequence[tuple[str, str]]) -> float | None:
        """Mean r over those of ``subsets`` that were scored, ×100 (None: none was)."""
        values = [self.pearson[k] for k in subsets if k in self.pearson]
        return 100.0 * sum(values) / len(values) if values else None

    def missing(self, subsets: Sequence[tuple[str, str]]) -> list[str]:
        return [f"{d}/{s}: {self.reason((d, s))}" for d, s in subsets if (d, s) not in self.pearson]


def select(points: Sequence[PointScores], criterion: str) -> PointScores | None:
    """The point with the highest mean r over the criterion's subsets (the first on ties;
    None when no point has one)."""
    subsets = CRITERIA[criterion]
    best, best_value = None, -math.inf
    for point in sorted(points, key=lambda p: p.point):
        value = point.mean(subsets)
        if value is not None and value > best_value:
            best, best_value = point, value
    return best


def copy_selected(points: Sequence[PointScores], criterion: str, out: Path) -> PointScores:
    """Copy the run files (composer and word rows) of the point ``criterion`` picks into the
    folder ``out``, a run folder of its own, with ``selected.json`` naming the point."""
    from paracomp.atomic import write_json
    from paracomp.run_folder import copy_run

    point = select(points, criterion)
    if point is None or point.folder is None:
        run = points[0].run if points else "?"
        raise DataError(f"run {run}: no point has a {criterion} score to be selected by")
    copy_run(point.folder, out)
    write_json(out / "selected.json", {
        "run": point.run, "point": point.point, "settings": point.settings,
        "folder": str(point.folder), "criterion": criterion,
        "criterion_mean": point.mean(CRITERIA[criterion]),
    })  # fmt: skip
    return point
