"""The inputs and params of scheepers2018's rules (rules/papers/scheepers2018.smk), from its
config block. Imports no torch."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from paracomp.errors import ConfigError
from paracomp.papers.scheepers2018.runs import VARIANTS, run_config

MEASURE_SETS = ("sts2014", "sts2015", "sick2014", "simlex999", "simverb3500", "ws353-all")
"""The evaluation sets of Table 1's measures (CompVecEval reads the split's own data)."""
RUNS = "results/scheepers2018/runs"


@dataclass(frozen=True)
class Inputs:
    """``block``: the paper's config block; ``defaults``: training.defaults; ``released``: the
    fetched folder of the authors' split (compvec-wordnet), None where no source has it;
    ``sets``: the parsed :data:`MEASURE_SETS` that some source provides; ``missing``: why
    embeddings cannot be had here (embeddings a paper's rules build from an unavailable
    dataset), else None."""

    block: Mapping[str, Any]
    defaults: Mapping[str, Any]
    released: str | None
    sets: list[str]
    missing: Callable[[str], str | None]

    def __post_init__(self) -> None:
        missing = set(self.block["compositions"]) - set(self.block["composers"])
        if missing:
            raise ConfigError(
                f"papers.scheepers2018.composers has no composer for {sorted(missing)}"
            )

    def split(self) -> str:
        """The first configured split whose data is available."""
        for split in self.block["split"]:
            if split == "grouped" or self.released is not None:
                return split
        raise ConfigError(
            f"papers.scheepers2018.split {self.block['split']}: no source has compvec-wordnet"
        )

    def data_inputs(self, wildcards) -> dict[str, str]:
        inputs = {"wordnet": "resources/wordnet/nltk_data"}
        if wildcards.split == "released":
            inputs["released"] = self.released
        return inputs

    def released_arg(self, wildcards) -> str:
        return f"--released {self.released}" if wildcards.split == "released" else ""

    def run_params(self, wildcards) -> str:
        """The run settings of a cell pair that differ from their defaults, less device and
        threads (the job's): a new setting of the trainer reruns no CompVec job."""
        composer = self.block["composers"][wildcards.composition]
        settings = {**self.defaults, **self.block["run"]}
        margins = self.block["margins"]
        config = run_config(wildcards.composition, composer, wildcards.variant, settings, margins)
        values = config.overrides()
        for key in ("device", "threads"):
            values.pop(key, None)
        return json.dumps(values)

    @staticmethod
    def run_dir(wildcards) -> str:
        parts = [wildcards.split, wildcards.embeddings, wildcards.composition, wildcards.variant]
        return f"{RUNS}/" + "/".join(parts)

    def eval_inputs(self, wildcards) -> dict[str, Any]:
        run, data = self.run_dir(wildcards), f"resources/compvec/{wildcards.split}"
        return {
            "run": [f"{run}/embeddings.parquet", f"{run}/composer.pt"],
            "data": [f"{data}/{name}.parquet" for name in ("test", "vocab", "targets")],
            "pretrained": f"resources/embeddings/{wildcards.embeddings}.parquet",
            "sets": self.sets,
        }

    def columns(self) -> dict[str, dict[str, Any]]:
        """Table 1's column groups, a group whose embeddings cannot be had here left empty
        with the reason."""
        out = {}
        for group, spec in self.block["tables"]["table1"]["columns"].items():
            reason = self.missing(spec["embeddings"]) if spec.get("embeddings") else None
            out[group] = spec if reason is None else {"reason": reason}
        return out

    def embeddings_pattern(self) -> str:
        """A wildcard pattern of every embeddings Table 1's groups name."""
        columns = self.block["tables"]["table1"]["columns"].values()
        return "|".join(sorted(re.escape(c["embeddings"]) for c in columns if c.get("embeddings")))

    def groups(self) -> dict[str, str]:
        """Table 1 embeddings groups that are computed: group -> embeddings."""
        columns = self.columns()
        return {g: spec["embeddings"] for g, spec in columns.items() if spec.get("embeddings")}

    def scores(self, wildcards) -> list[str]:
        """Every Table 1 run's scores and items (its test-set bootstrap)."""
        return [
            f"{RUNS}/{self.split()}/{embeddings}/{composition}/{variant}/{name}"
            for embeddings in self.groups().values()
            for composition in self.block["compositions"]
            for variant in VARIANTS
            for name in ("scores.json", "items.parquet")
        ]

    def leaderboard(self) -> dict[str, dict[str, str]]:
        """Each CompVec run of Table 1 as a leaderboard model ``scheepers2018/<group>_<composition>_<variant>``:
        its folder, and its pretrained vectors for the words outside its vocabulary."""
        return {
            f"scheepers2018/{group}_{composition}_{variant}": {
                "paper": "scheepers2018",
                "run": f"{RUNS}/{self.split()}/{embeddings}/{composition}/{variant}",
                "fallback": f"resources/embeddings/{embeddings}.parquet",
            }
            for group, embeddings in self.groups().items()
            for composition in self.block["compositions"]
            for variant in VARIANTS
        }

    def runs_args(self, wildcards) -> list[str]:
        return [f"{g}={RUNS}/{self.split()}/{e}" for g, e in self.groups().items()]

    def columns_json(self, wildcards) -> str:
        return json.dumps(self.columns())

    def method(self, wildcards) -> str:
        return (
            f"split {self.split()}, CompVecEval candidates {self.block['candidates']}, "
            f"STS wmean Pearson, run settings {json.dumps(self.block['run'])}"
        )
