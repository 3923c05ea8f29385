"""``paracomp table``: a paper table built from model evaluations and statistics;
``paracomp findings``: a paper's claims checked on its tables; ``paracomp overview``: how far
its tables are from print, and its findings; ``paracomp leaderboard``: every model on the
evaluator's sets."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def _table(args: argparse.Namespace) -> None:
    from paracomp.arguments import key_values, seeded_paths
    from paracomp.registry import printed_table, row_refs
    from paracomp.settings import TABLE_SCHEMA, parse, ref
    from paracomp.tables.write import write_table

    stats = json.loads(Path(args.stats).read_text()) if args.stats else None
    where = f"table {args.paper} {args.table} --spec"
    spec = parse(args.spec, ref(TABLE_SCHEMA, "/$defs/table"), where, TABLE_SCHEMA)
    write_table(
        printed_table(args.paper, args.table),
        row_refs(args.paper, args.table),
        spec,
        {k: Path(v) for k, v in key_values(args.eval).items()},
        Path(args.out),
        stats,
        seeded_paths(args.replicate, "--replicate"),
    )


def _findings(args: argparse.Namespace) -> None:
    from paracomp.arguments import key_values
    from paracomp.tables.claims import read_claims
    from paracomp.tables.findings import findings, write_findings

    claims = read_claims(Path(args.claims))
    compare = {k: Path(v) for k, v in key_values(args.compare).items()}
    replicates = {k: Path(v) for k, v in key_values(args.replicates).items()}
    rows = findings(claims, compare, replicates)
    write_findings(rows, Path(args.out), Path(args.markdown), args.title)


def _overview(args: argparse.Namespace) -> None:
    from paracomp.arguments import key_values
    from paracomp.tables.overview import write_overview

    compare = {k: Path(v) for k, v in key_values(args.compare).items()}
    replicates = {k: Path(v) for k, v in key_values(args.replicates).items()}
    paths = (Path(args.findings), Path(args.out), Path(args.markdown), Path(args.html))
    write_overview(args.paper, compare, replicates, *paths)


def _leaderboard(args: argparse.Namespace) -> None:
    from paracomp.tables.leaderboard import read_entries, write_leaderboard

    write_leaderboard(
        read_entries(args.models), args.sts_sets, args.wordsim_sets,
        Path(args.out), Path(args.markdown), Path(args.plot),
    )  # fmt: skip


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("table", help="build a paper table, its compare file and markdown")
    p.add_argument("paper", help="the paper's key")
    p.add_argument("table", help="the table's name (table3, …)")
    p.add_argument(
        "--spec", required=True, help="the table's config entry as JSON (columns, aggregation)"
    )
    p.add_argument(
        "--eval",
        nargs="*",
        default=[],
        metavar="MODEL=DIR",
        help="each model's evaluation folder (results/eval/<model>)",
    )
    p.add_argument(
        "--replicate",
        nargs="*",
        default=[],
        metavar="MODEL:SEED=DIR",
        help="a seed replicate's evaluation folder: the model's cells are the mean over its seeds",
    )
    p.add_argument("--stats", help="statistics JSON for columns with `stat`")
    p.add_argument(
        "--out", required=True, help="table CSV; .compare.csv and .md are written beside"
    )
    p.set_defaults(func=_table)
    p = sub.add_parser("findings", help="a paper's claims checked on its tables' compare files")
    p.add_argument("--claims", required=True, help="the paper's findings.yaml")
    p.add_argument(
        "--compare",
        nargs="*",
        default=[],
        metavar="TABLE=COMPARE_CSV",
        help="each table's compare file",
    )
    p.add_argument(
        "--replicates",
        nargs="*",
        default=[],
        metavar="TABLE=PARQUET",
        help="the tables' bootstrap replicates (P(holds) and the three-way verdict)",
    )
    p.add_argument("--title", required=True, help="the markdown's title (the paper)")
    p.add_argument("--out", required=True, help="findings CSV")
    p.add_argument("--markdown", required=True, help="findings markdown")
    p.set_defaults(func=_findings)
    p = sub.add_parser("overview", help="a paper's tables against print, and its findings")
    p.add_argument("paper", help="the paper's key")
    p.add_argument(
        "--compare",
        nargs="*",
        default=[],
        metavar="TABLE=COMPARE_CSV",
        help="each table's compare file",
    )
    p.add_argument(
        "--replicates",
        nargs="*",
        default=[],
        metavar="TABLE=PARQUET",
        help="the tables' bootstrap replicates (the interval of each mean |ours − paper|)",
    )
    p.add_argument("--findings", required=True, help="the paper's findings.csv")
    p.add_argument("--out", required=True, help="overview CSV (one row per table)")
    p.add_argument("--markdown", required=True, help="overview markdown")
    p.add_argument("--html", required=True, help="overview page (tables and every finding)")
    p.set_defaults(func=_overview)
    p = sub.add_parser("leaderboard", help="every model on the evaluator's sets, one table")
    p.add_argument(
        "--models", required=True,
        help="JSON {model: {paper, eval (evaluation folder or null), note, composition}}",
    )  # fmt: skip
    p.add_argument("--sts-sets", nargs="*", default=[], help="sentence-pair sets, in order")
    p.add_argument("--wordsim-sets", nargs="*", default=[], help="word sets, in order")
    p.add_argument("--out", required=True, help="leaderboard CSV")
    p.add_argument("--markdown", required=True, help="leaderboard markdown")
    p.add_argument("--plot", required=True, help="leaderboard bar plot (PNG)")
    p.set_defaults(func=_leaderboard)
