"""J_bi and J_pa against losses worked out by hand on three pairs with 2-d word vectors."""

import math

import pyarrow as pa
import pytest
import torch

from paracomp.losses.hinge import BiCVMObjective, PairBatch, ParaphraseObjective
from paracomp.losses.negatives import Layout, MaxSampler, NegativeSampler, RandomSampler
from paracomp.losses.scores import SCORES
from paracomp.models.pair import PairModel
from paracomp.models.registry import COMPOSERS
from paracomp.models.vocab import EncodedPairs


def _setup(s1, s2, shared, composer, vectors1, vectors2=None):
    """Encoded pairs and a model whose word rows are set by hand."""
    data = EncodedPairs.build(pa.table({"s1": s1, "s2": s2}), shared_vocab=shared)
    model = PairModel(COMPOSERS[composer](2), data.n_rows, 0.1, torch.Generator().manual_seed(0))
    with torch.no_grad():
        for word, vec in vectors1.items():
            model.weight[data.vocab1.index[word]] = torch.tensor(vec)
        for word, vec in (vectors2 or {}).items():
            model.weight[data.row_offset2 + data.vocab2.index[word]] = torch.tensor(vec)
    return data, model


def _batch(data, size=None):
    order = torch.arange(data.n_pairs)
    pairs, ids, starts = next(data.batches(order, size or data.n_pairs))
    return PairBatch(pairs, ids, starts, data)


# Side 1 (English): a=(1,0) b=(0,1) c=(2,0); side 2 (foreign): x=(1,1) y=(0,2); sums:
#   u0 = a+b = (1,1)   u1 = c = (2,0)   u2 = a = (1,0)
#   v0 = x   = (1,1)   v1 = y = (0,2)   v2 = x+y = (1,3)
# Squared distances: positives d(u0,v0)=0, d(u1,v1)=4+4=8, d(u2,v2)=0+9=9.
# Negatives (k=2 of the B-1=2 other pairs, so all of them):
#   u0: v1 -> 1+1=2, v2 -> 0+4=4     v0: u1 -> 2, u2 -> 0+1=1
#   u1: v0 -> 1+1=2, v2 -> 1+9=10    v1: u0 -> 2, u2 -> 1+4=5
#   u2: v0 -> 0+1=1, v1 -> 1+4=5     v2: u0 -> 4, u1 -> 10
# With δ=3, [δ + d(pos) − d(neg)]_+ :
#   pair 0: (3+0-2)+(3+0-4→0) + (3+0-2)+(3+0-1)     = 1+0+1+2 = 4
#   pair 1: (3+8-2)+(3+8-10)  + (3+8-2)+(3+8-5)     = 9+1+9+6 = 25
#   pair 2: (3+9-1)+(3+9-5)   + (3+9-4)+(3+9-10)    = 11+7+8+2 = 28      hinge sum = 57
# (λ/2)‖W‖² over the rows used, λ=0.1: side 1 1+1+4, side 2 2+4 -> 0.05·12 = 0.6.
BI_S1, BI_S2 = ["a b", "c", "a"], ["x", "y", "x y"]
BI_W1 = {"a": (1.0, 0.0), "b": (0.0, 1.0), "c": (2.0, 0.0)}
BI_W2 = {"x": (1.0, 1.0), "y": (0.0, 2.0)}


def test_bicvm_loss_by_hand():
    data, model = _setup(BI_S1, BI_S2, False, "sum", BI_W1, BI_W2)
    sampler = RandomSampler(2, torch.Generator().manual_seed(0), pool="batch")
    loss = BiCVMObjective(margin=3.0, reg=0.1).loss(model, _batch(data), sampler)
    assert loss.item() == pytest.approx(57.6, abs=1e-5)
    loss.backward()
    assert model.weight.grad.is_sparse
    # only the rows used get a gradient (side-1 and side-2 UNK rows do not)
    assert sorted(model.weight.grad.coalesce().indices()[0].tolist()) == [1, 2, 3, 5, 6]


def test_bicvm_corpus_pool_draws_other_pairs():
    # two pairs, k=1: the only non-aligned segment is the other pair's, corpus pool or batch
    # pair 0 alone with δ=3: (3+0-2) + (3+0-2) = 2; pair 1: (3+8-2) + (3+8-2) = 18; total 20
    data, model = _setup(BI_S1[:2], BI_S2[:2], False, "sum", BI_W1, BI_W2)
    objective = BiCVMObjective(margin=3.0, reg=0.0)
    for pool in ("corpus", "batch"):
        sampler = RandomSampler(1, torch.Generator().manual_seed(0), pool=pool)
        assert objective.loss(model, _batch(data), sampler).item() == pytest.approx(20.0)


