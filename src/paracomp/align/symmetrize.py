"""Alignment containers, Pharaoh text I/O and grow-diag-final-and symmetrisation.

A link ``(i, j)`` joins English token ``i`` to foreign token ``j``; Pharaoh text writes it
``i-j``, English index first (Moses' own files put the foreign index first).

Symmetrisation follows Moses ``symal -alignment=grow -diagonal=yes -final=yes -both=yes``
(Koehn et al. 2003, GROW-DIAG-FINAL-AND) point for point:

* start from the intersection of the two directional alignments;
* GROW-DIAG: sweep the current points in (English, foreign) order, trying the neighbours
  (-1,0) (0,-1) (1,0) (0,1) (-1,-1) (-1,1) (1,-1) (1,1) of each; a neighbour in the union
  whose English or foreign word is still unaligned is added at once (so a point added
  later in the sweep order is visited in the same sweep); sweep again until nothing is added;
* FINAL-AND: for the points of ``e2f``, then those of ``f2e``, each in (English, foreign)
  order, add a point if its English and its foreign word are both still unaligned.

``e2f`` is Moses' ``giza.e-f`` alignment, from the model that generates the English side,
so that each English word has at most one link; FINAL-AND visits its points first. ``f2e``
is the other direction, each foreign word having at most one link. Inputs without that
property are accepted and treated as sets of links.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from paracomp.atomic import atomic_path
from paracomp.errors import DataError

Link = tuple[int, int]

_PHARAOH = re.compile(r"\s*(?:\d+-\d+(?:\s+\d+-\d+)*)?\s*")

_E2F, _F2E, _CURRENT = np.uint8(1), np.uint8(2), np.uint8(4)
_UNION = _E2F | _F2E
_NEIGHBOURS = np.array(
    [(-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)], dtype=np.int64
)


def parse_pharaoh(line: str, where: str = "alignment") -> list[Link]:
    """Parse ``"i-j i-j ..."`` into links; ``where`` names the line in error messages."""
    if not _PHARAOH.fullmatch(line):
        raise DataError(f"{where}: not a Pharaoh alignment ('i-j ...'): {line[:80]!r}")
    return [(int(i), int(j)) for i, j in (token.split("-") for token in line.split())]


def format_pharaoh(links: Iterable[Link]) -> str:
    """Links as a Pharaoh line, sorted and without duplicates."""
    return " ".join(f"{i}-{j}" for i, j in sorted(set(links)))


@dataclass(frozen=True)
class Alignments:
    """The links of many sentence pairs as flat arrays.

    Sentence ``k`` owns rows ``offsets[k]:offsets[k + 1]`` of ``e`` and ``f``, sorted by
    (e, f) without duplicates. Build instances with :meth:`from_links` or
    :meth:`from_pharaoh`, which establish that order.
    """

    offsets: np.ndarray
    e: np.ndarray
    f: np.ndarray

    @classmethod
    def from_links(cls, sentences: Sequence[Iterable[Link]]) -> Alignments:
        """From one iterable of ``(i, j)`` links per sentence."""
        sid: list[int] = []
        flat: list[int] = []
        for k, links in enumerate(sentences):
            for i, j in links:
                sid.append(k)
                flat += (i, j)
        pairs = np.array(flat, dtype=np.int64).reshape(-1, 2)
        return _canonical(len(sentences), np.array(sid, dtype=np.int64), pairs[:, 0], pairs[:, 1])

    @classmethod
    def from_pharaoh(cls, lines: Sequence[str], source: str = "<alignments>") -> Alignments:
        """From Pharaoh lines, one per sentence; errors name ``source`` and the line."""
        counts = np.empty(len(lines), dtype=np.int64)
        for k, line in enumerate(lines):
            if not _PHARAOH.fullmatch(line):
                raise DataError(f"{source}, line {k + 1}: not a Pharaoh alignment: {line[:80]!r}")
            counts[k] = line.count("-")
        numbers = np.array(" ".join(lines).replace("-", " ").split(), dtype=np.int64)
        sid = np.repeat(np.arange(len(lines), dtype=np.int64), counts)
        return _canonical(len(lines), sid, numbers[0::2], numbers[1::2])

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def links(self, k: int) -> list[Link]:
        """The sorted links of sentence ``k``."""
        lo, hi = self.offsets[k], self.offsets[k + 1]
        return list(zip(self.e[lo:hi].tolist(), self.f[lo:hi].tolist(), strict=True))

    def to_pharaoh(self) -> list[str]:
        """One Pharaoh line per sentence."""
        return [" ".join(f"{i}-{j}" for i, j in self.links(k)) for k in range(len(self))]

    def slice(self, start: int, stop: int) -> Alignments:
        """Sentences ``start:stop`` as a new container."""
        lo, hi = self.offsets[start], self.offsets[stop]
        return Alignments(self.offsets[start : stop + 1] - lo, self.e[lo:hi], self.f[lo:hi])

    def check_lengths(self, len_e: np.ndarray, len_f: np.ndarray) -> None:
        """Raise :class:`DataError` unless every link lies inside its sentence pair."""
        if len(len_e) != len(self) or len(len_f) != len(self):
            raise DataError(
                f"{len(self)} alignments but {len(len_e)} English and {len(len_f)} foreign "
                "sentences"
            )
        sid = np.repeat(np.arange(len(self)), np.diff(self.offsets))
        bad = np.flatnonzero((self.e >= len_e[sid]) | (self.f >= len_f[sid]))
        if bad.size:
            k, row = int(sid[bad[0]]), bad[0]
            raise DataError(
                f"sentence {k}: link {self.e[row]}-{self.f[row]} outside a pair of "
                f"{len_e[k]} English and {len_f[k]} foreign tokens"
            )


def _canonical(n: int, sid: np.ndarray, e: np.ndarray, f: np.ndarray) -> Alignments:
    """Sort links by (sentence, e, f), drop duplicates and build offsets."""
    if e.size and min(e.min(), f.min()) < 0:
        raise DataError("negative token index in an alignment")
    if e.size and max(e.max(), f.max()) > np.iinfo(np.int32).max:
        raise DataError("token index in an alignment exceeds the int32 range")
    order = np.lexsort((f, e, sid))
    sid, e, f = sid[order], e[order], f[order]
    keep = np.ones(sid.size, dtype=bool)
    keep[1:] = (np.diff(sid) != 0) | (np.diff(e) != 0) | (np.diff(f) != 0)
    sid, e, f = sid[keep], e[keep], f[keep]
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(sid, minlength=n), out=offsets[1:])
    return Alignments(offsets, e.astype(np.int32), f.astype(np.int32))


def read_pharaoh(path: str | os.PathLike[str]) -> Alignments:
    """Read a Pharaoh file, one line per sentence pair."""
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    return Alignments.from_pharaoh(lines, source=str(path))


def write_pharaoh(path: str | os.PathLike[str], alignments: Alignments) -> None:
    """Write one Pharaoh line per sentence pair, atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text("".join(line + "\n" for line in alignments.to_pharaoh()), encoding="utf-8")


