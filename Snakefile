# paracomp: regenerate the results tables of five papers on paraphrastic and compositional
# embeddings. Thin by design: configuration, includes and the default target; logic lives in
# the `paracomp` package (src/paracomp), which every rule calls through its CLI. Generic stages
# are in rules/ (the input functions of rules/<stage>.smk in rules/<stage>_inputs.smk, which call
# paracomp.workflow), each paper's rules in rules/papers/<paper>.smk (one per paracomp.papers.PAPERS),
# included before the scored grid points, the evaluation and the tables, which read what the
# papers registered.
from snakemake.utils import min_version

from paracomp.papers import PAPERS

min_version("8.20")


configfile: "config.yaml"


include: "rules/common.smk"
include: "rules/corpus_inputs.smk"
include: "rules/train_inputs.smk"
include: "rules/evaluate_inputs.smk"
include: "rules/tables_inputs.smk"
include: "rules/download.smk"
include: "rules/sets.smk"
include: "rules/corpus.smk"
include: "rules/train.smk"


for paper in PAPERS:

    include: f"rules/papers/{paper}.smk"


include: "rules/points.smk"
include: "rules/evaluate.smk"
include: "rules/tables.smk"


rule all:
    default_target: True
    input:
        all_targets(),
