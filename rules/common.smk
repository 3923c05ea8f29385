# Configuration validation, source selection and input functions (no rules here).
import json
import re

from snakemake.utils import validate

from paracomp.data.catalog import choose_source, load as load_catalog, mirror_dir


validate(config, schema="../workflow/schemas/config.schema.yaml")

CATALOG = load_catalog()
MIRROR = mirror_dir(config["mirror"])
EVAL = config["evaluation"]
PAPERS = ["elgohary2016", "wieting2015", "wieting2017", "scheepers2018", "chen2020"]


wildcard_constraints:
    paper="|".join(PAPERS),
    table=r"table\d+",
    set="|".join(map(re.escape, CATALOG.sets)),
    model="|".join(map(re.escape, config["models"])) or "(?!)",
    dataset="|".join(map(re.escape, CATALOG.datasets)),
    package="|".join(map(re.escape, CATALOG.packages)),
    embeddings="|".join(map(re.escape, CATALOG.embeddings)),
    condition="bisent|biphr|mono",
    size="|".join(map(re.escape, config["corpus"]["sizes"])),


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


def eval_inputs(wildcards):
    return {
        "embeddings": f"resources/embeddings/{config['models'][wildcards.model]['embeddings']}.parquet",
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


def top_table_input(wildcards):
    return f"results/{config['paper']}/{wildcards.table}.csv"


def all_targets():
    tables = [
        f"results/{paper}/{table}.csv"
        for paper, specs in config["tables"].items()
        for table in specs
    ]
    evals = expand("results/eval/{model}/sts.csv", model=config["models"])
    return tables + evals
