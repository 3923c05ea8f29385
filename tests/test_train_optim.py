"""Optimisers on the word rows' sparse gradients."""

import pytest
import torch

from paracomp.models.pair import PairModel, RowGradient
from paracomp.models.registry import COMPOSERS
from paracomp.train.optim import RowSparseAdagrad, _adagrad, _adagrad_cpu, make_optimizer


def _model():
    return PairModel(COMPOSERS["sum"](3), 20, 0.1, torch.Generator().manual_seed(0))


def _step(model, opt, ids):
    opt.zero_grad()
    vectors = model(torch.tensor(ids), torch.tensor([0, 2]))
    (vectors[0] * vectors[1] + vectors.pow(3)).sum().backward()
    opt.step()


@pytest.mark.filterwarnings("ignore:Sparse invariant checks")
def test_row_sparse_adagrad_matches_torch_adagrad():
    ours, theirs = _model(), _model()
    opt_ours = RowSparseAdagrad([ours.weight], lr=0.1)
    opt_theirs = torch.optim.Adagrad([theirs.weight], lr=0.1)
    for ids in ([1, 2, 3, 3], [3, 4, 1, 9], [5, 5, 5, 1]):
        _step(ours, opt_ours, ids)
        _step(theirs, opt_theirs, ids)
    torch.testing.assert_close(ours.weight, theirs.weight, rtol=1e-6, atol=1e-7)
    torch.testing.assert_close(
        opt_ours.state[ours.weight]["sum"], opt_theirs.state[theirs.weight]["sum"]
    )


@pytest.mark.parametrize("name", ["adagrad", "sgd", "adam"])
def test_optimizers_touch_only_used_rows(name):
    model = _model()
    before = model.weight.detach().clone()
    opt = make_optimizer(model, name, lr=0.05)
    _step(model, opt, [1, 2, 3, 3])
    changed = (model.weight.detach() != before).any(1).nonzero().flatten().tolist()
    assert changed == [1, 2, 3]
    state = opt.state_dict()
    assert isinstance(state, list) and len(state) == 1  # no dense parameters


def test_unknown_optimizer():
    with pytest.raises(ValueError, match="rmsprop"):
        make_optimizer(_model(), "rmsprop", lr=0.1)


def test_adagrad_kernel_matches_tensor_ops_and_skips_zero_rows():
    gen = torch.Generator().manual_seed(0)
    weight, state = torch.randn(10, 4, generator=gen), torch.rand(10, 4, generator=gen)
    rows = RowGradient(torch.tensor([7, 2, 5]), torch.randn(3, 4, generator=gen))
    rows.grad[1] = 0.0  # row 2 has no gradient: AdaGrad leaves it as it is
    kernel, ops = (weight.clone(), state.clone()), (weight.clone(), state.clone())
    for _ in range(2):
        _adagrad_cpu(*kernel, rows, lr=0.1, eps=1e-10)
        _adagrad(*ops, rows, lr=0.1, eps=1e-10)
    torch.testing.assert_close(kernel, ops)
    untouched = torch.tensor([0, 1, 2, 3, 4, 6, 8, 9])
    assert torch.equal(kernel[0][untouched], weight[untouched])
    assert torch.equal(kernel[1][untouched], state[untouched])
