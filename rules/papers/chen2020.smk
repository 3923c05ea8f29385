# Chen & Gimpel 2020: the training corpus (papers.chen2020.corpus: by default the shared KJV-WEB
# Bible pairs of rules/corpus.smk, english_bible_pairs; ParaNMT upstream in
# config/published.yaml), its training and tuning subsets, the runs (generic rules/points.smk and
# rules/train.smk: point, select_point, train_model), the sentences and scores of every model and
# baseline, and Tables 1-8 (all built here: registered as custom tables).
from paracomp.papers.chen2020.workflow import (
    INIT as CHEN2020_INIT,
    PARANMT_PAIRS as CHEN2020_PARANMT_PAIRS,
    SCORES as CHEN2020_SCORES,
    SENTENCES as CHEN2020_SENTENCES,
    SPECIFICITY_DATA as CHEN2020_SPECIFICITY_DATA,
    TRAIN as CHEN2020_TRAIN,
    TUNING as CHEN2020_TUNING,
    Inputs as Chen2020Inputs,
    list_runs as chen2020_list_runs,
    run_folder as chen2020_run_folder,
)

CHEN2020 = block("chen2020")
CHEN2020_IN = Chen2020Inputs(
    CHEN2020,
    {name: dataset_folder(name) for name in CHEN2020_SPECIFICITY_DATA},
    {
        name: f"no configured source ({', '.join(config['sources'])}) provides dataset {name}"
        for name in CHEN2020_SPECIFICITY_DATA
    },
    (set_paths(["stsbenchmark"]) or [None])[0],
    dataset_folder("paranmt-5m"),
    EVAL["tokenizer"],
    EVAL["lowercase"],
    CHEN2020["init"] and embeddings_missing(CHEN2020["init"]["embeddings"]),
    REPLICATES.get("chen2020", {}),
)
if CHEN2020_IN.init() and "chen2020" in STACKING:
    raise ValueError(
        "papers.chen2020.init: paracomp train-stack (training.stack_grid) takes no initial"
        " rows; set init: null or leave chen2020 out of stack_grid"
    )
if "chen2020" in STACKING and any(r.get("keep_best") for r in CHEN2020["runs"].values()):
    raise ValueError(
        "papers.chen2020.runs: keep_best trains point by point (a stack keeps each point's last"
        " weights); set keep_best: false or leave chen2020 out of training.stack_grid"
    )
register(
    Registration(
        "chen2020",
        run_data=CHEN2020_IN.data,
        tuning_data=CHEN2020_IN.tuning_data,
        run_init=CHEN2020_IN.run_init,
        custom_tables=frozenset(CHEN2020["tables"]),
        replicate_tables=frozenset(t for t in CHEN2020["tables"] if t not in ("table5", "table6")),
        extras=["results/chen2020/tuning.csv"] if "runs" in CHEN2020 else [],
    )
)


wildcard_constraints:
    scorer="|".join(CHEN2020_IN.models()),
    layout="vectors|operators",
    score_table="table1|table2|table3|table4|table7|table8",


rule chen2020:
    input:
        table_targets("chen2020"),


rule chen2020_paranmt_pairs:
    input:
        CHEN2020_IN.paranmt_input,
    output:
        CHEN2020_PARANMT_PAIRS,
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
        CHEN2020_IN.corpus(),
    output:
        train=CHEN2020_TRAIN,
        tuning=CHEN2020_TUNING,
    log:
        "logs/chen2020/subsets.log",
    benchmark:
        "benchmarks/snakemake/chen2020/subsets.tsv"
    params:
        settings=CHEN2020_IN.subset_params,
    resources:
        mem_mb=8000,
        runtime=20,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp chen2020 subsets --input {input:q} --params {params.settings:q}"
        " --out {output.train:q} --tuning {output.tuning:q} > {log} 2>&1"


