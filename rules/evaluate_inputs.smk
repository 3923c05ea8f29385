# The input and params functions of rules/evaluate.smk and of the leaderboard: the models the
# generic evaluator scores and the files each is read from (paracomp.workflow.models).

evaluated_models = MODELS.evaluated


def model_source_args(wildcards) -> str:
    return MODELS.source_args(wildcards.model)


def eval_inputs(wildcards) -> dict:
    return {
        **MODELS.source_files(wildcards.model),
        "sts": tokenised_set_paths(EVAL["sts_sets"]),
        "wordsim": set_paths(EVAL["wordsim_sets"]),
    }


def eval_unavailable(wildcards) -> list[str]:
    return unavailable(EVAL["sts_sets"]) + unavailable(EVAL["wordsim_sets"])


def eval_splits(wildcards) -> list[str]:
    return [f"{s}={split}" for s, split in EVAL["splits"].items()]


def leaderboard_inputs(wildcards) -> list[str]:
    return MODELS.leaderboard_inputs()


def leaderboard_spec(wildcards) -> str:
    return MODELS.leaderboard_spec()
