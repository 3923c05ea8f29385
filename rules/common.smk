# Configuration validation, source selection and input functions (no rules here).
import json
import re
import shlex

from snakemake.utils import validate

from paracomp.data.catalog import choose_source, load as load_catalog, mirror_dir
from paracomp.train.definitions import run_config
from paracomp.train.jobs import grid_points


validate(config, schema="../workflow/schemas/config.schema.yaml")

CATALOG = load_catalog()
MIRROR = mirror_dir(config["mirror"])
EVAL = config["evaluation"]
PAPERS = ["elgohary2016", "wieting2015", "wieting2017", "scheepers2018", "chen2020"]


wildcard_constraints:
    paper="|".join(PAPERS),
    table=r"table\d+",
    set="|".join(map(re.escape, CATALOG.sets)),
    model="|".join(map(re.escape, [*config["models"], *config["training"]["runs"]])),
    run="|".join(map(re.escape, config["training"]["runs"])),
    point=r"\d+",
    dataset="|".join(map(re.escape, CATALOG.datasets)),
    package="|".join(map(re.escape, CATALOG.packages)),
    embeddings="|".join(map(re.escape, CATALOG.embeddings)),
    condition="bisent|biphr|mono",
    size="|".join(map(re.escape, config["corpus"]["sizes"])),
    split="released|grouped",
    composition="|".join(map(re.escape, config["compvec"]["compositions"])),
    variant="original|compvec",


def set_source(name):
    """The source that provides evaluation set `name`, or None."""
    return choose_source(CATALOG.set(name), config["sources"], MIRROR, CATALOG)


def fetched_folder(source, entry):
    if source == "registry":
        return f"resources/packages/{entry['package']}"
    return f"resources/{source}/{entry['dataset']}"


def set_input(wildcards):
    source = set_source(wildcards.set)
    if source is None:
        raise ValueError(
            f"no source in {config['sources']} provides evaluation set {wildcards.set!r}"
        )
    return fetched_folder(source, CATALOG.set(wildcards.set).sources[source])


def set_source_param(wildcards):
    return set_source(wildcards.set)


def embeddings_source(wildcards):
    """The first configured source that provides the vectors (registry package or dataset)."""
    spec = CATALOG.embeddings[wildcards.embeddings]
    for source in config["sources"]:
        if source == "registry" and "registry" in spec:
            return source
        if source == "mirror" and "dataset" in spec and MIRROR is not None:
            if (MIRROR / spec["dataset"]["name"]).is_dir():
                return source
        if source == "upstream" and "dataset" in spec:
            return source
    raise ValueError(
        f"no source in {config['sources']} provides embeddings {wildcards.embeddings!r}"
    )


def embeddings_input(wildcards):
    source = embeddings_source(wildcards)
    spec = CATALOG.embeddings[wildcards.embeddings]
    if source == "registry":
        return f"resources/packages/{spec['registry']['package']}"
    return f"resources/{source}/{spec['dataset']['name']}"


def available(sets):
    return [s for s in sets if set_source(s) is not None]


def unavailable(sets):
    """`set=reason` arguments for configured sets that no configured source provides."""
    return [
        f"{s}=no source in {', '.join(config['sources'])} provides it "
        f"(catalogue sources: {', '.join(CATALOG.set(s).sources)})"
        for s in sets
        if set_source(s) is None
    ]


def model_embeddings(model):
    """Embeddings of a pretrained model (catalogue) or of a training run."""
    if model in config["training"]["runs"]:
        return f"results/models/{model}/embeddings.parquet"
    return f"resources/embeddings/{config['models'][model]['embeddings']}.parquet"


def eval_inputs(wildcards):
    return {
        "embeddings": model_embeddings(wildcards.model),
        "sts": expand("resources/sets/{set}.parquet", set=available(EVAL["sts_sets"])),
        "wordsim": expand("resources/sets/{set}.parquet", set=available(EVAL["wordsim_sets"])),
    }


