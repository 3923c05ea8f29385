"""A model ready for one's own sentences: :class:`Encoder`, the evaluator's encoder with the
tokenisation, lowercasing and OOV policy it was scored with (:class:`Tokenisation`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from paracomp.errors import ConfigError
from paracomp.eval.encode import OOV_POLICIES, SentenceEncoder, cosine_rows
from paracomp.eval.tokens import TOKENIZERS, tokenize_all


@dataclass(frozen=True)
class Tokenisation:
    """How the evaluator turns a sentence into tokens (``tokenizer``, then ``lowercase``) and
    treats tokens outside the model's vocabulary (``oov``: ``skip`` and ``drop`` leave them
    out of a sentence's vector, ``unk`` counts them as a zero row)."""

    tokenizer: str
    lowercase: bool
    oov: str

    def __post_init__(self) -> None:
        if self.tokenizer not in TOKENIZERS:
            raise ConfigError(f"tokenizer {self.tokenizer!r}: expected one of {TOKENIZERS}")
        if self.oov not in OOV_POLICIES:
            raise ConfigError(f"oov {self.oov!r}: expected one of {OOV_POLICIES}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any], where: str) -> Tokenisation:
        missing = [k for k in ("tokenizer", "lowercase", "oov") if k not in values]
        if missing:
            raise ConfigError(f"{where}: no {', '.join(missing)} recorded")
        return cls(str(values["tokenizer"]), bool(values["lowercase"]), str(values["oov"]))


@dataclass
class Encoder:
    """``encode`` sentences as the evaluator does for this model; ``similarity`` of pairs.

    ``inner`` is the evaluator's :class:`~paracomp.eval.encode.SentenceEncoder`; ``info`` says
    what the model is (``model``, ``composition``, ``source``, ``objective``, ``fallback``: the
    evaluator's ``encoder.json``) and ``settings`` a trained run's settings, for provenance
    and model cards."""

    inner: SentenceEncoder
    tokenisation: Tokenisation
    info: dict[str, str] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.info.get("model") or self.info.get("source", "")

    def tokenize(self, sentences: Sequence[str]) -> list[list[str]]:
        t = self.tokenisation
        return tokenize_all(list(sentences), t.tokenizer, t.lowercase)

    def known(self, token: str) -> bool:
        return self.inner.known(token)

    def to(self, device: str) -> Encoder:
        """Move a composer and its rows to ``device`` (averaged rows stay on the CPU)."""
        composer = getattr(self.inner, "composer", None)
        if composer is not None:
            composer.to(device)
            self.inner.rows = self.inner.rows.to(device)  # type: ignore[attr-defined]
        return self

    def batches(
        self, sentences: Sequence[str], batch_size: int = 1024
    ) -> Iterator[tuple[int, np.ndarray]]:
        """Each batch's first index and its vectors (for a progress bar over long inputs)."""
        if batch_size < 1:
            raise ConfigError(f"batch_size {batch_size}: expected at least 1")
        if hasattr(self.inner, "batch_size"):
            self.inner.batch_size = batch_size  # type: ignore[attr-defined]
        for start in range(0, len(sentences), batch_size):
            tokens = self.tokenize(sentences[start : start + batch_size])
            yield start, np.asarray(self.inner.encode(tokens), dtype=np.float32)

    def encode(
        self,
        sentences: Sequence[str],
        batch_size: int = 1024,
        device: str | None = None,
        normalize: bool = False,
    ) -> np.ndarray:
        """One float32 row per sentence (``normalize``: unit length; a zero row stays zero)."""
        if isinstance(sentences, str):
            raise ConfigError("encode takes a list of sentences, not one string")
        if device is not None:
            self.to(device)
        parts = [vectors for _, vectors in self.batches(sentences, batch_size)]
        out = np.concatenate(parts) if parts else np.zeros((0, self.dim), dtype=np.float32)
        return normalized(out) if normalize else out

    @property
    def dim(self) -> int:
        """The width of a sentence vector."""
        return int(self.inner.encode([[]]).shape[1])

    def similarity(
        self, a: Sequence[str] | np.ndarray, b: Sequence[str] | np.ndarray
    ) -> np.ndarray:
        """Cosine of each pair ``(a[i], b[i])`` (sentences or their vectors); 0 where either
        vector is zero, as the evaluator scores."""
        if len(a) != len(b):
            raise ConfigError(f"similarity: {len(a)} first but {len(b)} second sentences")
        left = a if isinstance(a, np.ndarray) else self.encode(a)
        right = b if isinstance(b, np.ndarray) else self.encode(b)
        return cosine_rows(left, right)


def normalized(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
