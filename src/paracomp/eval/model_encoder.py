"""The sentence encoder of a model the generic evaluator scores, and how it composes.

A model is either word vectors (an embeddings artefact: their rows averaged,
:class:`~paracomp.eval.encode.AveragedEmbeddings`) or a trained run folder
(:mod:`paracomp.run_folder`) evaluated through its own composer: a sentence run
(objectives ``bicvm``, ``paraphrase``, ``supervised``) by :func:`paracomp.eval.trained.load_run`, a
run towards target words (objective ``targets``) by :class:`paracomp.eval.composed.ComposedEncoder`
over its tuned rows, at most ``max_length`` tokens; for either, words outside the run's rows
take the ``fallback`` vectors (those it started from) where given.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from paracomp import artefacts
from paracomp.eval.encode import AveragedEmbeddings, SentenceEncoder

AVERAGED = "averaged word rows"


@dataclass(frozen=True)
class Encoding:
    """How a model composes: ``composition`` (:data:`AVERAGED`, else ``composer <name>``),
    its ``source`` (embeddings file or run folder) and the run's ``objective`` (or "")."""

    composition: str
    source: str
    objective: str = ""
    fallback: str = ""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def embeddings_encoder(path: Path, oov: str) -> tuple[Encoding, SentenceEncoder]:
    """Averaged rows of the embeddings artefact ``path``."""
    words, matrix = artefacts.read_embeddings(path)
    return Encoding(AVERAGED, str(path)), AveragedEmbeddings(words, matrix, oov)


def run_encoder(run_dir: Path, fallback: Path | None = None) -> tuple[Encoding, SentenceEncoder]:
    """A run folder's encoder through its own composer (``fallback``: the vectors of words
    outside its rows, those it started from)."""
    from paracomp import run_folder
    from paracomp.eval.composed import ComposedEncoder
    from paracomp.eval.trained import load_run

    config, _ = run_folder.read_composer(Path(run_dir))
    words, matrix = artefacts.read_embeddings(fallback) if fallback else ([], None)
    if config.objective != "targets":
        config, encoder = load_run(Path(run_dir), fallback=(words, matrix) if fallback else None)
        encoding = Encoding(
            f"composer {config.composer}", str(run_dir), config.objective, str(fallback or "")
        )
        return encoding, encoder
    model, vocabulary = run_folder.read_definition_model(Path(run_dir))
    encoder = ComposedEncoder(
        model.composer, vocabulary, model.weight.detach().numpy(), words, matrix,
        config.max_length,
    )  # fmt: skip
    encoding = Encoding(
        f"composer {config.composer}", str(run_dir), config.objective, str(fallback or "")
    )
    return encoding, encoder
