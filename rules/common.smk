# Configuration validation, source choice, and the small typed helpers the generic rules'
# inputs and params come from (no rules here). Each paper's rules file registers its part of
# the generic rules once (REGISTRATIONS, a typed paracomp.registration.Registration). Nothing
# here imports torch.
import json
import re
import shlex
from pathlib import Path

from snakemake.logging import logger
from snakemake.utils import validate

from paracomp.corpus.sharding import plan as sharding_plan
from paracomp.corpus.sharding import plausibility as sharding_plausibility
from paracomp.data.checksums import OVERRIDE_ENV as CHECKSUM_OVERRIDE_ENV
from paracomp.data.checksums import active as checksum_override
from paracomp.data.catalog import (
    choose_embeddings_source,
    choose_source,
    dataset_source,
    describe_sources,
    load as load_catalog,
    mirror_dir,
)
from paracomp.atomic import unwritable as unwritable_folders
from paracomp.errors import WriteError, named
from paracomp.papers import PAPERS
from paracomp.registration import Registration, Registrations, built_embeddings
from paracomp.registry import (
    check_generic_tables,
    check_paper,
    paper_settings,
    resource,
    schema_path,
)
from paracomp.settings import CONFIG_SCHEMA
from paracomp.settings import checked as checked_settings
from paracomp.settings import coerce as coerce_settings
from paracomp.tables.findings import read_claims, tables_of
from paracomp.run_config import schema as run_schema
from paracomp.run_config import validate as check_run_settings
from paracomp.train.replicates import expand_blocks
from paracomp.train.stacks import split_grid
from paracomp.train.grid import (
    TRAINER_INPUTS,
    ScoredGrid,
    grid_plausibility,
    grid_points,
    point_folder,
)


# --config's nested values arrive as strings: each coerced to its schema's type, then checked
# (one line naming the key), then validated by Snakemake, which fills in the defaults
config.update(checked_settings(config, CONFIG_SCHEMA, "config"))
validate(config, schema=CONFIG_SCHEMA)
check_paper(config["paper"])
for _paper in config["papers"]:
    check_paper(_paper)
# each paper's settings from its home (src/paracomp/papers/<paper>/), a user's block on top
config["papers"] = {
    _paper: checked_settings(
        paper_settings(_paper, config["settings"], config["papers"].get(_paper)),
        schema_path(_paper),
        f"papers.{_paper}",
    )
    for _paper in PAPERS
}
for _paper, _block in config["papers"].items():
    validate(_block, schema=schema_path(_paper))



onstart:
    # before Snakemake removes a job's old outputs (it fails with its own traceback in a
    # read-only folder): every folder the planned jobs write in must be writable
    _blocked = unwritable_folders(f for job in workflow.dag.needrun_jobs() for f in job.output)
    if _blocked:
        raise WriteError(
            f"{_blocked[0]}: not writable, and the planned jobs write there"
            + (f" (and in {len(_blocked) - 1} more folders)" if len(_blocked) > 1 else "")
            + "; make it writable or run in another --directory"
        )


CATALOG = load_catalog(PAPERS)
MIRROR = mirror_dir(config["mirror"])
EVAL = config["evaluation"]
TRAIN = config["training"]
TRAIN["defaults"] = coerce_settings(TRAIN["defaults"], run_schema())
BLOCKS = config["papers"]
REPLICATES = expand_blocks(BLOCKS, TRAIN)
"""paper -> run -> seed -> its replicate run (``replicates``, paracomp.train.replicates); the
replicate runs are in BLOCKS' runs, trained by the generic rules."""
STACKING = (
    list(PAPERS)
    if TRAIN["stack_grid"] is True
    else [check_paper(p) for p in TRAIN["stack_grid"] or []]
)
"""The papers whose tuning grids train in stacks (training.stack_grid)."""


def block(paper: str) -> dict:
    """A paper's config block."""
    return BLOCKS[paper]


