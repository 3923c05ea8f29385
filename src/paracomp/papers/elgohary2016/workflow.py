"""The inputs and params of elgohary2016's rules (rules/papers/elgohary2016.smk), from its
config block and the corpus chain's training sets. Imports no torch."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

EVALS = "results/eval/elgohary2016"
UNDERTRAINED_SETS = ("sts2012", "sts2013", "sts2014", "sts2015", "sick2014")
"""The test sets of Table 4."""


@dataclass(frozen=True)
class Inputs:
    """``block``: the paper's config block; ``corpus_sets``: the chain's training sets by name
    (``bisent``, ``biphr``, ``mono``); ``seed``: the corpus seed; ``sick_reason``: why the SICK
    test set (Table 5's filter) is unavailable (``sick2014=<reason>``), '' if it is available."""

    block: Mapping[str, Any]
    corpus_sets: Mapping[str, str]
    seed: int
    sick_reason: str

    def data(self, data: str) -> str:
        """The training set a run's ``data`` names: a corpus set, a sized or filtered one."""
        if data in self.corpus_sets:
            return self.corpus_sets[data]
        kind, _, name = data.partition("-")
        if kind == "sized":
            return f"resources/corpus/sized/biphr-{name}.parquet"
        return f"resources/corpus/filtered/{name}.parquet"

    @staticmethod
    def tuning_data(data: str) -> str:
        return f"resources/corpus/tuning/{data}.parquet"

    def condition(self, wildcards) -> str:
        return self.corpus_sets[wildcards.condition]

    def sample_params(self, n: int) -> str:
        return json.dumps({"n": n, "fraction": None, "seed": self.seed})

    def sized_params(self, wildcards) -> str:
        return self.sample_params(self.block["sizes"][wildcards.size])

    def tuning_params(self) -> str:
        return self.sample_params(self.block["tuning_pairs"])

    def condition_args(self) -> list[str]:
        return [f"{name}={path}" for name, path in self.corpus_sets.items()]

    def filtering_inputs(self, wildcards) -> dict[str, list[str]]:
        """Table 5 needs SICK (mirror only): its bigrams filter the training sets."""
        if self.sick_reason:
            return {}
        names = list(self.corpus_sets)
        return {
            "pairs": list(self.corpus_sets.values()),
            "filtered": [f"resources/corpus/filtered/{c}.parquet" for c in names],
            "evals": [f"{EVALS}/{c}_jbi/sts.csv" for c in names],
            "filtered_evals": [f"{EVALS}/{c}_jbi_filtered/sts.csv" for c in names],
        }

    def filtering_args(self, wildcards) -> str:
        if self.sick_reason:
            reason = self.sick_reason.split("=", 1)[-1]
            return f"--unavailable {shlex.quote(f'the SICK test set is unavailable: {reason}')}"
        names = list(self.corpus_sets)
        return " ".join(
            [
                "--condition",
                *self.condition_args(),
                "--filtered",
                *(f"{c}=resources/corpus/filtered/{c}.parquet" for c in names),
                "--eval",
                *(f"{c}={EVALS}/{c}_jbi" for c in names),
                "--filtered-eval",
                *(f"{c}={EVALS}/{c}_jbi_filtered" for c in names),
            ]
        )
