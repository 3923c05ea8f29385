"""What a paper's rules file hands the generic rules: one typed :class:`Registration` per paper,
kept in :class:`Registrations` and checked when the workflow's DAG is built.

The generic rules read the registrations only through :class:`Registrations`, which refuses
a read of all papers' registrations before every paper has registered (naming the rules files
still to come), a paper's own before it has registered, and a registration with a wrong field
(naming the paper and the field), so no include order is silent. Importing this module imports no torch.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from importlib.util import find_spec
from types import ModuleType
from typing import Any

from paracomp.errors import ConfigError
from paracomp.train.grid import ScoredGrid

Built = dict[str, tuple[str, ...]]
"""Embeddings by name -> the raw datasets they are built from."""
Models = Mapping[str, Mapping[str, Any]]
"""Leaderboard models by name ``<paper>/<name>``."""

_POINT_METHODS = tuple(name for name in vars(ScoredGrid) if name.startswith("point_"))


@dataclass(frozen=True)
class Registration:
    """A paper's part of the generic rules. ``run_data``/``tuning_data``: a run's ``data`` name
    -> the training set / tuning subset artefact its generic runs read; ``run_init``: a run's
    name -> the embeddings artefact its word rows start from (``--init``), or None (random
    rows); ``points``: its runs
    whose grid points the generic rule ``point`` trains and the paper scores; ``leaderboard``:
    its models beyond its generic runs, ``<paper>/<name>`` -> entry (``run`` folder with an
    optional ``fallback`` and ``record``: the file its job writes last, where the folder's
    files are no rule's outputs, as a scored grid point's; ``embeddings``; or a ``note``), or a
    function giving them once every
    paper has registered (entries that depend on embeddings other papers build);
    ``custom_tables``: its tables built
    by its own rules (the others by the generic table rule); ``replicate_tables``: those of
    them that write ``<table>.replicates.parquet`` (the bootstrap replicates ``findings``
    reads); ``extras``: further outputs of its
    named target (plots, reports). The embeddings a paper's rules build are not registered
    here but declared by its package (:func:`built_embeddings`): other papers' registrations
    depend on them."""

    paper: str
    run_data: Callable[[str], str] | None = None
    tuning_data: Callable[[str], str] | None = None
    run_init: Callable[[str], str | None] | None = None
    points: ScoredGrid | None = None
    leaderboard: Models | Callable[[], Models] = field(default_factory=dict)
    custom_tables: Collection[str] = frozenset()
    replicate_tables: Collection[str] = frozenset()
    extras: Sequence[str] = ()

    def __post_init__(self) -> None:
        for name in ("run_data", "tuning_data", "run_init"):
            value = getattr(self, name)
            if value is not None and not callable(value):
                self._refuse(name, f"expected a function of a name, got {value!r}")
        missing = [m for m in _POINT_METHODS if not callable(getattr(self.points, m, None))]
        if self.points is not None and missing:
            self._refuse("points", f"lacks {', '.join(missing)} (paracomp.train.grid.ScoredGrid)")
        if not callable(self.leaderboard):
            self.models()
        for name in ("custom_tables", "replicate_tables", "extras"):
            value = getattr(self, name)
            if isinstance(value, str) or not all(isinstance(v, str) for v in value):
                self._refuse(name, f"expected a collection of names, got {value!r}")

    def models(self) -> Models:
        """Its leaderboard models, each named ``<paper>/<name>`` with a mapping for entry."""
        models = self.leaderboard() if callable(self.leaderboard) else self.leaderboard
        foreign = [m for m in models if not m.startswith(f"{self.paper}/")]
        if foreign:
            self._refuse("leaderboard", f"model {foreign[0]!r} is not named {self.paper}/<name>")
        for model, entry in models.items():
            if not isinstance(entry, Mapping):
                self._refuse("leaderboard", f"{model}: expected a mapping, got {entry!r}")
        return models

    def _refuse(self, name: str, why: str) -> None:
        raise ConfigError(f"rules/papers/{self.paper}.smk: registration.{name}: {why}")


class Registrations:
    """Every paper's :class:`Registration`, by paper, in the order of ``papers``."""

    def __init__(self, papers: Sequence[str]):
        self.papers = tuple(papers)
        self._by_paper: dict[str, Registration] = {}

    def register(self, registration: Registration) -> Registration:
        """Keep ``registration``; a paper not in the list, or one registering twice, is an
        error naming its rules file."""
        paper = registration.paper
        if paper not in self.papers:
            raise ConfigError(f"registration of unknown paper {paper!r}; known: {self.papers}")
        if paper in self._by_paper:
            raise ConfigError(f"rules/papers/{paper}.smk: registered twice")
        self._by_paper[paper] = registration
        return registration

    def __getitem__(self, paper: str) -> Registration:
        """``paper``'s own registration (its rules read it once they have registered)."""
        if paper not in self._by_paper:
            raise ConfigError(f"rules/papers/{paper}.smk: read before it registered")
        return self._by_paper[paper]

    def all(self) -> list[Registration]:
        """Every registration, in the order of the papers."""
        self._check_complete()
        return [self._by_paper[paper] for paper in self.papers]

    def leaderboard(self) -> dict[str, Mapping[str, Any]]:
        """Every paper's registered leaderboard models."""
        return {model: entry for r in self.all() for model, entry in r.models().items()}

    def point_grids(self) -> dict[str, ScoredGrid]:
        """paper -> its scored grid, for the papers that register one."""
        return {r.paper: r.points for r in self.all() if r.points is not None}

    def _check_complete(self) -> None:
        missing = [p for p in self.papers if p not in self._by_paper]
        if missing:
            files = ", ".join(f"rules/papers/{p}.smk" for p in missing)
            raise ConfigError(
                f"a paper's registration was read before every paper registered: {files} "
                "must be included first (the generic rules read registrations after them)"
            )


def _workflow(paper: str) -> ModuleType | None:
    """``paper``'s ``workflow`` module, None where its package has none (a paper of the
    generic rules alone)."""
    name = f"paracomp.papers.{paper}.workflow"
    return import_module(name) if find_spec(name) is not None else None


def built_embeddings(papers: Sequence[str], blocks: Mapping[str, Mapping[str, Any]]) -> Built:
    """Embeddings some paper's rules build (``resources/embeddings/<name>.parquet``) -> the raw
    datasets they need, from each paper's ``workflow.built_embeddings(block)`` where it defines
    one: known before any paper's rules file is read, so no paper depends on another's include
    order. Two papers building the same embeddings from different datasets is an error naming
    both."""
    out: dict[str, tuple[str, ...]] = {}
    owner: dict[str, str] = {}
    for paper in papers:
        declare = getattr(_workflow(paper), "built_embeddings", None)
        for name, needs in (declare(blocks[paper]) if declare else {}).items():
            if isinstance(needs, str) or not all(isinstance(n, str) for n in needs):
                raise ConfigError(f"{paper}: built_embeddings: {name}: expected dataset names")
            if name in out and out[name] != tuple(needs):
                raise ConfigError(
                    f"embeddings {name!r} are built by {owner[name]} from {list(out[name])} "
                    f"and by {paper} from {list(needs)}"
                )
            out[name], owner[name] = tuple(needs), paper
    return out
