"""PPDB: the release format, the mirror's PPDB-derived sets, and the papers' filters.

Release lines (PPDB 1.0; 2.0 appends a sixth ``entailment`` field)::

    LHS ||| phrase ||| paraphrase ||| Name=value Name=value ... ||| i-j i-j ...

Mirror sets (one pair per line, fields joined by ``|||`` without spaces):
``ppdb-phrase-train-60k`` and ``annotated-ppdb`` are ``p1|||p2|||score``, ``ml2010-bigrams``
``b1|||b2|||rating`` (one line per participant rating), ``ppdb-bigram-train`` ``b1|||b2``;
``ppdb-xl-lexicon`` is Faruqui's retrofitting lexicon (a word, then its PPDB-XL paraphrases,
space separated); ``ppdb2-human-labels`` is tab separated (mean score, category, phrase,
paraphrase, comma-separated individual scores).

Pairs come out as :data:`paracomp.artefacts.SEGMENT_PAIRS` tables, scored sets as
:data:`SCORED_PAIRS`; ids are ``"<file name>:<line number>"``.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from paracomp.artefacts import SEGMENT_PAIRS
from paracomp.errors import DataError

SCORED_PAIRS = pa.schema([*SEGMENT_PAIRS, pa.field("score", pa.float64())])
"""Segment pairs with a score: gold (Annotated-PPDB 1–5, ML2010 ratings 1–7) or p(s2|s1)."""

HUMAN_LABELS = pa.schema(
    [*SCORED_PAIRS, pa.field("category", pa.string()), pa.field("ratings", pa.list_(pa.float64()))]
)
"""PPDB 2.0 human labels: ``score`` is the mean of ``ratings``, ``category`` the LHS label."""

_NONTERMINAL = re.compile(r"^\[[^\]]+,\d+\]$")
_BRACKET_TOKENS = {"-lrb-", "-rrb-", "-lsb-", "-rsb-", "-lcb-", "-rcb-"}


@dataclass(frozen=True)
class PPDBRule:
    """One PPDB release line; ``line`` is its 1-based line number."""

    lhs: str
    phrase: str
    paraphrase: str
    features: dict[str, float]
    alignment: tuple[tuple[int, int], ...]
    entailment: str | None
    line: int


def _numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    """1-based line numbers and lines without their newline (plain or ``.gz``); empty lines
    are skipped."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            line = line.rstrip("\n")
            if line:
                yield number, line


def _links(alignment: str) -> tuple[tuple[int, int], ...]:
    links = []
    for link in alignment.split():
        i, sep, j = link.partition("-")
        if not (sep and i.isdigit() and j.isdigit()):
            raise ValueError(f"alignment link {link!r} is not i-j")
        links.append((int(i), int(j)))
    return tuple(links)


def parse_ppdb_line(line: str, path: str | Path = "<string>", number: int = 1) -> PPDBRule:
    """Parse one release line; ``path`` and ``number`` name it in errors."""
    fields = line.rstrip("\n").split(" ||| ")
    if len(fields) not in (5, 6):
        raise DataError(f"{path}:{number}: expected 5 or 6 ' ||| ' fields, got {len(fields)}")
    lhs, phrase, paraphrase, features, alignment = (f.strip() for f in fields[:5])
    if not phrase or not paraphrase:
        raise DataError(f"{path}:{number}: empty phrase or paraphrase")
    try:
        feats = {}
        for feature in features.split():
            name, sep, value = feature.partition("=")
            if not sep:
                raise ValueError(f"feature {feature!r} is not Name=value")
            feats[name] = float(value)
        links = _links(alignment)
    except ValueError as exc:
        raise DataError(f"{path}:{number}: {exc}") from exc
    entailment = fields[5].strip() if len(fields) == 6 else None
    return PPDBRule(lhs, phrase, paraphrase, feats, links, entailment, number)


def read_ppdb(path: Path) -> Iterator[PPDBRule]:
    """Rules of a PPDB release file (plain or ``.gz``)."""
    path = Path(path)
    for number, line in _numbered_lines(path):
        yield parse_ppdb_line(line, path, number)


def _has_nonterminal(text: str) -> bool:
    return any(_NONTERMINAL.match(t) for t in text.split())


def is_phrasal(rule: PPDBRule) -> bool:
    """PPDB's phrasal package: no nonterminals, and not one word to one word (lexical)."""
    if _has_nonterminal(rule.phrase) or _has_nonterminal(rule.paraphrase):
        return False
    return len(rule.phrase.split()) > 1 or len(rule.paraphrase.split()) > 1


