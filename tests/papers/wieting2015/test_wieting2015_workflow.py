"""wieting2015's part of the workflow: dry runs of its tables (embedded default, the paper's
setting, no mirror) and what each job runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # dry runs of the whole workflow

REPO = Path(__file__).resolve().parents[3]
TABLES = [f"results/wieting2015/table{n}.csv" for n in range(1, 10)]


def _dry_run(workdir: Path, *configs: str, mirror: Path | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PARACOMP_MIRROR"}
    if mirror is not None:
        env["PARACOMP_MIRROR"] = str(mirror)
    cmd = [sys.executable, "-m", "snakemake", "-n", "-p", "--cores", "2", "wieting2015"]
    cmd += ["--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir)]
    cmd += ["--configfile", *(str(REPO / c) for c in configs)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


def _words(out: str) -> int:
    """Word-training grid points in a dry run's output."""
    return out.count("--then wieting2015 word-scores")


def _rnns(out: str) -> int:
    """RNN grid points in a dry run's output."""
    return out.count("--then wieting2015 phrase-scores --run")


def _jobs(out: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r"^(\w+)\s+(\d+)$", out, flags=re.MULTILINE)}


def test_embedded_default_dag(tmp_path, mirror):
    out = _dry_run(tmp_path, "config.yaml", mirror=mirror)
    jobs = _jobs(out)
    # 2 x 2 word points per variant, 2 RNN points per data set (phrases, jn, nn, vn)
    # scored grid points, jobs of the generic rule `point`
    assert _words(out) == 8 and _rnns(out) == 8 and jobs["point"] == 16
    assert jobs["wieting2015_tables"] == 9 and jobs["wieting2015_sst"] == 3
    assert '"sampler": "max_skip", "score": "dot"' in out.replace("\\", "")
    assert "--constraints resources/wieting2015/lexical/constraints.parquet" in out
    assert "--init resources/embeddings/paragram-wieting2015.parquet" in out
    assert "--unavailable" not in out


def test_published_setting_dag(tmp_path, mirror):
    out = _dry_run(tmp_path, "config.yaml", "config/published.yaml", mirror=mirror)
    assert _words(out) == 2 * 28  # lambda 7 x batch 4, with and without constraints
    assert _jobs(out)["point"] == 2 * 28 + 4 * 140
    assert _rnns(out) == 4 * 140  # 7 x 4 x 5 for phrases and each bigram type
    assert "resources/upstream/ppdb-1.0-xl-lexical" in out
    assert "--dim 25" in out and "--device cuda" in out


def test_without_mirror_tables_say_why(tmp_path):
    out = _dry_run(tmp_path, "config.yaml")
    jobs = _jobs(out)
    assert _rnns(out) == 0 and jobs["wieting2015_tables"] == 9
    assert "--unavailable 'annotated-ppdb is unavailable" in out
    assert "ppdb-xl-lexicon is unavailable" in out  # the lexicon is in the mirror only
