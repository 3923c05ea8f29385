"""No rules file over 400 lines and no Python module over 500: a longer one is split by what it
serves (its logic into a tested module, its rules by the stage they serve)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMITS = {".smk": 400, ".py": 500}
"""The most lines a file of each kind may have."""


def sized_files(root: Path = ROOT) -> list[Path]:
    """Every rules file (``rules/``, the test fixtures) and every module under ``src/``."""
    return sorted(
        [*root.glob("rules/**/*.smk"), *root.glob("tests/**/*.smk"), *root.glob("src/**/*.py")]
    )


def oversized(
    paths: Iterable[Path], root: Path, limits: Mapping[str, int] = LIMITS
) -> dict[str, int]:
    """``{path relative to root: lines}`` of the files longer than their kind's limit."""
    found = {}
    for path in paths:
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limits[path.suffix]:
            found[path.relative_to(root).as_posix()] = lines
    return found


def test_no_file_over_its_limit() -> None:
    found = oversized(sized_files(), ROOT)
    assert found == {}, f"over {LIMITS} lines (split them by what they serve): {found}"


def test_the_check_names_each_offender(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "rules" / "long.smk").write_text("rule a:\n" * 401)
    (tmp_path / "rules" / "short.smk").write_text("rule a:\n" * 400)
    (tmp_path / "src" / "pkg" / "long.py").write_text("x = 1\n" * 501)
    (tmp_path / "src" / "pkg" / "short.py").write_text("x = 1\n" * 500)
    found = oversized(sized_files(tmp_path), tmp_path)
    assert found == {"rules/long.smk": 401, "src/pkg/long.py": 501}
