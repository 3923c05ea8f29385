"""A real slice of the DAG through SLURM, on the one-node cluster of tests/cluster/slurm-up.sh.

Runs only when a test cluster is up: ``PARACOMP_SLURM=1`` (set by ``source
$PARACOMP_SLURM_STATE/env.sh`` after ``slurm-up.sh``; ``.ci/run`` does both when run as root), or
slurm-up.sh's state folder exists. A real cluster the machine may belong to is never used:
``sinfo`` working is not enough.

Each test copies the workflow (Snakefile, rules/, workflow/, envs/, config.yaml) into a
temporary folder and runs Snakemake there with the test profile (tests/cluster/profile) and
the data mirror. ``envs/`` is copied because Snakemake records each rule's conda file in its
job metadata even without ``--software-deployment-method conda``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from paracomp.artefacts import provenance

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]
PROFILE = REPO / "tests" / "cluster" / "profile"
STATE = Path(os.environ.get("PARACOMP_SLURM_STATE", "/tmp/paracomp-slurm"))
MIRROR = Path(os.environ.get("PARACOMP_MIRROR", REPO.parent / "shared" / "data")).resolve()
WORKFLOW_FILES = ["Snakefile", "config.yaml", "rules", "workflow", "envs"]
TARGETS = ["resources/sets/sts2012.parquet", "resources/sets/simlex999.parquet"]
TIMEOUT_S = 300
SUBMITTED = re.compile(
    r"Job (\d+) has been submitted with SLURM jobid (\d+) \(log: (.+?)\)\.?$", re.MULTILINE
)

# Added to the test's copy of the Snakefile only: fails on its first run, succeeds after.
FLAKY_RULE = """

rule flaky:
    output:
        "results/flaky.txt",
    log:
        "logs/flaky.log",
    benchmark:
        "benchmarks/snakemake/flaky.tsv"
    resources:
        mem_mb=100,
        runtime=2,
    shell:
        "if [ ! -e flaky.armed ]; then touch flaky.armed;"
        " echo 'flaky: failing on purpose' >&2; exit 3; fi;"
        " echo ok > {output} 2> {log}"
