# The input and params functions of rules/train.smk and rules/points.smk: a paper's generic
# runs, their tuning grids and stacks, and the scored grid points a paper registers
# (paracomp.workflow.runs).
import json
import shlex

from paracomp.train.grid import TRAINER_INPUTS, point_folder


def run_init(wildcards) -> dict:
    return RUNS.init(wildcards.paper, wildcards.run)


def tune_inputs(wildcards) -> dict:
    return RUNS.tune_inputs(wildcards.paper, wildcards.run)


def tune_params(wildcards) -> str:
    return RUNS.tune_params(wildcards.paper, wildcards.run)


def tuning_point_json(wildcards) -> str:
    return RUNS.tuning_point(wildcards.paper, wildcards.run, int(wildcards.point))


def tuning_args(wildcards) -> str:
    tuning = RUNS.tuning_of(wildcards.paper)
    return (
        f"--tune-subset {tuning['subset']} --tune-split {tuning['split']}"
        f" --tokenizer {EVAL['tokenizer']} {lowercase_flag()}"
    )


def tuning_records(wildcards) -> list[str]:
    return RUNS.tuning_records(wildcards.paper, wildcards.run)


def stack_points(wildcards) -> str:
    return RUNS.stack_points(wildcards.paper, wildcards.run, int(wildcards.stack))


def stack_records_of_point(wildcards) -> str:
    return RUNS.stack_records_of_point(wildcards.paper, wildcards.run, int(wildcards.point))


def train_inputs(wildcards) -> dict:
    return RUNS.train_inputs(wildcards.paper, wildcards.run)


def final_params(wildcards) -> str:
    return RUNS.final_params(wildcards.paper, wildcards.run)


def tuning_reports(wildcards) -> list[str]:
    return RUNS.tuning_reports(wildcards.paper)


def tuning_report_inputs(wildcards) -> list[str]:
    return [path.split("=", 1)[1] for path in tuning_reports(wildcards)]


scored_runs = RUNS.scored_runs


def scored_inputs(wildcards) -> dict:
    return RUNS.scored_grid(wildcards.paper).point_inputs(wildcards.scored_run)


def scored_settings(wildcards) -> str:
    return json.dumps(RUNS.scored_grid(wildcards.paper).point_settings(wildcards.scored_run))


def scored_point(wildcards) -> str:
    return RUNS.scored_point(wildcards.paper, wildcards.scored_run, int(wildcards.point))


def scored_folder(wildcards) -> str:
    return point_folder(wildcards.paper, wildcards.scored_run, wildcards.point)


def scored_trainer_args(wildcards, input) -> str:
    """``--init``/``--constraints`` of the inputs the trainer reads."""
    names = [n for n in TRAINER_INPUTS if n in input.keys()]
    return " ".join(f"--{n} {shlex.quote(str(getattr(input, n)))}" for n in names)


def scored_command(wildcards) -> str:
    return RUNS.scored_command(wildcards.paper, wildcards.scored_run, int(wildcards.point))
