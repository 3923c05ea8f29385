# The input and params functions of rules/train.smk and rules/points.smk: a paper's generic
# runs, their tuning grids and stacks, and every paper's grid points, tuned or scored
# (paracomp.workflow.runs).
import shlex

from paracomp.train.grid import TRAINER_INPUTS, point_folder


def tuning_args(wildcards) -> str:
    tuning = RUNS.tuning_of(wildcards.paper)
    return (
        f"--tune-subset {tuning['subset']} --tune-split {tuning['split']}"
        f" --tokenizer {EVAL['tokenizer']} {lowercase_flag()}"
    )


def option(name: str) -> str:
    """The command-line option of an input name (``init_composer`` -> ``init-composer``)."""
    return name.replace("_", "-")


def trainer_args(wildcards, input) -> str:
    """``--init``/``--constraints`` of the inputs the trainer reads, and ``--tune-set`` with
    its options where the job is scored on the paper's tuning set (a tuned run's)."""
    names = [n for n in TRAINER_INPUTS if n in input.keys()]
    args = [f"--{option(n)} {shlex.quote(str(getattr(input, n)))}" for n in names]
    if "tuning" in input.keys():
        args.append(f"--tune-set {shlex.quote(str(input.tuning))} {tuning_args(wildcards)}")
    return " ".join(args)


def point_inputs(wildcards) -> dict:
    return RUNS.point_inputs(wildcards.paper, wildcards.run)


def point_settings(wildcards) -> str:
    return RUNS.point_settings(wildcards.paper, wildcards.run)


def point_json(wildcards) -> str:
    return RUNS.point(wildcards.paper, wildcards.run, int(wildcards.point))


def point_folder_of(wildcards) -> str:
    return point_folder(wildcards.paper, wildcards.run, wildcards.point)


def point_record(wildcards) -> str:
    return RUNS.point_record(wildcards.paper, wildcards.run, int(wildcards.point))


def point_score(wildcards) -> str:
    return RUNS.point_score(wildcards.paper, wildcards.run, int(wildcards.point))


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
