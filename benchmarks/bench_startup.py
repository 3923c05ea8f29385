"""Start-up of the ``paracomp`` command: the wall time of ``paracomp --help``, of every
command's ``--help`` (what each command costs before its work: parsing imports no heavy
library, ``tests/test_cli_startup.py``) and of ``paracomp catalog`` (a whole command that reads
the catalogue only), best of ``--repeats`` runs, each a fresh process.

    python benchmarks/bench_startup.py
"""

from __future__ import annotations

import argparse
import datetime
import os
import shutil
import subprocess
import time


def commands() -> list[list[str]]:
    """Every command line of the parser: ``[]``, each command and each paper's command."""
    from paracomp.cli import build_parser

    def children(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                return dict(action.choices)
        return {}

    found: list[list[str]] = [[]]
    for name, parser in children(build_parser()).items():
        found.append([name])
        found += [[name, child] for child in children(parser)]
    return found


def best(argv: list[str], repeats: int) -> float:
    """The least wall time of ``repeats`` runs of ``argv`` (seconds)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    paracomp = shutil.which("paracomp") or "paracomp"
    print(f"# {datetime.date.today()}, load {os.getloadavg()[0]:.2f}, best of {args.repeats}")
    rows = [(c, best([paracomp, *c, "--help"], args.repeats)) for c in commands()]
    rows.append((["catalog (whole command)"], best([paracomp, "catalog"], args.repeats)))
    for command, seconds in rows:
        print(f"{' '.join(command) or '--help':<40} {seconds:6.3f} s")
    slowest = max(rows, key=lambda row: row[1])
    print(f"slowest: {' '.join(slowest[0]) or '--help'} {slowest[1]:.3f} s")


if __name__ == "__main__":
    main()