CHECKSUM_OVERRIDE = checksum_override()
if workflow.is_main_process and CHECKSUM_OVERRIDE is not None:
    logger.warning(
        f"checksum override in force (${CHECKSUM_OVERRIDE_ENV}): {CHECKSUM_OVERRIDE.path} "
        f"replaces the catalogue's sha256 of {len(CHECKSUM_OVERRIDE.sha256)} files"
    )
if workflow.is_main_process:  # once per run: which source each evaluation set comes from
    for _line in describe_sources(
        sorted({*EVAL["sts_sets"], *EVAL["wordsim_sets"]}), config["sources"], MIRROR, CATALOG
    ):
        logger.info(f"evaluation set {_line}")


# -- Sources ---------------------------------------------------------------------------------


def fetched_folder(source: str, name: str) -> str:
    """Where a registry package or a mirror/upstream dataset is fetched to."""
    if source == "registry":
        return f"resources/packages/{name}"
    return f"resources/{source}/{name}"


def set_source(name: str) -> str | None:
    """The source that provides evaluation set ``name``, or None."""
    return choose_source(CATALOG.set(name), config["sources"], MIRROR, CATALOG)


def set_input(wildcards) -> str:
    source = set_source(wildcards.set)
    if source is None:
        raise ValueError(
            f"no source in {config['sources']} provides evaluation set {wildcards.set!r}"
        )
    entry = CATALOG.set(wildcards.set).sources[source]
    return fetched_folder(source, entry["package" if source == "registry" else "dataset"])


def set_source_param(wildcards) -> str | None:
    return set_source(wildcards.set)


def embeddings_source(wildcards) -> str:
    return choose_embeddings_source(wildcards.embeddings, config["sources"], MIRROR, CATALOG)


def embeddings_input(wildcards) -> str:
    source = embeddings_source(wildcards)
    spec = CATALOG.embeddings[wildcards.embeddings]
    if source == "registry":
        return fetched_folder(source, spec["registry"]["package"])
    return fetched_folder(source, spec["dataset"]["name"])


def dataset_folder(name: str) -> str | None:
    """The fetched folder of raw dataset ``name`` (mirror or upstream), or None."""
    source = dataset_source(name, config["sources"], MIRROR, CATALOG)
    return None if source is None else fetched_folder(source, name)


REGISTRATIONS = Registrations(PAPERS)
"""Each paper's part of the generic rules: its rules file calls :func:`register` once
(paracomp.registration.Registration); the generic rules read them after every paper's."""


BUILT_EMBEDDINGS = built_embeddings(PAPERS, BLOCKS)
"""Embeddings a paper's rules build -> the raw datasets they need (each paper's package
declares its own), known before any paper's rules file is read."""


def register(registration: Registration) -> Registration:
    return REGISTRATIONS.register(registration)


def embeddings_missing(name: str) -> str | None:
    """Why the embeddings ``name`` cannot be built here (a paper's rules build them and a raw
    dataset they need has no configured source), else None."""
    needs = BUILT_EMBEDDINGS.get(name, ())
    missing = [d for d in needs if dataset_folder(d) is None]
    if not missing:
        return None
    sources = ", ".join(config["sources"])
    return f"{name} needs {', '.join(missing)}: no source in {sources} provides it"


def buildable_models() -> list[str]:
    """The configured pretrained models whose embeddings can be had here."""
    return [m for m, s in config["models"].items() if not embeddings_missing(s["embeddings"])]


def available(sets: list[str]) -> list[str]:
    return [s for s in sets if set_source(s) is not None]


def lowercase_flag() -> str:
    """The evaluation's lowercasing as a ``paracomp`` option."""
    return "--lowercase" if EVAL["lowercase"] else "--no-lowercase"


def set_paths(sets: list[str]) -> list[str]:
    """The parsed-set artefacts of the ``sets`` some source provides."""
    return [f"resources/sets/{s}.parquet" for s in available(sets)]


