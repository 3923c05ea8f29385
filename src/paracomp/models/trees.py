"""Binary trees over a segment's tokens, as merge lists (the input of the tree RNN, Wieting et
al. 2015 Eq. 1).

A tree over ``n`` tokens is an ``(n − 1, 2)`` int64 array of **merges**: node ids ``0…n−1``
are the tokens in order, merge ``k`` creates node ``n + k`` from its (left, right) children,
every child is created before its parent, every node but the root is used exactly once, and
the root is the last merge. This is the layout of the authors' MATLAB trees (``t.kids`` of
``tacl2015``: leaves first, internal nodes after, the root last). A one-token segment has no
merge (its vector is the word's) and a bigram one.

The paper parses phrases with an unnamed constituency parser and binarises the parses.
spaCy (or any dependency parser) gives heads instead, so :func:`from_dependencies` derives a
binary tree from a dependency parse by **head-outward attachment**: each head first takes its
right dependents, nearest first, then its left dependents, nearest first, each dependent
bringing its own (already built) subtree. Right-first makes a verb combine with its object and
modifiers on the right before its subject (``(the cat) (sat (on (the mat)))``, the S → NP VP
shape) and an adjective-noun-noun phrase ``(black (cat food))``; a determiner attaches last,
outside the adjectives (``(the (black cat))``). ``order="left_first"`` takes left dependents
first. Non-projective parses still give a valid tree (subtrees need not be contiguous: the tree
RNN only needs the merge structure). :func:`right_branching` is the fallback when no parse is
available (or it is malformed).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

log = logging.getLogger(__name__)

ORDERS = ("right_first", "left_first")


def right_branching(n: int) -> np.ndarray:
    """``(w1 (w2 (… (w_{n−1} w_n))))``: merge ``k`` joins token ``n − 2 − k`` with node
    ``n − 1 + k`` (the last token for ``k = 0``)."""
    k = np.arange(max(n - 1, 0), dtype=np.int64)
    return np.stack([n - 2 - k, n - 1 + k], axis=1).reshape(-1, 2)


def left_branching(n: int) -> np.ndarray:
    """``((((w1 w2) w3) …) w_n)``."""
    k = np.arange(max(n - 1, 0), dtype=np.int64)
    left = np.where(k == 0, 0, n + k - 1)
    return np.stack([left, k + 1], axis=1).reshape(-1, 2)


def from_dependencies(heads: Sequence[int], order: str = "right_first") -> np.ndarray:
    """The binary tree of a dependency parse by head-outward attachment (module docstring).

    ``heads[i]`` is the 0-based index of token ``i``'s head; a root has itself (spaCy) or a
    negative number as its head. Several roots (a parse forest) are joined right-branching in
    token order. Raises ValueError on a head outside the segment or a cycle.
    """
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, not {order!r}")
    n = len(heads)
    parent = [-1 if h < 0 or h == i else int(h) for i, h in enumerate(heads)]
    bad = [i for i, h in enumerate(parent) if h >= n]
    if bad:
        raise ValueError(f"tokens {bad} have a head outside the {n} tokens")
    left: list[list[int]] = [[] for _ in range(n)]
    right: list[list[int]] = [[] for _ in range(n)]
    for i in range(n - 1, -1, -1):  # left dependents, nearest first
        if i < parent[i]:
            left[parent[i]].append(i)
    for i in range(n):  # right dependents, nearest first
        if 0 <= parent[i] < i:
            right[parent[i]].append(i)
    roots = [i for i in range(n) if parent[i] < 0]
    built = _bottom_up(parent, roots)
    merges: list[tuple[int, int]] = []
    node = list(range(n))  # the node of each token's finished subtree

    def merge(a: int, b: int) -> int:
        merges.append((a, b))
        return n + len(merges) - 1

    for head in built:
        current = head
        sides = (right[head], left[head]) if order == "right_first" else (left[head], right[head])
        for side in sides:
            for dep in side:
                current = merge(node[dep], current) if dep < head else merge(current, node[dep])
        node[head] = current
    top = node[roots[-1]] if roots else -1
    for r in reversed(roots[:-1]):
        top = merge(node[r], top)
    return np.asarray(merges, dtype=np.int64).reshape(-1, 2)


def binary_tree(heads: Sequence[int] | None, n: int) -> np.ndarray:
    """The tree of a segment of ``n`` tokens: :func:`from_dependencies` of its ``heads`` (one
    per token), else :func:`right_branching` (no parse, or one that does not fit: another
    token count, a head outside the segment, a cycle). The one place parses become trees."""
    if heads is None or len(heads) != n:
        return right_branching(n)
    try:
        return from_dependencies(heads)
    except ValueError as exc:
        log.debug("right-branching tree instead of the parse %s: %s", list(heads), exc)
        return right_branching(n)


def _bottom_up(parent: list[int], roots: list[int]) -> list[int]:
    """The tokens with every dependent before its head; ValueError if some token does not
    reach a root (a cycle)."""
    children: list[list[int]] = [[] for _ in parent]
    for i, h in enumerate(parent):
        if h >= 0:
            children[h].append(i)
    order: list[int] = []
    stack = list(roots)
    while stack:
        head = stack.pop()
        order.append(head)
        stack.extend(children[head])
    if len(order) != len(parent):
        cyclic = sorted(set(range(len(parent))) - set(order))
        raise ValueError(f"the heads of tokens {cyclic} form a cycle")
    return order[::-1]


def check(merges: np.ndarray, n: int) -> None:
    """Raise ValueError unless ``merges`` is a tree over ``n`` tokens as described above."""
    merges = np.asarray(merges)
    if merges.shape != (max(n - 1, 0), 2):
        raise ValueError(f"a tree over {n} tokens has {max(n - 1, 0)} merges, got {merges.shape}")
    created = n + np.arange(merges.shape[0])
    if merges.size and ((merges < 0).any() or (merges >= created[:, None]).any()):
        raise ValueError("a merge uses a node not created before it")
    used = np.bincount(merges.ravel(), minlength=max(2 * n - 1, 0))
    if n and (used[: 2 * n - 2] != 1).any():
        raise ValueError("every node but the root must be the child of exactly one merge")


def levels(merges: np.ndarray, n: int) -> np.ndarray:
    """Height of each merge: 1 + the larger height of its children (tokens have height 0)."""
    height = np.zeros(n + len(merges), dtype=np.int64)
    for k, (a, b) in enumerate(np.asarray(merges).tolist()):
        height[n + k] = 1 + max(height[a], height[b])
    return height[n:]


def bracketed(merges: np.ndarray, tokens: Sequence[str]) -> str:
    """The tree as nested brackets, e.g. ``(the (black cat))``."""
    text = list(tokens)
    for a, b in np.asarray(merges).tolist():
        text.append(f"({text[a]} {text[b]})")
    return text[-1] if text else ""
