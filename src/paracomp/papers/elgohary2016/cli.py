"""``paracomp elgohary2016 stats|plot``: Tables 2, 4 and 5 statistics, the Table 6 plot."""

from __future__ import annotations

import argparse
from pathlib import Path


def _paths(items: list[str]) -> dict[str, Path]:
    from paracomp.arguments import key_values

    return {k: Path(v) for k, v in key_values(items).items()}


def _stats(args: argparse.Namespace) -> None:
    from paracomp.papers.elgohary2016 import stats

    conditions = _paths(args.condition)
    if args.unavailable:
        result = stats.unavailable_stats(args.table, args.unavailable)
    elif args.kind == "filtering":
        result = stats.filtering_stats(
            conditions, _paths(args.filtered), _paths(args.eval), _paths(args.filtered_eval)
        )
    elif args.kind == "training":
        result = stats.training_set_stats(conditions)
    else:
        from paracomp.papers.elgohary2016.undertrained import undertrained_stats

        result = undertrained_stats(
            args.table,
            conditions,
            _paths(args.set),
            threshold=args.threshold,
            tokenizer=args.tokenizer,
            lowercase=args.lowercase,
        )
    stats.write_stats(Path(args.out), result)


def _plot(args: argparse.Namespace) -> None:
    from paracomp.papers.elgohary2016.plot import plot_training_size

    plot_training_size(Path(args.compare), Path(args.out))


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``elgohary2016`` and its steps."""
    parent = sub.add_parser("elgohary2016", help="Elgohary & Carpuat 2016: statistics, plots")
    steps = parent.add_subparsers(dest="step", required=True)

    p = steps.add_parser(
        "stats", help="training-set statistics: sizes and lengths, undertrained words, filtering"
    )
    p.add_argument(
        "kind",
        choices=["training", "undertrained", "filtering"],
        help="Table 2's training sets, the undertrained words, or Table 5's filtering",
    )
    p.add_argument(
        "--condition",
        nargs="*",
        default=[],
        metavar="NAME=PARQUET",
        help="each training condition's pairs",
    )
    p.add_argument(
        "--filtered",
        nargs="*",
        default=[],
        metavar="NAME=PARQUET",
        help="each filtered condition's pairs (Table 5)",
    )
    p.add_argument(
        "--eval",
        nargs="*",
        default=[],
        metavar="NAME=DIR",
        help="each condition's model evaluation folder",
    )
    p.add_argument(
        "--filtered-eval",
        nargs="*",
        default=[],
        metavar="NAME=DIR",
        help="each filtered condition's model evaluation folder",
    )
    p.add_argument("--unavailable", help="write empty cells with this reason")
    p.add_argument("--set", nargs="*", default=[], metavar="SET=PARQUET", help="test sets")
    p.add_argument("--table", default="table4", help="the table the statistics are for")
    p.add_argument(
        "--threshold",
        type=int,
        default=100,
        help="training count below which a word is undertrained",
    )
    p.add_argument("--tokenizer", choices=["moses", "whitespace"], help="(undertrained)")
    p.add_argument("--lowercase", action=argparse.BooleanOptionalAction, help="(undertrained)")
    p.add_argument("--out", required=True, help="the statistics file (CSV)")
    p.set_defaults(func=_stats)

    p = steps.add_parser("plot", help="plot Table 6 (score against training size)")
    p.add_argument("--compare", required=True, help="table6.compare.csv")
    p.add_argument("--out", required=True, help="PNG")
    p.set_defaults(func=_plot)