def set_args(sets: list[str]) -> list[str]:
    """``set=path`` arguments of the ``sets`` some source provides."""
    return [f"{s}=resources/sets/{s}.parquet" for s in available(sets)]


def unavailable(sets: list[str]) -> list[str]:
    """``set=reason`` arguments for configured sets that no configured source provides."""
    return [
        f"{s}=no source in {', '.join(config['sources'])} provides it "
        f"(catalogue sources: {', '.join(CATALOG.set(s).sources)})"
        for s in sets
        if set_source(s) is None
    ]


# -- Corpus ---------------------------------------------------------------------------------

CORPUS = config["corpus"]
CORPUS_SETS = {
    "bisent": "resources/corpus/bilingual_sentences.parquet",
    "biphr": "resources/corpus/bilingual_phrases.parquet",
    "mono": "resources/corpus/monolingual_phrases.parquet",
}
"""The training sets of the chain by name: bilingual sentences and phrases, English paraphrases."""
PHRASE_SHARDS, PHRASE_PARTITIONS, PIVOT_PARTITIONS = sharding_plan(CORPUS)
"""Sentence shards and phrase partitions of the phrase table, partitions of the pivot
(``corpus.sharding``)."""
for _line in sharding_plausibility(CORPUS, sharding_plan(CORPUS)):
    if workflow.is_main_process:
        logger.warning(_line)
PHRASES = "resources/corpus/phrases"
"""The sharded phrase table's and pivot's intermediate files (temporary)."""
ENGLISH_BIBLE = "resources/corpus/bible-kjv-web.parquet"
"""English-English KJV-WEB verse pairs (rule english_bible_pairs), a sentential paraphrase
corpus any paper can train on (wieting2017 for SimpWiki, chen2020 for ParaNMT)."""


def corpus_dataset(name: str, key: str) -> str:
    """The fetched folder of raw dataset ``name``, which config key ``key`` selects (a mirror
    copy where a mirror holds it, else its upstream release, as ``sources`` orders them)."""
    folder = dataset_folder(name)
    if folder is None:
        raise ValueError(
            f"{key} needs dataset {name}: no source in {', '.join(config['sources'])} provides "
            "it (add upstream to sources, or a mirror holding it)"
        )
    return folder


def sentence_sources(wildcards) -> list[str]:
    """Folders the bilingual sentences are read from."""
    if CORPUS["bilingual"] == "bible":
        return ["resources/packages/sword-text-web", "resources/packages/sword-text-sparv"]
    return [corpus_dataset("europarl-v7-es-en", "corpus.bilingual: europarl")]


def sentence_input_args(wildcards) -> list[str]:
    if CORPUS["bilingual"] == "bible":
        return sentence_sources(wildcards)
    folder = sentence_sources(wildcards)[0]
    return [f"{folder}/europarl-v7.es-en.en", f"{folder}/europarl-v7.es-en.es"]


def sentence_params(wildcards) -> str:
    return json.dumps(
        {
            "source": CORPUS["bilingual"],
            "clean": CORPUS["clean"],
            "normalize_punct": CORPUS["normalize_punct"],
            "jobs": CORPUS["tokenize_jobs"],
        }
    )


def shard_files(kind: str) -> list[str]:
    """The ``kind`` files (pairs, words) of every shard of the phrase table."""
    return [f"{PHRASES}/shards/{k}.{kind}.parquet" for k in range(PHRASE_SHARDS)]


def partition_files(stage: str, partitions: int = PHRASE_PARTITIONS) -> list[str]:
    """The files of every partition of ``stage`` (merged, scored, pivot/joined ...)."""
    return [f"{PHRASES}/{stage}/{k}.parquet" for k in range(partitions)]


def shard_params(wildcards) -> str:
    return json.dumps(
        {
            "shard": int(wildcards.shard),
            "shards": PHRASE_SHARDS,
            "partitions": PHRASE_PARTITIONS,
            "max_length": CORPUS["max_phrase_length"],
        }
    )


def merge_params(wildcards) -> str:
    return json.dumps({"partition": int(wildcards.partition), "partitions": PHRASE_PARTITIONS})