def eval_unavailable(wildcards):
    return unavailable(EVAL["sts_sets"]) + unavailable(EVAL["wordsim_sets"])


def eval_splits(wildcards):
    return [f"{s}={split}" for s, split in EVAL["splits"].items()]


def table_spec(paper, table):
    try:
        return config["tables"][paper][table]
    except KeyError:
        raise ValueError(f"config.yaml has no tables.{paper}.{table}")


def table_models(wildcards):
    spec = table_spec(wildcards.paper, wildcards.table)
    return sorted({c["model"] for c in spec["columns"].values() if c.get("model")})


def table_inputs(wildcards):
    evals = [
        f"results/eval/{model}/{name}"
        for model in table_models(wildcards)
        for name in ("sts.csv", "pairs.parquet")
    ]
    stats = table_stats(wildcards)
    return evals + ([stats] if stats else [])


def table_eval_args(wildcards):
    return [f"{model}=results/eval/{model}" for model in table_models(wildcards)]


def table_spec_json(wildcards):
    return json.dumps(table_spec(wildcards.paper, wildcards.table))


CORPUS = config["corpus"]
CONDITIONS = {
    "bisent": "resources/corpus/bilingual_sentences.parquet",
    "biphr": "resources/corpus/bilingual_phrases.parquet",
    "mono": "resources/corpus/monolingual_phrases.parquet",
}


def sentence_sources(wildcards):
    """Folders the bilingual sentences are read from."""
    if CORPUS["bilingual"] == "bible":
        return ["resources/packages/sword-text-web", "resources/packages/sword-text-sparv"]
    return ["resources/upstream/europarl-v7-es-en"]


def sentence_input_args(wildcards):
    if CORPUS["bilingual"] == "bible":
        return sentence_sources(wildcards)
    folder = sentence_sources(wildcards)[0]
    return [f"{folder}/europarl-v7.es-en.en", f"{folder}/europarl-v7.es-en.es"]


def sentence_params(wildcards):
    return json.dumps(
        {
            "source": CORPUS["bilingual"],
            "clean": CORPUS["clean"],
            "normalize_punct": CORPUS["normalize_punct"],
            "jobs": CORPUS["tokenize_jobs"],
        }
    )


def monolingual_source(wildcards):
    if CORPUS["monolingual"] == "pivot":
        return "resources/corpus/phrase_table.parquet"
    return "resources/upstream/ppdb-1.0-xl-phrasal"


def monolingual_step(wildcards):
    return CORPUS["monolingual"]


def monolingual_input_arg(wildcards):
    source = monolingual_source(wildcards)
    return source if CORPUS["monolingual"] == "pivot" else f"{source}/ppdb-1.0-xl-phrasal"


def json_param(*keys):
    """The JSON of config["corpus"][key] for the CLI's --params (a function, not a lambda)."""

    def params(wildcards):
        value = CORPUS
        for key in keys:
            value = value[key]
        return json.dumps(value)

    return params


def condition_input(wildcards):
    return CONDITIONS[wildcards.condition]


def sized_params(wildcards):
    return json.dumps({"n": CORPUS["sizes"][wildcards.size], "fraction": None, "seed": CORPUS["seed"]})


def tuning_params(wildcards):
    return json.dumps({"n": CORPUS["tuning_pairs"], "fraction": None, "seed": CORPUS["seed"]})


def table_stats(wildcards):
    """The statistics file of a table whose columns read one, else nothing."""
    spec = table_spec(wildcards.paper, wildcards.table)
    if any(c.get("stat") for c in spec["columns"].values()):
        return f"results/{wildcards.paper}/stats/{wildcards.table}.json"
    return []


def table_stats_arg(wildcards):
    stats = table_stats(wildcards)
    return f"--stats {stats}" if stats else ""


def stats_conditions(wildcards):
    return [f"{name}={path}" for name, path in CONDITIONS.items()]


UNDERTRAINED_SETS = ["sts2012", "sts2013", "sts2014", "sts2015", "sick2014"]


