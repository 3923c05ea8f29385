# Configuration validation, the sources of the data, the papers' registrations and what the
# rules files share (no rules here): the objects of paracomp.workflow that the input functions
# of rules/*_inputs.smk call. Each paper's rules file registers its part of the generic rules
# once (REGISTRATIONS, a typed paracomp.registration.Registration). Nothing here imports torch.
import re
from pathlib import Path

from snakemake.logging import logger
from snakemake.utils import validate

from paracomp.data.checksums import OVERRIDE_ENV as CHECKSUM_OVERRIDE_ENV
from paracomp.data.checksums import active as checksum_override
from paracomp.data.catalog import describe_sources, load as load_catalog, mirror_dir
from paracomp.atomic import unwritable as unwritable_folders
from paracomp.errors import WriteError
from paracomp.papers import PAPERS
from paracomp.registration import Registration, Registrations, built_embeddings
from paracomp.registry import check_paper, paper_settings, resource, schema_path
from paracomp.settings import CONFIG_SCHEMA
from paracomp.settings import checked as checked_settings
from paracomp.settings import coerce as coerce_settings
from paracomp.tables.claims import read_claims
from paracomp.run_config import schema as run_schema
from paracomp.run_config import validate as check_run_settings
from paracomp.train.replicates import expand_blocks
from paracomp.workflow.models import Models
from paracomp.workflow.paper_tables import PaperTables
from paracomp.workflow.runs import Runs
from paracomp.workflow.sources import Sources


# --config's nested values arrive as strings: each coerced to its schema's type, then checked
# (one line naming the key), then validated by Snakemake, which fills in the defaults
config.update(checked_settings(config, CONFIG_SCHEMA, "config"))
validate(config, schema=CONFIG_SCHEMA)
check_paper(config["paper"])
for _paper in config["papers"]:
    check_paper(_paper)
# each paper's settings from its home (src/paracomp/papers/<paper>/), a user's block on top
config["papers"] = {
    _paper: checked_settings(
        paper_settings(_paper, config["settings"], config["papers"].get(_paper)),
        schema_path(_paper),
        f"papers.{_paper}",
    )
    for _paper in PAPERS
}
for _paper, _block in config["papers"].items():
    validate(_block, schema=schema_path(_paper))



onstart:
    # before Snakemake removes a job's old outputs (it fails with its own traceback in a
    # read-only folder): every folder the planned jobs write in must be writable
    _blocked = unwritable_folders(f for job in workflow.dag.needrun_jobs() for f in job.output)
    if _blocked:
        raise WriteError(
            f"{_blocked[0]}: not writable, and the planned jobs write there"
            + (f" (and in {len(_blocked) - 1} more folders)" if len(_blocked) > 1 else "")
            + "; make it writable or run in another --directory"
        )


CATALOG = load_catalog(PAPERS)
MIRROR = mirror_dir(config["mirror"])
EVAL = config["evaluation"]
TRAIN = config["training"]
TRAIN["defaults"] = coerce_settings(TRAIN["defaults"], run_schema())
BLOCKS = config["papers"]
REPLICATES = expand_blocks(BLOCKS, TRAIN)
"""paper -> run -> seed -> its replicate run (``replicates``, paracomp.train.replicates); the
replicate runs are in BLOCKS' runs, trained by the generic rules."""


def stackable(paper: str) -> bool:
    """Whether a paper's tuning grids can train in stacks: `paracomp train-stack` takes no
    initial rows (the paper's `init`) and keeps each point's last weights (no `keep_best`)."""
    runs = [TRAIN["defaults"], *BLOCKS[paper].get("runs", {}).values()]
    return not BLOCKS[paper].get("init") and not any(r.get("keep_best") for r in runs)


STACKING = (
    [p for p in PAPERS if stackable(p)]
    if TRAIN["stack_grid"] is True
    else [check_paper(p) for p in TRAIN["stack_grid"] or []]
)
"""The papers whose tuning grids train in stacks (training.stack_grid: true, every paper that
can; a list names them, and a paper that cannot refuses in its rules file)."""


