"""Wieting et al. (2015)'s MAX negatives (identical-text skip, constraints, floor) and the
dot-product hinge of Eq. 1/2, against losses worked out by hand."""

from __future__ import annotations

import pyarrow as pa
import pytest
import torch

from paracomp.losses.constrained import (
    ConstrainedMaxSampler,
    ForbiddenPairs,
    KeyedSampler,
    SkippingHingeObjective,
    segment_keys,
)
from paracomp.losses.hinge import HingeObjective, PairBatch
from paracomp.losses.negatives import Layout, MaxSampler
from paracomp.losses.scores import SCORES
from paracomp.models.base import SegmentBatch
from paracomp.models.pair import PairModel
from paracomp.models.registry import COMPOSERS
from paracomp.models.tree_rnn import TreeRNNComposer
from paracomp.models.vocab import EncodedPairs
from paracomp.paraphrase.lexical import constraint_lists, neighbours

# Word pairs (Eq. 2: a "phrase" is its word vector), 2-d vectors:
#   big=(1,0) large=(1,1) huge=(2,0) cat=(0,1) dog=(0,1.5)
# Rows: u0=big u1=huge u2=cat | v0=large v1=large v2=dog. Positive dot products:
#   p0 = big·large = 1, p1 = huge·large = 2, p2 = cat·dog = 1.5
# Candidate scores (self and partner excluded), first maximum in row order:
#   u0 big:   huge 2, cat 0, large(v1) 1, dog 0          -> huge 2   [1 − 1 + 2]_+   = 2
#   v0 large: huge 2, cat 1, large(v1) 2, dog 1.5        -> huge 2   [1 − 1 + 2]_+   = 2
#   u1 huge:  big 2, cat 0, large(v0) 2, dog 0           -> big 2    [1 − 2 + 2]_+   = 1
#   v1 large: big 1, cat 1, large(v0) 2, dog 1.5         -> large 2  [1 − 2 + 2]_+   = 1
#   u2 cat:   big 0, huge 0, large 1, large 1            -> large 1  [1 − 1.5 + 1]_+ = 0.5
#   v2 dog:   big 0, huge 0, large 1.5, large 1.5        -> large    [1 − 1.5 + 1.5]_+ = 1
# Plain MAX: 7.5 / 3 pairs = 2.5.
# Skipping a candidate identical to the anchor (the code's rule) changes v1 only: its best
# is then dog 1.5 -> [1 − 2 + 1.5]_+ = 0.5; total 7 / 3.
# With constraints (lists from the pairs: big {large}, large {big, huge}, huge {large},
# cat {dog}, dog {cat}), a candidate whose list holds the anchor is banned:
#   v0 large: huge banned (large ∈ list(huge)) -> dog 1.5: [1 − 1 + 1.5]_+ = 1.5
#   v1 large: big banned -> dog 1.5: 0.5; others unchanged; total 6.5 / 3.
S1, S2 = ["big", "huge", "cat"], ["large", "large", "dog"]
VECTORS = {"big": (1, 0), "large": (1, 1), "huge": (2, 0), "cat": (0, 1), "dog": (0, 1.5)}


def _setup():
    data = EncodedPairs.build(pa.table({"s1": S1, "s2": S2}), shared_vocab=True)
    model = PairModel(COMPOSERS["sum"](2), data.n_rows, 0.1, torch.Generator().manual_seed(0))
    with torch.no_grad():
        for word, vec in VECTORS.items():
            model.weight[data.vocab1.index[word]] = torch.tensor(vec, dtype=torch.float32)
    pairs, ids, starts = next(data.batches(torch.arange(3), 3))
    return data, model, PairBatch(pairs, ids, starts, data)


def _forbidden(data) -> ForbiddenPairs:
    lists = constraint_lists(neighbours(zip(S1, S2, strict=True)), lambda w: ())
    return ForbiddenPairs.build(lists, data.vocab1.index, len(data.vocab1))


def _sampler(**kwargs) -> ConstrainedMaxSampler:
    return ConstrainedMaxSampler(torch.Generator().manual_seed(0), **kwargs)