def is_lexical(rule: PPDBRule) -> bool:
    """PPDB's lexical package: one (terminal) word on each side."""
    words = rule.phrase.split() + rule.paraphrase.split()
    return len(words) == 2 and not any(_NONTERMINAL.match(w) for w in words)


def pairs_table(
    ids: list[str], s1: list[str], s2: list[str], score: list[float] | None = None
) -> pa.Table:
    """A SEGMENT_PAIRS table, or SCORED_PAIRS when ``score`` is given."""
    data = {
        "id": pa.array(ids, pa.string()),
        "s1": pa.array(s1, pa.string()),
        "s2": pa.array(s2, pa.string()),
        "len1": pa.array([len(s.split()) for s in s1], pa.int32()),
        "len2": pa.array([len(s.split()) for s in s2], pa.int32()),
    }
    if score is None:
        return pa.table(data, schema=SEGMENT_PAIRS)
    data["score"] = pa.array(score, pa.float64())
    return pa.table(data, schema=SCORED_PAIRS)


def rules_to_pairs(
    rules: Iterable[PPDBRule], name: str, keep: Callable[[PPDBRule], bool] = is_phrasal
) -> pa.Table:
    """SEGMENT_PAIRS of the kept rules, ids ``name:line`` (Elgohary & Carpuat: XL phrasal)."""
    kept = [r for r in rules if keep(r)]
    return pairs_table(
        [f"{name}:{r.line}" for r in kept], [r.phrase for r in kept], [r.paraphrase for r in kept]
    )


def _bar_fields(path: Path, n_fields: int) -> Iterator[tuple[int, list[str]]]:
    for number, line in _numbered_lines(path):
        fields = [f.strip() for f in line.split("|||")]
        if len(fields) != n_fields or not all(fields):
            raise DataError(f"{path}:{number}: expected {n_fields} non-empty '|||' fields")
        yield number, fields


def read_scored_pairs(path: Path) -> pa.Table:
    """``p1|||p2|||score`` files (ppdb-phrase-train-60k, annotated-ppdb, ml2010-bigrams)."""
    path = Path(path)
    ids, s1, s2, score = [], [], [], []
    for number, (p1, p2, value) in _bar_fields(path, 3):
        try:
            score.append(float(value))
        except ValueError:
            raise DataError(f"{path}:{number}: score {value!r} is not a number") from None
        ids.append(f"{path.name}:{number}")
        s1.append(p1)
        s2.append(p2)
    return pairs_table(ids, s1, s2, score)


def read_pairs(path: Path) -> pa.Table:
    """``b1|||b2`` files (ppdb-bigram-train) as SEGMENT_PAIRS."""
    path = Path(path)
    ids, s1, s2 = [], [], []
    for number, (b1, b2) in _bar_fields(path, 2):
        ids.append(f"{path.name}:{number}")
        s1.append(b1)
        s2.append(b2)
    return pairs_table(ids, s1, s2)


def read_xl_lexicon(path: Path) -> pa.Table:
    """Faruqui's PPDB-XL lexicon as directed (headword, paraphrase) pairs in file order.

    Tokens are split on spaces only: some lines hold control characters that
    :meth:`str.split` would take for whitespace.
    """
    path = Path(path)
    ids, s1, s2 = [], [], []
    for number, line in _numbered_lines(path):
        head, *paraphrases = [t for t in line.split(" ") if t] or [""]
        if not paraphrases:
            raise DataError(f"{path}:{number}: no paraphrases after headword {head!r}")
        ids += [f"{path.name}:{number}"] * len(paraphrases)
        s1 += [head] * len(paraphrases)
        s2 += paraphrases
    return pairs_table(ids, s1, s2)


def read_human_labels(path: Path) -> pa.Table:
    """PPDB 2.0 human labels (``ppdb-sample.tsv``, ``wiki-sample.tsv``) as HUMAN_LABELS."""
    path = Path(path)
    ids, s1, s2, score, categories, ratings = [], [], [], [], [], []
    for number, line in _numbered_lines(path):
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) != 5 or not all(fields):
            raise DataError(f"{path}:{number}: expected 5 non-empty tab-separated fields")
        mean, category, phrase, paraphrase, individual = fields
        try:
            score.append(float(mean))
            ratings.append([float(s) for s in individual.split(",")])
        except ValueError:
            raise DataError(f"{path}:{number}: non-numeric score in {line!r}") from None
        ids.append(f"{path.name}:{number}")
        s1.append(phrase)
        s2.append(paraphrase)
        categories.append(category)
    table = pairs_table(ids, s1, s2, score)
    table = table.append_column("category", pa.array(categories, pa.string()))
    return table.append_column("ratings", pa.array(ratings, pa.list_(pa.float64())))


