"""The miniature mirror holds every file the catalogue lists for the datasets the published
settings read, and the catalogue's real checksums reject its cut files."""

from __future__ import annotations

import pytest

from paracomp.data.catalog import load

pytestmark = pytest.mark.slow  # every test reads the miniature upstream mirror (~15 CPU-s to build)


def test_every_catalogue_file_is_laid_out(upstream_mirror):
    missing = [
        f"{name}/{file}"
        for name, dataset in load().datasets.items()
        for file in dataset.files
        if not (upstream_mirror.dataset(name) / file).is_file()
    ]
    assert missing == []
