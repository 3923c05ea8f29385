"""Bilingual pivoting (Bannard & Callison-Burch 2005) over a phrase table or a dictionary.

    p(e2 | e1) = Σ_f p(e2 | f) · p(f | e1),   e2 ≠ e1

The sum runs over the foreign phrases ``f`` shared by ``e1`` and ``e2``. It is computed by a
self-join of the phrase table on ``f``, in chunks of foreign phrases so that frequent ``f``
(whose join grows quadratically) do not exhaust memory.
"""

from __future__ import annotations

import gzip
from itertools import pairwise
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from paracomp.artefacts import PHRASE_TABLE
from paracomp.errors import DataError
from paracomp.paraphrase.ppdb import pairs_table

RANK_DECIMALS = 12
"""Pairs are ranked on p rounded to this many decimals, so that sums added in another order (a
pivot split into partitions) order equal scores alike and a ``top_k`` cut keeps the same ones.
The ``min_prob`` cut compares p itself: a written score is never below it."""

_B64 = {
    c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
}


def _chunk_bounds(sizes: np.ndarray, max_rows: int) -> list[tuple[int, int]]:
    """Row ranges of consecutive foreign phrases whose join size Σ n_f² stays ≤ ``max_rows``
    (a single larger phrase gets a range of its own)."""
    starts = np.concatenate([[0], np.cumsum(sizes)])
    group = np.cumsum(sizes.astype(np.int64) ** 2) // max(max_rows, 1)
    cuts = np.concatenate([[0], np.flatnonzero(np.diff(group)) + 1, [len(sizes)]])
    return [(int(starts[lo]), int(starts[hi])) for lo, hi in pairwise(cuts) if hi > lo]


def pivot(
    table: pa.Table,
    *,
    min_prob: float = 0.0,
    top_k: int | None = None,
    max_pairs: int | None = None,
    min_translation_prob: float = 0.0,
    max_join_rows: int = 5_000_000,
) -> pa.Table:
    """English paraphrases from an English–foreign phrase table (PHRASE_TABLE columns ``en``,
    ``es``, ``p_en_given_es``, ``p_es_given_en``).

    Phrase-table rows with either translation probability below ``min_translation_prob``
    are dropped before pivoting. Output pairs need p(e2|e1) ≥ ``min_prob``; of those, at
    most ``top_k`` per e1 and ``max_pairs`` overall are kept, most probable first (ties by
    e1, e2). Returns SCORED_PAIRS with ``s1`` = e1, ``s2`` = e2, ``score`` = p(e2|e1),
    sorted by e1 then descending score; ids are row numbers.
    """
    probs = pivot_sums(
        table, min_translation_prob=min_translation_prob, max_join_rows=max_join_rows
    )
    return scored_pairs(best_pairs(probs, min_prob=min_prob, top_k=top_k, max_pairs=max_pairs))


def pivot_sums(
    table: pa.Table, *, min_translation_prob: float = 0.0, max_join_rows: int = 5_000_000
) -> pd.DataFrame:
    """Σ_f p(e2|f) p(f|e1) over the foreign phrases of ``table`` (rows with a translation
    probability below ``min_translation_prob`` dropped): columns ``e1``, ``e2``, ``p``."""
    df = table.select(["en", "es", "p_en_given_es", "p_es_given_en"]).to_pandas()
    df = df[
        (df["p_en_given_es"] >= min_translation_prob)
        & (df["p_es_given_en"] >= min_translation_prob)
    ]
    e_codes, english = pd.factorize(df["en"])
    f_codes, foreign = pd.factorize(df["es"])
    order = np.argsort(f_codes, kind="stable")
    e, f = e_codes[order], f_codes[order]
    p_f_e = df["p_es_given_en"].to_numpy()[order]
    p_e_f = df["p_en_given_es"].to_numpy()[order]
    partial = []
    for lo, hi in _chunk_bounds(np.bincount(f, minlength=len(foreign)), max_join_rows):
        left = pd.DataFrame({"e1": e[lo:hi], "f": f[lo:hi], "p1": p_f_e[lo:hi]})
        right = pd.DataFrame({"e2": e[lo:hi], "f": f[lo:hi], "p2": p_e_f[lo:hi]})
        joined = left.merge(right, on="f")
        joined = joined[joined["e1"] != joined["e2"]]
        joined["p"] = joined["p1"] * joined["p2"]
        partial.append(joined.groupby(["e1", "e2"], sort=False)["p"].sum())
    if not partial:
        return pd.DataFrame({"e1": [], "e2": [], "p": []}).astype({"p": float})
    probs = pd.concat(partial).groupby(level=[0, 1], sort=False).sum().reset_index()
    words = np.asarray(english, dtype=object)
    return probs.assign(e1=words[probs["e1"].to_numpy()], e2=words[probs["e2"].to_numpy()])