"""


def _env_from_state() -> dict[str, str] | None:
    """The variables slurm-up.sh wrote to its env.sh, if its cluster is up."""
    env_sh = STATE / "env.sh"
    if not (STATE / "pids").is_file() or not env_sh.is_file():
        return None
    found = re.findall(r"^export (\w+)=(.*)$", env_sh.read_text(), re.MULTILINE)
    return dict(found) or None


@pytest.fixture(scope="module")
def cluster_env() -> dict[str, str]:
    """The environment for Snakemake and the SLURM client commands; skips without a cluster."""
    env = dict(os.environ)
    if env.get("PARACOMP_SLURM") != "1":
        extra = _env_from_state()
        if extra is None:
            pytest.skip(
                "no SLURM test cluster: run `sudo bash tests/cluster/slurm-up.sh` and "
                f"`source {STATE}/env.sh` (sets PARACOMP_SLURM=1); .ci/run does this as root"
            )
        env.update(extra)
    # From here on a cluster was asked for: what is missing is an error, not a skip.
    try:
        import snakemake_executor_plugin_slurm  # noqa: F401
    except ImportError:
        pytest.fail('snakemake-executor-plugin-slurm is not installed: pip install -e ".[slurm]"')
    if shutil.which("sbatch", path=env.get("PATH")) is None:
        pytest.fail("PARACOMP_SLURM=1 but there is no sbatch; run tests/cluster/slurm-up.sh")
    sinfo = subprocess.run(
        ["sinfo", "-h", "-o", "%P %t"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if sinfo.returncode != 0 or not re.search(r"\b(idle|mix|alloc)", sinfo.stdout):
        pytest.fail(f"the test cluster does not answer: sinfo: {sinfo.stdout}{sinfo.stderr}")
    if not MIRROR.is_dir():
        pytest.skip(f"no data mirror at {MIRROR} (set PARACOMP_MIRROR)")
    env["PARACOMP_MIRROR"] = str(MIRROR)
    env.pop("SNAKEMAKE_PROFILE", None)
    return env


def copy_workflow(dest: Path, extra_rules: str = "") -> Path:
    dest.mkdir(parents=True)
    for name in WORKFLOW_FILES:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dest / name)
    if extra_rules:
        with open(dest / "Snakefile", "a") as fh:
            fh.write(extra_rules)
    return dest


def snakemake(workdir: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """Run Snakemake in ``workdir`` under ``timeout``; stdout and stderr together."""
    cmd = ["timeout", "-k", "10", str(TIMEOUT_S), sys.executable, "-m", "snakemake", *args]
    proc = subprocess.run(
        cmd,
        cwd=workdir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    (workdir / f"snakemake-{len(list(workdir.glob('snakemake-*.log')))}.log").write_text(
        proc.stdout
    )
    assert proc.returncode not in (124, 137), f"snakemake timed out:\n{proc.stdout[-5000:]}"
    return proc


def on_slurm(workdir: Path, env: dict[str, str], *targets: str) -> subprocess.CompletedProcess:
    return snakemake(
        workdir, env, "--workflow-profile", str(PROFILE), "--executor", "slurm", *targets
    )


def submissions(log: str) -> list[tuple[str, str, Path]]:
    """(rule, SLURM job id, SLURM log) for every job Snakemake submitted with sbatch."""
    found = []
    for _, slurm_id, path in SUBMITTED.findall(log):
        rule = re.search(r"/rule_([^/]+)/", path)
        found.append((rule.group(1) if rule else "?", slurm_id, Path(path)))
    return found


def slurm_job(slurm_id: str, env: dict[str, str]) -> dict[str, str]:
    """``scontrol show job`` as a dict (slurmctld keeps finished jobs for MinJobAge)."""
    out = subprocess.run(
        ["scontrol", "show", "job", "-o", slurm_id],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout
    return dict(re.findall(r"(\w+)=(\S*)", out))


def without_timestamp(prov: dict) -> dict:
    return {k: v for k, v in prov.items() if k != "created"}


def test_slice_runs_through_sbatch_and_matches_local_run(cluster_env, tmp_path):
    slurm_dir = copy_workflow(tmp_path / "slurm")
    run = on_slurm(slurm_dir, cluster_env, *TARGETS)
    assert run.returncode == 0, run.stdout[-5000:]

    jobs = submissions(run.stdout)
    # downloads are localrules (compute nodes may have no network); parsing goes through sbatch
    assert Counter(rule for rule, _, _ in jobs) == {"parse_set": 2}, run.stdout[-5000:]
    run_id = re.search(r"SLURM run ID: (\S+)", run.stdout).group(1)
    for rule, slurm_id, slurm_log in jobs:
        job = slurm_job(slurm_id, cluster_env)
        assert job["JobState"] == "COMPLETED", job
        assert job["JobName"] == run_id
        assert job["Comment"].startswith(f"rule_{rule}")
        assert Path(job["WorkDir"]).resolve() == slurm_dir.resolve()
        # the job's own log (kept by the test profile) shows Snakemake ran the rule there
        assert slurm_log.is_file(), slurm_log
        assert f"rule {rule}:" in slurm_log.read_text()

    local_dir = copy_workflow(tmp_path / "local")
    local = snakemake(local_dir, cluster_env, "--cores", "2", *TARGETS)
    assert local.returncode == 0, local.stdout[-5000:]
    assert "SLURM" not in local.stdout

    for target in TARGETS:
        ours, ref = slurm_dir / target, local_dir / target
        assert pq.read_table(ours).equals(pq.read_table(ref)), target
        assert pq.read_schema(ours).remove_metadata() == pq.read_schema(ref).remove_metadata()
        assert without_timestamp(provenance(ours)) == without_timestamp(provenance(ref))
    for manifest in (local_dir / "resources" / "mirror").glob("*/MANIFEST.json"):
        theirs = slurm_dir / manifest.relative_to(local_dir)
        assert theirs.read_text() == manifest.read_text()


def test_failed_job_is_reported_with_its_slurm_log_and_rerun_resumes(cluster_env, tmp_path):
    workdir = copy_workflow(tmp_path / "flaky", FLAKY_RULE)
    targets = ["results/flaky.txt", "resources/sets/simlex999.parquet"]

    failed = on_slurm(workdir, cluster_env, *targets)
    assert failed.returncode != 0, failed.stdout[-5000:]
    assert "Error in rule flaky" in failed.stdout
    assert "SLURM status is: 'FAILED'" in failed.stdout
    slurm_logs = re.findall(r"(/\S+/slurm_logs/rule_flaky/\S*?\d+\.log)", failed.stdout)
    assert slurm_logs, failed.stdout[-5000:]
    assert "flaky: failing on purpose" in Path(slurm_logs[0]).read_text()
    # keep-going: the independent jobs finished in the same run
    built = [workdir / "resources/mirror/simlex999/MANIFEST.json", workdir / targets[1]]
    assert all(p.is_file() for p in built), failed.stdout[-5000:]
    assert not (workdir / "results/flaky.txt").exists()
    mtimes = [p.stat().st_mtime_ns for p in built]

    rerun = on_slurm(workdir, cluster_env, *targets)
    assert rerun.returncode == 0, rerun.stdout[-5000:]
    assert [rule for rule, _, _ in submissions(rerun.stdout)] == ["flaky"], rerun.stdout[-5000:]
    assert [p.stat().st_mtime_ns for p in built] == mtimes
    assert (workdir / "results/flaky.txt").read_text() == "ok\n"
