"""Optimisers on the word rows' sparse gradients."""

import subprocess
import sys

import pytest
import torch

from paracomp.models.pair import PairModel, RowGradient
from paracomp.models.registry import COMPOSERS
from paracomp.train.optim import (
    Adam,
    DenseAdam,
    RowSparseAdagrad,
    _adagrad,
    _adagrad_cpu,
    adam,
    make_optimizer,
)


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


def _lasagne_adam(w, grads, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    """Lasagne's ``adam`` (acl2017's learner) written out: every row, every step."""
    m, v = torch.zeros_like(w), torch.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        w = w - lr * (1 - beta2**t) ** 0.5 / (1 - beta1**t) * m / (v.sqrt() + eps)
    return w


def test_dense_adam_is_lasagnes_adam_on_sparse_rows():
    """Rows 0 and 2 have gradient in step 1 only, row 1 in step 2 only: dense Adam moves row 0
    and 2 again in step 2 on their moments (Lasagne's update over the whole table), lazy Adam
    leaves them."""
    w0 = torch.tensor([[1.0, -2.0], [0.5, 0.25], [3.0, 1.0], [0.0, 0.0]], dtype=torch.float64)
    dense_grads = [
        torch.tensor([[0.5, -1.0], [0.0, 0.0], [2.0, 0.1], [0.0, 0.0]], dtype=torch.float64),
        torch.tensor([[0.0, 0.0], [-0.3, 0.7], [0.0, 0.0], [0.0, 0.0]], dtype=torch.float64),
    ]
    weight = torch.nn.Parameter(w0.clone())
    opt = DenseAdam([weight], lr=0.1)
    for g in dense_grads:
        weight.grad = g.to_sparse(1)
        opt.step()
    expected = _lasagne_adam(w0, dense_grads, lr=0.1)
    torch.testing.assert_close(weight.detach(), expected, rtol=1e-12, atol=1e-12)
    # by hand, row 0 column 0: m1 = 0.05, v1 = 2.5e-4; step 1 moves it by 0.1·√0.001/0.1·
    # 0.05/(0.0158114 + 1e-8) = 0.1; m2 = 0.045, v2 = 2.4975e-4, step 2 by 0.1·√0.001999/0.19·
    # 0.045/0.0158035 = 0.0669...: row 0 moved although its gradient in step 2 was 0
    assert weight[0, 0].item() == pytest.approx(1.0 - 0.1 - 0.06693, abs=1e-4)
    assert weight[3].tolist() == [0.0, 0.0]  # never a gradient: never moves
    lazy = torch.nn.Parameter(w0.clone())
    lazy_opt = torch.optim.SparseAdam([lazy], lr=0.1)
    for g in dense_grads:
        lazy.grad = g.to_sparse(1)
        lazy_opt.step()
    assert lazy[0].tolist() != weight[0].tolist()
    torch.testing.assert_close(lazy[1].detach(), weight[1].detach())  # the same history


def test_dense_adam_kernel_in_float32_is_the_formula():
    """The CPU kernel on a float32 table (the training dtype): three steps of random row
    subsets, against the formula in float64."""
    gen = torch.Generator().manual_seed(3)
    w0 = torch.randn(50, 4, generator=gen)
    grads = []
    for _ in range(3):
        g = torch.zeros(50, 4)
        rows = torch.randperm(50, generator=gen)[:7]
        g[rows] = torch.randn(7, 4, generator=gen)
        grads.append(g)
    weight = torch.nn.Parameter(w0.clone())
    opt = DenseAdam([weight], lr=0.01)
    for g in grads:
        weight.grad = g.to_sparse(1)
        opt.step()
    expected = _lasagne_adam(w0.double(), [g.double() for g in grads], lr=0.01)
    assert weight.dtype == torch.float32
    torch.testing.assert_close(weight.detach().double(), expected, rtol=1e-6, atol=1e-7)


def test_dense_adam_on_dense_gradients_is_torch_adam_up_to_eps():
    gen = torch.Generator().manual_seed(0)
    ours = torch.nn.Parameter(torch.randn(6, 3, generator=gen, dtype=torch.float64))
    theirs = torch.nn.Parameter(ours.detach().clone())
    opt_ours, opt_theirs = (
        DenseAdam([ours], lr=0.01, eps=0.0),
        torch.optim.Adam([theirs], lr=0.01, eps=0.0),
    )
    for _ in range(5):
        g = torch.randn(6, 3, generator=gen, dtype=torch.float64)
        ours.grad, theirs.grad = g.clone(), g.clone()
        opt_ours.step()
        opt_theirs.step()
    torch.testing.assert_close(ours.detach(), theirs.detach(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("rows", "moves"), [("dense", True), ("lazy", False)])
def test_adam_rows_setting(rows, moves):
    model = _model()
    opt = make_optimizer(model, "adam", lr=0.05, adam_rows=rows)
    _step(model, opt, [1, 2, 3, 3])
    before = model.weight.detach().clone()
    _step(model, opt, [4, 5, 6, 6])
    assert (model.weight.detach()[1] != before[1]).any().item() is moves


def test_unknown_optimizer():
    with pytest.raises(ValueError, match="rmsprop"):
        make_optimizer(_model(), "rmsprop", lr=0.1)
    with pytest.raises(ValueError, match="sparse"):
        make_optimizer(_model(), "adam", lr=0.1, adam_rows="sparse")


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


class _TorchRowAdagrad(torch.optim.Optimizer):
    """RowSparseAdagrad's hyperparameters on ``torch.optim.Optimizer``: the layout of the
    checkpoints written before the row optimiser left it."""

    def __init__(self, params, lr=0.01, eps=1e-10):
        super().__init__(params, {"lr": lr, "eps": eps})


def test_row_adagrad_state_dict_has_torch_s_layout_both_ways():
    weight = torch.nn.Parameter(torch.zeros(4, 3))
    ours = RowSparseAdagrad([weight], lr=0.3)
    ours.step_rows(weight, RowGradient(torch.tensor([1, 3]), torch.ones(2, 3)))
    theirs = _TorchRowAdagrad([torch.nn.Parameter(torch.zeros(4, 3))], lr=0.3)
    theirs.load_state_dict(ours.state_dict())  # what we write, torch reads
    saved = theirs.state_dict()
    assert saved["param_groups"] == ours.state_dict()["param_groups"]
    again = RowSparseAdagrad([torch.nn.Parameter(torch.zeros(4, 3, dtype=torch.float64))])
    again.load_state_dict(saved)  # and what torch wrote, we read
    assert again.param_groups[0]["lr"] == 0.3
    sums = again.state[again.param_groups[0]["params"][0]]["sum"]
    assert sums.dtype == torch.float64 and sums[:, 0].tolist() == [0.0, 1.0, 0.0, 1.0]
    with pytest.raises(ValueError, match="different number"):
        RowSparseAdagrad([weight, torch.nn.Parameter(torch.zeros(1))]).load_state_dict(saved)


def _adam_pair(fused, dtype=torch.float32):
    gen = torch.Generator().manual_seed(3)
    shapes = [(6, 4), (4,), (2, 3)]
    ours = [torch.nn.Parameter(torch.randn(s, generator=gen, dtype=dtype)) for s in shapes]
    theirs = [torch.nn.Parameter(p.detach().clone()) for p in ours]
    options = {"lr": 0.02, "betas": (0.8, 0.99), "eps": 1e-6}
    return (
        ours,
        theirs,
        Adam(ours, fused=fused, **options),
        torch.optim.Adam(theirs, fused=fused, **options),
    )


def _adam_steps(params, opt, steps, seed):
    gen = torch.Generator().manual_seed(seed)
    for step in range(steps):
        for i, param in enumerate(params):  # the last parameter has no gradient at step 1
            grad = torch.randn(param.shape, generator=gen, dtype=param.dtype)
            param.grad = None if (step == 1 and i == 2) else grad
        opt.step()


@pytest.mark.parametrize("fused", [None, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_adam_is_torch_adam_bit_for_bit(fused, dtype):
    ours, theirs, opt_ours, opt_theirs = _adam_pair(fused, dtype)
    _adam_steps(ours, opt_ours, 4, seed=1)
    _adam_steps(theirs, opt_theirs, 4, seed=1)
    for a, b in zip(ours, theirs, strict=True):
        assert torch.equal(a, b)
        for key in ("step", "exp_avg", "exp_avg_sq"):
            assert torch.equal(opt_ours.state[a][key], opt_theirs.state[b][key]), key
            assert opt_ours.state[a][key].dtype == opt_theirs.state[b][key].dtype, key
    # the state dicts are interchangeable both ways, and resuming gives the same steps
    mine, torch_s = opt_ours.state_dict(), opt_theirs.state_dict()
    assert mine["param_groups"] == torch_s["param_groups"]
    _, theirs2, _, opt_theirs2 = _adam_pair(fused, dtype)
    ours2, _, opt_ours2, _ = _adam_pair(fused, dtype)
    for a, b, c, d in zip(ours, theirs, ours2, theirs2, strict=True):
        c.data.copy_(b)
        d.data.copy_(a)
    opt_ours2.load_state_dict(torch_s)
    opt_theirs2.load_state_dict(mine)
    _adam_steps(ours2, opt_ours2, 2, seed=5)
    _adam_steps(theirs2, opt_theirs2, 2, seed=5)
    for a, b in zip(ours2, theirs2, strict=True):
        assert torch.equal(a, b)


def test_adam_picks_ours_on_cpu_and_torch_s_where_asked_to_capture():
    params = [torch.nn.Parameter(torch.zeros(2))]
    assert type(adam(params, lr=0.1)) is Adam
    assert adam(params, fused=True, lr=0.1).param_groups[0]["fused"] is True
    # a CUDA graph needs torch's capturable state (CUDA only: on a CPU torch refuses it)
    assert type(adam(params, capturable=True, lr=0.1)) is torch.optim.Adam


@pytest.mark.slow  # a fresh Python process
def test_the_row_optimiser_imports_no_dynamo():
    """Building or stepping a torch.optim.Optimizer imports torch._dynamo (1-2 s a job); the
    trainer's default optimisers on a CPU do not."""
    code = (
        "import sys, torch\n"
        "from paracomp.train.optim import Adam, DenseAdam, RowSparseAdagrad\n"
        "opt = RowSparseAdagrad([torch.nn.Parameter(torch.zeros(3, 2))])\n"
        "opt.load_state_dict(opt.state_dict())\n"
        "for cls in (Adam, DenseAdam):\n"
        "    param = torch.nn.Parameter(torch.zeros(3, 2))\n"
        "    opt = cls([param])\n"
        "    param.grad = torch.ones(3, 2)\n"
        "    opt.step()\n"
        "    opt.load_state_dict(opt.state_dict())\n"
        "assert 'torch._dynamo' not in sys.modules\n"
        "torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)\n"
        "assert 'torch._dynamo' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
