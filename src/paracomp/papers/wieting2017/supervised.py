"""Supervised STS and SICK (Tables 5, 6, 8): an encoder trained end to end with the
similarity head and loss of Tai et al. (2015), as the paper's §3.5 and §4.3.

- Data: the 20 STS 2012-2015 subsets pooled, each split with a seeded permutation into 40 %
  training, 10 % validation and the rest test (:func:`sts_splits`; the paper's sizes are
  4,481 / 1,207 / 6,060 and its procedure is not stated); SICK's standard train / trial / test.
- Model: h× = hL ⊙ hR, h+ = |hL − hR|, hs = σ(W× h× + W+ h+ + b), p̂ = softmax(Wp hs + bp),
  ŷ = rᵀp̂ with r = [1 … K]; the loss KL(p ‖ p̂) with Tai et al.'s sparse target p (SICK:
  K = 5 on 1-5; STS: K = 6 on gold + 1, the digest's plausible choice) and 1e-6 added to
  each bin, as the authors' iclr2016 code.
- Regularisation: dropout on the word vectors of every token, or word dropout (whole vectors,
  the rest scaled by 1/(1 − p), lengths kept), scrambling (both sentences of a pair shuffled
  with probability p, drawn per pair and epoch), λ_w/2 ‖W_w − W_w^init‖² and λ_c/2 ‖W_c −
  W_c^0‖² (W_c^0 = 0, or the pretrained composer in the "universal" setting, which starts from
  a transfer run's word vectors and composer and is pulled back to them: §3.5, Table 8).
- Selection: the epoch with the best validation Pearson r; its test r is reported.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
from torch import nn

from paracomp.errors import DataError
from paracomp.eval.metrics import pearson
from paracomp.eval.senteval import tai_distribution
from paracomp.models.base import SegmentBatch
from paracomp.run_config import TrainConfig
from paracomp.train.cuda_graph import GriddedComposer, graphed_composer

log = logging.getLogger(__name__)

STS_FRACTIONS = (0.4, 0.1)
TASKS = {"sts": {"classes": 6, "shift": 1.0}, "sick": {"classes": 5, "shift": 0.0}}
"""Per task: the classes K of the target distribution and the shift putting gold in [1, K]."""


def sts_splits(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """``frame`` (scored pairs of the STS subsets) with a ``part`` column: per (dataset,
    subset), a permutation seeded by ``seed`` gives the first floor(40 %) pairs to ``train``,
    the next floor(10 %) to ``dev`` and the rest to ``test``."""
    parts = []
    for index, (_, group) in enumerate(frame.groupby(["dataset", "subset"], sort=True)):
        order = np.random.default_rng([seed, index]).permutation(len(group))
        n_train = int(math.floor(STS_FRACTIONS[0] * len(group)))
        n_dev = int(math.floor(STS_FRACTIONS[1] * len(group)))
        part = np.array(["test"] * len(group), dtype=object)
        part[order[:n_train]] = "train"
        part[order[n_train : n_train + n_dev]] = "dev"
        parts.append(group.assign(part=part))
    return pd.concat(parts) if parts else frame.assign(part=[])


SICK_PARTS = {"train": "train", "trial": "dev", "test": "test"}


def sick_splits(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.assign(part=frame["split"].map(SICK_PARTS))


def sparse_target(scores: np.ndarray, classes: int) -> np.ndarray:
    """Tai et al.'s p for ``scores`` clipped to [1, K] (SentEval's SICK-R target)."""
    return tai_distribution(np.clip(np.asarray(scores, dtype=np.float64), 1.0, classes), classes)


class SimilarityHead(nn.Module):
    """hs = σ(W× (hL ⊙ hR) + W+ |hL − hR| + b); log softmax(Wp hs + bp)."""

    def __init__(self, dim: int, hidden: int, classes: int):
        super().__init__()
        self.times = nn.Linear(dim, hidden, bias=False)
        self.plus = nn.Linear(dim, hidden)
        self.out = nn.Linear(hidden, classes)

    def forward(self, left: torch.Tensor, right: torch.Tensor) -> torch.Tensor:
        hidden = torch.sigmoid(self.times(left * right) + self.plus((left - right).abs()))
        return torch.log_softmax(self.out(hidden), dim=1)


@dataclass
class Encoded:
    """Token ids of each side of the pairs (unknown tokens dropped), gold and parts."""

    left: list[np.ndarray]
    right: list[np.ndarray]
    gold: np.ndarray
    part: np.ndarray


def encode(
    frame: pd.DataFrame, index: Mapping[str, int], tokenizer: str, lowercase: bool
) -> Encoded:
    from paracomp.eval.tokens import tokenize_all

    def ids(sentences: Sequence[str]) -> list[np.ndarray]:
        return [
            np.array([index[t] for t in tokens if t in index], dtype=np.int64)
            for tokens in tokenize_all(list(sentences), tokenizer, lowercase)
        ]

    return Encoded(
        ids(frame["s1"].tolist()),
        ids(frame["s2"].tolist()),
        frame["score"].to_numpy(dtype=np.float64),
        frame["part"].to_numpy(),
    )


class SupervisedModel(nn.Module):
    """Word rows, the composer and Tai et al.'s head. With a ``runner`` (composing in the
    composer's place, e.g. :class:`~paracomp.train.cuda_graph.GriddedComposer`) both sides of
    a batch are composed in one call (the runner's graphs hold one composition per shape until
    its backward)."""

    def __init__(self, matrix: np.ndarray, composer: nn.Module, hidden: int, classes: int):
        super().__init__()
        self.weight = nn.Parameter(torch.tensor(np.asarray(matrix), dtype=torch.float32))
        self.composer = composer
        self.head = SimilarityHead(composer.dim, hidden, classes)
        self.runner: Callable[[SegmentBatch], torch.Tensor] | None = None

    def embed(self, sentences: Sequence[np.ndarray], noise: dict[str, Any] | None) -> torch.Tensor:
        lengths = [len(s) for s in sentences]
        device = self.weight.device
        flat = torch.as_tensor(np.concatenate(sentences) if sentences else np.zeros(0, np.int64))
        rows = self.weight.index_select(0, flat.to(device))
        if noise is not None:
            # Masks drawn on the CPU generator: the same draws on every device.
            generator = noise["generator"]
            if noise["dropout"]:
                keep = torch.rand(rows.shape, generator=generator) >= noise["dropout"]
                rows = rows * keep.to(device) / (1.0 - noise["dropout"])
            elif noise["word_dropout"]:
                keep = torch.rand((rows.shape[0], 1), generator=generator) >= noise["word_dropout"]
                rows = rows * keep.to(device) / (1.0 - noise["word_dropout"])
        offsets = torch.as_tensor(np.cumsum([0, *lengths[:-1]]), dtype=torch.long, device=device)
        ids = torch.arange(rows.shape[0], device=device)
        batch = SegmentBatch(rows, ids, offsets)
        return self.composer(batch) if self.runner is None else self.runner(batch)

    def forward(self, left, right, noise=None) -> torch.Tensor:
        if self.runner is not None:
            return self.head(*self.embed([*left, *right], noise).split(len(left)))
        return self.head(self.embed(left, noise), self.embed(right, noise))


def train_supervised(
    frame: pd.DataFrame,
    task: str,
    words: Sequence[str],
    matrix: np.ndarray,
    composer: nn.Module,
    settings: Mapping[str, Any],
    tokenizer: str,
    lowercase: bool,
    composer_anchor: Mapping[str, torch.Tensor] | None = None,
    device: torch.device | str = "cpu",
    gridded: bool = False,
    on_best: Callable[[SupervisedModel], None] | None = None,
) -> dict[str, Any]:
    """Train on the ``train`` part of ``frame``, select the epoch by ``dev`` Pearson, report
    its ``test`` Pearson (×100) and the test pairs' gold and predictions (``test_gold``,
    ``test_pred``: the table's bootstrap intervals); ``settings``: epochs, batch_size, lr, hidden, dropout,
    word_dropout, scramble, reg_initial, reg_composer, seed. On ``device`` (the data and
    the noise's draws stay on the CPU). ``gridded``: the composer runs as a
    :class:`~paracomp.train.cuda_graph.GriddedComposer`, replayed from CUDA graphs on CUDA.
    ``on_best`` is called with the model after each epoch that improves the dev Pearson."""
    start = time.perf_counter()
    torch.manual_seed(settings["seed"])
    spec = TASKS[task]
    index = {w: i for i, w in enumerate(words)}
    data = encode(frame, index, tokenizer, lowercase)
    model = SupervisedModel(matrix, composer, settings["hidden"], spec["classes"]).to(device)
    if gridded:
        model.runner = GriddedComposer(composer, graphed=torch.device(device).type == "cuda")
    initial = model.weight.detach().clone()
    anchor = {k: v.detach().clone().to(device) for k, v in (composer_anchor or {}).items()}
    optimizer = torch.optim.Adam(model.parameters(), lr=settings["lr"])
    parts = {p: np.flatnonzero(data.part == p) for p in ("train", "dev", "test")}
    target = torch.as_tensor(
        sparse_target(data.gold + spec["shift"], spec["classes"]) + 1e-6, device=device
    )
    ranks = torch.arange(1, spec["classes"] + 1, dtype=torch.float32, device=device)
    rng = np.random.default_rng(settings["seed"])
    noise = {
        "generator": torch.Generator().manual_seed(settings["seed"]),
        "dropout": settings.get("dropout", 0.0),
        "word_dropout": settings.get("word_dropout", 0.0),
    }

    def predict(rows: np.ndarray) -> np.ndarray:
        model.eval()
        out = []
        with torch.no_grad():
            for s in range(0, len(rows), 500):
                batch = rows[s : s + 500]
                log_p = model([data.left[i] for i in batch], [data.right[i] for i in batch])
                out.append((log_p.exp() @ ranks).cpu().numpy())
        model.train()
        return np.concatenate(out) if out else np.zeros(0)

    best = {"dev": -math.inf, "test": math.nan, "epoch": 0, "pred": np.zeros(0)}
    for epoch in range(1, settings["epochs"] + 1):
        order = rng.permutation(parts["train"])
        for s in range(0, len(order), settings["batch_size"]):
            batch = order[s : s + settings["batch_size"]]
            left, right = [data.left[i] for i in batch], [data.right[i] for i in batch]
            if settings.get("scramble"):
                flips = rng.random(len(batch)) < settings["scramble"]
                left = [rng.permutation(x) if f else x for x, f in zip(left, flips)]
                right = [rng.permutation(x) if f else x for x, f in zip(right, flips)]
            log_p = model(left, right, noise)
            p = target[torch.as_tensor(batch, device=device)]
            loss = (p * (p.log() - log_p)).sum(1).mean()
            if settings.get("reg_initial"):
                loss = loss + 0.5 * settings["reg_initial"] * (model.weight - initial).pow(2).sum()
            if settings.get("reg_composer"):
                terms = [
                    (param - anchor.get(name, torch.zeros_like(param))).pow(2).sum()
                    for name, param in model.composer.named_parameters()
                ]
                if terms:
                    loss = loss + 0.5 * settings["reg_composer"] * torch.stack(terms).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        dev = pearson(predict(parts["dev"]), data.gold[parts["dev"]])
        if dev > best["dev"]:
            pred = predict(parts["test"])
            test = pearson(pred, data.gold[parts["test"]])
            best = {"dev": dev, "test": test, "epoch": epoch, "pred": pred}
            if on_best is not None:
                on_best(model)
        log.info("%s epoch %d: dev r %.4f (best %.4f, epoch %d)", task, epoch, dev,
                 best["dev"], best["epoch"])  # fmt: skip
    return {
        "task": task,
        "dev_pearson": 100.0 * best["dev"],
        "test_pearson": 100.0 * best["test"],
        "epoch": best["epoch"],
        "n": {p: int(len(v)) for p, v in parts.items()},
        "test_gold": data.gold[parts["test"]].tolist(),
        "test_pred": np.asarray(best["pred"], np.float64).tolist(),
        "seconds": time.perf_counter() - start,
    }


def run_supervised(
    task: str,
    sets: Mapping[str, Path],
    model: str,
    settings: Mapping[str, Any],
    tokenizer: str,
    lowercase: bool,
    init: Path | None = None,
    universal: Sequence[str] = (),
    device: torch.device | str = "cpu",
    encoder_out: Path | None = None,
) -> dict[str, Any]:
    """One supervised grid point: the composer ``model`` over the initial vectors ``init``, or
    ("universal") over the word vectors and composer of the point of a transfer run that
    2016 STS selects (``universal``: its ``run=folder`` points), anchored to them.
    ``encoder_out``: a run folder of the encoder at the selected epoch (:func:`write_encoder`)."""
    from paracomp import artefacts, run_folder
    from paracomp.models.registry import make_composer

    tokenizer, lowercase = _tokenisation(sets, tokenizer, lowercase)
    frame, missing = supervised_frame(task, sets, settings["split_seed"])
    generator = torch.Generator().manual_seed(settings["seed"])
    anchor, source = None, {"init": str(init)}
    if universal:
        from paracomp.papers.wieting2017.tables import load_points
        from paracomp.papers.wieting2017.transfer import select

        ((run, points),) = load_points(universal).items()
        point = select(points, "sts2016")
        if point is None or point.folder is None:
            raise ValueError(f"transfer run {run}: no point has STS 2016 scores")
        config, state = run_folder.read_composer(point.folder)
        if config.composer != model:
            raise ValueError(f"transfer run {run} trained {config.composer}, not {model}")
        shape = config.to_dict()
        composer = make_composer(model, settings["dim"], generator, shape)
        composer.load_state_dict(state)
        anchor = dict(composer.state_dict())
        words, matrix = run_folder.read_rows(point.folder)
        source = {"universal": run, "point": point.point, "settings": point.settings}
    else:
        shape = dict(settings)
        composer = make_composer(model, settings["dim"], generator, shape)
        words, matrix = artefacts.read_embeddings(init)
    gridded = graphed_composer({**settings, "composer": model}, device)
    # the encoder of the selected epoch; as initialised where no epoch is (a NaN dev r)
    best = {
        "weight": np.asarray(matrix, dtype=np.float32),
        "composer": {k: v.detach().clone() for k, v in composer.state_dict().items()},
    }

    def keep(trained: SupervisedModel) -> None:
        best["weight"] = trained.weight.detach().cpu().numpy().copy()
        state = trained.composer.state_dict()
        best["composer"] = {k: v.detach().cpu().clone() for k, v in state.items()}

    result = train_supervised(frame, task, words, matrix, composer, settings, tokenizer,
                              lowercase, anchor, device, gridded,
                              keep if encoder_out else None)  # fmt: skip
    if encoder_out is not None:
        config = encoder_config(model, settings, shape)
        write_encoder(encoder_out, config, best["composer"], words, matrix, best["weight"], task)
    return {**result, "missing_subsets": missing, "source": source}


def encoder_config(
    model: str, settings: Mapping[str, Any], shape: Mapping[str, Any]
) -> TrainConfig:
    """The run settings of a supervised encoder: objective ``supervised``, the composer
    ``model`` as ``shape`` (the settings it was built with) shapes it, and the settings of
    ``settings`` the trainer knows."""
    from dataclasses import fields

    from paracomp.models.registry import COMPOSER_SETTINGS

    known = {f.name for f in fields(TrainConfig)}
    own = {k: shape[k] for k in COMPOSER_SETTINGS.get(model, ()) if k in shape}
    trained = {k: v for k, v in settings.items() if k in known}
    return TrainConfig.from_dict({**trained, **own, "objective": "supervised", "composer": model})


def write_encoder(
    out: Path,
    config: TrainConfig,
    composer: Mapping[str, torch.Tensor],
    words: Sequence[str],
    initial: np.ndarray,
    trained: np.ndarray,
    task: str,
) -> None:
    """The encoder of a supervised point as a run folder: its composer and the word rows
    training moved (the others are their ``initial`` rows, which an evaluation takes as the
    fallback vectors)."""
    from paracomp import artefacts, run_folder

    moved = np.flatnonzero((trained != np.asarray(initial, dtype=trained.dtype)).any(axis=1))
    provenance = artefacts.Provenance(
        dataset=f"supervised-{task}",
        source="paracomp.papers.wieting2017.supervised",
        inputs={},
        config=config.to_dict(),
        notes=f"the {len(moved)} of {len(words)} word rows training moved; the others as initial",
    )
    rows = [words[i] for i in moved]
    run_folder.write_run(Path(out), config, composer, rows, trained[moved], provenance)


def _tokenisation(sets: Mapping[str, Path], tokenizer: str, lowercase: bool) -> tuple[str, bool]:
    """How to tokenise the sentences of ``sets``: all raw or all tokenised so
    (:func:`~paracomp.eval.tokens.tokenisation`)."""
    from paracomp import artefacts
    from paracomp.eval.tokens import tokenisation

    ways = {
        tokenisation(artefacts.provenance(path), Path(path), tokenizer, lowercase)
        for path in sets.values()
    }
    if len(ways) > 1:
        raise DataError(f"sets {sorted(map(str, sets.values()))}: some raw, some tokenised")
    return ways.pop() if ways else (tokenizer, lowercase)


def supervised_frame(
    task: str, sets: Mapping[str, Path], seed: int
) -> tuple[pd.DataFrame, list[str]]:
    """The pairs of ``task`` with their parts, and the absent STS subsets' notes."""
    from paracomp.papers.wieting2017.transfer import STS_SUBSETS

    if task == "sick":
        frame = pd.read_parquet(sets["sick2014"])
        frame = frame[frame["score"].notna()]
        return sick_splits(frame), []
    frames, notes = [], []
    for dataset in sorted({d for d, _ in STS_SUBSETS}):
        if dataset in sets:
            frames.append(pd.read_parquet(sets[dataset]))
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if len(frame):
        frame = frame[frame["score"].notna()]
        keys = set(STS_SUBSETS)
        frame = frame[[(d, s) in keys for d, s in zip(frame["dataset"], frame["subset"])]]
    present = set(zip(frame["dataset"], frame["subset"])) if len(frame) else set()
    notes = [f"{d}/{s}" for d, s in STS_SUBSETS if (d, s) not in present]
    return sts_splits(frame, seed), notes
