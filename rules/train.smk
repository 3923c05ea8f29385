# Training of any paper with a tuning grid (`papers.<paper>`: tuning, epochs, grids, runs): the
# selection per run among its grid points' records (each point a job of the rule family of
# rules/points.smk), the final runs and the tuning report.
# Resources come from config `training` (threads, gpu, mem_mb, runtime), so the same rules ask
# SLURM for GPUs on a cluster and run on CPU on a laptop. A paper's rules file registers the
# artefacts its runs' `data` names and their initial word rows (Registration.run_data,
# .tuning_data and .run_init, rules/common.smk).


rule select_point:
    input:
        tuning_records,
    output:
        "results/{paper}/tuning/{run}.selected.json",
    log:
        "logs/select_point/{paper}/{run}.log",
    benchmark:
        "benchmarks/snakemake/select_point/{paper}/{run}.tsv"
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp select --records {input:q} --out {output:q} > {log} 2>&1"


rule tuning_report:
    input:
        tuning_report_inputs,
    output:
        report(
            "results/{paper}/tuning.csv",
            category="{paper}",
            subcategory="tuning",
            caption="../workflow/report/tuning.rst",
        ),
    log:
        "logs/tuning_report/{paper}.log",
    benchmark:
        "benchmarks/snakemake/tuning_report/{paper}.tsv"
    params:
        selected=tuning_reports,
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp tuning-report --selected {params.selected:q} --out {output:q} > {log} 2>&1"


rule train_model:
    input:
        unpack(train_inputs),
    output:
        embeddings="results/{paper}/runs/{run}/embeddings.parquet",
        composer="results/{paper}/runs/{run}/composer.pt",
        curve="results/{paper}/runs/{run}/curve.parquet",
        plot=report(
            "results/{paper}/runs/{run}/curve.png",
            category="{paper}",
            subcategory="training curves",
            labels={"run": "{run}"},
            caption="../workflow/report/curve.rst",
        ),
        record="results/{paper}/runs/{run}/record.json",
    log:
        "logs/train_model/{paper}/{run}.log",
    benchmark:
        "benchmarks/snakemake/train_model/{paper}/{run}.tsv"
    params:
        base=final_params,
        trainer=trainer_args,
        device=TRAIN["device"],
    threads: TRAIN["threads"]
    resources:
        gpu=TRAIN["gpu"],
        mem_mb=TRAIN["mem_mb"],
        runtime=TRAIN["runtime"],
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp train --pairs {input.pairs:q} --params {params.base:q}"
        " --selected {input.selected:q} --out results/{wildcards.paper}/runs/{wildcards.run}"
        " --record {output.record:q} {params.trainer} --threads {threads}"
        " --device {params.device} > {log} 2>&1"