# One shared vocabulary, averaged words: a=(1,0) b=(0,1) c=(2,1) f=(-1,2)
#   u0 = a = (1,0)  u1 = a = (1,0)  u2 = b = (0,1)
#   v0 = b = (0,1)  v1 = c = (2,1)  v2 = (c+f)/2 = (0.5,1.5)
# Cosines: positives cos(u0,v0)=0, cos(u1,v1)=2/√5=0.8944, cos(u2,v2)=3/√10=0.9487.
# MAX over the 2B=6 segments without self and partner:
#   u0: u1 1, v1 .8944, u2 0, v2 .3162 -> u1 (1)    v0: u1 0, u2 1, v1 .4472, v2 .9487 -> u2 (1)
#   u1: u0 1 ...                       -> u0 (1)    v1: u0 .8944, u2 .4472, v0 .4472, v2 .7071 -> u0
#   u2: u0 0, u1 0, v0 1, v1 .4472     -> v0 (1)    v2: u0 .3162, u1 .3162, v0 .9487, v1 .7071 -> v0
# With δ=0.4, [δ − pos + neg]_+ per side:
#   pair 0: (0.4-0+1) + (0.4-0+1)            = 2.8
#   pair 1: (0.4-.8944+1) + (0.4-.8944+.8944) = 0.905573
#   pair 2: (0.4-.9487+1) + (0.4-.9487+.9487) = 0.851317     mean over 3 pairs = 1.518963
# λ‖W‖², λ=0.01, rows a b c f: 0.01·(1+1+5+5) = 0.12.
PA_S1, PA_S2 = ["a", "a", "b"], ["b", "c", "c f"]
PA_W = {"a": (1.0, 0.0), "b": (0.0, 1.0), "c": (2.0, 1.0), "f": (-1.0, 2.0)}


def test_paraphrase_loss_by_hand():
    data, model = _setup(PA_S1, PA_S2, True, "mean", PA_W)
    sampler = MaxSampler(torch.Generator().manual_seed(0), cross=False)
    loss = ParaphraseObjective(margin=0.4, reg=0.01).loss(model, _batch(data), sampler)
    expected = (2.8 + (1.4 - 2 / math.sqrt(5) + 0.4) + (1.4 - 3 / math.sqrt(10) + 0.4)) / 3
    assert loss.item() == pytest.approx(expected + 0.12, abs=1e-5)


def test_paraphrase_other_scores_match_brute_force():
    # MAX picks and hinge of each score against a direct evaluation; gradients stay finite
    data, model = _setup(PA_S1, PA_S2, True, "mean", PA_W)
    vectors = model(*next(data.batches(torch.arange(3), 3))[1:]).detach()
    for name in ("euclidean", "sq_euclidean", "dot", "cosine"):
        score = SCORES[name]
        sampler = MaxSampler(torch.Generator().manual_seed(0), cross=False)
        loss = ParaphraseObjective(0.4, 0.0, score).loss(model, _batch(data), sampler)
        loss.backward()
        assert torch.isfinite(model.weight.grad.coalesce().values()).all()
        model.weight.grad = None
        sims = torch.tensor([[score.paired(x, y).item() for y in vectors] for x in vectors])
        total = 0.0
        for i in range(6):
            partner = (i + 3) % 6
            negative = max(sims[i, j] for j in range(6) if j not in (i, partner))
            total += max(0.0, 0.4 - sims[i, partner].item() + negative.item())
        assert loss.item() == pytest.approx(total / 3, abs=1e-4), name


class FixedSampler(NegativeSampler):
    k, cross = 1, True

    def __init__(self, rows):
        super().__init__(torch.Generator())
        self.rows = rows

    def sample(self, vectors, layout, score, sims=None):
        return self.rows