def undertrained_sets(wildcards):
    return expand("resources/sets/{set}.parquet", set=available(UNDERTRAINED_SETS))


def undertrained_set_args(wildcards):
    return [f"{s}=resources/sets/{s}.parquet" for s in available(UNDERTRAINED_SETS)]


TRAIN = config["training"]
RUNS = TRAIN["runs"]
TUNED_RUNS = [run for run, spec in RUNS.items() if "tune_as" not in spec]


def data_path(data):
    """The training set a run's `data` names."""
    if data in CONDITIONS:
        return CONDITIONS[data]
    kind, _, name = data.partition("-")
    if kind == "sized":
        return f"resources/corpus/sized/biphr-{name}.parquet"
    return f"resources/corpus/filtered/{name}.parquet"


def grid_of(run):
    return grid_points(TRAIN["grids"][RUNS[run]["objective"]])


def run_params(run, epochs):
    spec = {k: v for k, v in RUNS[run].items() if k not in ("data", "tune_as")}
    return {
        **TRAIN["defaults"],
        **spec,
        "epochs": epochs,
        "allow_cpu_fallback": TRAIN["allow_cpu_fallback"],
    }


def tuning_set_path():
    return f"resources/sets/{TRAIN['tuning_set']['set']}.parquet"


def tune_inputs(wildcards):
    return {
        "pairs": f"resources/corpus/tuning/{RUNS[wildcards.run]['data']}.parquet",
        "tuning": tuning_set_path(),
    }


def tune_params(wildcards):
    return json.dumps(run_params(wildcards.run, TRAIN["tuning_epochs"]))


def tune_point(wildcards):
    return json.dumps(grid_of(wildcards.run)[int(wildcards.point)])


def point_records(wildcards):
    return expand(
        "results/tuning/{run}/{point}.json",
        run=wildcards.run,
        point=range(len(grid_of(wildcards.run))),
    )


def train_inputs(wildcards):
    spec = RUNS[wildcards.run]
    return {
        "pairs": data_path(spec["data"]),
        "selected": f"results/tuning/{spec.get('tune_as', wildcards.run)}.selected.json",
        "tuning": tuning_set_path(),
    }


def final_params(wildcards):
    return json.dumps(run_params(wildcards.run, TRAIN["epochs"]))


def tuning_reports(wildcards):
    return [f"{run}=results/tuning/{run}.selected.json" for run in TUNED_RUNS]


SICK_REASON = "the SICK test set is unavailable (no source in {} provides sick2014; use the mirror)"


def filtering_inputs(wildcards):
    """Table 5 needs SICK (mirror only): its bigrams filter the training sets."""
    if set_source("sick2014") is None:
        return []
    return {
        "pairs": list(CONDITIONS.values()),
        "filtered": expand("resources/corpus/filtered/{c}.parquet", c=CONDITIONS),
        "evals": expand("results/eval/{c}_jbi/sts.csv", c=CONDITIONS),
        "filtered_evals": expand("results/eval/{c}_jbi_filtered/sts.csv", c=CONDITIONS),
    }


def filtering_args(wildcards):
    if set_source("sick2014") is None:
        reason = SICK_REASON.format(", ".join(config["sources"]))
        return f"--unavailable {shlex.quote(reason)}"
    return " ".join(
        [
            "--condition", *(f"{c}={p}" for c, p in CONDITIONS.items()),
            "--filtered", *(f"{c}=resources/corpus/filtered/{c}.parquet" for c in CONDITIONS),
            "--eval", *(f"{c}=results/eval/{c}_jbi" for c in CONDITIONS),
            "--filtered-eval", *(f"{c}=results/eval/{c}_jbi_filtered" for c in CONDITIONS),
        ]
    )


COMPVEC = config["compvec"]
if set(COMPVEC["compositions"]) - set(COMPVEC["composers"]):
    raise ValueError(
        "config compvec.composers has no composer for "
        f"{sorted(set(COMPVEC['compositions']) - set(COMPVEC['composers']))}"
    )