def best_pairs(
    probs: pd.DataFrame, *, min_prob: float, top_k: int | None, max_pairs: int | None
) -> pd.DataFrame:
    """The pairs of ``probs`` with p ≥ ``min_prob``, at most ``top_k`` per e1 and ``max_pairs``
    in all, most probable first (ranked on p at :data:`RANK_DECIMALS`, ties by e1, e2)."""
    probs = probs[probs["p"] >= min_prob].assign(rank=lambda f: f["p"].round(RANK_DECIMALS))
    ranked = probs.sort_values(["rank", "e1", "e2"], ascending=[False, True, True], kind="stable")
    if top_k is not None:
        ranked = ranked[ranked.groupby("e1", sort=False).cumcount() < top_k]
    if max_pairs is not None:
        ranked = ranked.head(max_pairs)
    return ranked.drop(columns="rank")


def scored_pairs(ranked: pd.DataFrame) -> pa.Table:
    """SCORED_PAIRS of pairs ``e1, e2, p``, sorted by e1 then descending p (at
    :data:`RANK_DECIMALS`, ties by e2); ids row numbers."""
    ranked = ranked.assign(rank=ranked["p"].round(RANK_DECIMALS)).sort_values(
        ["e1", "rank", "e2"], ascending=[True, False, True], kind="stable"
    )
    ids = [str(i) for i in range(len(ranked))]
    return pairs_table(ids, ranked["e1"].tolist(), ranked["e2"].tolist(), ranked["p"].tolist())


def uniform_table(pairs: list[tuple[str, str]]) -> pa.Table:
    """A PHRASE_TABLE from unweighted (English, foreign) pairs, duplicates counted once:
    p(f|e) = 1/#translations of e, p(e|f) = 1/#translations of f, lexical weights null."""
    df = pd.DataFrame(pairs, columns=["en", "es"], dtype=object).drop_duplicates()
    df["count"] = 1
    df["p_en_given_es"] = 1.0 / df.groupby("es")["en"].transform("size")
    df["p_es_given_en"] = 1.0 / df.groupby("en")["es"].transform("size")
    df["lex_en_given_es"] = df["lex_es_given_en"] = None
    return pa.Table.from_pandas(df, schema=PHRASE_TABLE, preserve_index=False)


def _b64_int(text: str) -> int:
    value = 0
    for char in text:
        value = value * 64 + _B64[char]
    return value


def _translations(line: str) -> list[str]:
    """German translations of a Ding/FreeDict entry line, labels ``<…>`` and ``[…]`` removed."""
    out, depth = [], 0
    for char in line:
        if char in "<[":
            depth += 1
        elif char in ">]":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(char)
    return [t for t in (" ".join(p.split()) for p in "".join(out).split(",")) if t]


def read_freedict(root: Path) -> list[tuple[str, str]]:
    """(English headword, German translation) pairs of ``dict-freedict-eng-deu``.

    ``root`` is the unpacked .deb root or the ``dictd`` folder. Each dictd entry's first
    line is the headword followed by its pronunciation (``/…/``), its second line the
    comma-separated German translations; later lines (notes, examples, synonyms) are ignored.
    """
    folder = Path(root) / "usr" / "share" / "dictd"
    folder = folder if folder.is_dir() else Path(root)
    index, dz = folder / "freedict-eng-deu.index", folder / "freedict-eng-deu.dict.dz"
    if not index.is_file() or not dz.is_file():
        raise DataError(f"{folder}: no freedict-eng-deu.index / .dict.dz")
    with gzip.open(dz) as handle:
        data = handle.read()
    pairs: list[tuple[str, str]] = []
    seen: set[int] = set()
    with open(index, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3:
                raise DataError(f"{index}:{number}: expected 3 tab-separated fields")
            if fields[0].startswith("00database"):
                continue
            offset, length = _b64_int(fields[1]), _b64_int(fields[2])
            if offset in seen:
                continue
            seen.add(offset)
            entry = data[offset : offset + length].decode("utf-8").split("\n")
            headword = entry[0].split(" /", 1)[0].strip()
            if len(entry) > 1 and headword:
                pairs += [(headword, german) for german in _translations(entry[1])]
    return pairs
