"""Phrase extraction against a by-definition oracle, counting, and phrase-table scoring on
hand-worked corpora."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pyarrow as pa
import pytest
from nltk.translate.phrase_based import phrase_extraction

from paracomp.align.symmetrize import Alignments
from paracomp.artefacts import PHRASE_TABLE
from paracomp.phrases.extract import PhraseCounter, extract_spans, phrase_spans
from paracomp.phrases.score import _moses_greater, build_phrase_table

Span = tuple[int, int, int, int]


def oracle_spans(links: list[tuple[int, int]], len_e: int, len_f: int, max_length: int) -> list:
    """Every span pair, both spans at most ``max_length`` long, that holds a link and has no
    link from inside either span to outside the other: the definition, by prefix sums."""
    matrix = np.zeros((len_e, len_f), dtype=np.int64)
    for i, j in links:
        matrix[i, j] = 1
    prefix = np.zeros((len_e + 1, len_f + 1), dtype=np.int64)
    prefix[1:, 1:] = matrix.cumsum(0).cumsum(1)

    def spans(n: int) -> np.ndarray:
        return np.array(
            [(a, b) for a in range(n) for b in range(a + 1, min(n, a + max_length) + 1)]
        ).reshape(-1, 2)

    e, f = spans(len_e), spans(len_f)
    es, ee = e[:, :1], e[:, 1:]
    fs, fe = f[:, 0][None], f[:, 1][None]
    block = prefix[ee, fe] - prefix[es, fe] - prefix[ee, fs] + prefix[es, fs]
    rows = prefix[ee, len_f] - prefix[es, len_f]
    cols = prefix[len_e, fe] - prefix[len_e, fs]
    ok = (block > 0) & (block == rows) & (block == cols)
    return sorted((*e[a], *f[b]) for a, b in zip(*np.nonzero(ok), strict=True))


def consistent(span: Span, links: list[tuple[int, int]]) -> bool:
    es, ee, fs, fe = span
    inside = [(es <= i < ee, fs <= j < fe) for i, j in links]
    return any(a and b for a, b in inside) and all(a == b for a, b in inside)


def random_alignment(rng: random.Random) -> tuple[list[tuple[int, int]], int, int]:
    """Lengths 1..30; near-diagonal many-to-many links or scattered ones, with gaps."""
    len_e, len_f = rng.randint(1, 30), rng.randint(1, 30)
    density = rng.choice([0.1, 0.5, 0.8, 1.0])
    links = set()
    if rng.random() < 0.7:
        for i in range(len_e):
            for _ in range(rng.choice([0, 1, 1, 1, 2])):
                if rng.random() < density:
                    centre = i * len_f / len_e
                    links.add((i, min(len_f - 1, max(0, round(centre + rng.gauss(0, 2))))))
    else:
        links = {(rng.randrange(len_e), rng.randrange(len_f)) for _ in range(rng.randint(0, 20))}
    return sorted(links), len_e, len_f


@pytest.mark.slow
def test_extraction_matches_the_definition_on_random_alignments() -> None:
    rng = random.Random(2016)
    cases = [random_alignment(rng) for _ in range(400)]
    for max_length in (7, 3, 1, 8, 12):
        alignments = Alignments.from_links([links for links, _, _ in cases])
        len_e = np.array([m for _, m, _ in cases])
        len_f = np.array([n for _, _, n in cases])
        rows = extract_spans(alignments, len_e, len_f, max_length)
        got: list[list[Span]] = [[] for _ in cases]
        for s, *span in rows.tolist():
            got[s].append(tuple(span))
        for k, (links, m, n) in enumerate(cases):
            assert sorted(got[k]) == oracle_spans(links, m, n, max_length), (k, max_length)
            assert len(set(got[k])) == len(got[k])
            assert all(consistent(span, links) for span in got[k])


@pytest.mark.slow
def test_extraction_matches_the_definition_on_aligned_bible(request: pytest.FixtureRequest) -> None:
    """Real sentence pairs: ``aligned_bible`` yields (English tokens, Spanish tokens, links)."""
    try:
        pairs = request.getfixturevalue("aligned_bible")
    except pytest.FixtureLookupError:
        pytest.skip("no aligned_bible fixture")
    for en, es, links in list(pairs)[:2000]:
        spans = phrase_spans(links, len(en), len(es))
        assert sorted(spans) == oracle_spans(sorted(set(links)), len(en), len(es), 7)


def test_unaligned_foreign_words_extend_both_edges_within_the_limit() -> None:
    # e: [A]; f: [u v y w z], A-y the only link (0-2); u, v, w, z unaligned. Moses widens
    # the minimal f span [2,3) left over v, u and right over w, z while the span stays
    # within max_length:
    #   max_length 3: [2,3) [2,4) [2,5) [1,3) [1,4) [0,3)
    #   max_length 2: [2,3) [2,4) [1,3)
    #   max_length 1: [2,3)
    assert phrase_spans([(0, 2)], 1, 5, 3) == [
        (0, 1, 2, 3),
        (0, 1, 2, 4),
        (0, 1, 2, 5),
        (0, 1, 1, 3),
        (0, 1, 1, 4),
        (0, 1, 0, 3),
    ]
    assert phrase_spans([(0, 2)], 1, 5, 2) == [(0, 1, 2, 3), (0, 1, 2, 4), (0, 1, 1, 3)]
    assert phrase_spans([(0, 2)], 1, 5, 1) == [(0, 1, 2, 3)]


def test_extension_stops_at_aligned_words_and_long_minimal_spans_are_dropped() -> None:
    # e: [a b c]; f: [x y z]; links a-x (0-0), c-z (2-2); b and y unaligned.
    #   a: [0,1)x[0,1), widened right over y: [0,1)x[0,2); z is aligned, so no further.
    #   c: [2,3)x[2,3), widened left over y: [2,3)x[1,3).
    #   a b: same f spans as a; b c: same as c (b is unaligned and adds no link).
    #   a b c: minimal f span [0,3) -> [0,3)x... only within max_length 3; at max_length 2
    #   the minimal span is already too long, so the pair is dropped (not cut).
    three = phrase_spans([(0, 0), (2, 2)], 3, 3, 3)
    assert sorted(three) == [
        (0, 1, 0, 1),
        (0, 1, 0, 2),
        (0, 2, 0, 1),
        (0, 2, 0, 2),
        (0, 3, 0, 3),
        (1, 3, 1, 3),
        (1, 3, 2, 3),
        (2, 3, 1, 3),
        (2, 3, 2, 3),
    ]
    two = phrase_spans([(0, 0), (2, 2)], 3, 3, 2)
    assert sorted(two) == sorted(s for s in three if s != (0, 3, 0, 3))


def test_nltk_cuts_long_spans_into_inconsistent_pairs() -> None:
    # e: [a b]; f: [x y z]; links a-x, b-z; max_length 2. The minimal f span of "a b" is
    # [0,3), longer than 2: Moses (and we) extract nothing for "a b"; nltk cuts it to
    # "x y", leaving b-z outside the pair, and widens "a" past the limit elsewhere.
    links = [(0, 0), (1, 2)]
    nltk_pairs = phrase_extraction("a b", "x y z", links, 2)
    nltk_spans = [(e[0], e[1], f[0], f[1]) for e, f, _, _ in nltk_pairs]
    assert (0, 2, 0, 2) in nltk_spans and not consistent((0, 2, 0, 2), links)
    ours = phrase_spans(links, 2, 3, 2)
    assert all(consistent(span, links) for span in ours)
    assert sorted(ours) == oracle_spans(links, 2, 3, 2)
    too_long = phrase_extraction("a", "x y z w", [(0, 1)], 2)
    assert max(f[1] - f[0] for _, f, _, _ in too_long) == 4
    assert max(s[3] - s[2] for s in phrase_spans([(0, 1)], 1, 4, 2)) == 2


def test_counts_equal_a_counter_over_oracle_pairs_in_any_chunking() -> None:
    rng = random.Random(7)
    words_e, words_f = ["a", "b", "c", "d"], ["w", "x", "y", "z", "q"]
    cases = [random_alignment(rng) for _ in range(150)]
    en = [[rng.choice(words_e) for _ in range(m)] for _, m, _ in cases]
    es = [[rng.choice(words_f) for _ in range(n)] for _, _, n in cases]
    expected: Counter = Counter()
    for (links, m, n), e, f in zip(cases, en, es, strict=True):
        for a, b, c, d in oracle_spans(links, m, n, 7):
            expected[" ".join(e[a:b]), " ".join(f[c:d])] += 1
    links = [case[0] for case in cases]
    for chunk_size in (1, 17, 1000):
        table = build_phrase_table(en, es, links, chunk_size=chunk_size)
        got = dict(
            zip(
                zip(table["en"].to_pylist(), table["es"].to_pylist(), strict=True),
                table["count"].to_pylist(),
                strict=True,
            )
        )
        assert got == dict(expected)
    counter = PhraseCounter()
    counter.add(en, es, Alignments.from_links(links))
    assert counter.sentences == 150


HAND = [
    ("the house", "la casa", [(0, 0), (1, 1)]),
    ("the old car", "el coche .", [(0, 0), (2, 1)]),
    ("the house", "la casa", [(1, 1)]),
    ("the house", "la casa", [(1, 1)]),
]


def table_dict(table: pa.Table) -> dict[tuple[str, str], tuple]:
    columns = [table[name].to_pylist() for name in PHRASE_TABLE.names]
    return {(row[0], row[1]): tuple(row[2:]) for row in zip(*columns, strict=True)}


def test_scores_of_a_hand_worked_corpus() -> None:
    # Word links: la-the 1, casa-house 3, el-the 1, coche-car 1; unaligned: old (S2),
    # the (S3, S4) -> NULL-old 1, NULL-the 2; la (S3, S4), "." (S2) -> la-NULL 2, .-NULL 1.
    # n(f): la 1+2=3, casa 3, el 1, coche 1, NULL 1+2=3.
    # n(e): the 1+1+2=4, house 3, car 1, NULL 2+1=3.
    # w(e|f): the|la 1/3, house|casa 1, the|el 1, car|coche 1, old|NULL 1/3, the|NULL 2/3.
    # w(f|e): la|the 1/4, casa|house 1, el|the 1/4, coche|car 1, la|NULL 2/3, .|NULL 1/3.
    # Pairs: S1: the/la, house/casa, the house/la casa (links 0-0 1-1).
    #   S2: the/el, the old/el, the old car/el coche, the old car/el coche ., old car/coche,
    #       old car/coche ., car/coche, car/coche .
    #   S3 = S4: the house/casa, the house/la casa (link 1-1 only), house/casa, house/la casa.
    # c(e): the 2, house 5, the house 5, the old 1, the old car 2, old car 2, car 2.
    # c(f): la 1, casa 5, la casa 5, el 2, el coche 1, el coche . 1, coche 2, coche . 2.
    # "the house"/"la casa" was seen with {0-0, 1-1} once and {1-1} twice: {1-1} scores it.
    expected = {
        # (en, es): (count, p(e|f), p(f|e), lex(e|f), lex(f|e))
        ("the", "la"): (1, 1, 1 / 2, 1 / 3, 1 / 4),
        ("house", "casa"): (3, 3 / 5, 3 / 5, 1, 1),
        ("the house", "la casa"): (3, 3 / 5, 3 / 5, 2 / 3 * 1, 2 / 3 * 1),
        ("the house", "casa"): (2, 2 / 5, 2 / 5, 2 / 3 * 1, 1),
        ("house", "la casa"): (2, 2 / 5, 2 / 5, 1, 2 / 3 * 1),
        ("the", "el"): (1, 1 / 2, 1 / 2, 1, 1 / 4),
        ("the old", "el"): (1, 1 / 2, 1, 1 * 1 / 3, 1 / 4),
        ("the old car", "el coche"): (1, 1, 1 / 2, 1 * 1 / 3 * 1, 1 / 4 * 1),
        ("the old car", "el coche ."): (1, 1, 1 / 2, 1 * 1 / 3 * 1, 1 / 4 * 1 * 1 / 3),
        ("old car", "coche"): (1, 1 / 2, 1 / 2, 1 / 3 * 1, 1),
        ("old car", "coche ."): (1, 1 / 2, 1 / 2, 1 / 3 * 1, 1 * 1 / 3),
        ("car", "coche"): (1, 1 / 2, 1 / 2, 1, 1),
        ("car", "coche ."): (1, 1 / 2, 1 / 2, 1, 1 / 3),
    }
    table = build_phrase_table(
        [e.split() for e, _, _ in HAND], [f.split() for _, f, _ in HAND], [a for *_, a in HAND]
    )
    assert table.schema == PHRASE_TABLE
    got = table_dict(table)
    assert got.keys() == expected.keys()
    for key, values in expected.items():
        assert got[key] == pytest.approx(values, rel=1e-12), key
    # Rows follow the first occurrence of the English phrase, then of the foreign phrase.
    head = list(zip(table["en"].to_pylist(), table["es"].to_pylist(), strict=True))[:6]
    assert head == [
        ("the", "la"),
        ("the", "el"),
        ("the house", "la casa"),
        ("the house", "casa"),
        ("house", "la casa"),
        ("house", "casa"),
    ]


def test_lexical_weight_averages_over_multiple_links() -> None:
    # S1: a / x y with a-x, a-y; S2: b / x with b-x.
    # n(f): x 2, y 1; n(e): a 2, b 1. w(a|x) 1/2, w(a|y) 1; w(x|a) 1/2, w(y|a) 1/2.
    # lex(a | x y) = (1/2 + 1) / 2 = 3/4; lex(x y | a) = 1/2 * 1/2 = 1/4.
    table = build_phrase_table([["a"], ["b"]], [["x", "y"], ["x"]], [[(0, 0), (0, 1)], [(0, 0)]])
    assert table_dict(table)["a", "x y"][3:] == pytest.approx((3 / 4, 1 / 4))


def test_tied_alignments_go_to_the_greatest_in_moses_order() -> None:
    # S1 and S3 of HAND: "the house"/"la casa" seen once with A = {0-0, 1-1} and once with
    # B = {1-1}. Indexed by English word, A = [{0}, {1}] > B = [{}, {1}] ({} is a prefix of
    # {0}); by foreign word likewise. A scores both directions:
    # w(the|la) = 1/2 (n(la) = 1 link + 1 unaligned), w(house|casa) = 1;
    # w(la|the) = 1/2 (n(the) = 1 link + 1 unaligned), w(casa|house) = 1.
    corpus = [HAND[0], HAND[2]]
    table = build_phrase_table(
        [e.split() for e, _, _ in corpus],
        [f.split() for _, f, _ in corpus],
        [a for *_, a in corpus],
    )
    assert table_dict(table)["the house", "la casa"][3:] == pytest.approx((1 / 2, 1 / 2))


def reference_scores(
    en: list[list[str]], es: list[list[str]], links: list[list[tuple[int, int]]]
) -> dict[tuple[str, str], tuple]:
    """Moses ``get_lexical`` + ``extract`` + ``score`` written out over Python containers."""
    null = object()
    joint: Counter = Counter()
    for e, f, a in zip(en, es, links, strict=True):
        joint.update((f[j], e[i]) for i, j in a)
        joint.update((null, e[i]) for i in set(range(len(e))) - {i for i, _ in a})
        joint.update((f[j], null) for j in set(range(len(f))) - {j for _, j in a})
    total_f, total_e = Counter(), Counter()
    for (f, e), c in joint.items():
        total_f[f] += c
        total_e[e] += c
    seen: dict = {}
    for e, f, a in zip(en, es, links, strict=True):
        for es_, ee, fs, fe in oracle_spans(a, len(e), len(f), 7):
            rel = frozenset((i - es_, j - fs) for i, j in a if es_ <= i < ee and fs <= j < fe)
            seen.setdefault((tuple(e[es_:ee]), tuple(f[fs:fe])), Counter())[rel] += 1
    count_e, count_f = Counter(), Counter()
    for (pe, pf), alignments in seen.items():
        count_e[pe] += sum(alignments.values())
        count_f[pf] += sum(alignments.values())

    def lex(pe: tuple, pf: tuple, rel: frozenset, f_given_e: bool) -> float:
        score = 1.0
        for x in range(len(pf) if f_given_e else len(pe)):
            others = [i for i, j in rel if j == x] if f_given_e else [j for i, j in rel if i == x]
            if f_given_e:
                terms = [joint[pf[x], pe[i]] / total_e[pe[i]] for i in others]
                score *= sum(terms) / len(terms) if terms else joint[pf[x], null] / total_e[null]
            else:
                terms = [joint[pf[j], pe[x]] / total_f[pf[j]] for j in others]
                score *= sum(terms) / len(terms) if terms else joint[null, pe[x]] / total_f[null]
        return score

    out = {}
    for (pe, pf), alignments in seen.items():
        # Moses' tie-break: std::vector<std::set> order is Python's list-of-sorted-lists order.
        by_e = max(
            alignments,
            key=lambda r: (
                alignments[r],
                [sorted(j for i, j in r if i == x) for x in range(len(pe))],
            ),
        )
        by_f = max(
            alignments,
            key=lambda r: (
                alignments[r],
                [sorted(i for i, j in r if j == x) for x in range(len(pf))],
            ),
        )
        c = sum(alignments.values())
        out[" ".join(pe), " ".join(pf)] = (
            c,
            c / count_f[pf],
            c / count_e[pe],
            lex(pe, pf, by_e, False),
            lex(pe, pf, by_f, True),
        )
    return out


def test_scores_match_a_plain_python_moses_on_a_random_corpus() -> None:
    # Four English and five foreign word types: pairs recur with different alignments, and
    # ties between alignments (some broken differently by English and by foreign word) occur.
    rng = random.Random(11)
    en, es, links = [], [], []
    for _ in range(120):
        m, n = rng.randint(1, 10), rng.randint(1, 10)
        en.append([rng.choice("abcd") for _ in range(m)])
        es.append([rng.choice("vwxyz") for _ in range(n)])
        pairs = {(rng.randrange(m), rng.randrange(n)) for _ in range(rng.randint(0, 8))}
        links.append(sorted(pairs))
    expected = reference_scores(en, es, links)
    got = table_dict(build_phrase_table(en, es, links, chunk_size=50))
    assert got.keys() == expected.keys()
    for key, values in expected.items():
        assert got[key] == pytest.approx(values, rel=1e-12), key


def test_moses_order_depends_on_the_indexing_side() -> None:
    # P = {0-1}, Q = {1-0} in a 2x2 pair. By English word: P = [{1}, {}], Q = [{}, {0}] ->
    # P > Q. By foreign word: P = [{}, {0}], Q = [{1}, {}] -> Q > P.
    p, q = 1 << (8 * 0 + 1), 1 << (8 * 1 + 0)
    assert _moses_greater(p, q, 2, 2, False) and not _moses_greater(q, p, 2, 2, False)
    assert _moses_greater(q, p, 2, 2, True) and not _moses_greater(p, q, 2, 2, True)
    # Sets compare as sorted sequences: {0, 2} < {1}; {} < {0}.
    assert _moses_greater(0b10, 0b101, 1, 3, False)
    assert _moses_greater(0b1, 0b0, 1, 1, False)


def test_eight_word_phrases_use_the_top_alignment_bit() -> None:
    words = [f"w{k}" for k in range(8)]
    links = [(k, k) for k in range(8)]
    table = build_phrase_table([words], [words], [links], max_length=8)
    row = table_dict(table)[" ".join(words), " ".join(words)]
    assert row == pytest.approx((1, 1, 1, 1, 1))
    with pytest.raises(ValueError, match="max_length"):
        PhraseCounter(9)
