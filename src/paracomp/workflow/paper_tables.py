"""The papers' generic tables (config ``papers.<paper>.tables``), their findings and overviews
(``rules/tables.smk``): each table's config, models and statistics, and the compare and
replicates files the claims read."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from paracomp.registration import Registrations
from paracomp.tables.claims import Claim, tables_of
from paracomp.workflow.models import Models

EVALUATED = ("sts.csv", "pairs.parquet")
"""The evaluation files a generic table reads of each of its models."""


@dataclass(frozen=True)
class PaperTables:
    """The papers' config blocks, their models, registrations and claims
    (paracomp.tables.claims), and their runs' seed replicates (paper -> run -> seed -> the
    replicate run, :func:`paracomp.train.replicates.expand_blocks`)."""

    blocks: Mapping[str, Mapping[str, Any]]
    models: Models
    registrations: Registrations
    claims: Mapping[str, list[Claim]]
    replicates: Mapping[str, Mapping[str, Mapping[int, str]]]

    def spec(self, paper: str, table: str) -> dict[str, Any]:
        """A table's config, a column whose pretrained model cannot be built here left empty
        with the reason."""
        try:
            spec = self.blocks[paper]["tables"][table]
        except KeyError:
            raise ValueError(f"config has no papers.{paper}.tables.{table}") from None
        columns = {name: self.column_here(column) for name, column in spec["columns"].items()}
        return {**spec, "columns": columns}

    def column_here(self, column: Mapping[str, Any]) -> Mapping[str, Any]:
        """A table column, or its empty stand-in naming what its pretrained model lacks."""
        model = self.models.pretrained.get(column.get("model"))
        reason = (
            None if model is None else self.models.sources.embeddings_missing(model["embeddings"])
        )
        return column if reason is None else {"reason": reason}

    def generic(self, paper: str) -> list[str]:
        """``paper``'s tables the generic rule builds (not its registered custom tables)."""
        custom = self.registrations[paper].custom_tables
        return [t for t in self.blocks[paper].get("tables", {}) if t not in custom]

    def table_models(self, paper: str, table: str) -> list[str]:
        """The models of a table's columns and their seed replicates, a paper's runs as
        ``<paper>/<run>``."""
        names = self._column_models(paper, table)
        seeds = {r for n in names for r in self.replicates.get(paper, {}).get(n, {}).values()}
        return sorted({self.models.model_of(paper, n) for n in names | seeds})

    def _column_models(self, paper: str, table: str) -> set[str]:
        return {c["model"] for c in self.spec(paper, table)["columns"].values() if c.get("model")}

    def replicate_args(self, paper: str, table: str) -> str:
        """``--replicate model:seed=results/eval/<paper>/<run> …`` of the table's runs with
        seed replicates ("" if none)."""
        groups = self.replicates.get(paper, {})
        found = [
            f"{m}:{seed}=results/eval/{paper}/{run}"
            for m in sorted(self._column_models(paper, table) & set(groups))
            for seed, run in groups[m].items()
        ]
        return " ".join(["--replicate", *map(shlex.quote, found)]) if found else ""

    def stats(self, paper: str, table: str) -> list[str]:
        """The statistics file of a table whose columns read one, else nothing."""
        if any(c.get("stat") for c in self.spec(paper, table)["columns"].values()):
            return [f"results/{paper}/stats/{table}.json"]
        return []

    def targets(self, paper: str) -> list[str]:
        """Every table of ``paper`` and its registered extras."""
        tables = self.blocks[paper].get("tables", {})
        return [f"results/{paper}/{t}.csv" for t in tables] + list(self.registrations[paper].extras)

    def inputs(self, paper: str, table: str) -> list[str]:
        """The evaluation files of a table's models, and its statistics."""
        models = self.table_models(paper, table)
        evals = [f"results/eval/{model}/{name}" for model in models for name in EVALUATED]
        return evals + self.stats(paper, table)

    def eval_args(self, paper: str, table: str) -> list[str]:
        """``model=evaluation folder`` of a table's models."""
        models = sorted(self._column_models(paper, table))
        return [f"{m}=results/eval/{self.models.model_of(paper, m)}" for m in models]

    def compare_files(self, paper: str, tables: Iterable[str]) -> dict[str, str]:
        """The compare file of each of ``paper``'s ``tables``."""
        return {table: f"results/{paper}/{table}.compare.csv" for table in tables}

    def replicates_files(self, paper: str, tables: Iterable[str]) -> dict[str, str]:
        """The bootstrap replicates of each of ``paper``'s ``tables`` that has them (the
        generic tables and the paper's registered ``replicate_tables``)."""
        found = set(self.generic(paper)) | set(self.registrations[paper].replicate_tables)
        return {t: f"results/{paper}/{t}.replicates.parquet" for t in tables if t in found}

    def claimed(self, paper: str) -> list[str]:
        """The tables ``paper``'s claims read."""
        return tables_of(self.claims[paper])

    def findings_compare_args(self, paper: str) -> list[str]:
        compare = self.compare_files(paper, self.claimed(paper))
        return [f"{table}={path}" for table, path in compare.items()]

    def findings_replicates_args(self, paper: str) -> str:
        """``--replicates table=path …`` for the claimed tables with replicates ("" if none)."""
        return self._replicates_args(paper, self.claimed(paper))

    def overview_compare_args(self, paper: str) -> list[str]:
        compare = self.compare_files(paper, self.blocks[paper]["tables"])
        return [f"{table}={path}" for table, path in compare.items()]

    def overview_replicates_args(self, paper: str) -> str:
        """``--replicates table=path …`` for every table of ``paper`` with replicates."""
        return self._replicates_args(paper, self.blocks[paper]["tables"])

    def _replicates_args(self, paper: str, tables: Iterable[str]) -> str:
        found = self.replicates_files(paper, tables)
        if not found:
            return ""
        return " ".join(["--replicates", *(shlex.quote(f"{t}={p}") for t, p in found.items())])

    def spec_json(self, paper: str, table: str) -> str:
        return json.dumps(self.spec(paper, table))
