# Training corpora: bilingual sentences -> word alignment -> phrase table -> bilingual phrases;
# English paraphrases by pivoting (or PPDB); the derived sets of elgohary2016 Tables 5 and 6.


rule bilingual_sentences:
    input:
        sentence_sources,
    output:
        "resources/corpus/bilingual_sentences.parquet",
    log:
        "logs/corpus/bilingual_sentences.log",
    benchmark:
        "benchmarks/snakemake/corpus/bilingual_sentences.tsv"
    params:
        inputs=sentence_input_args,
        settings=sentence_params,
    threads: config["corpus"]["tokenize_jobs"]
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        "../envs/alignment.yaml"
    shell:
        "paracomp corpus sentences --input {params.inputs:q} --params {params.settings:q}"
        " --out {output:q} > {log} 2>&1"


rule word_alignment:
    input:
        rules.bilingual_sentences.output,
    output:
        "resources/corpus/alignments.parquet",
    log:
        "logs/corpus/word_alignment.log",
    benchmark:
        "benchmarks/snakemake/corpus/word_alignment.tsv"
    params:
        settings=json_param("aligner"),
    threads: 2
    resources:
        mem_mb=8000,
        runtime=600,
    conda:
        "../envs/alignment.yaml"
    shell:
        "paracomp corpus align --input {input:q} --params {params.settings:q}"
        " --out {output:q} > {log} 2>&1"


rule phrase_table:
    input:
        sentences=rules.bilingual_sentences.output,
        alignments=rules.word_alignment.output,
    output:
        "resources/corpus/phrase_table.parquet",
    log:
        "logs/corpus/phrase_table.log",
    benchmark:
        "benchmarks/snakemake/corpus/phrase_table.tsv"
    params:
        settings=json.dumps({"max_length": config["corpus"]["max_phrase_length"]}),
    threads: 2
    resources:
        mem_mb=16000,
        runtime=600,
    conda:
        "../envs/alignment.yaml"
    shell:
        "paracomp corpus phrase-table --input {input.sentences:q} {input.alignments:q}"
        " --params {params.settings:q} --out {output:q} > {log} 2>&1"


rule bilingual_phrases:
    input:
        rules.phrase_table.output,
    output:
        CONDITIONS["biphr"],
    log:
        "logs/corpus/bilingual_phrases.log",
    benchmark:
        "benchmarks/snakemake/corpus/bilingual_phrases.tsv"
    params:
        settings=json.dumps(
            {"rules": config["corpus"]["bilingual_phrases"], "seed": config["corpus"]["seed"]}
        ),
    resources:
        mem_mb=8000,
        runtime=60,
    conda:
        "../envs/alignment.yaml"
    shell:
        "paracomp corpus bilingual-phrases --input {input:q} --params {params.settings:q}"
        " --out {output:q} > {log} 2>&1"


rule monolingual_phrases:
    input:
        monolingual_source,
    output:
        CONDITIONS["mono"],
    log:
        "logs/corpus/monolingual_phrases.log",
    benchmark:
        "benchmarks/snakemake/corpus/monolingual_phrases.tsv"
    params:
        step=monolingual_step,
        source=monolingual_input_arg,
        settings=json.dumps({"rules": config["corpus"]["pivot"]}),
    resources:
        mem_mb=16000,
        runtime=120,
    conda:
        "../envs/alignment.yaml"
    shell:
        "paracomp corpus {params.step} --input {params.source:q} --params {params.settings:q}"
        " --out {output:q} > {log} 2>&1"


rule bigram_filtered:
    input:
        pairs=condition_input,
        sick="resources/sets/sick2014.parquet",
    output:
        "resources/corpus/filtered/{condition}.parquet",
    log:
        "logs/corpus/bigram_filtered/{condition}.log",
    benchmark:
        "benchmarks/snakemake/corpus/bigram_filtered/{condition}.tsv"
    resources:
        mem_mb=8000,
        runtime=60,
    conda:
        "../envs/alignment.yaml"
    shell:
        "paracomp corpus bigram-filter --input {input.pairs:q} {input.sick:q}"
        " --out {output:q} > {log} 2>&1"


rule sized_phrases:
    input:
        CONDITIONS["biphr"],
    output:
        "resources/corpus/sized/biphr-{size}.parquet",
    log:
        "logs/corpus/sized_phrases/{size}.log",
    benchmark:
        "benchmarks/snakemake/corpus/sized_phrases/{size}.tsv"
    params:
        settings=sized_params,
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../envs/alignment.yaml"
    shell:
        "paracomp corpus sample --input {input:q} --params {params.settings:q}"
        " --out {output:q} > {log} 2>&1"


rule tuning_subset:
    input:
        condition_input,
    output:
        "resources/corpus/tuning/{condition}.parquet",
    log:
        "logs/corpus/tuning_subset/{condition}.log",
    benchmark:
        "benchmarks/snakemake/corpus/tuning_subset/{condition}.tsv"
    params:
        settings=tuning_params,
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../envs/alignment.yaml"
    shell:
        "paracomp corpus sample --input {input:q} --params {params.settings:q}"
        " --out {output:q} > {log} 2>&1"


rule training_set_stats:
    input:
        list(CONDITIONS.values()),
    output:
        "results/elgohary2016/stats/table2.json",
    log:
        "logs/corpus/training_set_stats.log",
    benchmark:
        "benchmarks/snakemake/corpus/training_set_stats.tsv"
    params:
        conditions=stats_conditions,
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../envs/alignment.yaml"
    shell:
        "paracomp stats training --condition {params.conditions:q} --out {output:q} > {log} 2>&1"


rule undertrained_stats:
    input:
        conditions=list(CONDITIONS.values()),
        sets=undertrained_sets,
    output:
        "results/elgohary2016/stats/table4.json",
    log:
        "logs/corpus/undertrained_stats.log",
    benchmark:
        "benchmarks/snakemake/corpus/undertrained_stats.tsv"
    params:
        conditions=stats_conditions,
        sets=undertrained_set_args,
        tokenizer=EVAL["tokenizer"],
        lowercase="--lowercase" if EVAL["lowercase"] else "--no-lowercase",
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../envs/evaluation.yaml"
    shell:
        "paracomp stats undertrained --condition {params.conditions:q} --set {params.sets:q}"
        " --tokenizer {params.tokenizer} {params.lowercase} --out {output:q} > {log} 2>&1"
