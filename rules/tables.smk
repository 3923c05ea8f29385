# Results tables in each paper's layout, with compare files and markdown renderings.


localrules:
    paper_table,
    top_table,
    table6_plot,


rule paper_table:
    input:
        table_inputs,
    output:
        table="results/{paper}/{table}.csv",
        compare="results/{paper}/{table}.compare.csv",
        markdown="results/{paper}/{table}.md",
    log:
        "logs/paper_table/{paper}/{table}.log",
    benchmark:
        "benchmarks/snakemake/paper_table/{paper}/{table}.tsv"
    params:
        spec=table_spec_json,
        evals=table_eval_args,
        stats=table_stats_arg,
    resources:
        mem_mb=2000,
        runtime=5,
    conda:
        "../envs/evaluation.yaml"
    shell:
        "paracomp table {wildcards.paper} {wildcards.table} --spec {params.spec:q}"
        " --eval {params.evals:q} {params.stats} --out {output.table:q} > {log} 2>&1"


rule top_table:
    input:
        top_table_input,
    output:
        "results/{table}.csv",
    log:
        "logs/top_table/{table}.log",
    benchmark:
        "benchmarks/snakemake/top_table/{table}.tsv"
    resources:
        mem_mb=100,
        runtime=1,
    conda:
        "../envs/evaluation.yaml"
    shell:
        "cp {input:q} {output:q} 2> {log}"


rule table6_plot:
    input:
        "results/elgohary2016/table6.compare.csv",
    output:
        "results/elgohary2016/table6.png",
    log:
        "logs/table6_plot.log",
    benchmark:
        "benchmarks/snakemake/table6_plot.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        "../envs/evaluation.yaml"
    shell:
        "paracomp plot --compare {input:q} --out {output:q} > {log} 2>&1"
