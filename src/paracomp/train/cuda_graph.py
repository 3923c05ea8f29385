"""CUDA graphs of training steps and of composers (the graphed code is device-agnostic and
tested on CPU, see :mod:`paracomp.train.pairs.static`, :mod:`paracomp.train.pairs.static_learned`,
:mod:`paracomp.train.targets.static` and :class:`~paracomp.models.base.Gridded`).

:class:`GraphedStep`: a whole step.

The first full batch runs eagerly on a side stream (it allocates, fills the step's caches and
sets up cuBLAS for that stream), the second is captured on that stream and every full batch
from then on replays the graph after copying its input (pair ids) into the graph's. Random
draws inside the step come from generators registered with the graph, so each replay advances
them as the eager step would: the same numbers, in the same order. Batches of another size
(the last of an epoch) run eagerly.

:class:`GriddedComposer`: the composer alone, for the steps that stay eager around it (the
pair runs no static step takes: boundary tags, parser trees, random negatives from the corpus,
autocast; wieting2017's supervised runs). A recurrent composer's step by step loop is most of
such a step's kernel launches; as :class:`~paracomp.models.base.Gridded` it runs over a grid of
fixed shape, captured forward and backward once per shape and replayed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from paracomp.models import STATIC_COMPOSERS
from paracomp.models.base import Composer, Gridded, SegmentBatch, padded_tokens

Step = Callable[[torch.Tensor], torch.Tensor]


def graphed_composer(settings: Mapping[str, Any], device: torch.device | str) -> bool:
    """Whether a run of ``settings`` (a ``TrainConfig.to_dict()`` or a paper's settings with
    ``composer``) composes by CUDA graphs (:class:`~paracomp.train.cuda_graph.GriddedComposer`):
    on CUDA with ``cuda_graph`` (default true), a composer of
    :data:`~paracomp.models.STATIC_COMPOSERS` other than the additive ones (one kernel each,
    nothing to gain), without boundary tags or autocast."""
    return (
        torch.device(device).type == "cuda"
        and settings.get("cuda_graph", True)
        and settings["composer"] in STATIC_COMPOSERS
        and settings["composer"] not in ("sum", "mean")
        and settings.get("boundary_tags", "none") == "none"
        and not settings.get("mixed_precision", False)
    )


class GraphedStep:
    """``step(pairs)``, for ``batch_size`` pairs replayed from a CUDA graph; returns its
    output tensor, which the next call overwrites."""

    def __init__(self, step: Step, batch_size: int, generators: Sequence[torch.Generator]):
        self.step, self.batch_size, self.generators = step, batch_size, list(generators)
        self.stream = torch.cuda.Stream()
        self.warm = False
        self.graph: torch.cuda.CUDAGraph | None = None
        self.pairs = self.out = torch.empty(0)

    def __call__(self, pairs: torch.Tensor) -> torch.Tensor:
        if pairs.numel() != self.batch_size:
            return self.step(pairs)
        if self.graph is None:
            if not self.warm:
                self.warm = True
                return self._eager_on_stream(pairs)
            self._capture(pairs)
        self.pairs.copy_(pairs)
        self.graph.replay()
        return self.out

    def _eager_on_stream(self, pairs: torch.Tensor) -> torch.Tensor:
        current = torch.cuda.current_stream()
        self.stream.wait_stream(current)
        with torch.cuda.stream(self.stream):
            out = self.step(pairs)
        current.wait_stream(self.stream)
        pairs.record_stream(self.stream)
        out.record_stream(current)
        return out

    def _capture(self, pairs: torch.Tensor) -> None:
        self.pairs = pairs.clone()
        graph = torch.cuda.CUDAGraph()
        for generator in self.generators:
            graph.register_generator_state(generator)
        with torch.cuda.graph(graph, stream=self.stream):
            self.out = self.step(self.pairs)
        self.graph = graph


class _Forward:
    """``module(tokens, lengths)`` without gradient, captured once for those shapes."""

    def __init__(self, module: Gridded, tokens: torch.Tensor, lengths: torch.Tensor):
        self.tokens, self.lengths = tokens.clone(), lengths.clone()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            module(self.tokens, self.lengths)  # warm-up: allocations, cuBLAS and cuDNN set-up
        torch.cuda.current_stream().wait_stream(stream)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.out = module(self.tokens, self.lengths)

    def __call__(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        self.tokens.copy_(tokens)
        self.lengths.copy_(lengths)
        self.graph.replay()
        return self.out.clone()


class GriddedComposer:
    """``composer(batch)`` as :class:`~paracomp.models.base.Gridded` over ``width`` positions,
    the batch's longest segment rounded up to a multiple of ``bucket`` (one read of it on the
    host), one module per (segments, width, gradient) shape. ``graphed`` (CUDA): each shape is
    captured on its first call, forward and backward (``torch.cuda.make_graphed_callables``;
    without gradient, forward only), and replayed after. A graph's output and saved state are
    its own buffers: between two backward passes a shape is composed once with gradient, as
    every step of the pair objectives does (the mining pass of dropout and mega-batches
    composes without gradient, another shape); a second call before the first one's gradient
    has come back is an error (graphed or not, so CPU tests check the trainers keep to it)."""

    def __init__(self, composer: Composer, graphed: bool, bucket: int = 8):
        self.composer, self.graphed, self.bucket = composer, graphed, bucket
        self.shapes: dict[tuple[int, int, bool, bool], Callable[..., torch.Tensor]] = {}
        self.pending: set[tuple[int, int, bool, bool]] = set()

    def __call__(self, batch: SegmentBatch) -> torch.Tensor:
        if type(batch) is not SegmentBatch:  # e.g. a TreeBatch's parser trees: composed plainly
            return self.composer(batch)
        longest = int(batch.lengths().max()) if len(batch) else 0
        width = self.bucket * max(-(-longest // self.bucket), 1)
        tokens, lengths = padded_tokens(batch, width)
        grad = torch.is_grad_enabled()
        key = (len(batch), width, grad, tokens.requires_grad)
        if key not in self.shapes:
            module = Gridded(self.composer, width)
            if self.graphed and grad:
                # The sample is a leaf of its own: a captured backward that stops at ``tokens``
                # would hand its gradient to ``tokens``' producer on the stream that made it,
                # the legacy stream, which no capture may make wait.
                sample = tokens.detach().clone().requires_grad_(tokens.requires_grad)
                module = torch.cuda.make_graphed_callables(
                    module,
                    (sample, lengths),
                    allow_unused_input=True,  # e.g. an unused gate
                )
            elif self.graphed:
                module = _Forward(module, tokens, lengths)
            self.shapes[key] = module
        if key in self.pending:
            raise RuntimeError(
                f"GriddedComposer: {len(batch)} segments of width {width} composed again before "
                "the gradient of the last composition came back (its graph's buffers are reused)"
            )
        out = self.shapes[key](tokens, lengths)
        if out.requires_grad:
            self.pending.add(key)
            out.register_hook(lambda grad: self.pending.discard(key))
        return out
