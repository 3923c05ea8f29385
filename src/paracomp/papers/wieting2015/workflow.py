"""The inputs and params of wieting2015's rules (rules/papers/wieting2015.smk), from its config
block. Imports no torch.

Artefacts (``RESOURCES`` = ``resources/wieting2015``, ``RESULTS`` = ``results/wieting2015``):

- ``RESOURCES/init/d<dim>.parquet``: the initial vectors (the catalogue embeddings' most frequent
  words and ``<unk>``; PCA to ``dim`` where it is below theirs);
- ``RESOURCES/lexical/{pairs,constraints}.parquet``, ``counts.json``: the lexical training pairs;
- ``RESOURCES/pairs/<data>.parquet``: phrase (``phrases``) and bigram (``jn``, ``nn``, ``vn``) pairs;
- ``RESOURCES/phrase_sets.parquet``: Annotated-PPDB and ML 2010, scored;
- ``RESULTS/points/words-<variant>/<point>/``: one word-training grid point (``ws`` without,
  ``constraints`` with the constraint lists; a job of the generic rule ``point``), its
  embeddings and ``record.json`` (its scores);
  ``RESULTS/words/<selection>.selected.json`` (``ws``, ``constraints``: by 2·WS-S − WS-R;
  ``paragram``: the ``ws`` points by SimLex-999);
- ``resources/embeddings/paragram-wieting2015.parquet``: the selected PARAGRAM vectors;
- ``resources/embeddings/paragram-wieting2015-full.parquet``: the same over every word of the
  initial vectors' source (the offline stand-in for PARAGRAM-SL999);
- ``RESULTS/points/rnn-<data>/<point>/``: one RNN grid point, its phrase scores and ``record.json``;
  ``RESULTS/rnn/<data>.selected.json`` (by the development ρ);
- ``RESULTS/scores/<vectors>.parquet``: vector addition with ``init`` or ``paragram``;
- ``RESULTS/sst/<vectors>.json``: the static CNN with ``d25``, ``d50`` or ``paragram``;
- ``RESULTS/tableN.{csv,compare.csv,md}``.

Seed replicates (``replicates``, the paper's or ``training``'s) follow a **seed chain**: seed
s's word grids are selected as the run's (``<selection>_seed<s>``), seed s's PARAGRAM vectors
(``RESULTS/words/paragram_seed<s>.parquet``) start seed s's RNN grid points (the replicate runs
``rnn-<data>_seed<s>``, selected as ``RESULTS/rnn/<data>_seed<s>.selected.json``), and its
addition scores (``RESULTS/scores/paragram_seed<s>.parquet``) and SST CNNs
(``RESULTS/sst/<vectors>_seed<s>.json``, the CNN's seed moved by the same offset) follow; the
run's own seed is the artefacts above. Table 3 combines the word selections' seeds, Tables 4-6
the chain's (their claims' cells); Tables 7-9 read the run's own seed.

A table whose data no configured source has is still built: its inputs are left out and its
cells say why (``--unavailable``).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paracomp.errors import ConfigError
from paracomp.run_config import validate
from paracomp.train.grid import grid_points, point_folder
from paracomp.train.replicates import split_replicate
from paracomp.train.seeded_grid import SeedFolders, one_seed

RESOURCES = "resources/wieting2015"
RESULTS = "results/wieting2015"
PARAGRAM = "resources/embeddings/paragram-wieting2015.parquet"
PARAGRAM_FULL = "resources/embeddings/paragram-wieting2015-full.parquet"


def built_embeddings(block: Mapping[str, Any]) -> dict[str, list[str]]:
    """The embeddings these rules build -> the raw datasets they need: both PARAGRAM files
    from the lexical pairs of ``lexical`` (paracomp.registration.built_embeddings)."""
    return {Path(path).stem: [block["lexical"]] for path in (PARAGRAM, PARAGRAM_FULL)}


TABLES = tuple(f"table{n}" for n in range(1, 10))
VARIANTS = ("ws", "constraints")
SELECTIONS = {
    "ws": ("ws", "ws"),
    "constraints": ("constraints", "ws"),
    "paragram": ("ws", "simlex"),
}
"""A word selection: the variant whose points it ranges over, and its criterion."""
SEEDED_SELECTIONS = ("ws", "constraints")
"""The word selections whose Table 3 rows combine seed replicates (``<selection>_seed<s>``:
the selection over seed s's points; PARAGRAM's, the vectors later tables start from, and
the RNN's keep one seed)."""
RNN_DATA = ("phrases", "jn", "nn", "vn")
SETTING = ("init", "lexical", "constraints", "words", "rnn", "sst", "mapping", "ml")
"""The keys of the paper's block that the tables' notes tell (``table --setting``)."""
PHRASE_SETS = f"{RESOURCES}/phrase_sets.parquet"
PAIR_DATASETS = {"phrases": "ppdb-phrase-train-60k", "bigrams": "ppdb-bigram-train"}
WORD_SETS = ("simlex999", "ws353-sim", "ws353-rel")
SST_VECTORS = ("d25", "d50", "paragram")
NEEDS = {
    "table3": ("lexical",),
    "table4": ("lexical", "sst-binary"),
    "table5": ("lexical", "ppdb-bigram-train", "ml2010-bigrams"),
    **dict.fromkeys(
        ("table6", "table7", "table8", "table9"),
        ("lexical", "ppdb-phrase-train-60k", "annotated-ppdb"),
    ),
}
"""The raw datasets each computed table needs (``lexical``: the configured lexical source)."""


@dataclass(frozen=True)
class Inputs:
    """``block``: the paper's config block; ``defaults``: training.defaults; ``folders``: the
    fetched folder of each raw dataset the paper reads (``lexical`` for the configured lexical
    source), None where no configured source has it; ``sources``: the configured sources
    (for the reasons); ``word_sets``: the parsed word-similarity sets by name;
    ``seed_folders``: a run's point folders per seed (paracomp.train.seeded_grid)."""

    block: Mapping[str, Any]
    defaults: Mapping[str, Any]
    folders: Mapping[str, str | None]
    sources: tuple[str, ...]
    word_sets: Mapping[str, str]
    seed_folders: SeedFolders = one_seed

    def __post_init__(self) -> None:
        for part in ("words", "rnn"):
            for index, point in enumerate(self.points(part)):
                for variant in VARIANTS if part == "words" else ("ws",):
                    where = f"papers.wieting2015.{part} with grid point {index} {point}"
                    validate(self.settings(part, point, variant), where)

    # -- settings ------------------------------------------------------------------------

    @property
    def dim(self) -> int:
        return int(self.block["init"]["dim"])

    def points(self, part: str) -> list[dict[str, Any]]:
        return grid_points(self.block[part]["grid"])

    def base(self, part: str, variant: str = "ws") -> dict:
        """The run settings of ``part``'s points before the point's own (less device and
        threads: the job's)."""
        spec = self.block[part]
        settings = {**self.defaults, **spec["run"], "epochs": spec["epochs"], "dim": self.dim}
        if variant == "constraints":
            settings["constraints"] = self.block["constraints"]
        return settings

    def settings(self, part: str, point: Mapping[str, Any], variant: str = "ws") -> dict:
        return {**self.base(part, variant), **point}

    # -- scored grid points (rule `point`: paracomp.train.grid.ScoredGrid) ------------------

    def point_runs(self) -> list[str]:
        """``words-<variant>`` (word training, without or with constraints) and
        ``rnn-<data>`` (the RNN on phrase or bigram pairs)."""
        return [*(f"words-{v}" for v in VARIANTS), *(f"rnn-{d}" for d in RNN_DATA)]

    def point_grid(self, run: str) -> list[dict[str, Any]]:
        return self.points(_part(run)[0])

    def point_settings(self, run: str) -> dict[str, Any]:
        part, which = _part(run)
        return self.base(part, which if part == "words" else "ws")

    def point_replicates(self, run: str) -> None:
        """Every run takes the paper's or training's ``replicates`` (the seed chain)."""
        return None

    def point_inputs(self, run: str, seed: int | None = None) -> dict[str, Any]:
        """A word run's pairs, initial vectors and word sets; an RNN run's pairs, the PARAGRAM
        vectors of its seed (the chain's) and the phrase sets."""
        part, which = _part(run)
        if part == "rnn":
            return {
                "pairs": f"{RESOURCES}/pairs/{which}.parquet",
                "init": self.paragram(seed),
                "sets": PHRASE_SETS,
            }
        inputs: dict[str, Any] = {
            "pairs": f"{RESOURCES}/lexical/pairs.parquet",
            "init": self.init,
            "sets": [self.word_sets[s] for s in WORD_SETS],
        }
        if which == "constraints":
            inputs["constraints"] = f"{RESOURCES}/lexical/constraints.parquet"
        return inputs

    def point_score(self, run: str, point: int, folder: str) -> str:
        """Word training: SimLex-999 and WS-353's halves of the trained vectors; the RNN: the
        phrase sets, with its development rho."""
        part, which = _part(run)
        train, record = shlex.quote(f"{folder}/train.json"), shlex.quote(f"{folder}/record.json")
        if part == "rnn":
            return (
                f"paracomp wieting2015 phrase-scores --run {shlex.quote(folder)}"
                f" --sets {PHRASE_SETS} --out {shlex.quote(f'{folder}/scores.parquet')}"
                f" --dev {which} --ml {self.block['ml']} --train-record {train}"
                f" --record {record}"
            )
        sets = " ".join(shlex.quote(f"{s}={self.word_sets[s]}") for s in WORD_SETS)
        return (
            f"paracomp wieting2015 word-scores"
            f" --embeddings {shlex.quote(f'{folder}/embeddings.parquet')} --set {sets}"
            f" --record {train} --out {record}"
        )

    def point_records(self, run: str) -> list[str]:
        """The record of every point of a run (written last by its job)."""
        points = range(len(self.point_grid(run)))
        return [f"{point_folder('wieting2015', run, p)}/record.json" for p in points]

    # -- data ----------------------------------------------------------------------------

    def reason(self, dataset: str) -> str:
        name = self.block["lexical"] if dataset == "lexical" else dataset
        return f"{name} is unavailable: no source in {', '.join(self.sources)} provides it"

    def missing(self, table: str) -> list[str]:
        return [self.reason(d) for d in NEEDS.get(table, ()) if self.folders.get(d) is None]

    def folder(self, dataset: str) -> str:
        found = self.folders.get(dataset)
        if found is None:
            raise ValueError(self.reason(dataset))
        return found

    @property
    def init(self) -> str:
        return f"{RESOURCES}/init/d{self.dim}.parquet"

    def leaderboard(self) -> dict[str, dict[str, str]]:
        """The leaderboard's models beyond the PARAGRAM vectors (config ``models``:
        paragram-wieting2015): the tree RNN of each phrase data set, its point selected on the
        development set (composing right-branching trees: the common sets carry no parses),
        or the reason its pairs are unavailable."""
        models = {}
        for data in RNN_DATA:
            dataset = PAIR_DATASETS["phrases" if data == "phrases" else "bigrams"]
            missing = [self.reason(d) for d in (dataset, "lexical") if self.folders.get(d) is None]
            entry = {"paper": "wieting2015", "composition": "composer tree_rnn"}
            if missing:
                entry["note"] = "; ".join(missing)
            else:
                entry["run"] = f"{RESULTS}/rnn/{data}.selected"
            models[f"wieting2015/rnn_{data}"] = entry
        return models

    def init_embeddings(self, wildcards) -> str:
        return f"resources/embeddings/{self.block['init']['embeddings']}.parquet"

    def lexical_input(self, wildcards) -> str:
        return self.folder("lexical")

    def pairs_input(self, wildcards) -> str:
        return self.folder(PAIR_DATASETS["phrases" if wildcards.data == "phrases" else "bigrams"])

    def sets_inputs(self, wildcards) -> dict[str, str]:
        names = {"annotated": "annotated-ppdb", "ml": "ml2010-bigrams"}
        return {k: self.folders[d] for k, d in names.items() if self.folders.get(d) is not None}

    @staticmethod
    def sets_args(wildcards, input) -> str:
        return _options(input)

    def word_records(self, wildcards) -> list[str]:
        """The records a selection ranges over (``<selection>_seed<s>``: seed s's)."""
        name, seed = split_replicate(wildcards.selection)
        run = f"words-{SELECTIONS[name][0]}"
        if seed is None:
            return self.point_records(run)
        return [f"{d}/record.json" for d in self.seed_folders(run)[seed]]

    @staticmethod
    def criterion(wildcards) -> str:
        return SELECTIONS[split_replicate(wildcards.selection)[0]][1]

    def seed_selections(self) -> list[str]:
        """``<selection>_seed<s>`` of every seed of the selections Table 3 combines."""
        seeds = {n: self.seed_folders(f"words-{SELECTIONS[n][0]}") for n in SEEDED_SELECTIONS}
        return [f"{n}_seed{s}" for n, found in seeds.items() for s in found]

    # -- the seed chain (module docstring) ------------------------------------------------

    @property
    def own_seed(self) -> int:
        """The word runs' seed: the chain's own."""
        return int(self.base("words")["seed"])

    def chain_seeds(self) -> list[int]:
        """The chain's seeds other than its own (none without replicates); RNN runs whose own
        seed is not the word runs' are a :class:`ConfigError` once there are replicates."""
        seeds = [s for s in self.seed_folders("words-ws") if s != self.own_seed]
        rnn = int(self.base("rnn")["seed"])
        if seeds and rnn != self.own_seed:
            raise ConfigError(
                f"papers.wieting2015: with replicates the rnn runs' seed ({rnn}) must be the "
                f"word runs' ({self.own_seed}): seed s's RNN starts from seed s's PARAGRAM"
            )
        return seeds

    def paragram(self, seed: int | None = None) -> str:
        """The PARAGRAM vectors of chain seed ``seed`` (None or the own seed: the run's)."""
        if seed is None or seed == self.own_seed:
            return PARAGRAM
        return f"{RESULTS}/words/paragram_seed{seed}.parquet"

    def rnn_records(self, wildcards) -> list[str]:
        """Every RNN grid point's record of ``<data>`` or its replicate ``<data>_seed<s>``
        (the selected point's folder is copied)."""
        return self.point_records(f"rnn-{wildcards.rnn}")

    def addition_vectors(self, wildcards) -> str:
        name, seed = split_replicate(wildcards.vectors)
        return self.paragram(seed) if name == "paragram" else self.init

    def sst_vectors(self, wildcards) -> str:
        name, seed = split_replicate(wildcards.vectors)
        if name == "paragram":
            return self.paragram(seed)
        return f"{RESOURCES}/init/{name}.parquet"

    def sst_input(self, wildcards) -> str:
        return self.folder("sst-binary")

    def sst_params(self, wildcards) -> str:
        """The CNN's settings; chain seed s's CNN has its seed moved by ``s`` − the own."""
        settings = dict(self.block["sst"])
        seed = split_replicate(wildcards.vectors)[1]
        if seed is not None:
            settings["seed"] = int(settings["seed"]) + seed - self.own_seed
        return json.dumps(settings)

    # -- tables --------------------------------------------------------------------------

    def table_inputs(self, wildcards) -> dict[str, Any]:
        """What a table is built from (nothing where its data is unavailable)."""
        table = wildcards.table
        if table not in NEEDS or self.missing(table):
            return {}
        inputs: dict[str, Any] = {}
        seeds: list[str] = []
        if table == "table3":
            inputs["words"] = [f"{RESULTS}/words/{s}.selected.json" for s in SELECTIONS]
            inputs["init"] = self.init
            inputs["simlex"] = self.word_sets["simlex999"]
            inputs["counts"] = f"{RESOURCES}/lexical/counts.json"
            seeds = [f"{RESULTS}/words/{s}.selected.json" for s in self.seed_selections()]
        elif table == "table4":
            inputs["sst"] = [f"{RESULTS}/sst/{v}.json" for v in SST_VECTORS]
            chain = self.chain_seeds()
            seeds = [f"{RESULTS}/sst/{v}_seed{s}.json" for s in chain for v in SST_VECTORS]
        else:
            rnn = ["jn", "nn", "vn"] if table == "table5" else ["phrases"]
            inputs["rnn"] = [f"{RESULTS}/rnn/{d}.selected.json" for d in rnn]
            inputs["scores"] = [f"{RESULTS}/scores/{v}.parquet" for v in ("init", "paragram")]
            inputs["pairs"] = [f"{RESOURCES}/pairs/{d}.json" for d in rnn]
            if table in ("table5", "table6"):
                seeds = [
                    path
                    for s in self.chain_seeds()
                    for path in (
                        *(f"{RESULTS}/rnn/{d}_seed{s}.selected.json" for d in rnn),
                        f"{RESULTS}/scores/paragram_seed{s}.parquet",
                    )
                ]
        if seeds:
            inputs["seeds"] = seeds
        if table in ("table6", "table8", "table9"):
            inputs["lexical"] = f"{RESOURCES}/lexical/pairs.parquet"
        if table == "table6":
            inputs["wordnet"] = "resources/wordnet/nltk_data"
        return inputs

    def table_args(self, wildcards, input) -> str:
        """The table command's options: each input as ``--<name> path …`` (and the chain's own
        seed with its other seeds' inputs), or the reasons its data is unavailable."""
        reasons = [f"--unavailable {shlex.quote(r)}" for r in self.missing(wildcards.table)]
        if wildcards.table != "table3" and "seeds" in input.keys():  # noqa: SIM118 (a Namedlist)
            reasons.append(f"--own-seed {self.own_seed}")
        return " ".join([_options(input), *reasons]).strip()

    def table_spec(self, wildcards) -> str:
        return json.dumps(self.block["tables"][wildcards.table])

    def setting(self, wildcards) -> str:
        """The run's setting, for the tables' notes."""
        return json.dumps({k: self.block[k] for k in SETTING})


def _part(run: str) -> tuple[str, str]:
    """A scored run's part (``words``, ``rnn``) and its variant or data."""
    part, which = run.split("-", 1)
    return part, which


def _options(named) -> str:
    """A rule's named inputs as ``--<name> path …`` options."""
    parts, names = [], named.keys()  # a Namedlist: `in` looks at its values
    for name in names:
        value = getattr(named, name)
        values = [value] if isinstance(value, str) else list(value)
        parts.append(f"--{name} " + " ".join(shlex.quote(str(v)) for v in values))
    return " ".join(parts)
