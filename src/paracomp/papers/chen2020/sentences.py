"""The sentences chen2020's tables score, as one table (``resources/chen2020/sentences.parquet``).

Rows: ``set`` (one of :data:`SETS`), ``index`` (position within the set), ``text`` (as
released), ``tokens`` (space-joined, what the models read: the evaluation tokeniser, lowercased;
SNLI's from its binary parse, lowercased, see :func:`paracomp.data.snli.read_snli_txt`),
``label`` (1.0 specific / 0.0 general for the News sets, the mean rating for Twitter, Yelp and
Movie, NaN for SNLI) and ``gold`` (SNLI's label, else ``""``). SNLI keeps only the
equal-length pairs (Table 4's filter), premise ``i`` and hypothesis ``i`` one pair; its
counts before and after the filter go into :class:`SentenceSources`.

A set whose data no configured source provides is absent, its reason recorded in the
sources file (``sentences.json``) that every table reads.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from paracomp.atomic import atomic_path
from paracomp.data.snli import LABELS, read_snli_txt
from paracomp.data.specificity import (
    DOMAINS,
    SpecificitySet,
    read_ko2019_domain,
    read_ko2019_news,
    read_speciteller_news,
    without,
)
from paracomp.eval.tokens import tokenize_all
from paracomp.papers.chen2020.snli import equal_length

SETS = ("news_test", "news_train", *DOMAINS, "snli_premise", "snli_hypothesis")
NEWS_TRAIN = ("without-test", "all")
"""Ko et al.'s labelled news sentences as the threshold's tuning set: less the lines that are
also News test sentences (362 lines, 299 distinct), or all of them."""


@dataclass
class SentenceSources:
    """Which sets are present, why the others are not, and facts the tables report."""

    present: list[str] = field(default_factory=list)
    missing: dict[str, str] = field(default_factory=dict)
    facts: dict[str, object] = field(default_factory=dict)

    def reason(self, name: str) -> str:
        return self.missing.get(name, "")

    def write(self, path: Path) -> None:
        with atomic_path(path) as tmp:
            tmp.write_text(json.dumps(asdict(self), indent=2, sort_keys=True))

    @classmethod
    def read(cls, path: Path) -> SentenceSources:
        return cls(**json.loads(Path(path).read_text()))


def _frame(name: str, data: SpecificitySet, tokenizer: str, lowercase: bool) -> pd.DataFrame:
    tokens = tokenize_all(list(data.sentences), tokenizer, lowercase)
    return pd.DataFrame(
        {
            "set": name,
            "index": np.arange(len(data), dtype=np.int32),
            "text": list(data.sentences),
            "tokens": [" ".join(t) for t in tokens],
            "label": data.labels,
            "gold": "",
        }
    )


def build_sentences(
    news: Path | None,
    ko: Path | None,
    snli: Path | None,
    *,
    tokenizer: str,
    lowercase: bool,
    news_train: str = "without-test",
    unavailable: Mapping[str, str] | None = None,
) -> tuple[pd.DataFrame, SentenceSources]:
    """The sentence table from the fetched folders (None: not provided, ``unavailable``
    says why: keys ``specificity-news-speciteller``, ``specificity-ko2019``, ``snli``)."""
    if news_train not in NEWS_TRAIN:
        raise ValueError(f"news_train must be one of {NEWS_TRAIN}, not {news_train!r}")
    unavailable = dict(unavailable or {})
    sources, frames = SentenceSources(), []

    def absent(names: tuple[str, ...], dataset: str) -> None:
        why = unavailable.get(dataset, f"dataset {dataset} is not provided")
        sources.missing.update(dict.fromkeys(names, why))

    test = read_speciteller_news(news) if news is not None else None
    if test is not None:
        frames.append(_frame("news_test", test, tokenizer, lowercase))
    else:
        absent(("news_test",), "specificity-news-speciteller")
    if ko is not None:
        train = read_ko2019_news(ko)
        sources.facts["news_train_all"] = len(train)
        if test is not None and news_train == "without-test":
            train = without(train, test)
        sources.facts["news_train"] = f"{len(train)} sentences ({news_train})"
        frames.append(_frame("news_train", train, tokenizer, lowercase))
        for domain in DOMAINS:
            frames.append(_frame(domain, read_ko2019_domain(ko, domain), tokenizer, lowercase))
    else:
        absent(("news_train", *DOMAINS), "specificity-ko2019")
    if snli is not None:
        pairs = read_snli_txt(snli / "snli_1.0_test.txt")
        kept = equal_length(pairs)
        sources.facts["snli_pairs"] = {
            label: sum(p.label == label for p in pairs) for label in LABELS
        }
        sources.facts["snli_equal_length"] = {
            label: sum(p.label == label for p in kept) for label in LABELS
        }
        for name, side in (("snli_premise", "premise"), ("snli_hypothesis", "hypothesis")):
            tokens = [[t.lower() if lowercase else t for t in getattr(p, side)] for p in kept]
            frames.append(
                pd.DataFrame(
                    {
                        "set": name,
                        "index": np.arange(len(kept), dtype=np.int32),
                        "text": [" ".join(getattr(p, side)) for p in kept],
                        "tokens": [" ".join(t) for t in tokens],
                        "label": np.nan,
                        "gold": [p.label for p in kept],
                    }
                )
            )
    else:
        absent(("snli_premise", "snli_hypothesis"), "snli")
    table = pd.concat(frames, ignore_index=True) if frames else _empty()
    sources.present = [name for name in SETS if name in set(table["set"])]
    return table, sources


def _empty() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "set": pd.Series(dtype=str),
            "index": pd.Series(dtype=np.int32),
            "text": pd.Series(dtype=str),
            "tokens": pd.Series(dtype=str),
            "label": pd.Series(dtype=np.float64),
            "gold": pd.Series(dtype=str),
        }
    )


def token_lists(frame: pd.DataFrame) -> list[list[str]]:
    """The ``tokens`` column as token lists."""
    return [text.split() for text in frame["tokens"]]
