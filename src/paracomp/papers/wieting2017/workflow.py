"""The inputs and params of wieting2017's rules (rules/papers/wieting2017.smk), from its config
block. Imports no torch.

Artefacts (``RESOURCES`` = ``resources/wieting2017``, ``RESULTS`` = ``results/wieting2017``):

- ``RESOURCES/pairs/sentences.parquet``: the sentential training pairs (``corpus``: the shared
  English–English Bible verse pairs, a seeded subset, in place of SimpWiki; or SimpWiki,
  upstream); ``RESOURCES/pairs/ppdb.parquet``: PPDB pairs sampled to the same token count (Table 1);
- ``RESOURCES/init.parquet``: the initial word vectors (``init.embeddings``) of every word of the
  training pairs and of the evaluation sets that they have;
- ``RESULTS/points/<run>/<point>/``: one grid point of a run (one job of the generic rule ``point``,
  this paper's scoring its :meth:`Inputs.point_score`): the trained run, ``train.json``,
  ``scores.csv`` (Pearson r on each transfer and selection subset), ``pairs.parquet`` (its
  per-pair cosines) and ``record.json``;
- ``RESULTS/tableN.{csv,compare.csv,md}``.

The transfer runs' and the tables' inputs are :class:`Inputs`'; the supervised runs' (Tables 5,
6, 8) are :class:`~paracomp.papers.wieting2017.workflow_supervised.Supervised`'s and the gate
analysis' (Tables 9-11) :class:`~paracomp.papers.wieting2017.workflow_gates.Gates`', each over
the same :class:`Inputs`.

A run is a model (``avg``, ``lstm``, ``lstmavg``, ``gran`` …, each a composer of the shared
trainer: ``composers``), a training set (``sentences`` or ``ppdb``) and a grid of
regularisation settings (``grids``). Every table cell is the 22-set mean of the grid point its
selection picks: "Oracle" by that mean itself, "2016 STS" by the mean over the STS 2016 sets.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paracomp.errors import named
from paracomp.registry import configured
from paracomp.run_config import validate
from paracomp.train.grid import grid_points, point_folder
from paracomp.train.seeded_grid import SeedFolders, one_seed

RESOURCES = "resources/wieting2017"
RESULTS = "results/wieting2017"
INITIAL_SCORES = f"{RESULTS}/initial/scores.csv"
"""The initial vectors averaged on the transfer sets (rule ``wieting2017_initial``)."""
INITIAL_TABLES = ("table1", "table2", "table3")
DATA = ("sentences", "ppdb")
TRANSFER_SETS = ("sts2012", "sts2013", "sts2014", "sts2015", "sick2014", "twitter-pit2015")
"""The 22 transfer evaluation sets: 20 STS 2012-2015 subsets, SICK test, Twitter PIT test."""
SELECTION_SETS = ("sts2016",)
"""Model selection "2016 STS": the mean over the 5 STS 2016 subsets."""
EVALUATED_SETS = (*TRANSFER_SETS, *SELECTION_SETS)
"""Every evaluation set a point is scored on."""
SEEDED_TABLES = ("table1", "table2", "table3", "table4")
"""The tables whose cells combine a run's seed replicates (Table 7's examples are one seed's
pairs)."""
NOT_SETTINGS = ("model", "data", "grid", "replicates")
"""A transfer run's keys that are not training settings."""
TRANSFER_TABLES = ("table1", "table2", "table3", "table4", "table7")
SUPERVISED_TABLES = ("table5", "table6", "table8")
GATE_TABLES = ("table9", "table10", "table11")
"""Tables 9-11: the gate analysis of the selected GRAN (``gates``)."""
TASKS = ("sts", "sick")
SUPERVISED_NOTES = {
    "sts": "encoder trained with Tai et al.'s head on 40% of the STS 2012-2015 pairs (their "
    "scores here include those pairs), the head left out",
    "sick": "encoder trained with Tai et al.'s head on SICK's train part (scored here on its "
    "test part), the head left out",
}
"""The leaderboard's note on the supervised encoders of each task."""
SUPERVISED_SETS = ("sts2012", "sts2013", "sts2014", "sts2015", "sick2014")
CORPUS_NOTES = {
    "bible": "English-English Bible verse pairs (KJV-WEB, Debian SWORD modules; "
    "resources/corpus/bible-kjv-web.parquet) in place of SimpWiki",
    "simpwiki": "SimpWiki (Coster & Kauchak 2011, v2; upstream), the paper's",
}

