"""Where each dataset, evaluation set and set of pretrained vectors is fetched from: the first
configured source (mirror, registry, upstream) that provides it, and the folder it lands in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from paracomp.data.catalog import (
    Catalog,
    choose_embeddings_source,
    choose_source,
    dataset_source,
)


def fetched_folder(source: str, name: str) -> str:
    """Where a registry package or a mirror/upstream dataset is fetched to."""
    if source == "registry":
        return f"resources/packages/{name}"
    return f"resources/{source}/{name}"


@dataclass(frozen=True)
class Sources:
    """The configured ``sources`` in order, the mirror, the catalogue, and the embeddings the
    papers' rules build -> the raw datasets they need."""

    order: Sequence[str]
    mirror: Path | None
    catalog: Catalog
    built: Mapping[str, Sequence[str]]

    def _none_provides(self) -> str:
        return f"no source in {', '.join(self.order)} provides"

    def set_source(self, name: str) -> str | None:
        """The source that provides evaluation set ``name``, or None."""
        return choose_source(self.catalog.set(name), list(self.order), self.mirror, self.catalog)

    def set_folder(self, name: str) -> str:
        """The fetched folder evaluation set ``name`` is parsed from."""
        source = self.set_source(name)
        if source is None:
            raise ValueError(f"no source in {list(self.order)} provides evaluation set {name!r}")
        entry = self.catalog.set(name).sources[source]
        return fetched_folder(source, entry["package" if source == "registry" else "dataset"])

    def embeddings_source(self, name: str) -> str:
        """The source that provides pretrained vectors ``name``."""
        return choose_embeddings_source(name, list(self.order), self.mirror, self.catalog)

    def embeddings_folder(self, name: str) -> str:
        """The fetched folder pretrained vectors ``name`` are read from."""
        source = self.embeddings_source(name)
        spec = self.catalog.embeddings[name]
        if source == "registry":
            return fetched_folder(source, spec["registry"]["package"])
        return fetched_folder(source, spec["dataset"]["name"])

    def dataset_folder(self, name: str) -> str | None:
        """The fetched folder of raw dataset ``name`` (mirror or upstream), or None."""
        source = dataset_source(name, list(self.order), self.mirror, self.catalog)
        return None if source is None else fetched_folder(source, name)

    def required_dataset(self, name: str, key: str) -> str:
        """The fetched folder of raw dataset ``name``, which config key ``key`` selects (a
        mirror copy where a mirror holds it, else its upstream release, as ``sources`` orders
        them)."""
        folder = self.dataset_folder(name)
        if folder is None:
            raise ValueError(
                f"{key} needs dataset {name}: {self._none_provides()} it (add upstream to "
                "sources, or a mirror holding it)"
            )
        return folder

    def embeddings_missing(self, name: str) -> str | None:
        """Why the embeddings ``name`` cannot be built here (a paper's rules build them and a
        raw dataset they need has no configured source), else None."""
        missing = [d for d in self.built.get(name, ()) if self.dataset_folder(d) is None]
        if not missing:
            return None
        return f"{name} needs {', '.join(missing)}: {self._none_provides()} it"

    def available(self, sets: Sequence[str]) -> list[str]:
        """The ``sets`` some source provides."""
        return [s for s in sets if self.set_source(s) is not None]

    def set_paths(self, sets: Sequence[str]) -> list[str]:
        """The parsed-set artefacts of the ``sets`` some source provides."""
        return [f"resources/sets/{s}.parquet" for s in self.available(sets)]

    def tokenised_set_paths(self, sets: Sequence[str]) -> list[str]:
        """The tokenised artefacts (rule ``tokenise_set``, the evaluation's tokenizer) of the
        sentence-pair ``sets`` some source provides: scored by every model without
        tokenising them again (paracomp.eval.tokens.tokenisation)."""
        return [f"resources/sets/tokens/{s}.parquet" for s in self.available(sets)]

    def set_args(self, sets: Sequence[str]) -> list[str]:
        """``set=path`` arguments of the ``sets`` some source provides."""
        return [f"{s}=resources/sets/{s}.parquet" for s in self.available(sets)]

    def unavailable(self, sets: Sequence[str]) -> list[str]:
        """``set=reason`` arguments for the ``sets`` no configured source provides."""
        return [
            f"{s}={self._none_provides()} it "
            f"(catalogue sources: {', '.join(self.catalog.set(s).sources)})"
            for s in sets
            if self.set_source(s) is None
        ]
