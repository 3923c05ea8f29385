"""The whole run and where its time goes: run Snakemake targets from a fresh clone (``run``),
then tabulate the CPU-seconds of every job from Snakemake's benchmark files by rule family and
by paper (``table``), split by the phases each ``paracomp`` job logs at exit
(:mod:`paracomp.timing`: start-up, heavy imports, loading, training steps, evaluation,
bootstrap, writing, other). A job whose log has no such line (a shell tool, a copy) counts as
``unsplit``.

    python benchmarks/bench_whole_run.py run --clone /tmp/whole --cores 2 findings leaderboard
    python benchmarks/bench_whole_run.py table /tmp/whole > docs/benchmarks/whole-run.md

``run`` clones this repository's HEAD, runs ``snakemake --cores N TARGETS`` there (with
``PARACOMP_MIRROR`` as set in the environment) and writes ``whole-run.json`` (wall time,
targets, machine, date, commit) beside the clone's results; ``table`` reads it.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from paracomp.papers import PAPERS
from paracomp.timing import PHASES, PREFIX, parse

RECORD = "whole-run.json"
"""What ``run`` writes into the clone."""

COLUMNS = (*PHASES, "unsplit")


@dataclass
class Job:
    """One job's benchmark row and, where its log has it, its CPU split."""

    path: str
    family: str
    paper: str
    wall: float
    cpu: float
    rss_mb: float
    phases: dict[str, float] = field(default_factory=dict)

    @property
    def total(self) -> float:
        """CPU-seconds: Snakemake's (which counts child processes too, but samples, so it
        misses the end of a job), or the process's own where that is more."""
        return max(self.cpu, sum(self.phases.values()))

    def split(self) -> dict[str, float]:
        """The job's :attr:`total` per :data:`COLUMNS` (the phases scaled to it), or all
        ``unsplit``."""
        logged = sum(self.phases.values())
        if not self.phases or logged <= 0:
            return {"unsplit": self.total}
        return {k: v * self.total / logged for k, v in self.phases.items()}


def _phases(log: Path) -> dict[str, float]:
    """The timing lines of ``log`` summed (a job may run several commands; empty without
    one)."""
    found: dict[str, float] = defaultdict(float)
    if not log.exists():
        return found
    for line in log.read_text(errors="replace").splitlines():
        start = line.find(PREFIX)
        for phase, seconds in (parse(line[start:]) or {} if start >= 0 else {}).items():
            found[phase] += seconds
    return dict(found)


def jobs(workdir: Path) -> list[Job]:
    """Every job of ``workdir``'s ``benchmarks/snakemake/<rule>/...tsv`` with its log
    ``logs/<rule>/....log``."""
    root = workdir / "benchmarks" / "snakemake"
    found = []
    for tsv in sorted(root.rglob("*.tsv")):
        rel = tsv.relative_to(root).with_suffix("")
        with tsv.open() as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
        if not rows:
            continue
        row = rows[-1]
        parts = rel.parts
        paper = next((p for p in parts if p in PAPERS), "shared")
        found.append(
            Job(
                path=str(rel),
                family="/".join(parts[:2]) if parts[0] in PAPERS else parts[0],
                paper=paper,
                wall=float(row["s"]),
                cpu=float(row["cpu_time"]),
                rss_mb=float(row["max_rss"]) if row["max_rss"] not in ("", "NA", "-") else 0.0,
                phases=_phases(workdir / "logs" / rel.with_suffix(".log")),
            )
        )
    return found


def _group(rows: Iterable[Job], key: str) -> list[tuple[str, list[Job]]]:
    groups: dict[str, list[Job]] = defaultdict(list)
    for job in rows:
        groups[getattr(job, key)].append(job)
    return sorted(groups.items(), key=lambda item: -sum(j.total for j in item[1]))


def _split(members: Iterable[Job]) -> dict[str, float]:
    """The CPU-seconds of ``members`` per phase."""
    split: dict[str, float] = defaultdict(float)
    for job in members:
        for phase, seconds in job.split().items():
            split[phase] += seconds
    return split