TABLE_RUNS: dict[str, dict[tuple[str, str], str]] = {
    "table1": {
        **{("ppdb", m): f"ppdb_{m}" for m in ("avg", "lstm", "lstmavg")},
        **{("simpwiki", m): f"{m}_none" for m in ("avg", "lstm", "lstmavg")},
    },
    "table2": {
        (row, col): row
        for row in (
            "avg_none",
            "avg_dropout",
            "avg_word_dropout",
            "lstm_none",
            "lstm_l2",
            "lstm_dropout",
            "lstm_word_dropout",
            "lstm_scrambling",
            "lstm_dropout_scrambling",
            "lstmavg_none",
            "lstmavg_dropout_scrambling",
            "bilstmavg_dropout_scrambling",
        )
        for col in ("oracle", "sts2016")
    },
    "table3": {
        (row, col): run
        for row, run in {
            "gran_noreg": "gran_none",
            "gran": "gran_dropout_scrambling",
            "gran2": "gran2_dropout_scrambling",
            "gran3": "gran3_dropout_scrambling",
            "gran4": "gran4_dropout_scrambling",
            "gran5": "gran5_dropout_scrambling",
            "bigran": "bigran_dropout_scrambling",
        }.items()
        for col in ("oracle", "sts2016")
    },
    "table4": {
        ("*", "avg"): "avg_none",
        ("*", "lstmavg"): "lstmavg_dropout_scrambling",
        ("*", "gran"): "gran_dropout_scrambling",
    },
    "table7": {("*", "lavg"): "lstmavg_dropout_scrambling", ("*", "avg"): "avg_none"},
}
"""(row, column) of each transfer table -> the run whose selected point fills it (table 1:
Table 1's SimpWiki row is Table 2's "none" rows, as printed; tables 4 and 7: every row of a
column; table 4 models as the digest reads the text: AVG (none), LSTMAVG and GRAN (dropout,
scrambling))."""


SUPERVISED_MODELS = {"avg": "AVG", "lstm": "LSTM", "lstmavg": "LSTMAVG", "gran": "GRAN"}
SUPERVISED_REGS = {
    "none": "none",
    "dropout": "dropout",
    "word_dropout": "word dropout",
    "scrambling": "scrambling",
    "dropout_scrambling": "dropout, scrambling",
}


SUPERVISED_RUNS = {
    "table5": {f"{m}_{r}": f"{m}_{r}" for m in SUPERVISED_MODELS for r in SUPERVISED_REGS},
    "table6": {g: f"{g}_dropout_scrambling" for g in ("gran", "gran2", "gran3", "gran4", "gran5")},
    "table8": {
        r: r
        for r in (
            "avg_dropout",
            "avg_dropout_universal",
            "lstmavg_dropout_scrambling",
            "lstmavg_dropout_scrambling_universal",
            "gran_dropout_scrambling",
            "gran_dropout_scrambling_universal",
        )
    },
}
"""Each supervised table's row -> its supervised run (Table 6: dropout and scrambling, as
the paper's 'same settings as the previous experiment')."""


def check_runs(block: Mapping[str, Any], part: str, runs: Mapping[str, Mapping[str, Any]]) -> None:
    """Each run of ``part`` names a grid and a model of the block, else a ConfigError."""
    for run, spec in runs.items():
        where = f"papers.wieting2017.{part}.{run}"
        named(block["grids"], spec["grid"], f"{where}.grid", "grid of papers.wieting2017.grids")
        what = "model of papers.wieting2017.composers"
        named(block["composers"], spec["model"], f"{where}.model", what)


def table_runs(table: str) -> list[str]:
    return sorted(set(TABLE_RUNS[table].values()))


