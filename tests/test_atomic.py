"""Atomic writes: a killed writer's partial output is removed when the output is written again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paracomp.atomic import HOST, STALE_AFTER, atomic_dir, atomic_path, clean_stale_parts

SRC = Path(__file__).resolve().parents[1] / "src"


def dead_pid() -> int:
    """The pid of a process that has exited."""
    code = "import os; print(os.getpid())"
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(child.stdout)


def test_part_names_carry_host_and_pid(tmp_path: Path) -> None:
    with atomic_path(tmp_path / "out.txt") as tmp:
        assert tmp.name.startswith(f".out.txt.{HOST}.{os.getpid()}.")
        assert tmp.name.endswith(".part")
        tmp.write_text("x")
    with atomic_dir(tmp_path / "folder") as tmp:
        assert tmp.name.startswith(f".folder.{HOST}.{os.getpid()}.")


@pytest.mark.parametrize("writer", [atomic_path, atomic_dir])
def test_a_killed_writer_leaves_nothing_after_the_next_write(tmp_path: Path, writer) -> None:
    target = tmp_path / "out.parquet"
    code = (
        "import sys, time\n"
        f"from paracomp.atomic import {writer.__name__}\n"
        f"with {writer.__name__}(sys.argv[1]) as tmp:\n"
        "    print(tmp, flush=True)\n"
        "    time.sleep(60)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(target)], stdout=subprocess.PIPE, text=True, env=env
    )
    part = Path(child.stdout.readline().strip())
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stdout.close()
    assert part.exists() and not target.exists()  # the litter issue 17 is about
    with writer(target) as tmp:
        if tmp.is_dir():
            (tmp / "f").write_text("whole")
        else:
            tmp.write_text("whole")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.parquet"]


def test_only_stale_parts_of_the_same_output_are_removed(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    old = time.time() - STALE_AFTER - 60
    dead, live = dead_pid(), os.getpid()
    names = {
        # removed: writer on this host is gone
        f".out.txt.{HOST}.{dead}.abcdefgh.part": True,
        # removed: writer unknown (old naming, another host) and untouched for a day
        ".out.txt.abc_1234.part": True,
        ".out.txt.otherhost.12.abcdefgh.part": True,
        # kept: writer running here, however old the part
        f".out.txt.{HOST}.{live}.abcdefgh.part": False,
        # kept: writer unknown but the part changed recently
        ".out.txt.zyxwvuts.part": False,
        ".out.txt.otherhost.12.zyxwvuts.part": False,
        # kept: another output's parts, and files that are not parts
        f".out.txt.bak.{HOST}.{dead}.abcdefgh.part": False,
        ".out.txt.bak.abcdefgh.part": False,
        f".out.{HOST}.{dead}.abcdefgh.part": False,
        ".out.txt.abcdefgh.partial": False,
        "out.txt.abcdefgh.part": False,
    }
    recent = {".out.txt.zyxwvuts.part", ".out.txt.otherhost.12.zyxwvuts.part"}
    for name in names:
        (tmp_path / name).write_text("half")
        if name not in recent:
            os.utime(tmp_path / name, (old, old))
    folder = tmp_path / f".out.txt.{HOST}.{dead}.qwertyui.part"  # an atomic_dir part
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "f").write_text("half")
    removed = clean_stale_parts(target)
    expected = {tmp_path / n for n, gone in names.items() if gone} | {folder}
    assert set(removed) == expected
    assert {p.name for p in tmp_path.iterdir()} == {n for n, gone in names.items() if not gone}
