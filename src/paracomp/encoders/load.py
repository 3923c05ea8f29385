"""``paracomp.load_encoder``: an :class:`~paracomp.encoders.encoder.Encoder` from a run folder,
a selected model, a leaderboard model name, an embeddings parquet or an exported folder.

The tokenisation and OOV policy are those the evaluator recorded for the model
(``results/eval/<model>/encoder.json``, found by name or by its source) or an exported folder
holds; a source no evaluation records needs them given (``tokenisation``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from paracomp.encoders.encoder import Encoder, Tokenisation
from paracomp.errors import ConfigError, DataError

EVALUATIONS = Path("results") / "eval"
RECORD = "encoder.json"


def evaluations(root: Path) -> dict[str, dict[str, Any]]:
    """Every evaluated model under ``root`` (``results/eval/<model>/encoder.json``) -> its
    record."""
    base = root / EVALUATIONS
    found = {}
    for path in sorted(base.glob(f"**/{RECORD}")):
        try:
            found[path.parent.relative_to(base).as_posix()] = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    return dict(sorted(found.items()))


def _record_of(source: Path, root: Path) -> tuple[str, dict[str, Any]] | None:
    """The evaluation whose source is ``source`` (first by model name), if any."""
    target = source.resolve()
    for model, record in evaluations(root).items():
        if "source" in record and (root / record["source"]).resolve() == target:
            return model, record
    return None


def _tokenisation(
    record: dict[str, Any] | None, where: str, given: Tokenisation | None
) -> Tokenisation:
    """The tokenisation the evaluation ``record`` holds (``given`` must agree), else
    ``given``."""
    keys = ("tokenizer", "lowercase", "oov")
    if record is not None and all(k in record for k in keys):
        recorded = Tokenisation.from_dict(record, where)
        if given is not None and given != recorded:
            raise ConfigError(f"{where}: evaluated with {recorded}, not {given}")
        return recorded
    if given is None:
        why = "its evaluation predates the record: rerun its rule `evaluate`, or"
        raise ConfigError(
            f"{where}: no evaluation records how this model tokenises ("
            f"{why if record is not None else 'nothing evaluated it:'} give its tokenizer,"
            " lowercase and OOV policy; the evaluator's are config.yaml `evaluation`)"
        )
    return given


def load_encoder(
    source: str | Path,
    device: str = "cpu",
    root: str | Path = ".",
    tokenisation: Tokenisation | None = None,
) -> Encoder:
    """The encoder of ``source``: an exported folder, a run folder (or selected model), an
    embeddings parquet, or a model name evaluated under ``root`` (``<paper>/<run>``,
    ``glove-6b-50d``); unknown names are an error listing the known ones."""
    from paracomp.encoders import bundle

    root, path = Path(root), Path(source)
    if path.is_dir() and bundle.is_bundle(path):
        return bundle.read(path, device)
    if path.is_dir() or path.suffix == ".parquet":
        if not path.exists():
            raise FileNotFoundError(2, "no such file", str(path))
        found = _record_of(path, root)
        model, record = found if found else ("", None)
        encoding = {"model": model, "source": str(source), **(record or {})}
        tokens = _tokenisation(record, str(path), tokenisation)
        return _build(path, encoding, tokens, device, root)
    known = evaluations(root)
    if str(source) not in known:
        names = ", ".join(known) or f"none: nothing is evaluated under {root / EVALUATIONS}"
        raise ConfigError(f"unknown model {str(source)!r}; known: {names}")
    record = known[str(source)]
    where = str(root / EVALUATIONS / str(source) / RECORD)
    tokens = _tokenisation(record, where, tokenisation)
    return _build(root / record["source"], {"model": str(source), **record}, tokens, device, root)


def _build(
    path: Path, info: dict[str, Any], tokens: Tokenisation, device: str, root: Path
) -> Encoder:
    """The evaluator's encoder of the run folder or embeddings file ``path``."""
    from paracomp.eval.model_encoder import embeddings_encoder, run_encoder

    if path.is_dir():
        from paracomp.encoders import runs

        if not runs.is_run(path):
            raise DataError(f"{path}: neither a run folder nor an exported model folder")
        fallback = root / info["fallback"] if info.get("fallback") else None
        encoding, inner = run_encoder(path, fallback)
        settings = runs.settings(path)
    else:
        (encoding, inner), settings = embeddings_encoder(path, tokens.oov), {}
    keys = ("model", "composition", "source", "objective", "fallback")
    merged = {**encoding.to_dict(), **{k: str(info[k]) for k in keys if info.get(k)}}
    described = {k: str(merged.get(k, "")) for k in keys}
    return Encoder(inner, tokens, described, settings).to(device)
