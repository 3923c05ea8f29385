# Wieting et al. 2015: PARAGRAM word vectors from PPDB lexical pairs (one job per grid point,
# selection by 2*WS-S - WS-R or by SimLex-999), the RNN phrase model on PPDB phrase and
# bigram pairs (one job per grid point, selection on the development sets), vector-addition
# baselines, the static CNN of Table 4 and Tables 1-9 (all built here: CUSTOM_TABLES).
# Training is the generic `paracomp train` (objective paraphrase, sampler max_skip).
from paracomp.papers.wieting2015.workflow import (
    PARAGRAM,
    RNN_DATA,
    SELECTIONS,
    SST_VECTORS,
    TABLES,
    VARIANTS,
    WORD_SETS,
    Inputs as WietingInputs,
)

WIETING = block("wieting2015")
CUSTOM_TABLES["wieting2015"].update(TABLES)
WIETING_FOLDERS = {
    name: dataset_folder(name)
    for name in (
        "ppdb-phrase-train-60k",
        "ppdb-bigram-train",
        "annotated-ppdb",
        "ml2010-bigrams",
        "sst-binary",
    )
}
WIETING_FOLDERS["lexical"] = dataset_folder(WIETING["lexical"])
W15 = WietingInputs(
    WIETING,
    TRAIN["defaults"],
    WIETING_FOLDERS,
    tuple(config["sources"]),
    {s: f"resources/sets/{s}.parquet" for s in WORD_SETS},
)


wildcard_constraints:
    dim=r"\d+",
    variant="|".join(VARIANTS),
    selection="|".join(SELECTIONS),
    data="|".join(RNN_DATA),
    vectors="init|paragram|" + "|".join(SST_VECTORS),


rule wieting2015:
    input:
        table_targets("wieting2015"),


rule w2015_init:
    input:
        W15.init_embeddings,
    output:
        "resources/wieting2015/init/d{dim}.parquet",
    log:
        "logs/wieting2015/init/d{dim}.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/init/d{dim}.tsv"
    params:
        size=WIETING["init"]["size"],
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 init --embeddings {input:q} --size {params.size}"
        " --dim {wildcards.dim} --out {output:q} > {log} 2>&1"


rule w2015_lexical:
    input:
        lexicon=W15.lexical_input,
        init=W15.init,
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
        source=WIETING["lexical"],
    resources:
        mem_mb=4000,
        runtime=20,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 lexical --source {params.source} --folder {input.lexicon:q}"
        " --init {input.init:q} --wordnet {input.wordnet:q}"
        " --out resources/wieting2015/lexical > {log} 2>&1"


rule w2015_pairs:
    input:
        W15.pairs_input,
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


rule w2015_sets:
    input:
        unpack(W15.sets_inputs),
    output:
        "resources/wieting2015/phrase_sets.parquet",
    log:
        "logs/wieting2015/phrase_sets.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/phrase_sets.tsv"
    params:
        args=W15.sets_args,
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 sets {params.args} --out {output:q} > {log} 2>&1"


rule w2015_word_point:
    input:
        unpack(W15.word_inputs),
    output:
        embeddings="results/wieting2015/words/{variant}/{point}/embeddings.parquet",
        record="results/wieting2015/words/{variant}/{point}/train.json",
        scores="results/wieting2015/words/{variant}/{point}/scores.json",
    log:
        "logs/wieting2015/words/{variant}/{point}.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/words/{variant}/{point}.tsv"
    params:
        run=W15.word_params,
        point=W15.word_point,
        constraints=W15.constraints_arg,
        sets=W15.word_set_args(),
        device=TRAIN["device"],
    threads: TRAIN["threads"]
    resources:
        gpu=TRAIN["gpu"],
        mem_mb=TRAIN["mem_mb"],
        runtime=TRAIN["runtime"],
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "(paracomp train --pairs {input.pairs:q} --init {input.init:q} {params.constraints}"
        " --params {params.run:q} --point {params.point:q}"
        " --out results/wieting2015/words/{wildcards.variant}/{wildcards.point}"
        " --record {output.record:q} --threads {threads} --device {params.device}"
        " && paracomp wieting2015 word-scores --embeddings {output.embeddings:q}"
        " --set {params.sets:q} --record {output.record:q} --out {output.scores:q}) > {log} 2>&1"


