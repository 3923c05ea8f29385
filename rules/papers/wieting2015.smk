# Wieting et al. 2015: PARAGRAM word vectors from PPDB lexical pairs (grid points registered as
# scored points, each a job of the generic rule `point`; selection by 2*WS-S - WS-R or by
# SimLex-999), the RNN phrase model on PPDB phrase and bigram pairs (the same; selection on
# the development sets), vector-addition baselines, the static CNN of Table 4 and Tables 1-9
# (all built here: custom tables); the PARAGRAM vectors and the RNNs as leaderboard models
# (all registered once: Registration, rules/common.smk).
# Training is the generic `paracomp train` (objective paraphrase, sampler max_skip).
from paracomp.papers.wieting2015.workflow import (
    PARAGRAM as WIETING2015_PARAGRAM,
    PARAGRAM_FULL as WIETING2015_PARAGRAM_FULL,
    PHRASE_SETS as WIETING2015_PHRASE_SETS,
    RNN_DATA as WIETING2015_RNN_DATA,
    SELECTIONS as WIETING2015_SELECTIONS,
    SST_VECTORS as WIETING2015_SST_VECTORS,
    TABLES as WIETING2015_TABLES,
    WORD_SETS as WIETING2015_WORD_SETS,
    Inputs as Wieting2015Inputs,
)

WIETING2015 = block("wieting2015")
WIETING2015_FOLDERS = {
    name: dataset_folder(name)
    for name in (
        "ppdb-phrase-train-60k",
        "ppdb-bigram-train",
        "annotated-ppdb",
        "ml2010-bigrams",
        "sst-binary",
    )
}
WIETING2015_FOLDERS["lexical"] = dataset_folder(WIETING2015["lexical"])
WIETING2015_IN = Wieting2015Inputs(
    WIETING2015,
    TRAIN["defaults"],
    WIETING2015_FOLDERS,
    tuple(config["sources"]),
    {s: f"resources/sets/{s}.parquet" for s in WIETING2015_WORD_SETS},
    RUNS.seed_folders("wieting2015"),
)

register(
    Registration(
        "wieting2015",
        points=WIETING2015_IN,
        leaderboard=WIETING2015_IN.leaderboard(),
        custom_tables=frozenset(WIETING2015_TABLES),
        replicate_tables=frozenset(WIETING2015_TABLES),
    )
)


wildcard_constraints:
    dim=r"\d+",
    selection=f"({'|'.join(WIETING2015_SELECTIONS)})(_seed\\d+)?",
    data="|".join(WIETING2015_RNN_DATA),


rule wieting2015:
    input:
        table_targets("wieting2015"),


rule wieting2015_init:
    input:
        WIETING2015_IN.init_embeddings,
    output:
        "resources/wieting2015/init/d{dim}.parquet",
    log:
        "logs/wieting2015/init/d{dim}.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/init/d{dim}.tsv"
    params:
        size=WIETING2015["init"]["size"],
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 init --embeddings {input:q} --size {params.size}"
        " --dim {wildcards.dim} --out {output:q} > {log} 2>&1"


rule wieting2015_lexical:
    input:
        lexicon=WIETING2015_IN.lexical_input,
        init=WIETING2015_IN.init,
        wordnet="resources/wordnet/nltk_data",
    output:
        pairs="resources/wieting2015/lexical/pairs.parquet",
        constraints="resources/wieting2015/lexical/constraints.parquet",
        counts="resources/wieting2015/lexical/counts.json",
    log:
        "logs/wieting2015/lexical.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/lexical.tsv"
    params:
        source=WIETING2015["lexical"],
    resources:
        mem_mb=4000,
        runtime=20,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 lexical --source {params.source} --folder {input.lexicon:q}"
        " --init {input.init:q} --wordnet {input.wordnet:q}"
        " --out resources/wieting2015/lexical > {log} 2>&1"


rule wieting2015_pairs:
    input:
        WIETING2015_IN.pairs_input,
    output:
        pairs="resources/wieting2015/pairs/{data}.parquet",
        counts="resources/wieting2015/pairs/{data}.json",
    log:
        "logs/wieting2015/pairs/{data}.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/pairs/{data}.tsv"
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 pairs {wildcards.data} --folder {input:q}"
        " --out {output.pairs:q} --counts {output.counts:q} > {log} 2>&1"


rule wieting2015_sets:
    input:
        unpack(WIETING2015_IN.sets_inputs),
    output:
        WIETING2015_PHRASE_SETS,
    log:
        "logs/wieting2015/phrase_sets.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/phrase_sets.tsv"
    params:
        args=WIETING2015_IN.sets_args,
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 sets {params.args} --out {output:q} > {log} 2>&1"


