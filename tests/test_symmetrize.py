"""grow-diag-final-and against hand-worked cases and a literal transcription of Koehn's
pseudocode; Pharaoh parsing and the flat alignment container."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from paracomp.align.symmetrize import (
    Alignments,
    format_pharaoh,
    grow_diag_final_and,
    parse_pharaoh,
    read_pharaoh,
    symmetrize_corpus,
    write_pharaoh,
)
from paracomp.errors import DataError

NEIGHBOURS = [(-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)]


def koehn_gdfa(e2f: set, f2e: set, len_e: int, len_f: int) -> list[tuple[int, int]]:
    """GROW-DIAG-FINAL-AND as Koehn's pseudocode (Moses manual) writes it, over Python sets."""
    alignment = e2f & f2e
    union = e2f | f2e
    aligned_e = {i for i, _ in alignment}
    aligned_f = {j for _, j in alignment}

    def add(i: int, j: int) -> None:
        alignment.add((i, j))
        aligned_e.add(i)
        aligned_f.add(j)

    added = True
    while added:
        added = False
        for i in range(len_e):
            for j in range(len_f):
                if (i, j) not in alignment:
                    continue
                for di, dj in NEIGHBOURS:
                    ni, nj = i + di, j + dj
                    if (ni, nj) in union and (ni not in aligned_e or nj not in aligned_f):
                        add(ni, nj)
                        added = True
    for direction in (e2f, f2e):
        for i in range(len_e):
            for j in range(len_f):
                if (i, j) in direction and i not in aligned_e and j not in aligned_f:
                    add(i, j)
    return sorted(alignment)


def test_grow_adds_a_diagonal_neighbour() -> None:
    # English rows 0..3, foreign columns 0..1; I = both directions, e = e2f only.
    #        f0 f1
    #   e0 [ I  . ]
    #   e1 [ .  e ]
    #   e2 [ .  . ]
    #   e3 [ .  I ]
    # Intersection {(0,0), (3,1)}. Sweeping (0,0): (1,0) and (0,1) are not in the union;
    # its diagonal neighbour (1,1) is, and e1 is unaligned -> added although f1 is aligned.
    # (1,1) and (3,1) have no further union neighbours. FINAL-AND would not have added
    # (1,1) (f1 was aligned), so only the diagonal step explains it.
    e2f = [(0, 0), (1, 1), (3, 1)]
    f2e = [(0, 0), (3, 1)]
    assert grow_diag_final_and(e2f, f2e, 4, 2) == [(0, 0), (1, 1), (3, 1)]


def test_final_and_adds_a_point_with_both_words_unaligned() -> None:
    #        f0 f1 f2
    #   e0 [ I  .  . ]
    #   e1 [ .  .  . ]
    #   e2 [ .  .  e ]
    # Intersection {(0,0)}; (2,2) is not a neighbour of (0,0), so GROW adds nothing.
    # FINAL-AND over e2f: (2,2) has e2 and f2 unaligned -> added.
    assert grow_diag_final_and([(0, 0), (2, 2)], [(0, 0)], 3, 3) == [(0, 0), (2, 2)]


def test_final_and_skips_a_point_with_one_word_aligned() -> None:
    #        f0 f1 f2
    #   e0 [ I  .  . ]
    #   e1 [ .  .  . ]
    #   e2 [ f  .  . ]
    # (2,0) is two rows below (0,0), so GROW cannot reach it; FINAL-AND: e2 is unaligned
    # but f0 is aligned -> not added (plain FINAL would add it).
    assert grow_diag_final_and([(0, 0)], [(0, 0), (2, 0)], 3, 3) == [(0, 0)]


def test_final_and_visits_e2f_before_f2e() -> None:
    #        f0 f1 f2
    #   e0 [ I  .  . ]
    #   e1 [ .  .  e ]
    #   e2 [ .  .  f ]
    # GROW from (0,0) finds no union neighbour. FINAL-AND over e2f adds (1,2) (e1, f2
    # unaligned); over f2e, (2,2) now has f2 aligned -> skipped. Taking f2e first would
    # have kept (2,2) instead.
    e2f = [(0, 0), (1, 2)]
    f2e = [(0, 0), (2, 2)]
    assert grow_diag_final_and(e2f, f2e, 3, 3) == [(0, 0), (1, 2)]


