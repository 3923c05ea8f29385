"""A training step replayed from a CUDA graph (CUDA only; the step itself is device-agnostic
and tested on CPU, see :mod:`paracomp.train.static`).

The first full batch runs eagerly on a side stream (it allocates, fills the step's caches and
sets up cuBLAS for that stream), the second is captured on that stream and every full batch
from then on replays the graph after copying its pair ids into the graph's input. Random draws
inside the step come from generators registered with the graph, so each replay advances them
as the eager step would: the same numbers, in the same order. Batches of another size (the
last of an epoch) run eagerly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

Step = Callable[[torch.Tensor], torch.Tensor]


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