rule w2015_word_select:
    input:
        W15.word_records,
    output:
        "results/wieting2015/words/{selection}.selected.json",
    log:
        "logs/wieting2015/words/{selection}.selected.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/words/{selection}.selected.tsv"
    params:
        criterion=W15.criterion,
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 select --records {input:q} --criterion {params.criterion}"
        " --out {output:q} > {log} 2>&1"


rule w2015_paragram:
    input:
        "results/wieting2015/words/paragram.selected.json",
    output:
        PARAGRAM,
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


rule w2015_rnn_point:
    input:
        pairs="resources/wieting2015/pairs/{data}.parquet",
        init=PARAGRAM,
        sets="resources/wieting2015/phrase_sets.parquet",
    output:
        embeddings="results/wieting2015/rnn/{data}/{point}/embeddings.parquet",
        train="results/wieting2015/rnn/{data}/{point}/train.json",
        scores="results/wieting2015/rnn/{data}/{point}/scores.parquet",
        record="results/wieting2015/rnn/{data}/{point}/record.json",
    log:
        "logs/wieting2015/rnn/{data}/{point}.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/rnn/{data}/{point}.tsv"
    params:
        run=W15.rnn_params,
        point=W15.rnn_point,
        ml=WIETING["ml"],
        device=TRAIN["device"],
    threads: TRAIN["threads"]
    resources:
        gpu=TRAIN["gpu"],
        mem_mb=TRAIN["mem_mb"],
        runtime=TRAIN["runtime"],
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "(paracomp train --pairs {input.pairs:q} --init {input.init:q} --params {params.run:q}"
        " --point {params.point:q} --out results/wieting2015/rnn/{wildcards.data}/{wildcards.point}"
        " --record {output.train:q} --threads {threads} --device {params.device}"
        " && paracomp wieting2015 phrase-scores --run results/wieting2015/rnn/{wildcards.data}/{wildcards.point}"
        " --sets {input.sets:q} --out {output.scores:q} --dev {wildcards.data} --ml {params.ml}"
        " --train-record {output.train:q} --record {output.record:q}) > {log} 2>&1"


rule w2015_rnn_select:
    input:
        W15.rnn_records,
    output:
        "results/wieting2015/rnn/{data}.selected.json",
    log:
        "logs/wieting2015/rnn/{data}.selected.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/rnn/{data}.selected.tsv"
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 select --records {input:q} --criterion dev --out {output:q} > {log} 2>&1"


rule w2015_add_scores:
    input:
        vectors=W15.addition_vectors,
        sets="resources/wieting2015/phrase_sets.parquet",
    output:
        "results/wieting2015/scores/{vectors}.parquet",
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


rule w2015_sst:
    input:
        vectors=W15.sst_vectors,
        sst=W15.sst_input,
    output:
        "results/wieting2015/sst/{vectors}.json",
    log:
        "logs/wieting2015/sst/{vectors}.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/sst/{vectors}.tsv"
    params:
        settings=W15.sst_params,
    threads: TRAIN["threads"]
    resources:
        mem_mb=4000,
        runtime=TRAIN["runtime"],
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 sst --vectors {input.vectors:q} --folder {input.sst:q}"
        " --settings {params.settings:q} --threads {threads} --out {output:q} > {log} 2>&1"


rule w2015_table:
    input:
        unpack(W15.table_inputs),
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
    wildcard_constraints:
        table="|".join(TABLES),
    log:
        "logs/wieting2015/tables/{table}.log",
    benchmark:
        "benchmarks/snakemake/wieting2015/tables/{table}.tsv"
    params:
        args=W15.table_args,
        spec=W15.table_spec,
        setting=W15.setting,
    localrule: True
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2015 table {wildcards.table} {params.args} --spec {params.spec:q}"
        " --setting {params.setting:q} --out {output.table:q} > {log} 2>&1"
