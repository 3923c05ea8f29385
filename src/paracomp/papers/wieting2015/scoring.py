"""Scores of Wieting et al.'s (2015) models: word similarity of a word-training point
(SimLex-999, WS-353 similarity and relatedness) and the cosines of a phrase model (vector
addition "+", or a trained pair run: the RNN) on the phrase sets.

Evaluation uses cosine similarity everywhere (§5.3, §6.2; dot products only inside the
hinge). Words and phrases are looked up as written (the sets are lowercased and tokenised
already, whitespace tokens); an out-of-vocabulary token is skipped (the pipeline's
``evaluation.oov: skip``; the paper maps it to its unknown-word vector), the RNN's tree then
spanning the remaining tokens; the number of pairs with such tokens is recorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from paracomp import artefacts
from paracomp.eval.encode import AveragedEmbeddings, SentenceEncoder, cosine_rows
from paracomp.eval.metrics import spearman
from paracomp.eval.wordsim import evaluate_wordsim
from paracomp.papers.wieting2015.ml2010 import ml_spearman
from paracomp.papers.wieting2015.selection import ws_criterion

WORD_SETS = ("simlex999", "ws353-sim", "ws353-rel")
HEADS = ("heads1", "heads2")
"""Optional columns of the phrase sets: each token's dependency head, per side (as the
training pairs': :data:`paracomp.models.vocab.HEADS`)."""
SCORE_COLUMNS = ["set", "subset", "split", "id", "s1", "s2", "gold", "pred", "oov"]


def word_scores(embeddings: Path, sets: Mapping[str, Path]) -> dict[str, Any]:
    """Spearman's ρ on each of :data:`WORD_SETS` and the PARAGRAM_WS criterion
    ``2·WS-S − WS-R``."""
    words, matrix = artefacts.read_embeddings(embeddings)
    encoder = AveragedEmbeddings(words, matrix, "skip")
    found: dict[str, Any] = {}
    for name in WORD_SETS:
        result = evaluate_wordsim(pd.read_parquet(sets[name]), encoder, True, "skip")
        found[name] = {k: result[k] for k in ("spearman", "n", "n_oov")}
    ws = (found["ws353-sim"]["spearman"], found["ws353-rel"]["spearman"])
    found["criterion"] = {"ws": ws_criterion(*ws), "simlex": found["simlex999"]["spearman"]}
    return found


def word_predictions(embeddings: Path, pairs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, int]:
    """Cosines of the word pairs (``w1``, ``w2``, ``score``) whose words are both known, their
    gold, and how many pairs were left out."""
    words, matrix = artefacts.read_embeddings(embeddings)
    encoder = AveragedEmbeddings(words, matrix, "skip")
    w1, w2 = pairs["w1"].str.lower(), pairs["w2"].str.lower()
    keep = np.array([encoder.known(a) and encoder.known(b) for a, b in zip(w1, w2, strict=True)])
    pred = cosine_rows(
        encoder.encode([[a] for a in w1[keep]]), encoder.encode([[b] for b in w2[keep]])
    )
    return pred, pairs["score"].to_numpy(dtype=np.float64)[keep], int((~keep).sum())


def additive_encoder(embeddings: Path) -> AveragedEmbeddings:
    """Vector addition ("+"; cosines of sums and of averages are the same)."""
    words, matrix = artefacts.read_embeddings(embeddings)
    return AveragedEmbeddings(words, matrix, "skip")


class RunEncoder:
    """A trained pair run (``composer.pt`` and ``embeddings.parquet``) as a sentence encoder.
    A tree composer composes each phrase over the tree of its dependency ``heads`` if given
    (:func:`paracomp.models.trees.binary_tree`; a phrase with an unknown token, skipped,
    falls back to right-branching over the others), else right-branching."""

    def __init__(self, run: Path):
        import torch

        from paracomp import run_folder
        from paracomp.models.registry import COMPOSERS

        config, state = run_folder.read_composer(run)
        self.composer = COMPOSERS[config.composer](config.dim).eval()
        self.composer.load_state_dict(state)
        words, matrix = run_folder.read_rows(run)
        self.index = {w: i for i, w in enumerate(words)}
        self.rows = torch.from_numpy(np.array(matrix, dtype=np.float32))  # a writable copy

    def known(self, token: str) -> bool:
        return token in self.index

    def encode(
        self,
        sentences: Sequence[Sequence[str]],
        heads: Sequence[Sequence[int] | None] | None = None,
    ) -> np.ndarray:
        import torch

        from paracomp.models.base import SegmentBatch
        from paracomp.models.tree_rnn import TreeBatch, TreeRNNComposer, Trees
        from paracomp.models.trees import binary_tree

        ids = [[self.index[t] for t in tokens if t in self.index] for tokens in sentences]
        lengths = [len(x) for x in ids]
        flat = torch.tensor([i for x in ids for i in x], dtype=torch.long)
        index, local = torch.unique(flat, return_inverse=True)
        offsets = torch.tensor(np.cumsum([0, *lengths[:-1]]), dtype=torch.long)
        batch = SegmentBatch(self.rows[index], local, offsets)
        if isinstance(self.composer, TreeRNNComposer):
            parses = heads if heads is not None else [None] * len(ids)
            trees = [
                binary_tree(h if len(tokens) == n else None, n)
                for h, tokens, n in zip(parses, sentences, lengths, strict=True)
            ]
            built = Trees.build(trees, lengths)
            batch = TreeBatch.of(batch, *built.take(torch.arange(len(ids))))
        with torch.no_grad():
            vectors = self.composer(batch)
        return vectors.numpy()


def phrase_scores(encoder: SentenceEncoder, sets: pd.DataFrame) -> pd.DataFrame:
    """The cosine of every pair of the phrase sets (each distinct phrase encoded once; over
    its dependency heads where ``sets`` has ``heads1``/``heads2`` and the encoder takes them)."""
    phrases = sorted(set(sets["s1"]) | set(sets["s2"]))
    tokens = [p.split() for p in phrases]
    if all(c in sets.columns for c in HEADS) and isinstance(encoder, RunEncoder):
        parse = dict(zip(sets["s1"], sets["heads1"], strict=True))
        parse.update(zip(sets["s2"], sets["heads2"], strict=True))
        vectors = encoder.encode(tokens, [list(parse[p]) for p in phrases])
    else:
        vectors = encoder.encode(tokens)
    row = {p: i for i, p in enumerate(phrases)}
    a = vectors[[row[p] for p in sets["s1"]]]
    b = vectors[[row[p] for p in sets["s2"]]]
    unknown = {p for p, t in zip(phrases, tokens, strict=True) if not all(map(encoder.known, t))}
    out = sets.rename(columns={"score": "gold"}).copy()
    out["pred"] = cosine_rows(a, b)
    out["oov"] = [x in unknown or y in unknown for x, y in zip(out["s1"], out["s2"], strict=True)]
    return out[SCORE_COLUMNS]


def rho(scores: pd.DataFrame, set_name: str, subset: str, split: str, ml: str) -> float:
    """Spearman's ρ of one part of the phrase sets (ML 2010: over the ``ml`` aggregate)."""
    part = _part(scores, set_name, subset, split)
    if set_name == "ml2010":
        return ml_spearman(part["s1"], part["s2"], part["gold"], part["pred"], ml)
    return spearman(part["gold"].to_numpy(), part["pred"].to_numpy())


def _part(scores: pd.DataFrame, set_name: str, subset: str, split: str) -> pd.DataFrame:
    mask = (scores["set"] == set_name) & (scores["subset"] == subset) & (scores["split"] == split)
    return scores[mask]