def partition_params(wildcards) -> str:
    return json.dumps({"partition": int(wildcards.partition)})


def pivot_split_params(wildcards) -> str:
    return json.dumps({"rules": CORPUS["pivot"], "partitions": PIVOT_PARTITIONS})


def pivot_join_params(wildcards) -> str:
    return json.dumps({"partition": int(wildcards.partition), "partitions": PIVOT_PARTITIONS})


def pivot_sum_params(wildcards) -> str:
    return json.dumps({"rules": CORPUS["pivot"], "partition": int(wildcards.partition)})


def monolingual_step(wildcards) -> str:
    """The corpus step writing the monolingual phrases: the pivot's gather, or PPDB's."""
    return "pivot-gather" if CORPUS["monolingual"] == "pivot" else "ppdb"


def monolingual_sources(wildcards) -> list[str]:
    if CORPUS["monolingual"] == "pivot":
        return ["resources/corpus/phrase_table.parquet", *partition_files("pivot/best", PIVOT_PARTITIONS)]
    return [corpus_dataset("ppdb-1.0-xl-phrasal", "corpus.monolingual: ppdb")]


def monolingual_input_args(wildcards) -> list[str]:
    sources = monolingual_sources(wildcards)
    return sources if CORPUS["monolingual"] == "pivot" else [f"{sources[0]}/ppdb-1.0-xl-phrasal"]


def monolingual_params(wildcards) -> str:
    if CORPUS["monolingual"] == "pivot":
        return json.dumps({"rules": CORPUS["pivot"]})
    return "{}"


# -- Models and their evaluation -------------------------------------------------------------

def runs_of(paper: str) -> dict:
    return block(paper).get("runs", {})


def model_of(paper: str, name: str) -> str:
    """A table column's ``model``: the paper's run ``name`` if it has one, else the
    pretrained model ``name``."""
    return f"{paper}/{name}" if name in runs_of(paper) else name


def leaderboard_models() -> dict[str, dict]:
    """Every model of the leaderboard -> its entry: the pretrained models, every paper's
    generic runs and the papers' registered models (Registration.leaderboard)."""
    models = {name: pretrained_entry(spec["embeddings"]) for name, spec in config["models"].items()}
    for paper in BLOCKS:
        for run in runs_of(paper):
            models[f"{paper}/{run}"] = {"paper": paper, "run": f"results/{paper}/runs/{run}"}
    return {**models, **REGISTRATIONS.leaderboard()}


def pretrained_entry(embeddings: str) -> dict:
    """The leaderboard entry of pretrained vectors: their file, or why they cannot be had."""
    reason = embeddings_missing(embeddings)
    if reason is not None:
        return {"paper": "", "note": reason}
    return {"paper": "", "embeddings": f"resources/embeddings/{embeddings}.parquet"}


def evaluated_models() -> list[str]:
    """The models the generic evaluator scores: those with a run folder or word vectors."""
    return [m for m, e in leaderboard_models().items() if "run" in e or "embeddings" in e]


def model_entry(model: str) -> dict:
    try:
        return leaderboard_models()[model]
    except KeyError:
        raise ValueError(f"model {model!r} is neither in config models nor a paper's") from None


def model_source(wildcards) -> dict:
    """The files a model is read from: a run's composer and rows (and fallback vectors), or
    its embeddings."""
    entry = model_entry(wildcards.model)
    if "run" in entry:
        files = {"run": [f"{entry['run']}/{name}" for name in ("composer.pt", "embeddings.parquet")]}
        return files | ({"fallback": entry["fallback"]} if "fallback" in entry else {})
    return {"embeddings": entry["embeddings"]}


def model_source_args(wildcards) -> str:
    """``--run <folder> [--fallback <vectors>]`` or ``--embeddings <vectors>``."""
    entry = model_entry(wildcards.model)
    if "run" not in entry:
        return f"--embeddings {shlex.quote(entry['embeddings'])}"
    fallback = f" --fallback {shlex.quote(entry['fallback'])}" if "fallback" in entry else ""
    return f"--run {shlex.quote(entry['run'])}{fallback}"


