"""A paper is a unit: a sixth paper, added from tests/fixtures/toy_paper/ to a copy of the
project with nothing edited outside its home (its package, its rules file) and the list of
papers, builds its table (GloVe 6B 50d on STS Benchmark's test split) through the generic
rules, and the other papers' DAG stays as it was."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).with_name("fixtures") / "toy_paper"
TOY = "toy2099"


def _tracked_copy(out: Path) -> Path:
    """The project's tracked files (the working tree's versions) under ``out``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, out / name)
    return out


def _add_toy_paper(repo: Path) -> list[str]:
    """The toy paper's home and its key in the list of papers; returns what was touched."""
    home = repo / "src" / "paracomp" / "papers" / TOY
    shutil.copytree(FIXTURE / "package", home)
    shutil.copy2(FIXTURE / f"{TOY}.smk", repo / "rules" / "papers" / f"{TOY}.smk")
    listing = repo / "src" / "paracomp" / "papers" / "__init__.py"
    text = listing.read_text()
    marker = '"chen2020")'
    assert text.count(marker) == 1, "the list of papers changed shape: update this test"
    listing.write_text(text.replace(marker, f'"chen2020", "{TOY}")'))
    return [
        f"src/paracomp/papers/{TOY}/",
        f"rules/papers/{TOY}.smk",
        "src/paracomp/papers/__init__.py",
    ]


@pytest.mark.slow
def test_a_toy_paper_builds_its_table_touching_only_its_home(tmp_path, mirror):
    repo = _tracked_copy(tmp_path / "repo")
    touched = _add_toy_paper(repo)
    assert len(touched) == 3
    env = {**os.environ, "PARACOMP_MIRROR": str(mirror), "PYTHONPATH": str(repo / "src")}
    work = tmp_path / "work"
    cmd = [sys.executable, "-m", "snakemake", "--cores", "2", f"results/{TOY}/table1.csv"]
    cmd += ["--snakefile", str(repo / "Snakefile"), "--directory", str(work)]
    cmd += ["--configfile", str(repo / "config.yaml")]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    with open(work / "results" / TOY / "table1.compare.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["row"], r["column"]) for r in rows] == [("STS-B", "glove")]
    assert 0.2 < float(rows[0]["ours"]) < 1.0
    assert rows[0]["paper"] == ""
    dry = subprocess.run(
        [*cmd[:3], "-n", "elgohary2016", *cmd[5:]], env=env, capture_output=True, text=True
    )
    assert dry.returncode == 0, dry.stderr[-2000:]
