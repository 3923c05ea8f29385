# paracomp: regenerate the results tables of five papers on paraphrastic and compositional
# embeddings. Thin by design: configuration, includes and the default target; logic lives in
# the `paracomp` package (src/paracomp), which every rule calls through its CLI.
from snakemake.utils import min_version

min_version("8.20")


configfile: "config.yaml"


include: "rules/common.smk"
include: "rules/download.smk"
include: "rules/sets.smk"
include: "rules/corpus.smk"
include: "rules/train.smk"
include: "rules/evaluate.smk"
include: "rules/compvec.smk"
include: "rules/tables.smk"


rule all:
    default_target: True
    input:
        all_targets(),
