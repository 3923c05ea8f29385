# Scored grid points: for a paper's runs whose grid points each train on the run's full data
# and are then scored by the paper (papers register a paracomp.train.grid.ScoredGrid as
# Registration.points, rules/common.smk), one job per point trains with the generic `paracomp train` and
# runs the paper's scoring command on the trained folder: wieting2015's word and RNN points,
# wieting2017's transfer points and scheepers2018's CompVec runs (one point each). Which
# point a table or a leaderboard model takes is the paper's own selection rule. Included
# after the papers' rules, which register their grids.


rule point:
    input:
        unpack(scored_inputs),
    output:
        train="results/{paper}/points/{scored_run}/{point}/train.json",
        record="results/{paper}/points/{scored_run}/{point}/record.json",
    wildcard_constraints:
        scored_run="|".join(map(re.escape, scored_runs())) or "none",
    log:
        "logs/{paper}/points/{scored_run}/{point}.log",
    benchmark:
        "benchmarks/snakemake/{paper}/points/{scored_run}/{point}.tsv"
    params:
        trainer=scored_trainer_args,
        settings=scored_settings,
        point=scored_point,
        folder=scored_folder,
        score=scored_command,
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
        " --point {params.point:q} --out {params.folder:q} --record {output.train:q}"
        " --threads {threads} --device {params.device} && {params.score}) > {log} 2>&1"