def test_in_batch_and_gathered_paths_agree():
    # the (B, B) score block and the gathered-vector path give the same hinge terms
    data, model = _setup(BI_S1, BI_S2, False, "sum", BI_W1, BI_W2)
    objective = BiCVMObjective(margin=3.0, reg=0.0)
    vectors = model(*next(data.batches(torch.arange(3), 3))[1:])
    sampler = FixedSampler(torch.tensor([[4], [5], [3], [2], [0], [1]]))
    in_batch = objective.hinge(vectors, Layout(3), sampler)
    with_extra = torch.cat([vectors, vectors[3:4]])  # an extra side-2 row, unused
    gathered = objective.hinge(with_extra, Layout(3, 0, 1), sampler)
    torch.testing.assert_close(in_batch, gathered)


# J_bi as BiCVM's dbltrain trains it, one word per segment (a segment's gradient is its word's):
#   u0 = a = (0,0)  v0 = x = (1,0)      u1 = c = (3,1)  v1 = y = (6,1)
# k=1 from the batch of two pairs: each anchor's negative is the other pair's other side.
# Half squared distances ½d: positives ½d(u0,v0) = 0.5, ½d(u1,v1) = 4.5; negatives
#   u0: y 18.5   v0: c 2.5   u1: x 2.5   v1: a 18.5
# [δ + ½d(pos) − ½d(neg)]_+, δ=1: u0 −17, v0 −1, v1 −13 inactive; u1 1 + 4.5 − 2.5 = 3.
# Loss γ·3 + α·(‖u0−v0‖² + ‖u1−v1‖²) = 3γ + 10α. Gradients:
#   attraction, every pair (pair 0 has no active hinge): ±2α(u−v): a 2α(−1,0), x 2α(1,0),
#     c 2α(−3,0), y 2α(3,0)
#   hinge of u1 only (γ·∇): c γ(x−y) = γ(−5,−1), y γ(y−c) = γ(3,0), x γ(c−x) = γ(2,1), a 0
REF_S1, REF_S2 = ["a", "c"], ["x", "y"]
REF_W1 = {"a": (0.0, 0.0), "c": (3.0, 1.0)}
REF_W2 = {"x": (1.0, 0.0), "y": (6.0, 1.0)}


def _reference_gradients(alpha, gamma):
    return {
        "a": (-2 * alpha, 0.0),
        "x": (2 * alpha + 2 * gamma, gamma),
        "c": (-6 * alpha - 5 * gamma, -gamma),
        "y": (6 * alpha + 3 * gamma, 0.0),
    }


class AutogradModel(PairModel):
    has_bag = False


@pytest.mark.parametrize("alpha, gamma", [(1.0, 0.1), (0.5, 0.2), (2.0, 1.0)])
@pytest.mark.parametrize("by_hand", [True, False])
def test_reference_jbi_gradient_by_hand(alpha, gamma, by_hand):
    data, model = _setup(REF_S1, REF_S2, False, "sum", REF_W1, REF_W2)
    if not by_hand:
        model.__class__ = AutogradModel
    objective = BiCVMObjective(1.0, 0.0, SCORES["half_sq_euclidean"], alpha, gamma)
    sampler = RandomSampler(1, torch.Generator().manual_seed(0), pool="batch")
    loss = objective.loss(model, _batch(data), sampler)
    assert loss.item() == pytest.approx(3 * gamma + 10 * alpha, abs=1e-5)
    loss.backward()
    grad = model.weight.grad.to_dense()
    rows = {w: data.vocab1.index[w] for w in REF_W1}
    rows |= {w: data.row_offset2 + data.vocab2.index[w] for w in REF_W2}
    for word, want in _reference_gradients(alpha, gamma).items():
        torch.testing.assert_close(grad[rows[word]], torch.tensor(want), msg=word)
    assert grad.abs().sum() == pytest.approx(
        sum(abs(v) for want in _reference_gradients(alpha, gamma).values() for v in want)
    )  # no other row


def test_printed_jbi_is_the_reference_form_without_attraction_and_scale():
    # α = 0, γ = 1 and −‖·‖² give Eq. 1 as printed (57.6 above); ½‖·‖² with δ/2 halves it
    data, model = _setup(BI_S1, BI_S2, False, "sum", BI_W1, BI_W2)
    printed = BiCVMObjective(3.0, 0.0, SCORES["sq_euclidean"], 0.0, 1.0)
    halved = BiCVMObjective(1.5, 0.0, SCORES["half_sq_euclidean"], 0.0, 1.0)
    for objective, want in ((printed, 57.0), (halved, 28.5)):
        sampler = RandomSampler(2, torch.Generator().manual_seed(0), pool="batch")
        assert objective.loss(model, _batch(data), sampler).item() == pytest.approx(want)