def test_plain_max_with_dot_is_eq2() -> None:
    data, model, batch = _setup()
    objective = HingeObjective(SCORES["dot"], margin=1.0, reg=0.0, reduction="mean")
    sampler = MaxSampler(torch.Generator().manual_seed(0), cross=False)
    assert objective.loss(model, batch, sampler).item() == pytest.approx(2.5)
    # the skipping objective with a plain MAX sampler is the same loss
    assert SkippingHingeObjective().loss(model, batch, sampler).item() == pytest.approx(2.5)


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({}, 7 / 3),  # identical-text skip
        ({"skip_identical": False}, 2.5),
        ({"forbidden": True}, 6.5 / 3),
        ({"forbidden": True, "rule": "anchor"}, 6.5 / 3),  # the lists are symmetric here
        # floor 1: cat's candidates all score ≤ 1, so cat has no negative and pair 2 adds
        # nothing: 2 + 2 + 1 + 0.5 = 5.5, still over 3 pairs
        ({"floor": 1.0}, 5.5 / 3),
    ],
)
def test_losses_by_hand(kwargs: dict, expected: float) -> None:
    data, model, batch = _setup()
    if kwargs.get("forbidden"):
        kwargs["forbidden"] = _forbidden(data)
    loss = SkippingHingeObjective().loss(model, batch, _sampler(**kwargs))
    assert loss.item() == pytest.approx(expected)


@pytest.mark.parametrize("kwargs", [{}, {"forbidden": True}, {"floor": 1.0}])
def test_hand_gradient_matches_autograd(kwargs: dict) -> None:
    data, model, batch = _setup()
    if kwargs.get("forbidden"):
        kwargs["forbidden"] = _forbidden(data)
    objective, sampler = SkippingHingeObjective(), _sampler(**kwargs)
    loss, rows = objective.loss_and_gradient(model, batch, sampler)
    vectors, _ = model.compose(batch.ids, batch.starts)
    keyed = KeyedSampler(sampler, segment_keys(batch.ids, batch.starts))
    by_autograd = objective.hinge(vectors, Layout(3), keyed).sum() / 3
    by_autograd.backward()
    assert by_autograd.item() == pytest.approx(loss.item())
    dense = torch.zeros_like(model.weight).index_put_((rows.index,), rows.grad)
    torch.testing.assert_close(model.weight.grad.to_dense(), dense)
    assert dense.abs().sum() > 0


def test_constraints_exclude_neighbours_and_lemmas() -> None:
    index = {w: i for i, w in enumerate(["cars", "automobiles", "automobile", "vehicles", "dog"])}
    lemmas = {"automobiles": {"automobile"}, "vehicles": {"vehicle"}}
    lists = constraint_lists(neighbours([("cars", "automobiles")]), lambda w: lemmas.get(w, ()))
    forbidden = ForbiddenPairs.build(lists, index, len(index))
    owner = torch.tensor([0, 0, 0, 1, 2, 0, -1])
    member = torch.tensor([1, 2, 4, 0, 0, 3, 1])
    # cars' list: automobiles and its lemma automobile; automobiles' list: cars
    assert forbidden.contains(owner, member).tolist() == [
        True,
        True,
        False,
        True,
        False,
        False,
        False,
    ]
    # a batch of two word pairs: (cars, vehicles), (automobile, dog); by dot product the best
    # candidate of "cars" is "automobile", which its list forbids (rule "anchor": the
    # candidate is in the anchor's list), so MAX takes the best allowed one, "dog"
    keys = torch.tensor([0, 2, 3, 4])
    vectors = torch.tensor([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.5, 0.5]])
    sampler = _sampler(forbidden=forbidden, rule="anchor")
    chosen = sampler.sample(vectors, Layout(2), SCORES["dot"], keys=keys)
    assert chosen[0].item() == 3  # dog
    plain = _sampler().sample(vectors, Layout(2), SCORES["dot"], keys=keys)
    assert plain[0].item() == 1  # automobile
    # rule "candidate" (the code's): automobile's list does not hold "cars", so it stays
    code = _sampler(forbidden=forbidden, rule="candidate")
    assert code.sample(vectors, Layout(2), SCORES["dot"], keys=keys)[0].item() == 1


