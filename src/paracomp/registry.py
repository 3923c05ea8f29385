"""The registry of the papers: each paper's settings (``settings.yaml``, the embedded
default, and ``published.yaml``, the paper's own data, grids and devices on top of them;
:func:`paper_settings`), the schema they and a user's ``papers.<paper>`` block are checked
against (``config.schema.yaml``), the numbers printed in its tables (``printed.yaml``, for the
compare files only) and, where its table rows are evaluation subsets, ``layout.yaml``: the data
files of the paper packages, read by key of :data:`paracomp.papers.PAPERS`.

It imports no paper package (building the workflow's DAG reads it) and sits below every stage
that needs a paper's data (the command line, the catalogue, the tables).
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping, Sequence
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

from paracomp.errors import ConfigError
from paracomp.papers import PAPERS
from paracomp.tables.layout import GroupRef, LeafRef, parse_rows
from paracomp.tables.printed import PrintedTable, parse_printed
from paracomp.yamltext import safe_load


def check_paper(paper: str) -> str:
    if paper not in PAPERS:
        raise ConfigError(f"unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    return paper


def resource(paper: str, name: str) -> Traversable:
    """A data file of a paper's package (``printed.yaml``, ``layout.yaml``, …)."""
    return files("paracomp.papers").joinpath(check_paper(paper), name)


SETTINGS = ("default", "published")
"""The settings a paper runs with (config ``settings``): the embedded default, or the paper's
own ``published.yaml`` on top of it."""


def merged(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` on top of ``base`` as Snakemake merges config files: mappings key by key
    (``base``'s keys first, in order), anything else (lists included) replaced."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


def configured(runs: Mapping[str, Any] | None) -> dict[str, Any]:
    """A paper's runs, less those set to null: config files merge key by key and cannot
    delete one, so a user's override leaves a run out by setting it to null."""
    return {run: spec for run, spec in (runs or {}).items() if spec is not None}


@cache
def _settings_file(paper: str, name: str) -> dict[str, Any]:
    return safe_load(resource(paper, f"{name}.yaml").read_text()) or {}


def paper_settings(
    paper: str, settings: str = "default", override: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``paper``'s config block: its ``settings.yaml``, then its ``published.yaml`` where
    ``settings`` is ``"published"``, then ``override`` (a user's ``papers.<paper>``)."""
    if settings not in SETTINGS:
        raise ConfigError(f"settings: unknown {settings!r}; expected one of {SETTINGS}")
    block = _settings_file(check_paper(paper), "settings")
    if settings == "published":
        block = merged(block, _settings_file(paper, "published"))
    return copy.deepcopy(merged(block, override or {}))


def schema_path(paper: str) -> str:
    """The file of the JSON schema of ``paper``'s config block."""
    return str(resource(paper, "config.schema.yaml"))


def block_argument(paper: str, text: str, keys: Sequence[str], where: str) -> dict[str, Any]:
    """A command's JSON argument ``text`` holding ``keys`` of ``paper``'s config block
    (:func:`paracomp.settings.pick`), checked against the paper's schema; an unknown key, a
    wrong type or a missing key is a :class:`ConfigError` naming ``where`` and the key."""
    from paracomp.settings import load, parse, pick

    path = schema_path(paper)
    return parse(text, pick(load(path), keys), where, path)


@cache
def printed_tables(paper: str) -> dict[str, PrintedTable]:
    """Every printed table of ``paper``, keyed ``table3`` etc."""
    return parse_printed(paper, resource(paper, "printed.yaml").read_text())


def printed_table(paper: str, table: str) -> PrintedTable:
    tables = printed_tables(paper)
    if table not in tables:
        raise ConfigError(f"paper {paper!r} has no table {table!r}; it has {sorted(tables)}")
    return tables[table]


def check_generic_tables(
    paper: str, tables: Mapping[str, Mapping[str, Any]], models: Collection[str] | None = None
) -> None:
    """The tables of ``paper``'s config block that the generic table rule builds: each one of
    its printed tables, each column one of that table's printed columns, each ``stat`` one
    of them too (statistics files key their values by column), each ``model`` one of
    ``models`` where given (the paper's runs and the config's pretrained models); else a
    :class:`ConfigError` naming the key and the valid names."""
    printed = printed_tables(paper)
    for table, spec in tables.items():
        where = f"papers.{paper}.tables.{table}"
        if table not in printed:
            raise ConfigError(f"{where}: {paper} has no table {table!r}; it has {sorted(printed)}")
        columns = printed[table].columns
        for column, entry in spec["columns"].items():
            if column not in columns:
                raise ConfigError(
                    f"{where}.columns.{column}: not a column of {table}; its columns: {columns}"
                )
            model = entry.get("model")
            if models is not None and model is not None and model not in models:
                raise ConfigError(
                    f"{where}.columns.{column}.model: {model!r} is neither a run of {paper} nor "
                    f"a model of config `models`; known: {sorted(models)}"
                )
            if "stat" in entry and entry["stat"] not in columns:
                raise ConfigError(
                    f"{where}.columns.{column}.stat: {entry['stat']!r} is not a statistic of "
                    f"{table}; its statistics: {columns}"
                )


@cache
def _layout(paper: str) -> dict:
    found = resource(paper, "layout.yaml")
    return safe_load(found.read_text()) if found.is_file() else {}


def row_refs(paper: str, table: str) -> dict[str, LeafRef | GroupRef]:
    """The evaluation subsets each row of ``paper``'s ``table`` is computed from."""
    return parse_rows(_layout(paper), table)
