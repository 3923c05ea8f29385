# Elgohary & Carpuat 2016: the derived training sets (Table 5's SICK-bigram filter, Table 6's
# sizes, the tuning subsets), the statistics of Tables 2, 4 and 5 and the Table 6 plot.
# Tables 2-6 themselves come from the generic table rule (rules/tables.smk), training from
# rules/train.smk with the data registered here.

from paracomp.papers.elgohary2016.workflow import (
    UNDERTRAINED_SETS as ELGOHARY2016_UNDERTRAINED_SETS,
    Inputs as Elgohary2016Inputs,
)

ELGOHARY2016 = block("elgohary2016")
ELGOHARY2016_IN = Elgohary2016Inputs(
    ELGOHARY2016, CORPUS_SETS, CORPUS["seed"], "".join(unavailable(["sick2014"]))
)
register(
    Registration(
        "elgohary2016",
        run_data=ELGOHARY2016_IN.data,
        tuning_data=ELGOHARY2016_IN.tuning_data,
        extras=["results/elgohary2016/tuning.csv", "results/elgohary2016/table6.png"],
    )
)


wildcard_constraints:
    condition="|".join(CORPUS_SETS),
    size="|".join(map(re.escape, ELGOHARY2016["sizes"])),


rule elgohary2016:
    input:
        table_targets("elgohary2016"),


rule elgohary2016_bigram_filtered:
    input:
        pairs=ELGOHARY2016_IN.condition,
        sick="resources/sets/sick2014.parquet",
    output:
        "resources/corpus/filtered/{condition}.parquet",
    log:
        "logs/corpus/bigram_filtered/{condition}.log",
    benchmark:
        "benchmarks/snakemake/corpus/bigram_filtered/{condition}.tsv"
    resources:
        mem_mb=8000,
        runtime=60,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp corpus bigram-filter --input {input.pairs:q} {input.sick:q}"
        " --out {output:q} > {log} 2>&1"


rule elgohary2016_sized_phrases:
    input:
        CORPUS_SETS["biphr"],
    output:
        "resources/corpus/sized/biphr-{size}.parquet",
    log:
        "logs/corpus/sized_phrases/{size}.log",
    benchmark:
        "benchmarks/snakemake/corpus/sized_phrases/{size}.tsv"
    params:
        settings=ELGOHARY2016_IN.sized_params,
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp corpus sample --input {input:q} --params {params.settings:q}"
        " --out {output:q} > {log} 2>&1"


rule elgohary2016_tuning_subset:
    input:
        ELGOHARY2016_IN.condition,
    output:
        "resources/corpus/tuning/{condition}.parquet",
    log:
        "logs/corpus/tuning_subset/{condition}.log",
    benchmark:
        "benchmarks/snakemake/corpus/tuning_subset/{condition}.tsv"
    params:
        settings=ELGOHARY2016_IN.tuning_params(),
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp corpus sample --input {input:q} --params {params.settings:q}"
        " --out {output:q} > {log} 2>&1"


rule elgohary2016_training_set_stats:
    input:
        list(CORPUS_SETS.values()),
    output:
        "results/elgohary2016/stats/table2.json",
    log:
        "logs/elgohary2016/training_set_stats.log",
    benchmark:
        "benchmarks/snakemake/elgohary2016/training_set_stats.tsv"
    params:
        conditions=ELGOHARY2016_IN.condition_args(),
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp elgohary2016 stats training --condition {params.conditions:q}"
        " --out {output:q} > {log} 2>&1"


rule elgohary2016_undertrained_stats:
    input:
        conditions=list(CORPUS_SETS.values()),
        sets=set_paths(list(ELGOHARY2016_UNDERTRAINED_SETS)),
    output:
        "results/elgohary2016/stats/table4.json",
    log:
        "logs/elgohary2016/undertrained_stats.log",
    benchmark:
        "benchmarks/snakemake/elgohary2016/undertrained_stats.tsv"
    params:
        conditions=ELGOHARY2016_IN.condition_args(),
        sets=set_args(list(ELGOHARY2016_UNDERTRAINED_SETS)),
        tokenizer=EVAL["tokenizer"],
        lowercase=lowercase_flag(),
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp elgohary2016 stats undertrained --condition {params.conditions:q}"
        " --set {params.sets:q} --tokenizer {params.tokenizer} {params.lowercase}"
        " --out {output:q} > {log} 2>&1"


rule elgohary2016_filtering_stats:
    input:
        unpack(ELGOHARY2016_IN.filtering_inputs),
    output:
        "results/elgohary2016/stats/table5.json",
    log:
        "logs/elgohary2016/filtering_stats.log",
    benchmark:
        "benchmarks/snakemake/elgohary2016/filtering_stats.tsv"
    params:
        args=ELGOHARY2016_IN.filtering_args,
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp elgohary2016 stats filtering --table table5 {params.args}"
        " --out {output:q} > {log} 2>&1"


rule elgohary2016_table6_plot:
    input:
        "results/elgohary2016/table6.compare.csv",
    output:
        report(
            "results/elgohary2016/table6.png",
            category="elgohary2016",
            subcategory="table6",
            labels={"file": "plot"},
            caption="../../workflow/report/table6.rst",
        ),
    log:
        "logs/elgohary2016/table6_plot.log",
    benchmark:
        "benchmarks/snakemake/elgohary2016/table6_plot.tsv"
    localrule: True
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp elgohary2016 plot --compare {input:q} --out {output:q} > {log} 2>&1"
