"""The CPU split a command logs at exit, and the whole-run table built from it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from paracomp import timing


def _spin(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_inner_phase_counts_to_itself_only() -> None:
    timing.start()
    with timing.phase("steps"):
        _spin(0.05)
        with timing.phase("write"):
            _spin(0.1)
        _spin(0.05)
    spent = timing.spent()
    assert spent["write"] == pytest.approx(0.1, abs=0.03)
    assert spent["steps"] == pytest.approx(0.1, abs=0.03)
    assert spent["startup"] > 0


def test_unknown_phase_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown phase 'train'"), timing.phase("train"):
        pass


def test_report_round_trips() -> None:
    timing.start()
    line = timing.report()
    assert set(timing.parse(line)) == set(timing.PHASES)
    assert timing.parse("INFO something else") is None


def test_heavy_import_is_counted_in_a_fresh_process() -> None:
    code = (
        "from paracomp import timing; timing.start(); import pandas; "
        "s = timing.spent(); print(s['imports'], s['other'])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    imports, other = map(float, out.stdout.split())
    assert imports > 0.05  # pandas (with numpy and pyarrow) takes a tenth of a second or more
    assert other < imports


def _job(root: Path, rel: str, cpu: float, log: str | None) -> None:
    tsv = root / "benchmarks" / "snakemake" / f"{rel}.tsv"
    tsv.parent.mkdir(parents=True, exist_ok=True)
    header = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time"
    tsv.write_text(f"{header}\n{cpu + 1}\t0:00:01\t100.5\t1\t1\t1\t0\t0\t1\t{cpu}\n")
    if log is not None:
        path = root / "logs" / f"{rel}.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(log)


def test_whole_run_table_splits_by_family_paper_and_phase(tmp_path: Path, benchmark_script) -> None:
    line = "2026 INFO paracomp.timing: paracomp cpu-seconds: startup=1 imports=2 steps=5"
    second = "2026 INFO paracomp.timing: paracomp cpu-seconds: startup=1 imports=1"
    _job(tmp_path, "train_model/elgohary2016/a", 16.0, f"progress\n{line}\n")
    _job(tmp_path, "points/b", 3.0, f"{second}\n{second}\n")
    _job(tmp_path, "corpus/word_alignment", 4.0, "no timing here\n")
    bench = benchmark_script("bench_whole_run")
    jobs = {j.path: j for j in bench.jobs(tmp_path)}
    assert jobs["train_model/elgohary2016/a"].paper == "elgohary2016"
    assert jobs["corpus/word_alignment"].paper == "shared"
    # 8 logged CPU-s scaled to Snakemake's 16 (it counts child processes too)
    assert jobs["train_model/elgohary2016/a"].split() == {"startup": 2, "imports": 4, "steps": 10}
    assert jobs["corpus/word_alignment"].split() == {"unsplit": 4.0}
    # two commands in one job: their lines summed (4 CPU-s logged, more than Snakemake's 3)
    assert jobs["points/b"].split() == {"startup": 2, "imports": 2}
    text = bench.table(tmp_path)
    assert "The run did not finish: 3 jobs of ? planned; 24 CPU-s" in text
    assert "| steps | 10 | 41.7% |" in text
    assert "| unsplit | 4 | 16.7% |" in text
    assert "| train_model | 1 | 16 | 66.7% | 16.0 | 100 | 2 | 4 |" in text
