"""Replacement checksums for a stand-in mirror (a cut-down copy of the releases, as the
end-to-end test's miniature mirror): ``$PARACOMP_CHECKSUM_OVERRIDE`` names a YAML file
``{dataset: {file: sha256}}`` whose values the fetch expects instead of the catalogue's for
those files. The comparison is unchanged (a file that differs from the override still fails),
every use is logged, and the fetched folder's manifest records the override.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from paracomp.errors import ConfigError
from paracomp.yamltext import safe_load

OVERRIDE_ENV = "PARACOMP_CHECKSUM_OVERRIDE"
_SHA256 = re.compile(r"[0-9a-f]{64}")
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Override:
    """The replacement sha256 of some catalogue files, read from ``path``."""

    path: Path
    sha256: dict[tuple[str, str], str]


def read_override(path: Path) -> Override:
    """Parse and check an override file: every dataset and file a catalogue one, every value
    a lowercase hex sha256; else a :class:`ConfigError` naming the file and the key."""
    from paracomp.data.catalog import load

    try:
        raw: Any = safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as err:
        raise ConfigError(
            f"checksum override {path} (${OVERRIDE_ENV}): unreadable: {err}"
        ) from None
    if not isinstance(raw, dict):
        raise ConfigError(f"checksum override {path}: expected a mapping dataset -> file -> sha256")
    catalog = load()
    sha256: dict[tuple[str, str], str] = {}
    for dataset, files in raw.items():
        if dataset not in catalog.datasets:
            raise ConfigError(f"checksum override {path}: {dataset!r} is not a catalogue dataset")
        if not isinstance(files, dict):
            raise ConfigError(f"checksum override {path}: {dataset}: expected file -> sha256")
        for file, value in files.items():
            key = f"{dataset}.{file}"
            if file not in catalog.datasets[dataset].files:
                known = sorted(catalog.datasets[dataset].files)
                raise ConfigError(
                    f"checksum override {path}: {key}: not a file of {dataset!r}; it has {known}"
                )
            if not isinstance(value, str) or not _SHA256.fullmatch(value):
                raise ConfigError(
                    f"checksum override {path}: {key}: {value!r} is not a lowercase hex sha256"
                )
            sha256[(dataset, file)] = value
    return Override(path, sha256)


def active() -> Override | None:
    """The override ``$PARACOMP_CHECKSUM_OVERRIDE`` names, or None when it is unset."""
    named = os.environ.get(OVERRIDE_ENV)
    return read_override(Path(named).resolve()) if named else None


def expected_sha256(
    override: Override | None, dataset: str, file: str, catalogue: str | None
) -> str | None:
    """The sha256 a fetched ``file`` of ``dataset`` must have: the override's where it names
    the file (logged), else the catalogue's."""
    if override is None or (dataset, file) not in override.sha256:
        return catalogue
    value = override.sha256[(dataset, file)]
    log.warning(
        "dataset %r, file %r: checksum override %s in force: expecting sha256 %s, not the "
        "catalogue's %s",
        dataset,
        file,
        override.path,
        value,
        catalogue,
    )
    return value


def provenance(override: Override | None, dataset: str) -> dict[str, Any]:
    """The manifest entry recording the override's use for ``dataset`` (empty if unused)."""
    if override is None:
        return {}
    files = sorted(f for d, f in override.sha256 if d == dataset)
    return {"checksum_override": {"path": str(override.path), "files": files}} if files else {}
