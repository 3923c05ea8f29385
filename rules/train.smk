# Training: one job per tuning grid point, the selection per run, then the final runs.
# Resources come from config `training` (threads, gpu, mem_mb, runtime), so the same rules ask
# SLURM for GPUs on a cluster and run on CPU on a laptop.


rule tune_point:
    input:
        unpack(tune_inputs),
    output:
        "results/tuning/{run}/{point}.json",
    log:
        "logs/tune_point/{run}/{point}.log",
    benchmark:
        "benchmarks/snakemake/tune_point/{run}/{point}.tsv"
    params:
        base=tune_params,
        point=tune_point,
        tuning=TRAIN["tuning_set"],
        device=TRAIN["device"],
    threads: TRAIN["threads"]
    resources:
        gpu=TRAIN["gpu"],
        mem_mb=TRAIN["mem_mb"],
        runtime=TRAIN["runtime"],
    conda:
        "../envs/training.yaml"
    shell:
        "paracomp train --pairs {input.pairs:q} --params {params.base:q} --point {params.point:q}"
        " --out results/tuning/{wildcards.run}/{wildcards.point} --record {output:q}"
        " --tune-set {input.tuning:q} --tune-subset {params.tuning[subset]}"
        " --tune-split {params.tuning[split]} --threads {threads} --device {params.device}"
        " > {log} 2>&1"


rule select_point:
    input:
        point_records,
    output:
        "results/tuning/{run}.selected.json",
    log:
        "logs/select_point/{run}.log",
    benchmark:
        "benchmarks/snakemake/select_point/{run}.tsv"
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        "../envs/training.yaml"
    shell:
        "paracomp select --records {input:q} --out {output:q} > {log} 2>&1"


rule tuning_report:
    input:
        expand("results/tuning/{run}.selected.json", run=TUNED_RUNS),
    output:
        "results/elgohary2016/tuning.csv",
    log:
        "logs/tuning_report.log",
    benchmark:
        "benchmarks/snakemake/tuning_report.tsv"
    params:
        selected=tuning_reports,
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        "../envs/training.yaml"
    shell:
        "paracomp tuning-report --selected {params.selected:q} --out {output:q} > {log} 2>&1"


rule train_model:
    input:
        unpack(train_inputs),
    output:
        embeddings="results/models/{run}/embeddings.parquet",
        curve="results/models/{run}/curve.parquet",
        plot="results/models/{run}/curve.png",
        record="results/models/{run}/record.json",
    log:
        "logs/train_model/{run}.log",
    benchmark:
        "benchmarks/snakemake/train_model/{run}.tsv"
    params:
        base=final_params,
        tuning=TRAIN["tuning_set"],
        device=TRAIN["device"],
    threads: TRAIN["threads"]
    resources:
        gpu=TRAIN["gpu"],
        mem_mb=TRAIN["mem_mb"],
        runtime=TRAIN["runtime"],
    conda:
        "../envs/training.yaml"
    shell:
        "paracomp train --pairs {input.pairs:q} --params {params.base:q}"
        " --selected {input.selected:q} --out results/models/{wildcards.run}"
        " --record {output.record:q} --tune-set {input.tuning:q}"
        " --tune-subset {params.tuning[subset]} --tune-split {params.tuning[split]}"
        " --threads {threads} --device {params.device} > {log} 2>&1"


rule filtering_stats:
    input:
        unpack(filtering_inputs),
    output:
        "results/elgohary2016/stats/table5.json",
    log:
        "logs/filtering_stats.log",
    benchmark:
        "benchmarks/snakemake/filtering_stats.tsv"
    params:
        args=filtering_args,
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        "../envs/evaluation.yaml"
    shell:
        "paracomp stats filtering --paper elgohary2016 --table table5 {params.args}"
        " --out {output:q} > {log} 2>&1"
