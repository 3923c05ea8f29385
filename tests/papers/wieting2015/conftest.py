"""Fixtures of wieting2015's tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def paragram_run() -> dict:
    """The run settings of wieting2015's PARAGRAM word runs, as its settings give them."""
    from paracomp.registry import paper_settings

    return dict(paper_settings("wieting2015")["words"]["run"])
