"""Numba kernels for CPU steps that touch a few rows of the word table.

A step of an additive model reads the rows of the distinct tokens of its batch, sums its
segments' gradients into those rows and updates them. In torch that is a sort
(``torch.unique``), a (tokens × d) copy of the segments' gradients (``repeat_interleave``), an
``index_add_`` and, for AdaGrad, seven passes over the rows; here it is two kernels of one
pass each, which also skip the segments and rows whose gradient is zero (most of them once a
hinge is mostly satisfied). Loops run in a fixed order or, split among threads, write
disjoint rows, so results are bitwise reproducible.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, error_model="numpy")  # no zero-division checks, so the loops vectorise
def rows_gradient(
    ids: np.ndarray,
    starts: np.ndarray,
    segments: np.ndarray,
    grad: np.ndarray,
    mean: bool,
    slot: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The gradient with respect to the table of segments composed by summing (averaging, if
    ``mean``) rows, given gradients ``grad[i]`` of segments ``segments[i]`` (which may
    repeat): the distinct ``ids`` (in order of first occurrence) and (n, d) the sum of
    ``grad[i]`` (divided by the length of the segment) over the tokens of the segment using
    that row. Segment ``s`` is ``ids[starts[s]:starts[s + 1]]``, the last one running to the
    end. ``slot`` (one entry per row of the table, all −1) is scratch space, left all −1."""
    index = _distinct(ids, slot)
    out = np.zeros((index.size, grad.shape[1]), dtype=grad.dtype)
    scaled = np.empty(grad.shape[1], dtype=grad.dtype)
    for i in range(segments.size):
        s = segments[i]
        stop = starts[s + 1] if s + 1 < starts.size else ids.size
        if _is_zero(grad[i]):
            continue
        for j in range(scaled.size):
            scaled[j] = grad[i, j] / (stop - starts[s]) if mean else grad[i, j]
        for t in range(starts[s], stop):
            row = out[slot[ids[t]]]
            for j in range(row.size):
                row[j] += scaled[j]
    for i in range(index.size):
        slot[index[i]] = -1
    return index, out


@njit(cache=True)
def _is_zero(row: np.ndarray) -> bool:
    nonzero = False
    for j in range(row.size):  # no early exit: this loop vectorises, ten times faster
        nonzero |= row[j] != 0
    return not nonzero


@njit(cache=True)
def _distinct(ids: np.ndarray, slot: np.ndarray) -> np.ndarray:
    """The distinct ``ids`` in order of first occurrence, ``slot[id]`` set to the position of
    ``id`` among them."""
    index = np.empty(ids.size, dtype=np.int64)
    n = 0
    for t in range(ids.size):
        if slot[ids[t]] < 0:
            slot[ids[t]] = n
            index[n] = ids[t]
            n += 1
    return index[:n]


@njit(cache=True, error_model="numpy", parallel=True)
def adagrad_rows(
    weight: np.ndarray,
    state: np.ndarray,
    index: np.ndarray,
    grad: np.ndarray,
    lr: float,
    eps: float,
) -> None:
    """AdaGrad on rows ``index`` (distinct) with their gradients ``grad``, in place:
    ``state[r] += g²; weight[r] −= lr·g / (√state[r] + eps)``, computed in the rows' dtype when
    ``lr`` and ``eps`` have it. Rows whose gradient is zero, which it would leave as they are,
    are not read. Rows are split among numba's threads."""
    for i in prange(index.size):
        g = grad[i]
        if _is_zero(g):
            continue
        w, acc = weight[index[i]], state[index[i]]
        for j in range(g.size):
            acc[j] += g[j] * g[j]
            w[j] -= g[j] / (np.sqrt(acc[j]) + eps) * lr


@njit(cache=True, error_model="numpy", parallel=True)
def adam_all_rows(
    weight: np.ndarray,
    exp_avg: np.ndarray,
    exp_avg_sq: np.ndarray,
    index: np.ndarray,
    grad: np.ndarray,
    betas: np.ndarray,
    size: float,
    eps: float,
) -> None:
    """Lasagne's Adam on every row of the table, in place: ``m ← β₁m + (1−β₁)g``,
    ``v ← β₂v + (1−β₂)g²``, ``w ← w − size·m/(√v + ε)``, where ``g`` is ``grad[k]`` for row
    ``index[k]`` (distinct) and 0 for every other row; ``betas`` holds ``β₁, β₂, 1−β₁, 1−β₂``
    and, with ``size`` and ``eps``, the rows' dtype. One pass over the table (torch takes
    seven); rows are split among numba's threads."""
    slot = np.full(weight.shape[0], -1, dtype=np.int64)
    for k in range(index.size):
        slot[index[k]] = k
    beta1, beta2, rest1, rest2 = betas[0], betas[1], betas[2], betas[3]
    for r in prange(weight.shape[0]):
        k = slot[r]
        w, m, v = weight[r], exp_avg[r], exp_avg_sq[r]
        for j in range(w.size):
            mj, vj = m[j] * beta1, v[j] * beta2
            if k >= 0:
                g = grad[k, j]
                mj += rest1 * g
                vj += rest2 * (g * g)
            m[j], v[j] = mj, vj
            w[j] -= size * mj / (np.sqrt(vj) + eps)
