# Results tables in each paper's layout, with compare files and markdown renderings: one rule
# per paper (`<paper>_table`) for the tables its config block fills from model evaluations
# (`model` columns) or statistics files (`stat` columns); tables a paper's rules file builds
# itself are its registered custom tables (Registration.custom_tables, rules/common.smk). Included after the papers' rules files.
# Then each paper's findings (its claims, src/paracomp/papers/<paper>/findings.yaml, checked on
# the printed numbers and on ours), its overview (every table against print, and the
# findings) and the named target `findings`; the leaderboard (every model of config `models`,
# every paper's runs and the models papers registered, on the evaluator's sets)
# and its named target `leaderboard`.


for _paper in BLOCKS:
    check_generic_tables(
        _paper,
        {t: table_spec(_paper, t) for t in generic_tables(_paper)},
        {*runs_of(_paper), *config["models"]},
    )
    if not generic_tables(_paper):
        continue

    rule:
        name:
            f"{_paper}_table"
        input:
            table_inputs,
        output:
            table=report(
                "results/{paper}/{table}.csv",
                category="{paper}",
                subcategory="{table}",
                labels={"file": "table"},
                caption="../workflow/report/table.rst",
            ),
            compare=report(
                "results/{paper}/{table}.compare.csv",
                category="{paper}",
                subcategory="{table}",
                labels={"file": "compare (ours, paper, delta)"},
                caption="../workflow/report/compare.rst",
            ),
            markdown="results/{paper}/{table}.md",
            replicates="results/{paper}/{table}.replicates.parquet",
        wildcard_constraints:
            paper=_paper,
            table="|".join(generic_tables(_paper)),
        log:
            "logs/tables/{paper}/{table}.log",
        benchmark:
            "benchmarks/snakemake/tables/{paper}/{table}.tsv"
        params:
            spec=table_spec_json,
            evals=table_eval_args,
            stats=table_stats_arg,
            replicates=table_replicate_args,
        localrule: True
        resources:
            mem_mb=2000,
            runtime=5,
        conda:
            "../envs/paracomp.yaml"
        shell:
            "paracomp table {wildcards.paper} {wildcards.table} --spec {params.spec:q}"
            " --eval {params.evals:q} {params.stats} {params.replicates}"
            " --out {output.table:q} > {log} 2>&1"


rule top_table:
    input:
        top_table_input,
    output:
        "results/{table}.csv",
    log:
        "logs/top_table/{table}.log",
    benchmark:
        "benchmarks/snakemake/top_table/{table}.tsv"
    localrule: True
    resources:
        mem_mb=100,
        runtime=1,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "cp {input:q} {output:q} 2> {log}"


rule paper_findings:
    input:
        unpack(findings_inputs),
    output:
        table=report(
            "results/{paper}/findings.csv",
            category="{paper}",
            subcategory="findings",
            labels={"file": "findings"},
            caption="../workflow/report/findings.rst",
        ),
        markdown="results/{paper}/findings.md",
    wildcard_constraints:
        paper="|".join(FINDINGS),
    log:
        "logs/findings/{paper}.log",
    benchmark:
        "benchmarks/snakemake/findings/{paper}.tsv"
    params:
        compare=findings_compare_args,
        replicates=findings_replicates_args,
    localrule: True
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp findings --claims {input.claims:q} --compare {params.compare:q}"
        " {params.replicates}"
        " --title {wildcards.paper} --out {output.table:q} --markdown {output.markdown:q}"
        " > {log} 2>&1"


rule paper_overview:
    input:
        unpack(overview_inputs),
    output:
        table=report(
            "results/{paper}/overview.csv",
            category="{paper}",
            subcategory="overview",
            labels={"file": "overview"},
            caption="../workflow/report/overview.rst",
        ),
        markdown="results/{paper}/overview.md",
        page=report(
            "results/{paper}/overview.html",
            category="{paper}",
            subcategory="overview",
            labels={"file": "overview page"},
            caption="../workflow/report/overview.rst",
        ),
    wildcard_constraints:
        paper="|".join(FINDINGS),
    log:
        "logs/overview/{paper}.log",
    benchmark:
        "benchmarks/snakemake/overview/{paper}.tsv"
    params:
        compare=overview_compare_args,
        replicates=overview_replicates_args,
    localrule: True
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp overview {wildcards.paper} --compare {params.compare:q}"
        " {params.replicates} --findings {input.findings:q} --out {output.table:q} --markdown {output.markdown:q}"
        " --html {output.page:q} > {log} 2>&1"


rule findings:
    input:
        [f"results/{paper}/{name}.csv" for paper in FINDINGS for name in ("findings", "overview")],


rule leaderboard_table:
    input:
        leaderboard_inputs,
    output:
        table=report(
            "results/leaderboard.csv",
            category="leaderboard",
            labels={"file": "table"},
            caption="../workflow/report/leaderboard.rst",
        ),
        markdown=report(
            "results/leaderboard.md",
            category="leaderboard",
            labels={"file": "markdown"},
            caption="../workflow/report/leaderboard.rst",
        ),
        plot=report(
            "results/leaderboard.png",
            category="leaderboard",
            labels={"file": "plot"},
            caption="../workflow/report/leaderboard.rst",
        ),
    log:
        "logs/leaderboard.log",
    benchmark:
        "benchmarks/snakemake/leaderboard.tsv"
    params:
        models=leaderboard_spec,
        sts=EVAL["sts_sets"],
        wordsim=EVAL["wordsim_sets"],
    localrule: True
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp leaderboard --models {params.models:q} --sts-sets {params.sts:q}"
        " --wordsim-sets {params.wordsim:q} --out {output.table:q}"
        " --markdown {output.markdown:q} --plot {output.plot:q} > {log} 2>&1"


rule leaderboard:
    input:
        "results/leaderboard.csv",