def test_sampler_needs_keys_and_reports_no_negative() -> None:
    vectors = torch.tensor([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match="keys"):
        _sampler().sample(vectors, Layout(2), SCORES["dot"])
    # every candidate is the anchor's own word: no negative at all
    keys = torch.tensor([7, 7, 7, 7])
    assert _sampler().sample(vectors, Layout(2), SCORES["dot"], keys=keys).tolist() == [[-1]] * 4


def test_segment_keys() -> None:
    # segments: "a b", "a b c", "a b", "a", "a a", "b"  (ids a=1, b=2, c=3)
    ids = torch.tensor([1, 2, 1, 2, 3, 1, 2, 1, 1, 1, 2])
    starts = torch.tensor([0, 2, 5, 7, 8, 10])
    keys = segment_keys(ids, starts).tolist()
    assert keys[0] == keys[2] and len(set(keys)) == 5 and max(keys) < 0
    words = segment_keys(torch.tensor([5, 9, 5]), torch.tensor([0, 1, 2]))
    assert words.tolist() == [5, 9, 5]  # one-word segments: their word ids


def _reference_loss(vectors, tokens, margin=1.0, floor=-5.0):
    """Eq. 1 as the MATLAB ``getPairs.m`` + ``objectiveWordDerNew.m`` compute it, one loop
    per candidate: pairs in order, side 1 then side 2 of each, strict improvement over the
    running best (from −5), candidates with the anchor's own token sequence skipped, a pair
    with a side without negative skipped, the sum divided by the number of pairs."""
    b = len(tokens) // 2
    g = vectors.tolist()

    def dot(i, j):
        return sum(x * y for x, y in zip(g[i], g[j], strict=True))

    total = 0.0
    for i in range(b):
        negatives = []
        for anchor in (i, i + b):
            best, chosen = floor, None
            for pair in range(b):
                for cand in (pair, pair + b):
                    if pair == i or tokens[cand] == tokens[anchor]:
                        continue
                    if dot(anchor, cand) > best:
                        best, chosen = dot(anchor, cand), cand
            negatives.append(chosen)
        if None in negatives:
            continue
        positive = dot(i, i + b)
        total += max(0.0, margin - positive + dot(i, negatives[0]))
        total += max(0.0, margin - positive + dot(i + b, negatives[1]))
    return total / b


def test_phrase_hinge_matches_the_authors_loop() -> None:
    # four phrase pairs with repeated phrases: "a b" three times, "c d" twice
    side1 = [[0, 1], [0, 1], [2, 3], [7, 8, 9]]
    side2 = [[2, 3], [4, 5], [6], [0, 1]]
    tokens = [tuple(t) for t in side1 + side2]
    ids = torch.tensor([t for s in tokens for t in s])
    starts = torch.tensor([0, *torch.tensor([len(s) for s in tokens]).cumsum(0)[:-1].tolist()])
    rows = torch.randn(10, 4, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    composer = TreeRNNComposer(4, torch.Generator().manual_seed(4), branching="right").double()
    vectors = composer(SegmentBatch(rows, ids, starts))
    keys = segment_keys(ids, starts)
    losses = []
    for floor in (-5.0, 0.0):  # with floor 0, pair 1's "a b" has no negative: pair 1 is skipped
        keyed = KeyedSampler(_sampler(floor=floor), keys)
        losses.append(SkippingHingeObjective().hinge(vectors, Layout(4), keyed).sum() / 4)
        assert losses[-1].item() == pytest.approx(
            _reference_loss(vectors.detach(), tokens, floor=floor)
        )
    assert 0 < losses[1].item() < losses[0].item()
    unkeyed = _reference_loss(vectors.detach(), [(i,) for i in range(8)])  # no identical skip
    assert unkeyed != pytest.approx(losses[0].item())


def test_within_equals_all_pairs() -> None:
    rng = torch.Generator().manual_seed(7)
    words = [f"w{i}" for i in range(30)]
    sizes = torch.randint(0, 6, (30,), generator=rng).tolist()
    lists = {
        w: {words[j] for j in torch.randint(0, 30, (n,), generator=rng).tolist()}
        for w, n in zip(words, sizes, strict=True)
    }
    forbidden = ForbiddenPairs.build(lists, {w: i for i, w in enumerate(words)}, 30)
    assert forbidden.indptr[-1] == forbidden.codes.numel() == sum(map(len, lists.values()))
    keys = torch.randint(-3, 30, (40,), generator=rng)  # repeats, and phrase keys (< 0)
    owner, member = forbidden.within(keys)
    found = set(zip(owner.tolist(), member.tolist(), strict=True))
    brute = forbidden.contains(keys.unsqueeze(1), keys.unsqueeze(0)).nonzero().tolist()
    assert found == {tuple(p) for p in brute} and len(found) == owner.numel() > 0