rule wieting2015_word_select:
    input:
        WIETING2015_IN.word_records,
    output:
        "results/wieting2015/words/{selection}.selected.json",
    log:
        "logs/wieting2015/words/{selection}.selected.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/words/{selection}.selected.tsv"
    params:
        criterion=WIETING2015_IN.criterion,
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 select --records {input:q} --criterion {params.criterion}"
        " --out {output:q} > {log} 2>&1"


rule wieting2015_paragram:
    input:
        "results/wieting2015/words/paragram.selected.json",
    output:
        WIETING2015_PARAGRAM,
    log:
        "logs/wieting2015/paragram.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/paragram.tsv"
    resources:
        mem_mb=2000,
        runtime=5,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 paragram --selected {input:q} --out {output:q} > {log} 2>&1"


rule wieting2015_paragram_seed:
    input:
        "results/wieting2015/words/paragram_seed{seed}.selected.json",
    output:
        "results/wieting2015/words/paragram_seed{seed}.parquet",
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/wieting2015/paragram_seed{seed}.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/paragram_seed{seed}.tsv"
    resources:
        mem_mb=2000,
        runtime=5,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 paragram --selected {input:q} --out {output:q} > {log} 2>&1"


rule wieting2015_paragram_full:
    input:
        paragram=WIETING2015_PARAGRAM,
        source=WIETING2015_IN.init_embeddings,
    output:
        WIETING2015_PARAGRAM_FULL,
    log:
        "logs/wieting2015/paragram_full.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/paragram_full.tsv"
    params:
        size=WIETING2015["init"]["size"],
        dim=WIETING2015["init"]["dim"],
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 widen --paragram {input.paragram:q} --source {input.source:q}"
        " --size {params.size} --dim {params.dim} --out {output:q} > {log} 2>&1"


rule wieting2015_rnn_select:
    input:
        records=WIETING2015_IN.rnn_records,
    output:
        selected="results/wieting2015/rnn/{rnn}.selected.json",
        composer="results/wieting2015/rnn/{rnn}.selected/composer.pt",
        embeddings="results/wieting2015/rnn/{rnn}.selected/embeddings.parquet",
    wildcard_constraints:
        rnn=f"({'|'.join(WIETING2015_RNN_DATA)})(_seed\\d+)?",
    log:
        "logs/wieting2015/rnn/{rnn}.selected.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/rnn/{rnn}.selected.tsv"
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 select --records {input.records:q} --criterion dev"
        " --out {output.selected:q} --run-out results/wieting2015/rnn/{wildcards.rnn}.selected"
        " > {log} 2>&1"


rule wieting2015_add_scores:
    input:
        vectors=WIETING2015_IN.addition_vectors,
        sets=WIETING2015_PHRASE_SETS,
    output:
        "results/wieting2015/scores/{vectors}.parquet",
    wildcard_constraints:
        vectors=r"init|paragram(_seed\d+)?",
    log:
        "logs/wieting2015/scores/{vectors}.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/scores/{vectors}.tsv"
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 phrase-scores --embeddings {input.vectors:q} --sets {input.sets:q}"
        " --out {output:q} > {log} 2>&1"


rule wieting2015_sst:
    input:
        vectors=WIETING2015_IN.sst_vectors,
        sst=WIETING2015_IN.sst_input,
    output:
        "results/wieting2015/sst/{vectors}.json",
    wildcard_constraints:
        vectors=f"({'|'.join(WIETING2015_SST_VECTORS)})(_seed\\d+)?",
    log:
        "logs/wieting2015/sst/{vectors}.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/sst/{vectors}.tsv"
    params:
        settings=WIETING2015_IN.sst_params,
    threads: TRAIN["threads"]
    resources:
        mem_mb=4000,
        runtime=TRAIN["runtime"],
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 sst --vectors {input.vectors:q} --folder {input.sst:q}"
        " --settings {params.settings:q} --threads {threads} --out {output:q} > {log} 2>&1"


rule wieting2015_tables:
    input:
        unpack(WIETING2015_IN.table_inputs),
    output:
        table=report(
            "results/wieting2015/{table}.csv",
            category="wieting2015",
            subcategory="{table}",
            labels={"file": "table"},
            caption="../../workflow/report/table.rst",
        ),
        compare=report(
            "results/wieting2015/{table}.compare.csv",
            category="wieting2015",
            subcategory="{table}",
            labels={"file": "compare (ours, paper, delta)"},
            caption="../../workflow/report/compare.rst",
        ),
        markdown="results/wieting2015/{table}.md",
        replicates="results/wieting2015/{table}.replicates.parquet",
    wildcard_constraints:
        table="|".join(WIETING2015_TABLES),
    log:
        "logs/wieting2015/tables/{table}.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/tables/{table}.tsv"
    params:
        args=WIETING2015_IN.table_args,
        spec=WIETING2015_IN.table_spec,
        setting=WIETING2015_IN.setting,
    localrule: True
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 table {wildcards.table} {params.args} --spec {params.spec:q}"
        " --setting {params.setting:q} --out {output.table:q} > {log} 2>&1"
