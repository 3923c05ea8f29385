"""A Hugging Face ``tokenizers`` word-level tokenizer over a model's vocabulary, as close to the
evaluator's tokenisation as its normalisers and pre-tokenisers allow (for the
sentence-transformers and model2vec exports).

Moses (escape off) is approximated by isolating each character that is neither a letter,
a digit, whitespace nor one of ``. ' ` , -``; a comma outside a number; an apostrophe
between letters with the letters after it (``don't`` -> ``don 't``), any other beside a
non-letter; a run of periods; and a period at a word's end as :data:`MOSES_PERIOD` says.
Where Moses keeps a period for a word of its list of abbreviations (``Mr. Smith``), or treats a
character otherwise, the tokens differ (tests/test_encoders.py measures the share that
agree on the STS 2012–16 sentences).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokenizers import Tokenizer

UNK_TOKEN = "[UNK]"
"""The unknown token of a vocabulary without one of its own (a zero row)."""

MOSES_PERIOD = (
    r"(?<!\.)(?<![.\s(]\p{Lu})(?<!^\p{Lu})(?<!\.\p{L})"
    r"\.(?=[^\p{L}\p{N}\s.]|\s+[^\p{Ll}\s]|\s*$)"
)
"""A period Moses splits off: at a word's end, before a symbol, the sentence's end or a word
that does not start in lower case, unless the word is an initial (``A.``) or holds periods
between letters (``u.s.``). A normaliser puts a space before it, before lowercasing."""

MOSES_SPLITS = (
    r"\.{2,}",  # a run of periods, on its own
    r"(?<=\p{L})'\p{L}+|(?<=\p{N})'s",  # "don't" -> "don 't", "60's" -> "60 's"
    r"'(?=[^\p{L}])|(?<=[^\p{L}])'",  # any other apostrophe before or after a non-letter
    r"[^\p{L}\p{N}\s.'`,\-]",  # any other symbol on its own
    r"(?<!\d),|,(?!\d)",  # a comma outside a number
)
"""Where the pre-tokenizer splits, in order (the first three on the sentence before its
whitespace, as their context reaches beyond a word)."""


def build(words: Sequence[str], unk: str, tokenizer: str, lowercase: bool) -> Tokenizer:
    """A word-level tokenizer over ``words`` (token id = row), unknown tokens taking ``unk``."""
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

    model = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token=unk))
    steps = [normalizers.Replace(Regex(MOSES_PERIOD), " .")] if tokenizer == "moses" else []
    steps += [normalizers.Lowercase()] if lowercase else []
    if steps:
        model.normalizer = normalizers.Sequence(steps)
    isolate = [pre_tokenizers.Split(Regex(p), "isolated") for p in MOSES_SPLITS]
    whitespace = [pre_tokenizers.WhitespaceSplit()]
    splits = [*isolate[:3], *whitespace, *isolate[3:]] if tokenizer == "moses" else whitespace
    model.pre_tokenizer = pre_tokenizers.Sequence(splits)
    return model


def tokens(model: Tokenizer, sentences: Sequence[str]) -> list[list[str]]:
    """The words ``model`` splits each sentence into (before the vocabulary is looked up)."""
    out = []
    for sentence in sentences:
        text = model.normalizer.normalize_str(sentence) if model.normalizer else sentence
        out.append([t for t, _ in model.pre_tokenizer.pre_tokenize_str(text) if t.strip()])
    return out