def eval_inputs(wildcards) -> dict:
    return {
        **model_source(wildcards),
        "sts": set_paths(EVAL["sts_sets"]),
        "wordsim": set_paths(EVAL["wordsim_sets"]),
    }


def eval_unavailable(wildcards) -> list[str]:
    return unavailable(EVAL["sts_sets"]) + unavailable(EVAL["wordsim_sets"])


def eval_splits(wildcards) -> list[str]:
    return [f"{s}={split}" for s, split in EVAL["splits"].items()]


# -- Training --------------------------------------------------------------------------------


def run_spec(wildcards) -> dict:
    return runs_of(wildcards.paper)[wildcards.run]


def grid_of(paper: str, run: str) -> list[dict]:
    """The tuning grid of a run: its paper's grid named by the run's `grid`, else by its
    objective."""
    spec = runs_of(paper)[run]
    key = "grid" if "grid" in spec else "objective"
    where, what = f"papers.{paper}.runs.{run}.{key}", f"grid of papers.{paper}.grids"
    return grid_points(named(block(paper)["grids"], spec[key], where, what))


def run_params(paper: str, run: str, epochs: int) -> dict:
    """A run's settings: training.defaults, then the run's own, then ``epochs``."""
    spec = {k: v for k, v in runs_of(paper)[run].items() if k not in ("data", "tune_as", "grid")}
    return {
        **TRAIN["defaults"],
        **spec,
        "epochs": epochs,
        "allow_cpu_fallback": TRAIN["allow_cpu_fallback"],
    }


def check_training(paper: str) -> None:
    """Every run of ``paper`` and every point of its grid is a valid run, before any work."""
    for run in runs_of(paper):
        spec = runs_of(paper)[run]
        where = f"papers.{paper}.runs.{run}"
        if spec.get("tune_as", run) not in runs_of(paper):
            raise ValueError(f"{where}: tune_as {spec['tune_as']!r} is not a run of {paper}")
        base = run_params(paper, run, block(paper)["epochs"])
        check_run_settings(base, where)
        grid = grid_of(paper, spec.get("tune_as", run))
        if spec.get("tune_as", run) == run:  # a run tuned as another trains no grid of its own
            warning = grid_plausibility(where, len(grid), TRAIN["grid_points"])
            if warning and workflow.is_main_process:
                logger.warning(warning)
        for index, point in enumerate(grid):
            check_run_settings({**base, **point}, f"{where} with grid point {index} {point}")


check_run_settings(TRAIN["defaults"], "training.defaults")
for _paper in BLOCKS:
    check_training(_paper)


def tuning_of(paper: str) -> dict:
    return block(paper)["tuning"]


def tuning_set_path(wildcards) -> str:
    return f"resources/sets/{tuning_of(wildcards.paper)['set']}.parquet"


def registered_data(paper: str, kind: str):
    """``paper``'s registered function (``run_data`` or ``tuning_data``) from a run's ``data``
    name to its artefact."""
    found = getattr(REGISTRATIONS[paper], kind)
    if found is None:
        raise ValueError(f"{paper} has generic runs but registers no {kind}")
    return found


def run_init(wildcards) -> dict:
    """``init``: the initial word rows a paper registers for the run (Registration.run_init),
    if any."""
    found = REGISTRATIONS[wildcards.paper].run_init
    path = None if found is None else found(wildcards.run)
    return {} if path is None else {"init": path}


def tune_inputs(wildcards) -> dict:
    return {
        "pairs": registered_data(wildcards.paper, "tuning_data")(run_spec(wildcards)["data"]),
        "tuning": tuning_set_path(wildcards),
        **run_init(wildcards),
    }


def tune_params(wildcards) -> str:
    epochs = tuning_of(wildcards.paper)["epochs"]
    return json.dumps(run_params(wildcards.paper, wildcards.run, epochs))


