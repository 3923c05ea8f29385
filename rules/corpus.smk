# Training corpora: bilingual sentences -> word alignment -> phrase table -> bilingual phrases;
# English paraphrases by pivoting (or PPDB); English-English Bible verse pairs.


rule english_bible_pairs:
    input:
        kjv="resources/packages/sword-text-kjv",
        web="resources/packages/sword-text-web",
    output:
        ENGLISH_BIBLE,
    log:
        "logs/corpus/english_bible_pairs.log",
    benchmark:
        "benchmarks/snakemake/corpus/english_bible_pairs.tsv"
    params:
        settings=json.dumps(
            {"max_tokens": CORPUS["clean"]["max_tokens"], "jobs": CORPUS["tokenize_jobs"]}
        ),
    threads: CORPUS["tokenize_jobs"]
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp corpus english-bible --input {input.kjv:q} {input.web:q}"
        " --params {params.settings:q} --out {output:q} > {log} 2>&1"

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
    threads: CORPUS["tokenize_jobs"]
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        "../envs/paracomp.yaml"
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
        settings=json.dumps(CORPUS["aligner"]),
    threads: 2
    resources:
        mem_mb=8000,
        runtime=600,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp corpus align --input {input:q} --params {params.settings:q}"
        " --out {output:q} > {log} 2>&1"


# The phrase table as scatter-gather jobs (paracomp.phrases.shards): a vocabulary, one job per
# shard of sentence pairs, the word links summed, one merge per English partition, one scoring
# job per foreign partition, and the gather. corpus.sharding sets the numbers of jobs.


rule phrase_vocab:
    input:
        rules.bilingual_sentences.output,
    output:
        temp(f"{PHRASES}/vocab.parquet"),
    log:
        "logs/corpus/phrase_vocab.log",
    benchmark:
        "benchmarks/snakemake/corpus/phrase_vocab.tsv"
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp corpus phrase-vocab --input {input:q} --out {output:q} > {log} 2>&1"


rule phrase_shard:
    input:
        sentences=rules.bilingual_sentences.output,
        alignments=rules.word_alignment.output,
        vocab=rules.phrase_vocab.output,
    output:
        pairs=temp(f"{PHRASES}/shards/{{shard}}.pairs.parquet"),
        words=temp(f"{PHRASES}/shards/{{shard}}.words.parquet"),
    log:
        "logs/corpus/phrase_shard/{shard}.log",
    benchmark:
        "benchmarks/snakemake/corpus/phrase_shard/{shard}.tsv"
    params:
        settings=shard_params,
    threads: 2
    resources:
        mem_mb=4000,
        runtime=120,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp corpus phrase-shard --input {input.sentences:q} {input.alignments:q}"
        " {input.vocab:q} --params {params.settings:q} --out {output.pairs:q} {output.words:q}"
        " > {log} 2>&1"


rule phrase_words:
    input:
        shard_files("words"),
    output:
        temp(f"{PHRASES}/words.parquet"),
    log:
        "logs/corpus/phrase_words.log",
    benchmark:
        "benchmarks/snakemake/corpus/phrase_words.tsv"
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp corpus phrase-words --input {input:q} --out {output:q} > {log} 2>&1"


rule phrase_merge:
    input:
        shard_files("pairs"),
    output:
        temp(f"{PHRASES}/merged/{{partition}}.parquet"),
    log:
        "logs/corpus/phrase_merge/{partition}.log",
    benchmark:
        "benchmarks/snakemake/corpus/phrase_merge/{partition}.tsv"
    params:
        settings=merge_params,
    resources:
        mem_mb=4000,
        runtime=120,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp corpus phrase-merge --input {input:q} --params {params.settings:q}"
        " --out {output:q} > {log} 2>&1"