@dataclass(frozen=True)
class Inputs:
    """``block``: the paper's config block; ``defaults``: training.defaults; ``sets``: the
    parsed-set artefact of each transfer and selection set some source provides; ``scored``:
    the same sets tokenised (rule ``tokenise_set``), on which every grid point, the untrained
    baseline and the supervised runs are scored; ``unavailable``: ``set=reason`` of the others;
    ``folders``: the fetched folder of each raw dataset the paper reads (None where no
    configured source has it); ``splits``: the evaluation's split per set; ``tokenizer``,
    ``lowercase``: the evaluation's; ``seed_folders``: a run's point folders per seed
    (paracomp.train.seeded_grid.SeededGrid.seed_folders, through the workflow's runs)."""

    block: Mapping[str, Any]
    defaults: Mapping[str, Any]
    sets: Mapping[str, str]
    scored: Mapping[str, str]
    unavailable: tuple[str, ...]
    folders: Mapping[str, str | None]
    splits: Mapping[str, str]
    tokenizer: str
    lowercase: bool
    seed_folders: SeedFolders = one_seed

    @classmethod
    def configured(
        cls,
        block: Mapping[str, Any],
        defaults: Mapping[str, Any],
        available: Sequence[str],
        unavailable: Sequence[str],
        folder: Callable[[str], str | None],
        evaluation: Mapping[str, Any],
        seed_folders: SeedFolders = one_seed,
    ) -> Inputs:
        """The inputs from the :data:`EVALUATED_SETS` some source provides (parsed and
        tokenised) and the reasons of the others, the fetched ``folder`` of each raw dataset
        the paper reads (SimpWiki and PPDB's), config ``evaluation`` and ``seed_folders``."""
        datasets = {"simpwiki-v2", *block.get("ppdb", {}).get("datasets", [])}
        return cls(
            block,
            defaults,
            {s: f"resources/sets/{s}.parquet" for s in available},
            {s: f"resources/sets/tokens/{s}.parquet" for s in available},
            tuple(unavailable),
            {name: folder(name) for name in datasets},
            evaluation["splits"],
            evaluation["tokenizer"],
            evaluation["lowercase"],
            seed_folders,
        )

    def __post_init__(self) -> None:
        check_runs(self.block, "transfer", self.runs())
        for run in self.runs():
            for index, point in enumerate(self.points(run)):
                where = f"papers.wieting2017.transfer.{run} with grid point {index} {point}"
                validate({**self.base(run), **point}, where)

    # -- runs -----------------------------------------------------------------------------

    def runs(self) -> dict[str, Mapping[str, Any]]:
        return configured(self.block.get("transfer"))

    def points(self, run: str) -> list[dict[str, Any]]:
        return grid_points(self.block["grids"][self.runs()[run]["grid"]])

    def epochs(self, model: str) -> int:
        epochs = self.block["epochs"]
        return int(epochs.get(model, epochs["default"]))

    def base(self, run: str) -> dict[str, Any]:
        """A run's settings before its grid point's (less device and threads: the job's)."""
        spec = self.runs()[run]
        model = spec["model"]
        own = {k: v for k, v in spec.items() if k not in NOT_SETTINGS}
        return {
            **self.defaults,
            **self.block["run"],
            "composer": self.block["composers"][model],
            "dim": self.block["dim"],
            "epochs": self.epochs(model),
            **own,
        }

    # -- scored grid points (rule `point`: paracomp.train.grid.ScoredGrid) ------------------

    def point_runs(self) -> list[str]:
        return list(self.runs())

    def point_grid(self, run: str) -> list[dict[str, Any]]:
        return self.points(run)

    def point_settings(self, run: str) -> dict[str, Any]:
        return self.base(run)

    def point_replicates(self, run: str) -> int | list[int] | None:
        return self.runs()[run].get("replicates")

    def point_inputs(self, run: str, seed: int | None = None) -> dict[str, Any]:
        return {
            "pairs": f"{RESOURCES}/pairs/{self.runs()[run]['data']}.parquet",
            "init": f"{RESOURCES}/init.parquet",
            "sets": list(self.scored.values()),
        }

    def point_score(self, run: str, point: int, folder: str) -> str:
        """The 22 transfer sets' and the 5 STS 2016 sets' scores of a trained point."""
        quoted = shlex.quote(folder)
        return (
            f"paracomp wieting2017 transfer --run {quoted} --run-name {run} --index {point}"
            f" --train-record {shlex.quote(f'{folder}/train.json')} {self.eval_args()}"
            f" --out {quoted}"
        )

    def point_folders(self, run: str) -> list[str]:
        return [point_folder("wieting2017", run, p) for p in range(len(self.points(run)))]

    def point_records(self, run: str) -> list[str]:
        """The record of every point of a run (written last by its job)."""
        return [f"{d}/record.json" for d in self.point_folders(run)]

    # -- the leaderboard ------------------------------------------------------------------

    def leaderboard(self) -> dict[str, dict[str, str]]:
        """Each transfer run as a leaderboard model: the run folder of its point picked by
        "2016 STS" (the paper's selection that reads no transfer set)."""
        return {
            f"wieting2017/{run}": {"paper": "wieting2017", "run": f"{RESULTS}/selected/{run}"}
            for run in self.runs()
        }

    def selected_inputs(self, wildcards) -> list[str]:
        return self.point_records(wildcards.transfer_run)

    def selected_args(self, wildcards) -> str:
        run = wildcards.transfer_run
        return "--points " + " ".join(f"{run}={d}" for d in self.point_folders(run))

    # -- data -----------------------------------------------------------------------------

    def corpus_note(self) -> str:
        return CORPUS_NOTES[self.block["corpus"]]

    def sentence_input(self, wildcards=None) -> str:
        if self.block["corpus"] == "bible":
            return "resources/corpus/bible-kjv-web.parquet"
        return self._folder("simpwiki-v2")

    def _folder(self, dataset: str) -> str:
        folder = self.folders.get(dataset)
        if folder is None:
            raise ValueError(
                f"papers.wieting2017: no configured source provides dataset {dataset} "
                "(upstream or a mirror copy)"
            )
        return folder

    def ppdb_inputs(self, wildcards=None) -> dict[str, Any]:
        return {
            "sentences": f"{RESOURCES}/pairs/sentences.parquet",
            "ppdb": [self._folder(d) for d in self.block["ppdb"]["datasets"]],
        }

    def sentence_params(self, wildcards=None) -> str:
        return json.dumps({"corpus": self.block["corpus"], **self.block["sentences"]})

    def ppdb_params(self, wildcards=None) -> str:
        return json.dumps({"seed": self.block["ppdb"]["seed"]})

    def init_inputs(self, wildcards=None) -> dict[str, Any]:
        pairs = [f"{RESOURCES}/pairs/{d}.parquet" for d in self.used_data()]
        return {
            "embeddings": f"resources/embeddings/{self.block['init']['embeddings']}.parquet",
            "pairs": pairs,
            "sets": list(self.sets.values()),
        }

    def used_data(self) -> list[str]:
        return sorted({spec["data"] for spec in self.runs().values()})

    def eval_args(self, wildcards=None) -> str:
        args = ["--set " + " ".join(f"{name}={path}" for name, path in self.scored.items())]
        if self.unavailable:
            args.append("--unavailable " + " ".join(json.dumps(u) for u in self.unavailable))
        splits = " ".join(f"{s}={self.splits[s]}" for s in self.sets if s in self.splits)
        if splits:
            args.append(f"--split {splits}")
        lowercase = "--lowercase" if self.lowercase else "--no-lowercase"
        return " ".join([*args, f"--tokenizer {self.tokenizer}", lowercase])

    # -- tables ---------------------------------------------------------------------------

    def scored_files(self, wildcards=None) -> list[str]:
        return list(self.scored.values())

    def _reads_initial(self, wildcards) -> bool:
        """Tables 1-3 note the cells below the initial vectors averaged."""
        return wildcards.transfer_table in INITIAL_TABLES and bool(self.runs())

    def table_inputs(self, wildcards) -> list[str]:
        files = list(self.sets.values()) if wildcards.transfer_table == "table7" else []
        if self._reads_initial(wildcards):
            files.append(INITIAL_SCORES)
        for run in table_runs(wildcards.transfer_table):
            if run in self.runs():
                files += self.point_records(run)
        for by_seed in self._seeded(wildcards.transfer_table).values():
            files += [f"{d}/record.json" for folders in by_seed.values() for d in folders]
        return list(dict.fromkeys(files))

    def table_args(self, wildcards) -> str:
        """``--points run=folder …`` of the configured runs a table reads, and
        ``--seed-points run:seed=folder …`` of those over seeds (Tables 1-4)."""
        args = []
        for run in table_runs(wildcards.transfer_table):
            if run in self.runs():
                args += [f"{run}={d}" for d in self.point_folders(run)]
        seeded = [
            f"{run}:{seed}={d}"
            for run, by_seed in self._seeded(wildcards.transfer_table).items()
            for seed, folders in by_seed.items()
            for d in folders
        ]
        points = "--points " + " ".join(args) if args else ""
        return f"{points} --seed-points {' '.join(seeded)}" if seeded else points

    def _seeded(self, table: str) -> dict[str, dict[int, list[str]]]:
        """Run -> seed -> point folders of ``table``'s runs over seeds."""
        if table not in SEEDED_TABLES:
            return {}
        found = {run: self.seed_folders(run) for run in table_runs(table) if run in self.runs()}
        return {run: by_seed for run, by_seed in found.items() if by_seed}

    def table_initial_args(self, wildcards) -> str:
        return f"--initial {INITIAL_SCORES}" if self._reads_initial(wildcards) else ""

    def table_set_args(self, wildcards) -> str:
        """Table 7 reads the sentences of the sets."""
        if wildcards.transfer_table != "table7" or not self.sets:
            return ""
        return "--set " + " ".join(f"{n}={p}" for n, p in self.sets.items())

    def setting(self, wildcards=None) -> str:
        """What the tables' notes say about the training setting."""
        runs = self.runs()
        if wildcards is not None:
            runs = {r: s for r, s in runs.items() if r in table_runs(wildcards.transfer_table)}
        grids = {s["grid"] for s in runs.values()}
        return json.dumps(
            {
                "corpus": self.corpus_note(),
                "sentences": dict(self.block["sentences"]),
                "ppdb": dict(self.block["ppdb"]),
                "init": dict(self.block["init"]),
                "dim": self.block["dim"],
                "epochs": dict(self.block["epochs"]),
                "run": dict(self.block["run"]),
                "runs": {r: dict(s) for r, s in runs.items()},
                "composers": {
                    m: c
                    for m, c in self.block["composers"].items()
                    if any(s["model"] == m for s in runs.values())
                },
                "grids": {g: list(v) for g, v in self.block["grids"].items() if g in grids},
                "note": self.block.get("note", ""),
            }
        )
