# Scheepers et al. 2018 Table 1: the lemma-definition split, its initial word rows, one
# CompVec run per (embeddings, composition, Original|CompVec) cell pair (registered as scored
# grid points of one point each: a job of the generic rule `point` trains it with `paracomp
# train`, objective `targets`, and evaluates it), the table (built here: a custom table); each
# run a leaderboard model (registered once every paper has registered: its groups depend on
# embeddings other papers build).
from paracomp.papers.scheepers2018.workflow import (
    MEASURE_SETS as SCHEEPERS2018_MEASURE_SETS,
    Inputs as Scheepers2018Inputs,
)

SCHEEPERS2018 = block("scheepers2018")
SCHEEPERS2018_IN = Scheepers2018Inputs(
    SCHEEPERS2018,
    TRAIN["defaults"],
    dataset_folder("compvec-wordnet"),
    set_args(SCHEEPERS2018_MEASURE_SETS),
    unavailable(SCHEEPERS2018_MEASURE_SETS),
    embeddings_missing,
    RUNS.seed_folders("scheepers2018"),
)
SCHEEPERS2018_EMBEDDINGS = SCHEEPERS2018_IN.embeddings_pattern()
"""The embeddings Table 1's groups name: catalogue entries or embeddings a paper's rules build."""

register(
    Registration(
        "scheepers2018",
        points=SCHEEPERS2018_IN,
        custom_tables=frozenset({"table1"}),
        replicate_tables=frozenset({"table1"}),
        leaderboard=SCHEEPERS2018_IN.leaderboard,
    )
)


wildcard_constraints:
    split="released|grouped",


rule scheepers2018:
    input:
        table_targets("scheepers2018"),


rule scheepers2018_data:
    input:
        unpack(SCHEEPERS2018_IN.data_inputs),
    output:
        train="resources/compvec/{split}/train.parquet",
        test="resources/compvec/{split}/test.parquet",
        vocab="resources/compvec/{split}/vocab.parquet",
        targets="resources/compvec/{split}/targets.parquet",
        sizes="resources/compvec/{split}/sizes.json",
    log:
        "logs/scheepers2018/compvec_data/{split}.log",
    benchmark:
        "benchmarks/snakemake/scheepers2018/compvec_data/{split}.tsv"
    params:
        released=SCHEEPERS2018_IN.released_arg,
        seed=lookup(dpath="papers/scheepers2018/split_seed", within=config),
        fraction=lookup(dpath="papers/scheepers2018/test_fraction", within=config),
    resources:
        mem_mb=4000,
        runtime=20,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp scheepers2018 data {wildcards.split} --wordnet {input.wordnet:q}"
        " {params.released} --seed {params.seed} --test-fraction {params.fraction}"
        " --out resources/compvec/{wildcards.split} > {log} 2>&1"


rule scheepers2018_init:
    input:
        vocab="resources/compvec/{split}/vocab.parquet",
        embeddings="resources/embeddings/{embeddings}.parquet",
    output:
        "resources/compvec/{split}/init/{embeddings}.parquet",
    wildcard_constraints:
        embeddings=SCHEEPERS2018_EMBEDDINGS,
    log:
        "logs/scheepers2018/compvec_init/{split}/{embeddings}.log",
    benchmark:
        "benchmarks/snakemake/scheepers2018/compvec_init/{split}/{embeddings}.tsv"
    params:
        seed=lookup(dpath="papers/scheepers2018/init_seed", within=config),
    resources:
        mem_mb=8000,
        runtime=20,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp initial-rows --vocab {input.vocab:q} --embeddings {input.embeddings:q}"
        " --seed {params.seed} --out {output:q} > {log} 2>&1"


rule scheepers2018_table1:
    input:
        SCHEEPERS2018_IN.records,
    output:
        table=report(
            "results/scheepers2018/table1.csv",
            category="scheepers2018",
            subcategory="table1",
            labels={"file": "table"},
            caption="../../workflow/report/table.rst",
        ),
        compare=report(
            "results/scheepers2018/table1.compare.csv",
            category="scheepers2018",
            subcategory="table1",
            labels={"file": "compare (ours, paper, delta)"},
            caption="../../workflow/report/compare.rst",
        ),
        markdown="results/scheepers2018/table1.md",
        candidates="results/scheepers2018/table1.candidates.csv",
        replicates="results/scheepers2018/table1.replicates.parquet",
    log:
        "logs/scheepers2018/compvec_table.log",
    benchmark:
        "benchmarks/snakemake/scheepers2018/compvec_table.tsv"
    params:
        columns=SCHEEPERS2018_IN.columns_json,
        runs=SCHEEPERS2018_IN.runs_args,
        compositions=lookup(dpath="papers/scheepers2018/compositions", within=config),
        method=SCHEEPERS2018_IN.method,
        seeds=SCHEEPERS2018_IN.seed_args,
    localrule: True
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp scheepers2018 table --columns {params.columns:q} --runs {params.runs:q}"
        " --compositions {params.compositions:q} --method {params.method:q} {params.seeds}"
        " --out {output.table:q} > {log} 2>&1"