rule phrase_score:
    input:
        vocab=rules.phrase_vocab.output,
        words=rules.phrase_words.output,
        merged=partition_files("merged"),
    output:
        temp(f"{PHRASES}/scored/{{partition}}.parquet"),
    log:
        "logs/corpus/phrase_score/{partition}.log",
    benchmark:
        "benchmarks/snakemake/corpus/phrase_score/{partition}.tsv"
    params:
        settings=partition_params,
    threads: 2
    resources:
        mem_mb=4000,
        runtime=120,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp corpus phrase-score --input {input.vocab:q} {input.words:q} {input.merged:q}"
        " --params {params.settings:q} --out {output:q} > {log} 2>&1"


rule phrase_table:
    input:
        sentences=rules.bilingual_sentences.output,
        alignments=rules.word_alignment.output,
        scored=partition_files("scored"),
    output:
        "resources/corpus/phrase_table.parquet",
    log:
        "logs/corpus/phrase_table.log",
    benchmark:
        "benchmarks/snakemake/corpus/phrase_table.tsv"
    params:
        settings=json.dumps({"max_length": CORPUS["max_phrase_length"]}),
    resources:
        mem_mb=4000,
        runtime=120,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp corpus phrase-gather --input {input.sentences:q} {input.alignments:q}"
        " {input.scored:q} --params {params.settings:q} --out {output:q} > {log} 2>&1"


rule bilingual_phrases:
    input:
        rules.phrase_table.output,
    output:
        CORPUS_SETS["biphr"],
    log:
        "logs/corpus/bilingual_phrases.log",
    benchmark:
        "benchmarks/snakemake/corpus/bilingual_phrases.tsv"
    params:
        settings=json.dumps(
            {"rules": CORPUS["bilingual_phrases"], "seed": CORPUS["seed"]}
        ),
    resources:
        mem_mb=8000,
        runtime=60,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp corpus bilingual-phrases --input {input:q} --params {params.settings:q}"
        " --out {output:q} > {log} 2>&1"


# Pivoting as scatter-gather jobs (paracomp.paraphrase.sharded_pivot): the phrase table split
# by foreign phrase, one join per foreign partition, one sum per e1 partition, the gather.


rule pivot_split:
    input:
        rules.phrase_table.output,
    output:
        temp(f"{PHRASES}/pivot/split.parquet"),
    log:
        "logs/corpus/pivot_split.log",
    benchmark:
        "benchmarks/snakemake/corpus/pivot_split.tsv"
    params:
        settings=pivot_split_params,
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp corpus pivot-split --input {input:q} --params {params.settings:q}"
        " --out {output:q} > {log} 2>&1"


rule pivot_join:
    input:
        rules.pivot_split.output,
    output:
        temp(f"{PHRASES}/pivot/joined/{{partition}}.parquet"),
    log:
        "logs/corpus/pivot_join/{partition}.log",
    benchmark:
        "benchmarks/snakemake/corpus/pivot_join/{partition}.tsv"
    params:
        settings=pivot_join_params,
    resources:
        mem_mb=4000,
        runtime=120,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp corpus pivot-join --input {input:q} --params {params.settings:q}"
        " --out {output:q} > {log} 2>&1"


rule pivot_sum:
    input:
        partition_files("pivot/joined", PIVOT_PARTITIONS),
    output:
        temp(f"{PHRASES}/pivot/best/{{partition}}.parquet"),
    log:
        "logs/corpus/pivot_sum/{partition}.log",
    benchmark:
        "benchmarks/snakemake/corpus/pivot_sum/{partition}.tsv"
    params:
        settings=pivot_sum_params,
    resources:
        mem_mb=4000,
        runtime=120,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp corpus pivot-sum --input {input:q} --params {params.settings:q}"
        " --out {output:q} > {log} 2>&1"


rule monolingual_phrases:
    input:
        monolingual_sources,
    output:
        CORPUS_SETS["mono"],
    log:
        "logs/corpus/monolingual_phrases.log",
    benchmark:
        "benchmarks/snakemake/corpus/monolingual_phrases.tsv"
    params:
        step=monolingual_step,
        sources=monolingual_input_args,
        settings=monolingual_params,
    resources:
        mem_mb=4000,
        runtime=120,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp corpus {params.step} --input {params.sources:q} --params {params.settings:q}"
        " --out {output:q} > {log} 2>&1"
