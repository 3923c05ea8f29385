"""The inputs and params of scheepers2018's rules (rules/papers/scheepers2018.smk), from its
config block. Imports no torch."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paracomp.errors import ConfigError
from paracomp.papers.scheepers2018.runs import POINT, VARIANTS, run_config
from paracomp.train.grid import point_folder
from paracomp.train.seeded_grid import SeedFolders, one_seed

MEASURE_SETS = ("sts2014", "sts2015", "sick2014", "simlex999", "simverb3500", "ws353-all")
"""The evaluation sets of Table 1's measures (CompVecEval reads the split's own data)."""
POINTS = "results/scheepers2018/points"
DATA = "resources/compvec"


@dataclass(frozen=True)
class Inputs:
    """``block``: the paper's config block; ``defaults``: training.defaults; ``released``: the
    fetched folder of the authors' split (compvec-wordnet), None where no source has it;
    ``sets``: ``set=parquet`` of the :data:`MEASURE_SETS` that some source provides,
    ``unavailable``: ``set=reason`` of the others; ``missing``: why embeddings cannot be had
    here (embeddings a paper's rules build from an unavailable dataset), else None;
    ``seed_folders``: a run's point folders per seed (its replicates: the paper block's or
    ``training``'s ``replicates``; paracomp.train.seeded_grid.SeededGrid.seed_folders).

    Its CompVec runs are scored grid points (paracomp.train.grid.ScoredGrid): run
    ``<split>/<embeddings>/<composition>/<variant>``, one point (its folder
    ``results/scheepers2018/points/<run>/0``) that the generic rule ``point`` trains and
    ``paracomp scheepers2018 evaluate`` scores in one job."""

    block: Mapping[str, Any]
    defaults: Mapping[str, Any]
    released: str | None
    sets: Sequence[str]
    unavailable: Sequence[str]
    missing: Callable[[str], str | None]
    seed_folders: SeedFolders = one_seed

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

    # -- scored grid points (rule `point`: paracomp.train.grid.ScoredGrid) ------------------

    def point_runs(self) -> list[str]:
        """Every run of Table 1: (embeddings, composition, Original | CompVec) on the split."""
        return [
            f"{self.split()}/{embeddings}/{composition}/{variant}"
            for embeddings in self.groups().values()
            for composition in self.block["compositions"]
            for variant in VARIANTS
        ]

    @staticmethod
    def point_grid(run: str) -> list[dict[str, Any]]:
        """One point: the run's own settings."""
        return [{}]

    @staticmethod
    def point_replicates(run: str) -> None:
        """No run of its own: the paper block's or ``training``'s ``replicates`` apply to
        every run (Table 1 takes each cell over the seeds)."""
        return None

    def point_settings(self, run: str) -> dict[str, Any]:
        """The run's settings that differ from their defaults, less device and threads (the
        job's): a new setting of the trainer reruns no CompVec job."""
        _, _, composition, variant = run.split("/")
        composer = self.block["composers"][composition]
        settings = {**self.defaults, **self.block["run"]}
        config = run_config(composition, composer, variant, settings, self.block["margins"])
        values = config.overrides()
        for key in ("device", "threads"):
            values.pop(key, None)
        return values

    def point_inputs(self, run: str, seed: int | None = None) -> dict[str, Any]:
        """The split's training pairs and the embeddings' initial rows (the trainer's), its test
        data, the pretrained vectors and the evaluation sets (the scoring's)."""
        split, embeddings, _, _ = run.split("/")
        data = f"{DATA}/{split}"
        return {
            "pairs": f"{data}/train.parquet",
            "init": f"{data}/init/{embeddings}.parquet",
            "data": [f"{data}/{name}.parquet" for name in ("test", "vocab", "targets")],
            "pretrained": f"resources/embeddings/{embeddings}.parquet",
            "sets": [arg.split("=", 1)[1] for arg in self.sets],
        }

    def point_score(self, run: str, point: int, folder: str) -> str:
        """Every Table 1 measure of the trained run: ``scores.json``, ``items.parquet`` and
        ``record.json`` in its folder."""
        split, embeddings, _, _ = run.split("/")
        quoted = " ".join(map(shlex.quote, self.sets))
        unavailable = " ".join(map(shlex.quote, self.unavailable))
        return (
            f"paracomp scheepers2018 evaluate --run {shlex.quote(folder)} --data {DATA}/{split}"
            f" --pretrained {shlex.quote(f'resources/embeddings/{embeddings}.parquet')}"
            f" --set {quoted} --unavailable {unavailable}"
            f" --candidates {self.block['candidates']}"
            f" --train-record {shlex.quote(f'{folder}/train.json')}"
            f" --out {shlex.quote(f'{folder}/scores.json')}"
            f" --record {shlex.quote(f'{folder}/record.json')}"
        )

    @staticmethod
    def folder(run: str) -> str:
        """A run's folder: the trained run and its scores (what Table 1 and the leaderboard read)."""
        return point_folder("scheepers2018", run, POINT)

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

    def records(self, wildcards) -> list[str]:
        """Every Table 1 run's record (its job writes it last: the scores and items are there),
        and its seed replicates'."""
        own = [f"{self.folder(run)}/record.json" for run in self.point_runs()]
        return own + [f"{folder}/record.json" for _, folder in self._seeded()]

    def _seeded(self) -> list[tuple[str, str]]:
        """``<embeddings>/<composition>/<variant>:<seed>`` and the point folder of every seed
        of the runs with replicates."""
        return [
            (f"{run.split('/', 1)[1]}:{seed}", folders[POINT])
            for run in self.point_runs()
            for seed, folders in self.seed_folders(run).items()
        ]

    def seed_args(self, wildcards) -> str:
        """``--seed-runs`` of the runs with replicates (none: no option)."""
        seeded = " ".join(shlex.quote(f"{key}={folder}") for key, folder in self._seeded())
        return f"--seed-runs {seeded}" if seeded else ""

    def leaderboard(self) -> dict[str, dict[str, str]]:
        """Each CompVec run of Table 1 as a leaderboard model ``scheepers2018/<group>_<composition>_<variant>``:
        its folder (and its record, which its job writes last), and its pretrained vectors for
        the words outside its vocabulary."""
        models = {}
        for group, embeddings in self.groups().items():
            for composition in self.block["compositions"]:
                for variant in VARIANTS:
                    folder = self.folder(f"{self.split()}/{embeddings}/{composition}/{variant}")
                    models[f"scheepers2018/{group}_{composition}_{variant}"] = {
                        "paper": "scheepers2018",
                        "run": folder,
                        "record": f"{folder}/record.json",
                        "fallback": f"resources/embeddings/{embeddings}.parquet",
                    }
        return models

    def runs_args(self, wildcards) -> list[str]:
        return [f"{g}={POINTS}/{self.split()}/{e}" for g, e in self.groups().items()]

    def columns_json(self, wildcards) -> str:
        return json.dumps(self.columns())

    def method(self, wildcards) -> str:
        return (
            f"split {self.split()}, CompVecEval candidates {self.block['candidates']}, "
            f"STS wmean Pearson, run settings {json.dumps(self.block['run'])}"
        )
