"""A full disk and a read-only folder, made real (a 64 KiB tmpfs filled up, a read-only bind
mount; root only, skipped elsewhere): each write names its output, in one line, and leaves
nothing behind."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from paracomp.atomic import atomic_dir, atomic_path
from paracomp.cli import main
from paracomp.errors import WriteError
from paracomp.run_folder import save


def _mount(*args: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs or a bind mount needs root")
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    if done.returncode:
        pytest.skip(f"mount {' '.join(args)} failed: {done.stderr.strip()}")


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A folder on a 64 KiB tmpfs that a filler file has filled up."""
    disk = tmp_path / "disk"
    disk.mkdir()
    _mount("-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk))
    try:
        (disk / "out").mkdir()
        with open(disk / "filler", "wb", buffering=0) as filler:
            try:
                while filler.write(b"\0" * 4096):
                    pass
            except OSError:
                pass
        yield disk / "out"
    finally:
        subprocess.run(["umount", str(disk)], check=True)


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    """A read-only bind mount of a folder holding ``results/``."""
    source, view = tmp_path / "source", tmp_path / "view"
    (source / "results").mkdir(parents=True)
    view.mkdir()
    _mount("--bind", str(source), str(view))
    try:
        _mount("-o", "remount,ro,bind", str(view))
        yield view / "results"
    finally:
        subprocess.run(["umount", str(view)], check=True)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != "filler")


@pytest.mark.parametrize("writer", [atomic_path, atomic_dir])
def test_full_disk_names_the_output(full_disk: Path, writer) -> None:
    target = full_disk / "table.csv"
    with pytest.raises(WriteError) as caught, writer(target) as tmp:
        inner = tmp / "part" if writer is atomic_dir else tmp
        inner.write_bytes(b"x" * 100_000)
    assert str(caught.value) == f"{target}: cannot write (No space left on device)"
    assert _leftovers(full_disk) == []


def test_read_only_folder_names_the_output(read_only: Path) -> None:
    target = read_only / "elgohary2016" / "table3.csv"
    (read_only.parent.parent / "source" / "results" / "elgohary2016").mkdir()
    with pytest.raises(WriteError) as caught, atomic_path(target) as tmp:
        tmp.write_text("never")
    assert str(caught.value) == f"{target}: cannot write (Read-only file system)"


def test_checkpoint_on_a_full_disk(full_disk: Path) -> None:
    """torch.save to a path would fail with ``enforce fail at inline_container.cc``."""
    target = full_disk / "checkpoint.pt"
    with pytest.raises(WriteError, match=r"checkpoint\.pt: cannot write \(No space left"):
        save({"weight": torch.zeros(50_000)}, target)
    assert _leftovers(full_disk) == []


def test_cli_reports_a_full_disk_in_one_line(full_disk: Path, mirror: Path, capsys) -> None:
    out = full_disk / "simlex999"
    assert main(["fetch", "mirror", "simlex999", "--mirror", str(mirror), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"paracomp: error: {out}: cannot write (No space left on device)\n"
    assert _leftovers(full_disk) == []