def tuning_point_json(wildcards) -> str:
    """A tuning grid point's settings, as JSON."""
    return json.dumps(grid_of(wildcards.paper, wildcards.run)[int(wildcards.point)])


def tuning_args(wildcards) -> str:
    tuning = tuning_of(wildcards.paper)
    return (
        f"--tune-subset {tuning['subset']} --tune-split {tuning['split']}"
        f" --tokenizer {EVAL['tokenizer']} {lowercase_flag()}"
    )


def tuning_records(wildcards) -> list[str]:
    """The records of every tuning grid point of a run."""
    points = range(len(grid_of(wildcards.paper, wildcards.run)))
    return [f"results/{wildcards.paper}/tuning/{wildcards.run}/{p}.json" for p in points]


def stacks_of(paper: str, run: str) -> list[list[int]]:
    """The stacks of a run's tuning grid (training.stack_grid), as lists of point indices."""
    base = run_params(paper, run, tuning_of(paper)["epochs"])
    return split_grid(base, grid_of(paper, run))


def stack_points(wildcards) -> str:
    """The grid points of a stack, as JSON index -> point."""
    points = grid_of(wildcards.paper, wildcards.run)
    stack = stacks_of(wildcards.paper, wildcards.run)[int(wildcards.stack)]
    return json.dumps({str(index): points[index] for index in stack})


def stack_records_of_point(wildcards) -> str:
    """The records folder of the stack that trains a grid point."""
    stacks = stacks_of(wildcards.paper, wildcards.run)
    stack = next(s for s, points in enumerate(stacks) if int(wildcards.point) in points)
    return f"results/{wildcards.paper}/tuning/{wildcards.run}/stack{stack}/records"


def tuned_runs(paper: str) -> list[str]:
    return [run for run, spec in runs_of(paper).items() if "tune_as" not in spec]


def train_inputs(wildcards) -> dict:
    spec = run_spec(wildcards)
    tuned = spec.get("tune_as", wildcards.run)
    return {
        "pairs": registered_data(wildcards.paper, "run_data")(spec["data"]),
        "selected": f"results/{wildcards.paper}/tuning/{tuned}.selected.json",
        "tuning": tuning_set_path(wildcards),
        **run_init(wildcards),
    }


def final_params(wildcards) -> str:
    epochs = block(wildcards.paper)["epochs"]
    return json.dumps(run_params(wildcards.paper, wildcards.run, epochs))


def tuning_reports(wildcards) -> list[str]:
    paper = wildcards.paper
    return [f"{run}=results/{paper}/tuning/{run}.selected.json" for run in tuned_runs(paper)]


def tuning_report_inputs(wildcards) -> list[str]:
    return [path.split("=", 1)[1] for path in tuning_reports(wildcards)]


def scored_grid(paper: str) -> ScoredGrid:
    """``paper``'s runs whose grid points train on the full data and are scored by the paper
    (rule ``point``, rules/points.smk; Registration.points)."""
    grid = REGISTRATIONS[paper].points
    if grid is None:
        raise ValueError(f"{paper} registers no scored grid points")
    return grid


def scored_runs() -> list[str]:
    """Every registered paper's scored runs (the rule's wildcard ``scored_run``)."""
    grids = REGISTRATIONS.point_grids().values()
    return sorted({run for grid in grids for run in grid.point_runs()})


def scored_inputs(wildcards) -> dict:
    return scored_grid(wildcards.paper).point_inputs(wildcards.scored_run)


def scored_settings(wildcards) -> str:
    return json.dumps(scored_grid(wildcards.paper).point_settings(wildcards.scored_run))


def scored_point(wildcards) -> str:
    grid = scored_grid(wildcards.paper).point_grid(wildcards.scored_run)
    return json.dumps(grid[int(wildcards.point)])


def scored_folder(wildcards) -> str:
    return point_folder(wildcards.paper, wildcards.scored_run, wildcards.point)