def _table(title: str, groups: list[tuple[str, list[Job]]], total_cpu: float) -> list[str]:
    head = ["jobs", "CPU-s", "share", "CPU-s/job", "max RSS MB", *COLUMNS]
    lines = [f"| {title} | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
    for name, members in groups:
        cpu = sum(j.total for j in members)
        split = _split(members)
        cells = [
            str(len(members)),
            f"{cpu:.0f}",
            f"{cpu / total_cpu:.1%}" if total_cpu else "",
            f"{cpu / len(members):.1f}",
            f"{max(j.rss_mb for j in members):.0f}",
            *(f"{split[c]:.0f}" if split.get(c) else "" for c in COLUMNS),
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def table(workdir: Path, top: int = 15) -> str:
    """The markdown report of ``workdir``: the run, then CPU-seconds by phase, by rule family,
    by paper, and the ``top`` costliest jobs."""
    found = jobs(workdir)
    if not found:
        raise SystemExit(f"{workdir}: no benchmark files under benchmarks/snakemake/")
    record_path = workdir / RECORD
    record = json.loads(record_path.read_text()) if record_path.exists() else {}
    total_cpu = sum(j.total for j in found)
    phases = _split(found)
    wall = record.get("wall_s")
    lines = [
        f"Run: `snakemake --cores {record.get('cores', '?')} {' '.join(record.get('targets', []))}`"
        f" at {record.get('commit', '?')}, {record.get('date', '?')}, on {record.get('machine', '?')}"
        f" (load before the run {record.get('load', '?')}).",
        "",
        (
            f"Wall time {wall:.0f} s; "
            if wall and record.get("returncode") == 0
            else "The run did not finish" + (f" (stopped after {wall:.0f} s): " if wall else ": ")
        )
        + f"{len(found)} jobs of {record.get('planned', '?')} planned; "
        f"{total_cpu:.0f} CPU-s; the largest job's peak RSS "
        f"{max(j.rss_mb for j in found):.0f} MB.",
        "",
        "| phase | CPU-s | share |",
        "|---|---|---|",
        *(
            f"| {p} | {phases[p]:.0f} | {phases[p] / total_cpu:.1%} |"
            for p in COLUMNS
            if phases.get(p)
        ),
        "",
        *_table("rule family", _group(found, "family"), total_cpu),
        "",
        *_table("paper", _group(found, "paper"), total_cpu),
        "",
        "| job | wall s | CPU-s | max RSS MB | largest phase |",
        "|---|---|---|---|---|",
    ]
    for job in sorted(found, key=lambda j: -j.total)[:top]:
        split = job.split()
        largest = max(split, key=split.__getitem__)
        lines.append(
            f"| {job.path} | {job.wall:.1f} | {job.total:.1f} | {job.rss_mb:.0f} | "
            f"{largest} {split[largest]:.1f} |"
        )
    return "\n".join(lines) + "\n"


def run(clone: Path, cores: int, targets: list[str]) -> None:
    """Clone HEAD into ``clone``, run the targets there and record the wall time."""
    repo = Path(__file__).resolve().parents[1]
    if clone.exists():
        raise SystemExit(f"{clone}: exists; the run starts from a fresh clone")
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=clone, capture_output=True, text=True
    ).stdout.strip()
    env = {**os.environ, "PYTHONPATH": str(clone / "src")}
    plan = subprocess.run(
        ["snakemake", "-n", *targets, "--quiet", "rules"],
        cwd=clone,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=True,
    ).stdout
    record = {
        "targets": targets,
        "cores": cores,
        "planned": _planned(plan),
        "commit": commit,
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.node()}, {os.cpu_count()} cores, {_cpu_model()}",
        "load": round(os.getloadavg()[0], 2),
        "mirror": os.environ.get("PARACOMP_MIRROR"),
    }
    (clone / RECORD).write_text(json.dumps(record, indent=2) + "\n")  # a killed run keeps it
    start = time.perf_counter()
    done = subprocess.run(["snakemake", "--cores", str(cores), *targets], cwd=clone, env=env)
    record.update(wall_s=time.perf_counter() - start, returncode=done.returncode)
    (clone / RECORD).write_text(json.dumps(record, indent=2) + "\n")
    sys.exit(done.returncode)


def _cpu_model() -> str:
    """The CPU's model name: trained weights' bits follow the kernels it takes (docs)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _planned(summary: str) -> int | None:
    """The job count of ``snakemake -n --quiet rules``' table (its ``total`` row)."""
    for line in summary.splitlines():
        if line.startswith("total"):
            return int(line.split()[1])
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="run targets from a fresh clone and record the wall time")
    p.add_argument("--clone", type=Path, required=True, help="where to clone (must not exist)")
    p.add_argument("--cores", type=int, default=2)
    p.add_argument("targets", nargs="+")
    p = sub.add_parser("table", help="where the time went, as markdown")
    p.add_argument("workdir", type=Path, help="the clone the run ran in")
    p.add_argument("--top", type=int, default=15, help="how many of the costliest jobs")
    args = parser.parse_args()
    if args.command == "run":
        run(args.clone, args.cores, args.targets)
    else:
        sys.stdout.write(table(args.workdir, args.top))


if __name__ == "__main__":
    main()