# Wieting et al. 2015 filters (digest §2.3–2.6). ``vocab`` stands for their 100K-word
# vocabulary; None skips the vocabulary test.


def within_one_edit(a: str, b: str) -> bool:
    """Whether the character Levenshtein distance between ``a`` and ``b`` is at most 1."""
    if len(a) > len(b):
        a, b = b, a
    if len(b) - len(a) > 1:
        return False
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), len(a))
    return a[i + 1 :] == b[i + 1 :] if len(a) == len(b) else a[i:] == b[i + 1 :]


def word_overlap(p1: str, p2: str) -> float:
    """Fraction of the shorter phrase's tokens within one edit of some token of the longer
    phrase (``p1`` counts as the shorter on ties)."""
    t1, t2 = p1.split(), p2.split()
    small, large = (t1, t2) if len(t1) <= len(t2) else (t2, t1)
    if not small:
        return 0.0
    return sum(any(within_one_edit(a, b) for b in large) for a in small) / len(small)


def effective_size(p1: str, p2: str) -> int:
    """Max over the two phrases of the number of tokens longer than one character."""
    return max(sum(len(t) > 1 for t in p.split()) for p in (p1, p2))


def size_bin(p1: str, p2: str) -> str | None:
    """Wieting's effective-size bin: ``"3"``, ``"4"``, ``"5+"``, or None below 3."""
    size = effective_size(p1, p2)
    return None if size < 3 else "5+" if size >= 5 else str(size)


def _in_vocab(text: str, vocab: set[str] | None) -> bool:
    return vocab is None or all(t in vocab for t in text.split())


def _filter(table: pa.Table, keep: Callable[[str, str], bool]) -> pa.Table:
    """Rows whose (s1, s2) pass ``keep``, keeping only the first of each unordered pair."""
    seen: set[frozenset[str]] = set()
    mask = []
    for s1, s2 in zip(table["s1"].to_pylist(), table["s2"].to_pylist(), strict=True):
        key = frozenset((s1, s2))
        ok = key not in seen and keep(s1, s2)
        if ok:
            seen.add(key)
        mask.append(ok)
    return table.filter(pa.array(mask, pa.bool_()))


def wieting_lexical_filter(table: pa.Table, vocab: set[str] | None = None) -> pa.Table:
    """§5.2: drop identical words, words with digits or outside ``vocab``, and redundant
    pairs (the same unordered pair again: order swaps, other LHS labels)."""

    def keep(w1: str, w2: str) -> bool:
        digits = any(c.isdigit() for c in w1 + w2)
        return w1 != w2 and not digits and _in_vocab(w1, vocab) and _in_vocab(w2, vocab)

    return _filter(table, keep)


def wieting_bigram_filter(table: pa.Table, vocab: set[str] | None = None) -> pa.Table:
    """§6.3: drop pairs with words outside ``vocab``, with brackets, or whose two bigram
    strings are within one character edit, and redundant pairs."""

    def keep(b1: str, b2: str) -> bool:
        tokens = b1.split() + b2.split()
        brackets = any(c in "()[]{}" for c in b1 + b2) or not _BRACKET_TOKENS.isdisjoint(tokens)
        in_vocab = _in_vocab(b1, vocab) and _in_vocab(b2, vocab)
        return not brackets and in_vocab and not within_one_edit(b1, b2)

    return _filter(table, keep)


def wieting_phrase_filter(
    table: pa.Table,
    vocab: set[str] | None = None,
    max_overlap: float = 0.5,
    min_effective_size: int = 3,
) -> pa.Table:
    """§6.4 / §3.1: keep pairs in ``vocab`` with word overlap < ``max_overlap`` and effective
    size ≥ ``min_effective_size`` (the 3 / 4 / 5+ bins), dropping redundant pairs."""

    def keep(p1: str, p2: str) -> bool:
        return (
            effective_size(p1, p2) >= min_effective_size
            and _in_vocab(p1, vocab)
            and _in_vocab(p2, vocab)
            and word_overlap(p1, p2) < max_overlap
        )

    return _filter(table, keep)