def scored_trainer_args(wildcards, input) -> str:
    """``--init``/``--constraints`` of the inputs the trainer reads."""
    names = [n for n in TRAINER_INPUTS if n in input.keys()]
    return " ".join(f"--{n} {shlex.quote(str(getattr(input, n)))}" for n in names)


def scored_command(wildcards) -> str:
    """The paper's command that scores a trained point."""
    grid = scored_grid(wildcards.paper)
    return grid.point_score(wildcards.scored_run, int(wildcards.point), scored_folder(wildcards))


# -- Tables ----------------------------------------------------------------------------------

def table_spec(paper: str, table: str) -> dict:
    """A table's config, a column whose pretrained model cannot be built here left empty with
    the reason."""
    try:
        spec = block(paper)["tables"][table]
    except KeyError:
        raise ValueError(f"config has no papers.{paper}.tables.{table}") from None
    columns = {name: column_here(column) for name, column in spec["columns"].items()}
    return {**spec, "columns": columns}


def column_here(column: dict) -> dict:
    """A table column, or its empty stand-in naming what its pretrained model lacks."""
    model = config["models"].get(column.get("model"))
    reason = None if model is None else embeddings_missing(model["embeddings"])
    return column if reason is None else {"reason": reason}


def generic_tables(paper: str) -> list[str]:
    custom = REGISTRATIONS[paper].custom_tables
    return [t for t in block(paper).get("tables", {}) if t not in custom]


def table_models(paper: str, table: str) -> list[str]:
    """The models of a table's columns and their seed replicates."""
    columns = table_spec(paper, table)["columns"].values()
    names = {c["model"] for c in columns if c.get("model")}
    seeds = {r for n in names for r in REPLICATES.get(paper, {}).get(n, {}).values()}
    return sorted({model_of(paper, n) for n in names | seeds})


def table_stats(paper: str, table: str) -> list[str]:
    """The statistics file of a table whose columns read one, else nothing."""
    if any(c.get("stat") for c in table_spec(paper, table)["columns"].values()):
        return [f"results/{paper}/stats/{table}.json"]
    return []


def table_targets(paper: str) -> list[str]:
    tables = block(paper).get("tables", {})
    return [f"results/{paper}/{table}.csv" for table in tables] + list(REGISTRATIONS[paper].extras)


def table_inputs(wildcards) -> list[str]:
    evals = [
        f"results/eval/{model}/{name}"
        for model in table_models(wildcards.paper, wildcards.table)
        for name in ("sts.csv", "pairs.parquet")
    ]
    return evals + table_stats(wildcards.paper, wildcards.table)


def table_eval_args(wildcards) -> list[str]:
    columns = table_spec(wildcards.paper, wildcards.table)["columns"].values()
    models = sorted({c["model"] for c in columns if c.get("model")})
    return [f"{m}=results/eval/{model_of(wildcards.paper, m)}" for m in models]


def table_replicate_args(wildcards) -> str:
    """``--replicate model:seed=results/eval/<run> …`` of the table's runs with seed
    replicates ("" if none)."""
    columns = table_spec(wildcards.paper, wildcards.table)["columns"].values()
    groups = REPLICATES.get(wildcards.paper, {})
    found = [
        f"{m}:{seed}=results/eval/{wildcards.paper}/{run}"
        for m in sorted({c["model"] for c in columns if c.get("model")} & set(groups))
        for seed, run in groups[m].items()
    ]
    return " ".join(["--replicate", *map(shlex.quote, found)]) if found else ""


def table_spec_json(wildcards) -> str:
    return json.dumps(table_spec(wildcards.paper, wildcards.table))


def table_stats_arg(wildcards) -> str:
    stats = table_stats(wildcards.paper, wildcards.table)
    return f"--stats {stats[0]}" if stats else ""


def top_table_input(wildcards) -> str:
    return f"results/{config['paper']}/{wildcards.table}.csv"


