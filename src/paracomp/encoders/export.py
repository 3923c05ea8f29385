"""``paracomp export``: a model as word vectors in word2vec or GloVe text, a sentence-transformers
``StaticEmbedding`` model or a model2vec folder (models that average or sum word rows), or as
paracomp's own folder (:mod:`~paracomp.encoders.bundle`, any model). Each folder has a model
card (``README.md``) and is written whole or not at all.

sentence-transformers and model2vec average the rows of a sentence's tokens as our averaging
encoders do (a summing model's vectors are its average times the number of tokens: the same
cosine); their tokens come from :mod:`~paracomp.encoders.wordlevel`'s tokenizer. model2vec
leaves unknown tokens out, as the OOV policy ``skip`` does; sentence-transformers counts them
as a zero row in the mean (our ``unk``), so under ``skip`` its vectors of a sentence with an
unknown token are ours scaled down (again the same cosine). A CompVec run composes the first
``max_length`` tokens of a sentence; these formats read them all (the card says so).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from paracomp.atomic import atomic_dir
from paracomp.encoders import bundle, card, wordlevel
from paracomp.encoders.encoder import Encoder
from paracomp.errors import ConfigError

FORMATS = ("word2vec", "glove", "sentence-transformers", "model2vec", "paracomp")
AVERAGING = ("sum", "mean")
"""Composers whose sentence vector is the sum or mean of its word rows."""
VECTORS = "vectors.txt"


def word_rows(encoder: Encoder, fmt: str) -> tuple[list[str], np.ndarray]:
    """An averaging model's words and rows; any other is refused with the reason."""
    settings, words, rows, _ = bundle.contents(encoder)
    composer = settings.get("composer")
    if composer is not None and composer not in AVERAGING:
        raise ConfigError(
            f"export {encoder.name or 'model'} as {fmt}: it composes with composer {composer!r},"
            f" not by averaging its word rows, which is all {fmt} holds; export it as"
            " --format paracomp (a folder paracomp.load_encoder reads)"
        )
    return words, rows


def write_text(words: list[str], rows: np.ndarray, path: Path, header: bool) -> None:
    """word2vec text (``header``: the ``count dim`` line first) or GloVe text; each value
    with 9 significant digits (float32 read back exactly)."""
    with open(path, "w", encoding="utf-8") as handle:
        if header:
            handle.write(f"{len(words)} {rows.shape[1]}\n")
        for word, row in zip(words, rows):
            if not word or any(c.isspace() for c in word):
                raise ConfigError(f"word {word!r} holds whitespace: not writable as text vectors")
            handle.write(word + " " + " ".join(f"{v:.9g}" for v in row.tolist()) + "\n")


def _static(encoder: Encoder, words: list[str], rows: np.ndarray) -> tuple[Any, np.ndarray]:
    """The tokenizer over ``words`` (plus a zero ``[UNK]`` row where the model has none) and
    the rows."""
    from paracomp.models.vocab import UNK

    t = encoder.tokenisation
    if UNK in words:
        return wordlevel.build(words, UNK, t.tokenizer, t.lowercase), rows
    padded = np.concatenate([rows, np.zeros((1, rows.shape[1]), dtype=np.float32)])
    tokenizer = wordlevel.build([*words, wordlevel.UNK_TOKEN], wordlevel.UNK_TOKEN,
                                t.tokenizer, t.lowercase)  # fmt: skip
    return tokenizer, padded


def export(encoder: Encoder, fmt: str, out: Path, root: Path = Path(".")) -> None:
    """Write ``encoder`` to the folder ``out`` in format ``fmt`` (:data:`FORMATS`)."""
    if fmt not in FORMATS:
        raise ConfigError(f"export format {fmt!r}: expected one of {FORMATS}")
    readme = card.render(encoder, fmt, root)
    if fmt == "paracomp":
        bundle.write(encoder, out, readme)
        return
    words, rows = word_rows(encoder, fmt)
    with atomic_dir(out) as tmp:
        if fmt in ("word2vec", "glove"):
            write_text(words, rows, tmp / VECTORS, header=fmt == "word2vec")
        elif fmt == "sentence-transformers":
            from sentence_transformers import SentenceTransformer
            from sentence_transformers.sentence_transformer.modules import StaticEmbedding

            tokenizer, weights = _static(encoder, words, rows)
            model = SentenceTransformer(modules=[StaticEmbedding(tokenizer, weights)])
            model.save(str(tmp))
        else:
            from model2vec import StaticModel

            tokenizer, weights = _static(encoder, words, rows)
            StaticModel(weights, tokenizer, normalize=False, max_length=None).save_pretrained(tmp)
        (tmp / card.CARD).write_text(readme)
