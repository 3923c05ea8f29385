"""Word alignment with eflomal (PyPI ``eflomal==2.0.0``) in both directions.

eflomal seeds its samplers from ``/dev/urandom`` and has no seed option, so two runs give
different links: the pipeline caches the result as an artefact instead of recomputing it.
Links are Pharaoh strings ``"i-j ..."`` (parse them with
:func:`paracomp.align.symmetrize.parse_pharaoh`), ``i`` indexing the source token and ``j``
the target token in both directions. In ``forward`` every target token has at most one
link, in ``reverse`` every source token: with English as the source, ``reverse`` is Moses'
``e2f`` and ``forward`` its ``f2e``. eflomal lowercases tokens internally.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from paracomp.errors import DataError


@dataclass(frozen=True)
class Alignment:
    """Pharaoh link lines, one per sentence pair, for the two alignment directions."""

    forward: list[str]
    reverse: list[str]


def align(
    src: Sequence[str],
    trg: Sequence[str],
    *,
    model: int = 3,
    n_samplers: int = 3,
    rel_iterations: float = 1.0,
    null_prior: float = 0.2,
) -> Alignment:
    """Align tokenised, space-separated sentence pairs in both directions.

    ``model`` 1 = IBM1, 2 = +HMM, 3 = +fertility; ``rel_iterations`` scales eflomal's
    default number of sampling iterations (which shrinks with corpus size).
    """
    if len(src) != len(trg):
        raise DataError(f"cannot align {len(src)} source lines with {len(trg)} target lines")
    if any(not s.split() or not t.split() for s, t in zip(src, trg, strict=True)):
        raise DataError("empty sentence in alignment input (clean the corpus first)")
    from eflomal import Aligner  # optional dependency, compiled at install time

    aligner = Aligner(
        model=model, n_samplers=n_samplers, rel_iterations=rel_iterations, null_prior=null_prior
    )
    with tempfile.TemporaryDirectory(prefix="paracomp-eflomal-") as tmp:
        fwd, rev = Path(tmp) / "fwd", Path(tmp) / "rev"
        aligner.align(
            list(src), list(trg), links_filename_fwd=str(fwd), links_filename_rev=str(rev)
        )
        alignment = Alignment(_read_links(fwd), _read_links(rev))
    if len(alignment.forward) != len(src) or len(alignment.reverse) != len(src):
        raise DataError(f"eflomal returned {len(alignment.forward)} lines for {len(src)} pairs")
    return alignment


def _read_links(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()
