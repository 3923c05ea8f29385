"""The models the generic evaluator scores and the leaderboard ranks: the configured pretrained
vectors, every paper's generic runs and the models the papers register
(Registration.leaderboard), with the files each is read from."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from paracomp.registration import Registrations
from paracomp.workflow.runs import Runs
from paracomp.workflow.sources import Sources

EVALUATION_FILES = ("sts.csv", "wordsim.csv", "encoder.json", "pairs.parquet")
"""What the generic evaluator writes for each model (``results/eval/<model>/``)."""


@dataclass(frozen=True)
class Models:
    """Config ``models`` (the pretrained vectors), the papers' runs, the sources and the
    papers' registrations."""

    pretrained: Mapping[str, Mapping[str, Any]]
    runs: Runs
    sources: Sources
    registrations: Registrations

    def buildable(self) -> list[str]:
        """The configured pretrained models whose embeddings can be had here."""
        missing = self.sources.embeddings_missing
        return [m for m, spec in self.pretrained.items() if not missing(spec["embeddings"])]

    def model_of(self, paper: str, name: str) -> str:
        """A table column's ``model``: the paper's run ``name`` if it has one, else the
        pretrained model ``name``."""
        return f"{paper}/{name}" if name in self.runs.runs_of(paper) else name

    def pretrained_entry(self, embeddings: str) -> dict[str, str]:
        """The leaderboard entry of pretrained vectors: their file, or why they cannot be had."""
        reason = self.sources.embeddings_missing(embeddings)
        if reason is not None:
            return {"paper": "", "note": reason}
        return {"paper": "", "embeddings": f"resources/embeddings/{embeddings}.parquet"}

    def leaderboard(self) -> dict[str, Mapping[str, Any]]:
        """Every model of the leaderboard -> its entry: the pretrained models, every paper's
        generic runs and the papers' registered models."""
        models: dict[str, Mapping[str, Any]] = {
            name: self.pretrained_entry(spec["embeddings"])
            for name, spec in self.pretrained.items()
        }
        for paper in self.runs.blocks:
            for run in self.runs.runs_of(paper):
                models[f"{paper}/{run}"] = {"paper": paper, "run": f"results/{paper}/runs/{run}"}
        return {**models, **self.registrations.leaderboard()}

    def evaluated(self) -> list[str]:
        """The models the generic evaluator scores: those with a run folder or word vectors."""
        return [m for m, e in self.leaderboard().items() if "run" in e or "embeddings" in e]

    def entry(self, model: str) -> Mapping[str, Any]:
        try:
            return self.leaderboard()[model]
        except KeyError:
            raise ValueError(f"model {model!r} is neither in config models nor a paper's") from None

    def source_files(self, model: str) -> dict[str, Any]:
        """The files a model is read from: a run's composer and rows (or the ``record`` its
        job writes last, where those are no rule's outputs) and fallback vectors, or its
        embeddings."""
        entry = self.entry(model)
        if "run" in entry:
            names = ("composer.pt", "embeddings.parquet")
            run = [entry["record"]] if "record" in entry else [f"{entry['run']}/{n}" for n in names]
            return {"run": run} | ({"fallback": entry["fallback"]} if "fallback" in entry else {})
        return {"embeddings": entry["embeddings"]}

    def source_args(self, model: str) -> str:
        """``--run <folder> [--fallback <vectors>]`` or ``--embeddings <vectors>``."""
        entry = self.entry(model)
        if "run" not in entry:
            return f"--embeddings {shlex.quote(entry['embeddings'])}"
        fallback = f" --fallback {shlex.quote(entry['fallback'])}" if "fallback" in entry else ""
        return f"--run {shlex.quote(entry['run'])}{fallback}"

    def leaderboard_inputs(self) -> list[str]:
        """The evaluation files of every evaluated model (its pairs for the rank intervals)."""
        return [f"results/eval/{m}/{name}" for m in self.evaluated() for name in EVALUATION_FILES]

    def leaderboard_spec(self) -> str:
        """Every model of the leaderboard as JSON ``{model: {paper, eval, note, composition}}``."""
        evaluated = set(self.evaluated())
        return json.dumps(
            {
                model: {
                    "paper": entry["paper"],
                    "eval": f"results/eval/{model}" if model in evaluated else None,
                    "note": entry.get("note", ""),
                    "composition": entry.get("composition", ""),
                }
                for model, entry in self.leaderboard().items()
            }
        )
