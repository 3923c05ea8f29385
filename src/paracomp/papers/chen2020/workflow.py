"""The inputs and params of chen2020's rules (rules/papers/chen2020.smk), from its config
block. Imports no torch.

The training corpus is named by one config key, ``papers.chen2020.corpus`` (:data:`CORPORA`);
the Bible stand-in (:data:`BIBLE_PAIRS`) is the shared English–English corpus artefact of
rules/corpus.smk (rule ``english_bible_pairs``), which wieting2017 trains on too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paracomp.errors import ConfigError
from paracomp.train.replicates import SUFFIX, split_replicate

BIBLE_PAIRS = "resources/corpus/bible-kjv-web.parquet"
"""English–English KJV–WEB verse pairs (papers.chen2020.corpus)."""
PARANMT_PAIRS = "resources/corpus/chen2020/paranmt_5m.parquet"
CORPORA = {
    "kjv-web": BIBLE_PAIRS,
    "pivot": "resources/corpus/monolingual_phrases.parquet",
    "paranmt": PARANMT_PAIRS,
}
CORPUS_NOTES = {
    "kjv-web": "English-English Bible verse pairs (KJV, WEB; Debian SWORD modules)",
    "pivot": "the corpus chain's pivot phrase paraphrases (En-Es Bible phrase table)",
    "paranmt": "ParaNMT-50M, 5M processed pairs (the paper's)",
}
TRAIN = "resources/corpus/chen2020/train.parquet"
TUNING = "resources/corpus/chen2020/tuning.parquet"
SENTENCES = "resources/chen2020/sentences.parquet"
SCORES = "results/chen2020/scores"
RUNS = "results/chen2020/runs"
SPECIFICITY_DATA = ("specificity-news-speciteller", "specificity-ko2019", "snli")
INIT = "resources/chen2020/init/{layout}.parquet"
"""The runs' initial word rows (papers.chen2020.init), per layout (papers.chen2020.init.LAYOUTS)."""
OPERATOR_COMPOSERS = frozenset({"wlo"})
"""Composers whose word rows are operators ``[a | B]`` (the ``operators`` layout)."""
INITIAL = "initial"
"""The untrained baseline: the runs' initial vectors averaged (with ``init``)."""

BASELINES = {
    "majority": "majority",
    "length": "length",
    "wordfreq_sum": "wordfreq_sum",
    "wordfreq_avg": "wordfreq_avg",
    "glove_sum": "vectors_sum",
    "glove_avg": "vectors_avg",
}
"""Baseline models and their scoring kind (papers.chen2020.scores.KINDS)."""
DERIVED = {"wordsum": ("wordavg", "run_sum")}
"""Models scored from another run's rows: WORDSUM is WORDAVG's rows composed by sum."""
TABLE_MODELS = {
    "table1": [],
    "table2": [*BASELINES, INITIAL, "wordavg", "wordsum", "lstm_avg", "lstm_gaussian", "wlo"],
    "table3": ["majority", "wordavg", "wordsum", "lstm_avg", "lstm_gaussian", "wlo"],
    "table4": ["glove_sum", "wordavg", "wordsum", "lstm_avg", "lstm_gaussian", "wlo"],
    "table7": ["wlo", "wlo_noprior"],
    "table8": [INITIAL, "wordavg", "lstm_avg", "lstm_gaussian", "wlo"],
}
"""The scores each score table reads (tables 5 and 6 read runs)."""


