# The input and params functions of rules/tables.smk: the papers' generic tables, their
# findings and overviews (paracomp.workflow.paper_tables).
from paracomp.registry import check_generic_tables

FINDINGS = TABLES.claims
"""Each paper's claims (paracomp.tables.claims), read once."""
runs_of = RUNS.runs_of
table_spec = TABLES.spec
generic_tables = TABLES.generic


def table_inputs(wildcards) -> list[str]:
    return TABLES.inputs(wildcards.paper, wildcards.table)


def table_eval_args(wildcards) -> list[str]:
    return TABLES.eval_args(wildcards.paper, wildcards.table)


def table_spec_json(wildcards) -> str:
    return TABLES.spec_json(wildcards.paper, wildcards.table)


def table_replicate_args(wildcards) -> str:
    return TABLES.replicate_args(wildcards.paper, wildcards.table)


def table_stats_arg(wildcards) -> str:
    stats = TABLES.stats(wildcards.paper, wildcards.table)
    return f"--stats {stats[0]}" if stats else ""


def top_table_input(wildcards) -> str:
    return f"results/{config['paper']}/{wildcards.table}.csv"


def findings_inputs(wildcards) -> dict[str, object]:
    """A paper's claims file and the compare (and replicates) files of the tables its claims
    read."""
    tables = TABLES.claimed(wildcards.paper)
    return {
        "claims": str(resource(wildcards.paper, "findings.yaml")),
        "compare": list(TABLES.compare_files(wildcards.paper, tables).values()),
        "replicates": list(TABLES.replicates_files(wildcards.paper, tables).values()),
    }


def findings_compare_args(wildcards) -> list[str]:
    return TABLES.findings_compare_args(wildcards.paper)


def findings_replicates_args(wildcards) -> str:
    return TABLES.findings_replicates_args(wildcards.paper)


def overview_inputs(wildcards) -> dict[str, object]:
    """Every table's compare file of a paper (and its replicates, if any), and its findings."""
    tables = block(wildcards.paper)["tables"]
    return {
        "compare": list(TABLES.compare_files(wildcards.paper, tables).values()),
        "replicates": list(TABLES.replicates_files(wildcards.paper, tables).values()),
        "findings": f"results/{wildcards.paper}/findings.csv",
    }


def overview_compare_args(wildcards) -> list[str]:
    return TABLES.overview_compare_args(wildcards.paper)


def overview_replicates_args(wildcards) -> str:
    return TABLES.overview_replicates_args(wildcards.paper)