COMPVEC_SETS = ["sts2014", "sts2015", "sick2014", "simlex999", "simverb3500", "ws353-all"]


def compvec_released_folder():
    """The fetched folder of the authors' released split, or None if no source has it."""
    for source in config["sources"]:
        if source == "mirror" and MIRROR is not None and (MIRROR / "compvec-wordnet").is_dir():
            return "resources/mirror/compvec-wordnet"
        if source == "upstream":
            return "resources/upstream/compvec-wordnet"
    return None


def compvec_split():
    """The first configured split whose data is available."""
    for split in COMPVEC["split"]:
        if split == "grouped" or compvec_released_folder() is not None:
            return split
    raise ValueError(
        f"compvec.split {COMPVEC['split']}: no source in {config['sources']} has compvec-wordnet"
    )


def compvec_data_inputs(wildcards):
    inputs = {"wordnet": "resources/wordnet/nltk_data"}
    if wildcards.split == "released":
        inputs["released"] = compvec_released_folder()
    return inputs


def compvec_released_arg(wildcards):
    if wildcards.split == "released":
        return f"--released {compvec_released_folder()}"
    return ""


def compvec_run_params(wildcards):
    composer = COMPVEC["composers"][wildcards.composition]
    run = run_config(
        wildcards.composition, composer, wildcards.variant, COMPVEC["run"], COMPVEC["margins"]
    )
    values = run.to_dict()
    for key in ("device", "threads"):
        values.pop(key)
    return json.dumps(values)


def compvec_run_dir(wildcards):
    parts = [wildcards.split, wildcards.embeddings, wildcards.composition, wildcards.variant]
    return "results/scheepers2018/runs/" + "/".join(parts)


def compvec_eval_inputs(wildcards):
    run = compvec_run_dir(wildcards)
    data = f"resources/compvec/{wildcards.split}"
    return {
        "run": [f"{run}/embeddings.parquet", f"{run}/composer.pt"],
        "data": [f"{data}/{name}.parquet" for name in ("test", "vocab", "targets")],
        "pretrained": f"resources/embeddings/{wildcards.embeddings}.parquet",
        "sets": expand("resources/sets/{set}.parquet", set=available(COMPVEC_SETS)),
    }


def compvec_set_args(wildcards):
    return [f"{s}=resources/sets/{s}.parquet" for s in available(COMPVEC_SETS)]


def compvec_unavailable(wildcards):
    return unavailable(COMPVEC_SETS)


def compvec_groups():
    """Table 1 embeddings groups that are computed: group -> catalogue embeddings."""
    columns = table_spec("scheepers2018", "table1")["columns"]
    return {group: spec["embeddings"] for group, spec in columns.items() if spec.get("embeddings")}


def compvec_scores(wildcards):
    return [
        f"results/scheepers2018/runs/{compvec_split()}/{embeddings}/{composition}/{variant}/scores.json"
        for embeddings in compvec_groups().values()
        for composition in COMPVEC["compositions"]
        for variant in ("original", "compvec")
    ]


def compvec_runs_args(wildcards):
    return [
        f"{group}=results/scheepers2018/runs/{compvec_split()}/{embeddings}"
        for group, embeddings in compvec_groups().items()
    ]


def compvec_columns_json(wildcards):
    return json.dumps(table_spec("scheepers2018", "table1")["columns"])


def compvec_method(wildcards):
    return (
        f"split {compvec_split()}, CompVecEval candidates {COMPVEC['candidates']}, "
        f"STS wmean Pearson, run settings {json.dumps(COMPVEC['run'])}"
    )


def top_table_input(wildcards):
    return f"results/{config['paper']}/{wildcards.table}.csv"


def all_targets():
    tables = [
        f"results/{paper}/{table}.csv"
        for paper, specs in config["tables"].items()
        for table in specs
    ]
    evals = expand("results/eval/{model}/sts.csv", model=config["models"])
    extras = ["results/elgohary2016/tuning.csv", "results/elgohary2016/table6.png"]
    return tables + evals + extras
