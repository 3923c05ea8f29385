"""A model's self-contained folder: everything :func:`paracomp.load_encoder` needs to encode
as the evaluator does, and nothing else of the project's results.

- ``paracomp-encoder.json``: ``format`` and ``version`` (:data:`VERSION`; a newer one is
  refused), the encoder's ``kind`` (:data:`KINDS`), its composer and settings, the
  tokenisation and OOV policy, and what the model is (``info``);
- ``vocabulary.json``: the words, row ``i`` of ``rows.npy`` (float32) being word ``i``'s;
- ``composer.pt``: the composer's state dict (a composing kind only; read with
  ``weights_only``);
- ``README.md``: the model card (:mod:`paracomp.encoders.card`).

The folder is written whole or not at all (:func:`~paracomp.atomic.atomic_dir`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

import paracomp
from paracomp.atomic import atomic_dir
from paracomp.encoders.encoder import Encoder, Tokenisation
from paracomp.errors import DataError

FORMAT = "paracomp-encoder"
VERSION = 1
SETTINGS = "paracomp-encoder.json"
VOCABULARY = "vocabulary.json"
ROWS = "rows.npy"
COMPOSER = "composer.pt"
CARD = "README.md"
KINDS = ("averaged", "trained", "composed")
"""Averaged word rows (:class:`~paracomp.eval.encode.AveragedEmbeddings`), a pair run's
composer (:class:`~paracomp.eval.trained.TrainedEncoder`: unknown words take the ``UNK`` row
if the vocabulary has one, else are skipped) or a run towards target words
(:class:`~paracomp.eval.composed.ComposedEncoder`: at most ``max_length`` tokens)."""


def is_bundle(path: Path) -> bool:
    return (path / SETTINGS).is_file()


def words_of(index: dict[str, int]) -> list[str]:
    """The words of a word -> row index, in row order."""
    return sorted(index, key=index.__getitem__)


def contents(encoder: Encoder) -> tuple[dict[str, Any], list[str], np.ndarray, dict | None]:
    """An encoder's settings, words, rows and composer state (None: averaged rows)."""
    inner: Any = encoder.inner
    words = words_of(inner.index)
    settings: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "tokenisation": encoder.tokenisation.to_dict(),
        "info": encoder.info,
        "settings": encoder.settings,
        "paracomp_version": paracomp.__version__,
    }
    if not hasattr(inner, "composer"):
        return {**settings, "kind": "averaged"}, words, np.asarray(inner.matrix), None
    from paracomp.eval.composed import ComposedEncoder

    composed = isinstance(inner, ComposedEncoder)
    rows = inner.rows.float().cpu().numpy()
    settings |= {
        "kind": "composed" if composed else "trained",
        "composer": encoder.info["composition"].removeprefix("composer "),
        "dim": int(rows.shape[1] if composed else inner.composer.dim),
        "composer_settings": {} if composed else encoder.settings,
        "max_length": int(inner.max_length) if composed else None,
    }
    state = {k: v.detach().cpu() for k, v in inner.composer.state_dict().items()}
    return settings, words, rows, state


def write(encoder: Encoder, out: Path, card: str) -> None:
    """``encoder``'s folder at ``out`` (replacing it), with the model card ``card``."""
    settings, words, rows, state = contents(encoder)
    with atomic_dir(out) as tmp:
        (tmp / SETTINGS).write_text(json.dumps(settings, indent=1, sort_keys=True) + "\n")
        (tmp / VOCABULARY).write_text(json.dumps(words, ensure_ascii=False))
        np.save(tmp / ROWS, np.ascontiguousarray(rows, dtype=np.float32), allow_pickle=False)
        if state is not None:
            import torch

            torch.save(state, tmp / COMPOSER)
        (tmp / CARD).write_text(card)


def read_settings(path: Path) -> dict[str, Any]:
    """A folder's settings, checked: this format, a version this paracomp reads, a kind."""
    file = path / SETTINGS
    try:
        settings = json.loads(file.read_text())
    except json.JSONDecodeError as exc:
        raise DataError(f"{file}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if settings.get("format") != FORMAT:
        raise DataError(f"{file}: format {settings.get('format')!r}, expected {FORMAT!r}")
    version = settings.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise DataError(
            f"{file}: format version {version!r}; this paracomp ({paracomp.__version__}) reads"
            f" versions up to {VERSION}: update paracomp"
        )
    if settings.get("kind") not in KINDS:
        raise DataError(f"{file}: kind {settings.get('kind')!r}, expected one of {KINDS}")
    return settings


def read(path: Path, device: str = "cpu") -> Encoder:
    """The encoder of the folder ``path``."""
    settings = read_settings(path)
    words = json.loads((path / VOCABULARY).read_text())
    rows = np.load(path / ROWS, allow_pickle=False)
    if rows.ndim != 2 or rows.shape[0] != len(words):
        raise DataError(f"{path / ROWS}: shape {rows.shape}, but {len(words)} words")
    tokens = Tokenisation.from_dict(settings["tokenisation"], str(path / SETTINGS))
    info = {k: str(v) for k, v in settings.get("info", {}).items() if isinstance(v, str)}
    if settings["kind"] == "averaged":
        from paracomp.eval.encode import AveragedEmbeddings

        inner: Any = AveragedEmbeddings(words, rows, tokens.oov)
    else:
        inner = _composing(path, settings, words, rows)
    return Encoder(inner, tokens, info, settings.get("settings", {})).to(device)


def _composing(path: Path, settings: dict[str, Any], words: list[str], rows: np.ndarray) -> Any:
    """The composing encoder of a folder (its composer on the CPU, in eval mode)."""
    import torch

    from paracomp.eval.composed import ComposedEncoder
    from paracomp.eval.trained import TrainedEncoder, features_of
    from paracomp.models.registry import COMPOSERS, make_composer

    name, dim = settings["composer"], settings["dim"]
    if name not in COMPOSERS:
        raise DataError(f"{path / SETTINGS}: unknown composer {name!r}")
    composer = make_composer(name, dim, settings=settings["composer_settings"] or None)
    try:
        state = torch.load(path / COMPOSER, map_location="cpu", weights_only=True)
        composer.load_state_dict(state)
    except (RuntimeError, KeyError, ValueError) as exc:
        raise DataError(f"{path / COMPOSER}: not the state of composer {name!r} ({exc})") from None
    composer.eval()
    if settings["kind"] == "composed":
        return ComposedEncoder(composer, words, rows, max_length=settings["max_length"])
    return TrainedEncoder(composer, words, rows, features_of(name))