def symmetrize_corpus(
    e2f: Alignments, f2e: Alignments, len_e: np.ndarray, len_f: np.ndarray
) -> Alignments:
    """GROW-DIAG-FINAL-AND of every sentence pair (see the module docstring)."""
    len_e = np.asarray(len_e, dtype=np.int64)
    len_f = np.asarray(len_f, dtype=np.int64)
    e2f.check_lengths(len_e, len_f)
    f2e.check_lengths(len_e, len_f)
    offsets, e, f = _gdfa_corpus(
        e2f.offsets, e2f.e, e2f.f, f2e.offsets, f2e.e, f2e.f, len_e, len_f, _NEIGHBOURS
    )
    return Alignments(offsets, e, f)


def grow_diag_final_and(
    e2f: Iterable[Link], f2e: Iterable[Link], len_e: int, len_f: int
) -> list[Link]:
    """GROW-DIAG-FINAL-AND of one sentence pair, as sorted links."""
    out = symmetrize_corpus(
        Alignments.from_links([list(e2f)]),
        Alignments.from_links([list(f2e)]),
        np.array([len_e]),
        np.array([len_f]),
    )
    return out.links(0)


@njit(cache=True)
def _gdfa_corpus(
    off1: np.ndarray,
    e1: np.ndarray,
    f1: np.ndarray,
    off2: np.ndarray,
    e2: np.ndarray,
    f2: np.ndarray,
    len_e: np.ndarray,
    len_f: np.ndarray,
    neighbours: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GROW-DIAG-FINAL-AND of every sentence: e2f links ``(off1, e1, f1)``, f2e links
    ``(off2, e2, f2)``; a matrix of flag bits (e2f, f2e, current) per sentence pair."""
    n = len_e.shape[0]
    max_e = max(1, len_e.max()) if n else 1
    max_f = max(1, len_f.max()) if n else 1
    grid = np.zeros((max_e, max_f), dtype=np.uint8)
    cov_e = np.zeros(max_e, dtype=np.bool_)
    cov_f = np.zeros(max_f, dtype=np.bool_)
    out_off = np.zeros(n + 1, dtype=np.int64)
    out_e = np.empty(e1.size + e2.size, dtype=np.int32)
    out_f = np.empty(e1.size + e2.size, dtype=np.int32)
    pos = 0
    for s in range(n):
        le, lf = len_e[s], len_f[s]
        cov_e[:le] = False
        cov_f[:lf] = False
        for k in range(off1[s], off1[s + 1]):
            grid[e1[k], f1[k]] |= _E2F
        for k in range(off2[s], off2[s + 1]):
            grid[e2[k], f2[k]] |= _F2E
        for k in range(off1[s], off1[s + 1]):
            i, j = e1[k], f1[k]
            if grid[i, j] & _F2E:
                grid[i, j] |= _CURRENT
                cov_e[i] = True
                cov_f[j] = True
        _grow_diag(grid, cov_e, cov_f, le, lf, neighbours)
        _final_and(grid, cov_e, cov_f, e1, f1, off1[s], off1[s + 1])
        _final_and(grid, cov_e, cov_f, e2, f2, off2[s], off2[s + 1])
        for i in range(le):
            for j in range(lf):
                if grid[i, j] & _CURRENT:
                    out_e[pos] = i
                    out_f[pos] = j
                    pos += 1
                grid[i, j] = 0
        out_off[s + 1] = pos
    return out_off, out_e[:pos].copy(), out_f[:pos].copy()


@njit(cache=True)
def _grow_diag(
    grid: np.ndarray,
    cov_e: np.ndarray,
    cov_f: np.ndarray,
    le: int,
    lf: int,
    neighbours: np.ndarray,
) -> None:
    added = True
    while added:
        added = False
        for i in range(le):
            for j in range(lf):
                if not grid[i, j] & _CURRENT:
                    continue
                for k in range(neighbours.shape[0]):
                    ni, nj = i + neighbours[k, 0], j + neighbours[k, 1]
                    if ni < 0 or nj < 0 or ni >= le or nj >= lf or not grid[ni, nj] & _UNION:
                        continue
                    if not (cov_e[ni] and cov_f[nj]):
                        grid[ni, nj] |= _CURRENT
                        cov_e[ni] = True
                        cov_f[nj] = True
                        added = True


@njit(cache=True)
def _final_and(
    grid: np.ndarray,
    cov_e: np.ndarray,
    cov_f: np.ndarray,
    es: np.ndarray,
    fs: np.ndarray,
    lo: int,
    hi: int,
) -> None:
    for k in range(lo, hi):
        i, j = es[k], fs[k]
        if not cov_e[i] and not cov_f[j]:
            grid[i, j] |= _CURRENT
            cov_e[i] = True
            cov_f[j] = True
