# Evaluation of a model (pretrained vectors, or a paper's run `<paper>/<run>`) on every
# configured sentence-pair and word-similarity set.


rule evaluate:
    input:
        unpack(eval_inputs),
    output:
        sts="results/eval/{model}/sts.csv",
        pairs="results/eval/{model}/pairs.parquet",
        wordsim="results/eval/{model}/wordsim.csv",
    log:
        "logs/evaluate/{model}.log",
    benchmark:
        "benchmarks/snakemake/evaluate/{model}.tsv"
    params:
        splits=eval_splits,
        unavailable=eval_unavailable,
        tokenizer=EVAL["tokenizer"],
        lowercase="--lowercase" if EVAL["lowercase"] else "--no-lowercase",
        oov=EVAL["oov"],
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp evaluate --embeddings {input.embeddings:q} --sts {input.sts:q}"
        " --wordsim {input.wordsim:q} --split {params.splits:q} --unavailable {params.unavailable:q}"
        " --tokenizer {params.tokenizer} {params.lowercase} --oov {params.oov}"
        " --out results/eval/{wildcards.model} > {log} 2>&1"
