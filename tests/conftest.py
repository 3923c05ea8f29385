"""Shared fixtures: the data mirror (../shared/data or $PARACOMP_MIRROR)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def mirror() -> Path:
    path = Path(os.environ.get("PARACOMP_MIRROR", REPO.parent / "shared" / "data"))
    if not path.is_dir():
        pytest.skip(f"no data mirror at {path} (set PARACOMP_MIRROR)")
    return path