rule chen2020_init:
    input:
        unpack(CHEN2020_IN.init_inputs),
    output:
        CHEN2020_INIT,
    log:
        "logs/chen2020/init/{layout}.log",
    benchmark:
        "benchmarks/snakemake/chen2020/init/{layout}.tsv"
    params:
        args=CHEN2020_IN.init_args,
    resources:
        mem_mb=4000,
        runtime=20,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp chen2020 init --embeddings {input.embeddings:q} --pairs {input.pairs:q}"
        " --sentences {input.sentences:q} {params.args} --layout {wildcards.layout}"
        " --out {output:q} > {log} 2>&1"


rule chen2020_sentences:
    input:
        unpack(CHEN2020_IN.sentence_inputs),
    output:
        table=CHEN2020_SENTENCES,
        sources=CHEN2020_SENTENCES.replace(".parquet", ".json"),
    log:
        "logs/chen2020/sentences.log",
    benchmark:
        "benchmarks/snakemake/chen2020/sentences.tsv"
    params:
        args=CHEN2020_IN.sentence_args,
        news_train=CHEN2020["news_train"],
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
        unpack(CHEN2020_IN.score_inputs),
    output:
        scores=f"{CHEN2020_SCORES}/{{scorer}}.parquet",
        meta=f"{CHEN2020_SCORES}/{{scorer}}.json",
    log:
        "logs/chen2020/scores/{scorer}.log",
    benchmark:
        "benchmarks/snakemake/chen2020/scores/{scorer}.tsv"
    params:
        args=CHEN2020_IN.score_args,
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
        CHEN2020_IN.table_inputs,
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
        replicates="results/chen2020/{score_table}.replicates.parquet",
    log:
        "logs/chen2020/tables/{score_table}.log",
    benchmark:
        "benchmarks/snakemake/chen2020/tables/{score_table}.tsv"
    params:
        sentences=CHEN2020_SENTENCES,
        scores=CHEN2020_IN.table_scores,
        setting=CHEN2020_IN.setting_json,
        seeds=CHEN2020_IN.table_seed_args,
    localrule: True
    resources:
        mem_mb=2000,
        runtime=5,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp chen2020 table {wildcards.score_table} --sentences {params.sentences:q}"
        " --scores {params.scores:q} --setting {params.setting:q}{params.seeds}"
        " --out {output.table:q} > {log} 2>&1"


rule chen2020_word_lists:
    input:
        run=CHEN2020_IN.run_inputs("wlo"),
        pairs=CHEN2020_TRAIN,
    output:
        table="results/chen2020/table5.csv",
        compare="results/chen2020/table5.compare.csv",
        markdown="results/chen2020/table5.md",
    log:
        "logs/chen2020/tables/table5.log",
    benchmark:
        "benchmarks/snakemake/chen2020/tables/table5.tsv"
    params:
        settings=CHEN2020_IN.word_list_params,
        corpus=CHEN2020_IN.corpus_note(),
        run=chen2020_run_folder,
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
        wordavg=CHEN2020_IN.run_inputs("wordavg"),
        wlo=CHEN2020_IN.run_inputs("wlo"),
        pairs=CHEN2020_TRAIN,
    output:
        table="results/chen2020/table6.csv",
        compare="results/chen2020/table6.compare.csv",
        markdown="results/chen2020/table6.md",
    log:
        "logs/chen2020/tables/table6.log",
    benchmark:
        "benchmarks/snakemake/chen2020/tables/table6.tsv"
    params:
        settings=CHEN2020_IN.sentence_list_params,
        corpus=CHEN2020_IN.corpus_note(),
        runs=chen2020_list_runs,
    resources:
        mem_mb=4000,
        runtime=20,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp chen2020 sentence-lists --runs {params.runs:q} --pairs {input.pairs:q}"
        " --params {params.settings:q} --corpus {params.corpus:q}"
        " --out {output.table:q} > {log} 2>&1"
