"""Fixtures of wieting2015's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def paragram_run() -> dict:
    """The run settings of wieting2015's PARAGRAM word runs, as config.yaml configures them."""
    import yaml

    config = yaml.safe_load((REPO / "config.yaml").read_text())
    return dict(config["papers"]["wieting2015"]["words"]["run"])
