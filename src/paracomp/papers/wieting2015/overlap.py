"""Token overlap of two phrases: the word-overlap baselines of Table 6 and the length and
overlap ratios of Tables 8 and 9.

Phrases are whitespace-tokenised (Annotated-PPDB is tokenised and lowercased already; Table
8's length ratios count ``,`` and ``'s`` as tokens). The "smaller" phrase is the one with
fewer tokens, the first on a tie; its tokens are counted with repetition.
"""

from __future__ import annotations

from collections.abc import Callable, Collection


def _smaller_larger(p1: str, p2: str) -> tuple[list[str], list[str]]:
    t1, t2 = p1.split(), p2.split()
    return (t1, t2) if len(t1) <= len(t2) else (t2, t1)


def strict_overlap(p1: str, p2: str) -> float:
    """ "The percentage of words in the smaller phrase that are also in the larger phrase"
    (§6.4), as a fraction."""
    small, large = _smaller_larger(p1, p2)
    if not small:
        return 0.0
    present = set(large)
    return sum(t in present for t in small) / len(small)


def lemmatized_overlap(p1: str, p2: str, lemma: Callable[[str], str]) -> float:
    """:func:`strict_overlap` after mapping every token through ``lemma`` (e.g.
    :func:`paracomp.wordnet.lemmas.lemmatizer`; the paper does not name its lemmatiser)."""
    return strict_overlap(
        " ".join(lemma(t) for t in p1.split()), " ".join(lemma(t) for t in p2.split())
    )


def length_ratio(p1: str, p2: str) -> float:
    """Tokens of the smaller phrase over tokens of the larger (Table 8)."""
    small, large = _smaller_larger(p1, p2)
    return len(small) / len(large) if large else 0.0


def overlap_ratio(p1: str, p2: str, lexical: Collection[tuple[str, str]] = ()) -> float:
    """Share of the smaller phrase's tokens that have an *equivalent* token in the larger
    one: the same token, or one paired with it in the lexical PPDB training pairs
    ``lexical`` (either order; §7). No lemmatisation: Table 8 gives ⟨earliest opportunity,
    early as possible⟩ an overlap ratio of 0."""
    small, large = _smaller_larger(p1, p2)
    if not small:
        return 0.0
    present = set(large)

    def equivalent(token: str) -> bool:
        return token in present or any(
            (token, other) in lexical or (other, token) in lexical for other in present
        )

    return sum(equivalent(t) for t in small) / len(small)
