# Evaluation of a model on every configured sentence-pair and word-similarity set: pretrained
# vectors (rows averaged), a paper's run `<paper>/<run>` (through its own composer) or a model a
# paper registered (Registration.leaderboard, rules/common.smk); the sentence-pair sets tokenised
# once (rule tokenise_set) for every model. Included after the papers' rules files.


rule evaluate:
    input:
        unpack(eval_inputs),
    output:
        sts="results/eval/{model}/sts.csv",
        pairs="results/eval/{model}/pairs.parquet",
        wordsim="results/eval/{model}/wordsim.csv",
        encoder="results/eval/{model}/encoder.json",
    wildcard_constraints:
        model="|".join(map(re.escape, evaluated_models())),
    log:
        "logs/evaluate/{model}.log",
    benchmark:
        "benchmarks/snakemake/evaluate/{model}.tsv"
    params:
        model=model_source_args,
        splits=eval_splits,
        unavailable=eval_unavailable,
        tokenizer=EVAL["tokenizer"],
        lowercase=lowercase_flag(),
        oov=EVAL["oov"],
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../envs/paracomp.yaml"
    shell:
        "paracomp evaluate {params.model} --sts {input.sts:q}"
        " --wordsim {input.wordsim:q} --split {params.splits:q} --unavailable {params.unavailable:q}"
        " --tokenizer {params.tokenizer} {params.lowercase} --oov {params.oov}"
        " --out results/eval/{wildcards.model} > {log} 2>&1"