def findings_file(paper: str) -> str:
    """A paper's ``findings.yaml`` (its claims)."""
    return str(resource(paper, "findings.yaml"))


FINDINGS = {paper: read_claims(Path(findings_file(paper))) for paper in PAPERS}
"""Each paper's claims (paracomp.tables.findings), read once."""


def compare_files(paper: str, tables) -> dict[str, str]:
    """The compare file of each of ``paper``'s ``tables``."""
    return {table: f"results/{paper}/{table}.compare.csv" for table in tables}


def replicates_files(paper: str, tables) -> dict[str, str]:
    """The bootstrap replicates of each of ``paper``'s ``tables`` that has them (the generic
    tables and the paper's registered ``replicate_tables``)."""
    found = set(generic_tables(paper)) | set(REGISTRATIONS[paper].replicate_tables)
    return {t: f"results/{paper}/{t}.replicates.parquet" for t in tables if t in found}


def findings_inputs(wildcards) -> dict[str, object]:
    """A paper's claims file and the compare (and replicates) files of the tables its claims
    read."""
    tables = tables_of(FINDINGS[wildcards.paper])
    compare = compare_files(wildcards.paper, tables)
    replicates = replicates_files(wildcards.paper, tables)
    return {
        "claims": findings_file(wildcards.paper),
        "compare": list(compare.values()),
        "replicates": list(replicates.values()),
    }


def findings_compare_args(wildcards) -> list[str]:
    compare = compare_files(wildcards.paper, tables_of(FINDINGS[wildcards.paper]))
    return [f"{table}={path}" for table, path in compare.items()]


def findings_replicates_args(wildcards) -> str:
    """``--replicates table=path …`` for the tables with replicates ("" if none)."""
    found = replicates_files(wildcards.paper, tables_of(FINDINGS[wildcards.paper]))
    return " ".join(["--replicates", *(shlex.quote(f"{t}={p}") for t, p in found.items())]) if found else ""


def overview_inputs(wildcards) -> dict[str, object]:
    """Every table's compare file of a paper, and its findings."""
    compare = compare_files(wildcards.paper, block(wildcards.paper)["tables"])
    return {"compare": list(compare.values()), "findings": f"results/{wildcards.paper}/findings.csv"}


def overview_compare_args(wildcards) -> list[str]:
    compare = compare_files(wildcards.paper, block(wildcards.paper)["tables"])
    return [f"{table}={path}" for table, path in compare.items()]


def leaderboard_inputs(wildcards) -> list[str]:
    """The evaluation files of every evaluated model (its pairs for the rank intervals)."""
    names = ("sts.csv", "wordsim.csv", "encoder.json", "pairs.parquet")
    return [f"results/eval/{model}/{name}" for model in evaluated_models() for name in names]


def leaderboard_spec(wildcards) -> str:
    """Every model of the leaderboard as JSON ``{model: {paper, eval, note, composition}}``."""
    evaluated = set(evaluated_models())
    return json.dumps(
        {
            model: {
                "paper": entry["paper"],
                "eval": f"results/eval/{model}" if model in evaluated else None,
                "note": entry.get("note", ""),
                "composition": entry.get("composition", ""),
            }
            for model, entry in leaderboard_models().items()
        }
    )


def all_targets() -> list[str]:
    evals = [f"results/eval/{model}/sts.csv" for model in buildable_models()]
    return [target for paper in BLOCKS for target in table_targets(paper)] + evals


wildcard_constraints:
    paper="|".join(PAPERS),
    table=r"table\d+",
    set="|".join(map(re.escape, CATALOG.sets)),
    point=r"\d+",
    stack=r"\d+",
    shard=r"\d+",
    partition=r"\d+",
    run="|".join(map(re.escape, sorted({run for paper in BLOCKS for run in runs_of(paper)}))),
    dataset="|".join(map(re.escape, CATALOG.datasets)),
    package="|".join(map(re.escape, CATALOG.packages)),
    embeddings="|".join(map(re.escape, CATALOG.embeddings)),
