# Grid points, every paper's through one rule family (paracomp.workflow.runs): a job of `point`
# trains one grid point with the generic `paracomp train`, then scores it (in the same process,
# `--then`). A tuned run's points
# (`papers.<paper>`: tuning, grids, runs) train on the paper's tuning data and are scored on its
# tuning set by the trainer itself, and `select_point` (rules/train.smk) picks the one its final
# run trains with. A scored run's points (papers register a paracomp.train.grid.ScoredGrid as
# Registration.points: wieting2015's word and RNN points, wieting2017's transfer points,
# scheepers2018's CompVec runs) train on the run's full data and are scored by the paper's
# command, and the paper's own rules pick among them. With `training.stack_grid`, a tuned run's
# points that can train side by side do so in one `point_stack` job (paracomp.train.stacks),
# whose records `stacked_point` hands on. Resources come from config `training` (threads, gpu,
# mem_mb, runtime), so the same rules ask SLURM for GPUs on a cluster and run on CPU on a
# laptop. Included after the papers' rules, which register their scored runs.


rule point:
    input:
        unpack(point_inputs),
    output:
        "results/{paper}/points/{run}/{point}/record.json",
    wildcard_constraints:
        run="|".join(map(re.escape, RUNS.point_runs())) or "none",
    log:
        "logs/point/{paper}/{run}/{point}.log",
    benchmark:
        "benchmarks/snakemake/point/{paper}/{run}/{point}.tsv"
    params:
        trainer=trainer_args,
        settings=point_settings,
        point=point_json,
        folder=point_folder_of,
        record=point_record,
        score=point_score,
        device=TRAIN["device"],
    threads: TRAIN["threads"]
    resources:
        gpu=TRAIN["gpu"],
        mem_mb=TRAIN["mem_mb"],
        runtime=TRAIN["runtime"],
    conda:
        "../envs/paracomp.yaml"
    shell:
        "(paracomp train --pairs {input.pairs:q} {params.trainer} --params {params.settings:q}"
        " --point {params.point:q} --out {params.folder:q} --record {params.record:q}"
        " --threads {threads} --device {params.device} {params.score}) > {log} 2>&1"


if STACKING:
    STACKED_RUNS = "|".join(re.escape(r) for p in STACKING for r in RUNS.tuned_runs(p)) or "none"

    ruleorder: stacked_point > point

    rule point_stack:
        input:
            unpack(point_inputs),
        output:
            directory("results/{paper}/points/{run}/stack{stack}/records"),
        wildcard_constraints:
            paper="|".join(STACKING),
            run=STACKED_RUNS,
        log:
            "logs/point_stack/{paper}/{run}/stack{stack}.log",
        benchmark:
            "benchmarks/snakemake/point_stack/{paper}/{run}/stack{stack}.tsv"
        params:
            trainer=trainer_args,
            settings=point_settings,
            points=stack_points,
            device=TRAIN["device"],
        threads: TRAIN["threads"]
        resources:
            gpu=TRAIN["gpu"],
            mem_mb=TRAIN["mem_mb"],
            runtime=TRAIN["runtime"],
        conda:
            "../envs/paracomp.yaml"
        shell:
            "paracomp train-stack --pairs {input.pairs:q} {params.trainer}"
            " --params {params.settings:q} --points {params.points:q}"
            " --runs results/{wildcards.paper}/points/{wildcards.run}"
            " --out results/{wildcards.paper}/points/{wildcards.run}/stack{wildcards.stack}"
            " --records {output:q} --threads {threads} --device {params.device} > {log} 2>&1"

    rule stacked_point:
        input:
            stack_records_of_point,
        output:
            "results/{paper}/points/{run}/{point}/record.json",
        wildcard_constraints:
            paper="|".join(STACKING),
            run=STACKED_RUNS,
        log:
            "logs/stacked_point/{paper}/{run}/{point}.log",
        benchmark:
            "benchmarks/snakemake/stacked_point/{paper}/{run}/{point}.tsv"
        localrule: True
        conda:
            "../envs/paracomp.yaml"
        shell:
            "cp {input:q}/{wildcards.point}.json {output:q} 2> {log}"
