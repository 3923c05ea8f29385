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
    spec = CATALOG.embeddings[wildcards.embeddings]
    for source in config["sources"]:
        if source in spec:
            return source
    raise ValueError(f"no source in {config['sources']} provides embeddings {wildcards.embeddings!r}")


def embeddings_input(wildcards):
    source = embeddings_source(wildcards)
    entry = CATALOG.embeddings[wildcards.embeddings][source]
    if source == "registry":
        return f"resources/packages/{entry['package']}"
    return f"resources/upstream/{wildcards.embeddings}"


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
    return [
        f"results/eval/{model}/{name}"
        for model in table_models(wildcards)
        for name in ("sts.csv", "pairs.parquet")
    ]


def table_eval_args(wildcards):
    return [f"{model}=results/eval/{model}" for model in table_models(wildcards)]


def table_spec_json(wildcards):
    return json.dumps(table_spec(wildcards.paper, wildcards.table))


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
