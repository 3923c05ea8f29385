# Chen & Gimpel 2020: the training corpus (papers.chen2020.corpus: by default the shared KJV-WEB
# Bible pairs of rules/corpus.smk, english_bible_pairs; ParaNMT upstream in
# config/published.yaml), its training and tuning subsets, the runs (generic rules/train.smk:
# tune_point, select_point, train_model), the sentences and scores of every model and
# baseline, and Tables 1-8 (all built here: CUSTOM_TABLES).
from paracomp.papers.chen2020.workflow import (
    PARANMT_PAIRS,
    SCORES as CHEN_SCORES,
    SENTENCES as CHEN_SENTENCES,
    SPECIFICITY_DATA,
    TRAIN as CHEN_TRAIN,
    TUNING as CHEN_TUNING,
    Inputs as ChenInputs,
    list_runs as chen_list_runs,
    run_folder as chen_run_folder,
)

CHEN = block("chen2020")
CUSTOM_TABLES["chen2020"].update(CHEN["tables"])
C = ChenInputs(
    CHEN,
    {name: dataset_folder(name) for name in SPECIFICITY_DATA},
    {
        name: f"no configured source ({', '.join(config['sources'])}) provides dataset {name}"
        for name in SPECIFICITY_DATA
    },
    (set_paths(["stsbenchmark"]) or [None])[0],
    dataset_folder("paranmt-5m"),
    EVAL["tokenizer"],
    EVAL["lowercase"],
)
RUN_DATA["chen2020"] = C.data
TUNING_DATA["chen2020"] = C.tuning_data
if "runs" in CHEN:
    PAPER_EXTRAS["chen2020"].append("results/chen2020/tuning.csv")


wildcard_constraints:
    scorer="|".join(C.models()),
    score_table="table1|table2|table3|table4|table7|table8",


rule chen2020:
    input:
        table_targets("chen2020"),


rule chen2020_paranmt_pairs:
    input:
        C.paranmt_input,
    output:
        PARANMT_PAIRS,
    log:
        "logs/chen2020/paranmt_pairs.log",
    benchmark:
        "benchmarks/snakemake/chen2020/paranmt_pairs.tsv"
    resources:
        mem_mb=16000,
        runtime=60,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp chen2020 paranmt-pairs --input {input:q} --out {output:q} > {log} 2>&1"


rule chen2020_subsets:
    input:
        C.corpus(),
    output:
        train=CHEN_TRAIN,
        tuning=CHEN_TUNING,
    log:
        "logs/chen2020/subsets.log",
    benchmark:
        "benchmarks/snakemake/chen2020/subsets.tsv"
    params:
        settings=C.subset_params,
    resources:
        mem_mb=8000,
        runtime=20,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp chen2020 subsets --input {input:q} --params {params.settings:q}"
        " --out {output.train:q} --tuning {output.tuning:q} > {log} 2>&1"


rule chen2020_sentences:
    input:
        unpack(C.sentence_inputs),
    output:
        table=CHEN_SENTENCES,
        sources=CHEN_SENTENCES.replace(".parquet", ".json"),
    log:
        "logs/chen2020/sentences.log",
    benchmark:
        "benchmarks/snakemake/chen2020/sentences.tsv"
    params:
        args=C.sentence_args,
        news_train=CHEN["news_train"],
    resources:
        mem_mb=4000,
        runtime=20,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp chen2020 sentences {params.args} --news-train {params.news_train}"
        " --out {output.table:q} > {log} 2>&1"


rule chen2020_scores:
    input:
        unpack(C.score_inputs),
    output:
        scores=f"{CHEN_SCORES}/{{scorer}}.parquet",
        meta=f"{CHEN_SCORES}/{{scorer}}.json",
    log:
        "logs/chen2020/scores/{scorer}.log",
    benchmark:
        "benchmarks/snakemake/chen2020/scores/{scorer}.tsv"
    params:
        args=C.score_args,
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp chen2020 scores {params.args} --sentences {input.sentences:q}"
        " --threads {threads} --out {output.scores:q} > {log} 2>&1"


rule chen2020_score_table:
    input:
        C.table_inputs,
    output:
        table=report(
            "results/chen2020/{score_table}.csv",
            category="chen2020",
            subcategory="{score_table}",
            labels={"file": "table"},
            caption="../../workflow/report/table.rst",
        ),
        compare=report(
            "results/chen2020/{score_table}.compare.csv",
            category="chen2020",
            subcategory="{score_table}",
            labels={"file": "compare (ours, paper, delta)"},
            caption="../../workflow/report/compare.rst",
        ),
        markdown="results/chen2020/{score_table}.md",
    log:
        "logs/chen2020/tables/{score_table}.log",
    benchmark:
        "benchmarks/snakemake/chen2020/tables/{score_table}.tsv"
    params:
        sentences=CHEN_SENTENCES,
        scores=C.table_scores,
        setting=C.setting_json,
    localrule: True
    resources:
        mem_mb=2000,
        runtime=5,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp chen2020 table {wildcards.score_table} --sentences {params.sentences:q}"
        " --scores {params.scores:q} --setting {params.setting:q}"
        " --out {output.table:q} > {log} 2>&1"


rule chen2020_word_lists:
    input:
        run=C.run_inputs("wlo"),
        pairs=CHEN_TRAIN,
    output:
        table="results/chen2020/table5.csv",
        compare="results/chen2020/table5.compare.csv",
        markdown="results/chen2020/table5.md",
    log:
        "logs/chen2020/tables/table5.log",
    benchmark:
        "benchmarks/snakemake/chen2020/tables/table5.tsv"
    params:
        settings=C.word_list_params,
        corpus=C.corpus_note(),
        run=chen_run_folder,
    localrule: True
    resources:
        mem_mb=2000,
        runtime=5,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp chen2020 word-lists --run {params.run:q} --pairs {input.pairs:q}"
        " --params {params.settings:q} --corpus {params.corpus:q}"
        " --out {output.table:q} > {log} 2>&1"


rule chen2020_sentence_lists:
    input:
        wordavg=C.run_inputs("wordavg"),
        wlo=C.run_inputs("wlo"),
        pairs=CHEN_TRAIN,
    output:
        table="results/chen2020/table6.csv",
        compare="results/chen2020/table6.compare.csv",
        markdown="results/chen2020/table6.md",
    log:
        "logs/chen2020/tables/table6.log",
    benchmark:
        "benchmarks/snakemake/chen2020/tables/table6.tsv"
    params:
        settings=C.sentence_list_params,
        corpus=C.corpus_note(),
        runs=chen_list_runs,
    resources:
        mem_mb=4000,
        runtime=20,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp chen2020 sentence-lists --runs {params.runs:q} --pairs {input.pairs:q}"
        " --params {params.settings:q} --corpus {params.corpus:q}"
        " --out {output.table:q} > {log} 2>&1"
