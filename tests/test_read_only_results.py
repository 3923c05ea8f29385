"""A read-only results folder through Snakemake: refused before any job runs, in one line
naming the folder (Snakemake's own remove_existing_output used to fail with its traceback)."""

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from paracomp.atomic import unwritable

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    """``tmp_path/work/results``, read-only: a read-only tmpfs where we are root (root writes
    through a folder's mode bits), else a folder of mode 0555."""
    folder = tmp_path / "work" / "results"
    folder.mkdir(parents=True)
    if os.geteuid() != 0:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    mount = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(folder)])
    if mount.returncode != 0:
        pytest.skip("root but cannot mount a read-only tmpfs here")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_unwritable_folders_are_found_once(read_only: Path, tmp_path: Path) -> None:
    outputs = [read_only / "a.csv", read_only / "b" / "c.csv", tmp_path / "d" / "e.csv"]
    assert unwritable(outputs) == [read_only]
    assert unwritable([tmp_path / "x.csv"]) == []


@pytest.mark.slow
def test_snakemake_refuses_a_read_only_results_folder(read_only: Path, mirror: Path) -> None:
    work = read_only.parent
    cmd = [sys.executable, "-m", "snakemake", "results/elgohary2016/table2.csv", "--cores", "1"]
    cmd += ["--snakefile", str(REPO / "Snakefile"), "--configfile", str(REPO / "config.yaml")]
    env = {**os.environ, "PARACOMP_MIRROR": str(mirror)}
    proc = subprocess.run(
        [*cmd, "--directory", str(work)], capture_output=True, text=True, env=env, timeout=600
    )
    printed = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"{read_only}: not writable, and the planned jobs write there" in printed
    assert "remove_existing_output" not in printed and "Traceback" not in printed
    assert sorted(p.name for p in work.iterdir() if not p.name.startswith(".")) == ["results"]