@dataclass(frozen=True)
class Inputs:
    """``block``: the paper's config block; ``folders``: the fetched folder of each of
    :data:`SPECIFICITY_DATA` (None where no configured source has it); ``reasons``: why;
    ``sts``: the STS Benchmark set artefact, if some source provides it; ``paranmt``: the
    fetched ParaNMT folder, if some source provides it; ``tokenizer``, ``lowercase``: the
    evaluation's; ``init_missing``: why the configured initial vectors cannot be built here
    (the runs then start from random rows, the paper's); ``replicates``: run -> seed -> its
    replicate run (``replicates``, paracomp.train.replicates; the tables combine the seeds)."""

    block: Mapping[str, Any]
    folders: Mapping[str, str | None]
    reasons: Mapping[str, str]
    sts: str | None
    paranmt: str | None
    tokenizer: str
    lowercase: bool
    init_missing: str | None = None
    replicates: Mapping[str, Mapping[int, str]] = field(default_factory=dict)

    # -- data ---------------------------------------------------------------------------

    def corpus(self) -> str:
        return CORPORA[self.block["corpus"]]

    def corpus_note(self) -> str:
        return CORPUS_NOTES[self.block["corpus"]]

    def paranmt_input(self, wildcards=None) -> str:
        if self.paranmt is None:
            raise ConfigError(
                "papers.chen2020.corpus paranmt: no configured source provides dataset "
                "paranmt-5m (add upstream to sources, or a mirror copy)"
            )
        return self.paranmt

    @staticmethod
    def data(name: str) -> str:
        """Registration.run_data: every run trains on the training subset."""
        return TRAIN

    @staticmethod
    def tuning_data(name: str) -> str:
        return TUNING

    def subset_params(self, wildcards=None) -> str:
        keys = ("max_tokens", "train_pairs", "tuning_pairs", "seed")
        return json.dumps({k: self.block[k] for k in keys})

    def sentence_inputs(self, wildcards=None) -> dict[str, str]:
        return {name: folder for name, folder in self.folders.items() if folder is not None}

    def sentence_args(self, wildcards=None) -> str:
        flags = {
            "specificity-news-speciteller": "--news",
            "specificity-ko2019": "--ko",
            "snli": "--snli",
        }
        args = [f"{flags[name]} {folder}" for name, folder in self.folders.items() if folder]
        missing = [f"{name}={self.reasons[name]}" for name, f in self.folders.items() if not f]
        if missing:
            args.append("--unavailable " + " ".join(json.dumps(m) for m in missing))
        lowercase = "--lowercase" if self.lowercase else "--no-lowercase"
        return " ".join([*args, f"--tokenizer {self.tokenizer}", lowercase])

    # -- scores -------------------------------------------------------------------------

    def models(self) -> list[str]:
        """Every scored model: baselines (the initial vectors with ``init``), runs, derived
        rows."""
        runs = list(self.block["runs"])
        initial = [INITIAL] if self.init() else []
        derived = [s for m, (run, _) in DERIVED.items() if run in runs for s in self._each(m)]
        return [*BASELINES, *initial, *runs, *derived]

    def seeds(self, model: str) -> dict[int, str]:
        """Seed -> the scorer of ``model``'s replicate with that seed (every seed, its own
        too: the model itself); empty for a model of one seed. A derived model's replicates
        are its run's (``wordsum_seed2`` from ``wordavg_seed2``)."""
        run = DERIVED[model][0] if model in DERIVED else model
        return {s: model + name[len(run) :] for s, name in self.replicates.get(run, {}).items()}

    def _each(self, model: str) -> list[str]:
        """``model`` and its replicates' scorers."""
        return [model, *(m for m in self.seeds(model).values() if m != model)]

    # -- initial word rows ----------------------------------------------------------------

    def init(self) -> Mapping[str, Any] | None:
        """The initial vectors the runs start from (``papers.chen2020.init``), None if random
        rows (configured so, or the vectors cannot be built here: :attr:`init_missing`)."""
        return None if self.init_missing else self.block["init"]

    def init_embeddings(self) -> str:
        return f"resources/embeddings/{self.block['init']['embeddings']}.parquet"

    def run_init(self, run: str) -> str | None:
        """The initial word rows of run ``run`` (Registration.run_init), or None: random rows."""
        if not self.init():
            return None
        composer = self.block["runs"][run]["composer"]
        return INIT.format(layout="operators" if composer in OPERATOR_COMPOSERS else "vectors")

    def init_inputs(self, wildcards=None) -> dict[str, str]:
        inputs = {
            "embeddings": self.init_embeddings(),
            "pairs": self.corpus(),
            "sentences": SENTENCES,
        }
        return inputs | ({"sts": self.sts} if self.sts else {})

    def init_args(self, wildcards=None) -> str:
        lowercase = "--lowercase" if self.lowercase else "--no-lowercase"
        sts = f"--sts {self.sts} " if self.sts else ""
        return f"{sts}--tokenizer {self.tokenizer} {lowercase}"

    def _source(self, model: str) -> tuple[str, str | None]:
        """(kind, run) of a model."""
        if model == INITIAL:
            return "vectors_avg", None
        if model in BASELINES:
            return BASELINES[model], None
        if model in DERIVED:
            return DERIVED[model][1], DERIVED[model][0]
        base, seed = split_replicate(model)
        if seed is not None and base in DERIVED:  # a derived model's replicate
            return DERIVED[base][1], f"{DERIVED[base][0]}{SUFFIX}{seed}"
        return "run", model

    def score_inputs(self, wildcards) -> dict[str, Any]:
        kind, run = self._source(wildcards.scorer)
        inputs: dict[str, Any] = {"sentences": SENTENCES}
        if run is not None:
            folder = f"{RUNS}/{run}"
            inputs["run"] = [f"{folder}/composer.pt", f"{folder}/embeddings.parquet"]
            if self.sts:
                inputs["sts"] = self.sts
        elif kind.startswith("wordfreq"):
            inputs["frequencies"] = self.frequencies()[1]
        elif wildcards.scorer == INITIAL:
            inputs["vectors"] = INIT.format(layout="vectors")
            if self.sts:
                inputs["sts"] = self.sts
        elif kind.startswith("vectors"):
            inputs["vectors"] = f"resources/embeddings/{self.block['vectors']}.parquet"
        return inputs

    def score_args(self, wildcards) -> str:
        kind, run = self._source(wildcards.scorer)
        args = [f"--kind {kind}"]
        lowercase = "--lowercase" if self.lowercase else "--no-lowercase"
        sts = f"--sts {self.sts} --tokenizer {self.tokenizer} {lowercase}" if self.sts else ""
        if run is not None:
            args.extend([f"--run {RUNS}/{run}", sts])
        elif wildcards.scorer == INITIAL:
            args.extend([f"--vectors {INIT.format(layout='vectors')}", sts])
        elif kind.startswith("wordfreq"):
            args.append(" ".join(self.frequencies()))
        elif kind.startswith("vectors"):
            args.append(f"--vectors resources/embeddings/{self.block['vectors']}.parquet")
        return " ".join(a for a in args if a)

    def frequencies(self) -> tuple[str, str]:
        """The Word Freq. rows' source (papers.chen2020.frequencies) as the scores command's
        option and path: the training pairs, or the embeddings whose row order ranks the
        words."""
        name = self.block["frequencies"]
        if name == "training":
            return "--pairs", TRAIN
        return "--frequency-order", f"resources/embeddings/{name}.parquet"

    # -- tables -------------------------------------------------------------------------

    def table_models(self, table: str) -> list[str]:
        return [m for m in TABLE_MODELS.get(table, []) if m in self.models()]

    def table_inputs(self, wildcards) -> list[str]:
        models = self.table_models(wildcards.score_table)
        scores = [f"{SCORES}/{s}.parquet" for m in models for s in self._each(m)]
        return [SENTENCES, *scores]

    def table_seed_args(self, wildcards) -> str:
        """`` --seed-scores model:seed=path …`` of the table's models over seeds ('' if
        none)."""
        found = [
            f"{m}:{seed}={SCORES}/{scorer}.parquet"
            for m in self.table_models(wildcards.score_table)
            for seed, scorer in self.seeds(m).items()
        ]
        return " --seed-scores " + " ".join(found) if found else ""

    def table_scores(self, wildcards) -> list[str]:
        """``model=path`` of the scores a table reads."""
        return [f"{m}={SCORES}/{m}.parquet" for m in self.table_models(wildcards.score_table)]

    def setting_json(self, wildcards) -> str:
        note = self.block["tables"].get(wildcards.score_table, {}).get("note", "")
        return json.dumps(self.setting(note))

    def setting(self, note: str = "") -> dict[str, Any]:
        """What the tables' notes say about the training setting."""
        return {
            "corpus": self.corpus_note(),
            "max_tokens": self.block["max_tokens"],
            "train_pairs": self.block["train_pairs"],
            "epochs": self.block["epochs"],
            "tuning": self.block["tuning"],
            "news_train": self.block["news_train"],
            "vectors": self.block["vectors"],
            "frequencies": self.block["frequencies"],
            "init": self.init(),
            "init_missing": self.init_missing,
            "runs": {run: dict(self.block["runs"][run]) for run in self.configured()},
            "grids": dict(self.block["grids"]),
            "note": note,
        }

    def configured(self) -> list[str]:
        """The runs of the config, less their seed replicates (``<run>_seed<s>``, which the
        expanded block's ``runs`` holds too)."""
        names = {name for by_seed in self.replicates.values() for name in by_seed.values()}
        copies = names - set(self.replicates)
        return [run for run in self.block["runs"] if run not in copies]

    def run_inputs(self, run: str) -> list[str]:
        return [f"{RUNS}/{run}/composer.pt", f"{RUNS}/{run}/embeddings.parquet"]

    def word_list_params(self, wildcards=None) -> str:
        return json.dumps(self.block["word_lists"])

    def sentence_list_params(self, wildcards=None) -> str:
        return json.dumps({**self.block["sentence_lists"], "seed": self.block["seed"]})


def run_folder(wildcards, input) -> str:
    """The run folder of Table 5's WLO run, from the rule's input."""
    return str(Path(input.run[0]).parent)


def list_runs(wildcards, input) -> list[str]:
    """Table 6's ``wordsum=<WORDAVG run>`` and ``wlo=<WLO run>``, from the rule's input."""
    return [f"wordsum={Path(input.wordavg[0]).parent}", f"wlo={Path(input.wlo[0]).parent}"]