def block(paper: str) -> dict:
    """A paper's config block."""
    return BLOCKS[paper]


CHECKSUM_OVERRIDE = checksum_override()
if workflow.is_main_process and CHECKSUM_OVERRIDE is not None:
    logger.warning(
        f"checksum override in force (${CHECKSUM_OVERRIDE_ENV}): {CHECKSUM_OVERRIDE.path} "
        f"replaces the catalogue's sha256 of {len(CHECKSUM_OVERRIDE.sha256)} files"
    )
if workflow.is_main_process:  # once per run: which source each evaluation set comes from
    for _line in describe_sources(
        sorted({*EVAL["sts_sets"], *EVAL["wordsim_sets"]}), config["sources"], MIRROR, CATALOG
    ):
        logger.info(f"evaluation set {_line}")


# -- Sources and registrations ---------------------------------------------------------------

REGISTRATIONS = Registrations(PAPERS)
"""Each paper's part of the generic rules: its rules file calls :func:`register` once
(paracomp.registration.Registration); the generic rules read them after every paper's."""


def register(registration: Registration) -> Registration:
    return REGISTRATIONS.register(registration)


SOURCES = Sources(config["sources"], MIRROR, CATALOG, built_embeddings(PAPERS, BLOCKS))
"""Where each dataset, set and embeddings come from; the embeddings a paper's rules build are
known (from each paper's package) before any paper's rules file is read."""
RUNS = Runs(BLOCKS, TRAIN, REGISTRATIONS)
"""The papers' generic runs, their grids and the registered scored grid points."""
MODELS = Models(config["models"], RUNS, SOURCES, REGISTRATIONS)
"""The models the generic evaluator scores and the leaderboard ranks."""
TABLES = PaperTables(
    BLOCKS,
    MODELS,
    REGISTRATIONS,
    {paper: read_claims(Path(resource(paper, "findings.yaml"))) for paper in PAPERS},
    REPLICATES,
)
"""The papers' generic tables, their findings (each paper's claims, read once) and overviews."""

check_run_settings(TRAIN["defaults"], "training.defaults")
for _paper in BLOCKS:
    for _warning in RUNS.check(_paper):
        if workflow.is_main_process:
            logger.warning(_warning)


def set_input(wildcards) -> str:
    return SOURCES.set_folder(wildcards.set)


def set_source_param(wildcards) -> str | None:
    return SOURCES.set_source(wildcards.set)


def embeddings_source(wildcards) -> str:
    return SOURCES.embeddings_source(wildcards.embeddings)


def embeddings_input(wildcards) -> str:
    return SOURCES.embeddings_folder(wildcards.embeddings)


dataset_folder = SOURCES.dataset_folder
embeddings_missing = SOURCES.embeddings_missing
available = SOURCES.available
set_paths = SOURCES.set_paths
tokenised_set_paths = SOURCES.tokenised_set_paths
set_args = SOURCES.set_args
unavailable = SOURCES.unavailable
table_targets = TABLES.targets


def lowercase_flag() -> str:
    """The evaluation's lowercasing as a ``paracomp`` option."""
    return "--lowercase" if EVAL["lowercase"] else "--no-lowercase"


def all_targets() -> list[str]:
    evals = [f"results/eval/{model}/sts.csv" for model in MODELS.buildable()]
    return [target for paper in BLOCKS for target in TABLES.targets(paper)] + evals


wildcard_constraints:
    paper="|".join(PAPERS),
    table=r"table\d+",
    set="|".join(map(re.escape, CATALOG.sets)),
    point=r"\d+",
    stack=r"\d+",
    shard=r"\d+",
    partition=r"\d+",
    run="|".join(map(re.escape, sorted({run for paper in BLOCKS for run in RUNS.runs_of(paper)}))),
    dataset="|".join(map(re.escape, CATALOG.datasets)),
    package="|".join(map(re.escape, CATALOG.packages)),
    embeddings="|".join(map(re.escape, CATALOG.embeddings)),