def test_grow_sweeps_in_english_then_foreign_order() -> None:
    #        f0 f1
    #   e0 [ e  I ]
    #   e1 [ .  . ]
    #   e2 [ f  I ]
    # Intersection {(0,1), (2,1)}: e0, e2 and f1 aligned, f0 not. (0,0) and (2,0) compete for
    # f0. The sweep reaches (0,1) first; its neighbour (0,-1) -> (0,0) joins, aligning f0;
    # at (2,1), (2,0) links two aligned words -> skipped, and FINAL-AND skips it too.
    e2f = [(0, 0), (0, 1), (2, 1)]
    f2e = [(0, 1), (2, 0), (2, 1)]
    assert grow_diag_final_and(e2f, f2e, 3, 2) == [(0, 0), (0, 1), (2, 1)]


def random_directional(rng: random.Random, len_e: int, len_f: int, by_e: bool) -> set:
    """A random alignment with at most one link per English (``by_e``) or foreign word."""
    links = set()
    for k in range(len_e if by_e else len_f):
        if rng.random() < 0.8:
            other_len = len_f if by_e else len_e
            centre = k * other_len / (len_e if by_e else len_f)
            other = min(other_len - 1, max(0, round(centre + rng.gauss(0, 1.5))))
            links.add((k, other) if by_e else (other, k))
    return links


def test_matches_koehn_pseudocode_on_random_alignments() -> None:
    rng = random.Random(20160612)
    cases = []
    for _ in range(300):
        len_e, len_f = rng.randint(1, 30), rng.randint(1, 30)
        e2f = random_directional(rng, len_e, len_f, by_e=True)
        f2e = random_directional(rng, len_e, len_f, by_e=False)
        cases.append((e2f, f2e, len_e, len_f))
    expected = [koehn_gdfa(set(a), set(b), m, n) for a, b, m, n in cases]
    assert [grow_diag_final_and(*case) for case in cases] == expected
    corpus = symmetrize_corpus(
        Alignments.from_links([c[0] for c in cases]),
        Alignments.from_links([c[1] for c in cases]),
        np.array([c[2] for c in cases]),
        np.array([c[3] for c in cases]),
    )
    assert [corpus.links(k) for k in range(len(cases))] == expected


def test_links_outside_the_sentence_are_rejected() -> None:
    with pytest.raises(DataError, match="sentence 0: link 2-0"):
        grow_diag_final_and([(2, 0)], [], 2, 2)


def test_pharaoh_parsing_and_formatting() -> None:
    assert parse_pharaoh(" 0-1  2-0 ") == [(0, 1), (2, 0)]
    assert parse_pharaoh("") == []
    assert format_pharaoh([(2, 0), (0, 1), (0, 1)]) == "0-1 2-0"
    for bad in ("0-1 2", "0:1", "-1-2", "0-1-2"):
        with pytest.raises(DataError, match="line 3"):
            parse_pharaoh(bad, where="line 3")


def test_alignments_sort_deduplicate_and_round_trip(tmp_path: Path) -> None:
    lines = ["2-2 0-1 0-1 1-0", "", "0-0"]
    alignments = Alignments.from_pharaoh(lines)
    assert alignments.to_pharaoh() == ["0-1 1-0 2-2", "", "0-0"]
    assert alignments.slice(1, 3).to_pharaoh() == ["", "0-0"]
    path = tmp_path / "a.txt"
    write_pharaoh(path, alignments)
    assert read_pharaoh(path).to_pharaoh() == alignments.to_pharaoh()
    path.write_text("0-0\n0-x\n")
    with pytest.raises(DataError, match=r"a\.txt, line 2"):
        read_pharaoh(path)
