"""The trainer's steps on CUDA against the eager CUDA step and against the CPU (skipped without
CUDA).

CUDA and CPU generators draw different numbers for the same seed; where a comparison with the
CPU needs the same negatives, dropout masks or targets, :func:`cpu_draws` makes every draw from
a CUDA generator on a CPU generator of the same seed instead (eager steps only: a captured graph
would freeze such a draw), so both devices see the same numbers.
"""

import pyarrow as pa
import pytest
import torch

from paracomp.run_config import TrainConfig
from paracomp.train import loop
from paracomp.train.cuda_graph import GriddedComposer
from paracomp.train.pairs.stacked import StackedPairTask
from paracomp.train.pairs.static import StaticPairTask
from paracomp.train.pairs.static_learned import StaticLearnedTask
from paracomp.train.pairs.task import PairTask, segment_pairs
from paracomp.train.targets.task import TargetTask
from paracomp.train.tasks import pair_task

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")

FAST = {"epochs": 3, "batch_size": 16, "dim": 12, "threads": 1}
REFERENCE = {"score": "half_sq_euclidean", "attraction": 1.0, "hinge_scale": 0.1}
RUNS = {
    "jbi-printed-batch": {"objective": "bicvm", "k": 5, "reg": 1e-3},
    "jbi-reference-batch": {"objective": "bicvm", "k": 10, **REFERENCE},
    "jbi-printed-corpus": {"objective": "bicvm", "pool": "corpus", "k": 3, "reg": 0.01},
    "jpa-max-cosine": {"objective": "paraphrase", "sampler": "max", "margin": 0.4, "reg": 1e-5},
    "jpa-mix-euclidean-mean": {
        "objective": "paraphrase",
        "sampler": "mix",
        "score": "euclidean",
        "composer": "mean",
        "shared_vocab": True,
    },
}
CLOSE = {"rtol": 1e-4, "atol": 1e-5}


@pytest.fixture
def cpu_draws(monkeypatch):
    """Draw what a CUDA generator is asked for from a CPU generator of its seed."""
    shadows: dict[tuple[int, int], torch.Generator] = {}

    def on_cpu(original):
        def draw(*args, generator=None, device=None, **kwargs):
            if generator is None or generator.device.type != "cuda":
                return original(*args, generator=generator, device=device, **kwargs)
            key = (id(generator), generator.initial_seed())
            shadow = shadows.setdefault(key, torch.Generator().manual_seed(key[1]))
            return original(*args, generator=shadow, **kwargs).to(device)

        return draw

    monkeypatch.setattr(torch, "rand", on_cpu(torch.rand))
    monkeypatch.setattr(torch, "randint", on_cpu(torch.randint))


def _run(task, tmp_path):
    curve = loop.run(task, tmp_path, progress=False)
    return task, curve["loss"].tolist()


@pytest.mark.parametrize("run", sorted(RUNS))
def test_graphed_step_trains_as_the_eager_cuda_step(tmp_path, run, distinct_pairs):
    """The same CUDA generators, so the same negatives: the graph replays the eager step."""
    config = TrainConfig.from_dict({**FAST, **RUNS[run], "device": "cuda"})
    graphed, graphed_losses = _run(pair_task(config, distinct_pairs()), tmp_path / "graphed")
    assert isinstance(graphed, StaticPairTask) and graphed.static._call.graph is not None
    eager_config = TrainConfig.from_dict({**config.to_dict(), "cuda_graph": False})
    eager, eager_losses = _run(pair_task(eager_config, distinct_pairs()), tmp_path / "eager")
    assert type(eager) is PairTask
    torch.testing.assert_close(graphed.model.weight, eager.model.weight, **CLOSE)
    assert graphed_losses == pytest.approx(eager_losses, rel=1e-5)
    state = graphed.sampler.generator.get_state()
    assert torch.equal(state, eager.sampler.generator.get_state())


@pytest.mark.parametrize("run", sorted(RUNS))
def test_cuda_steps_match_cpu(tmp_path, run, distinct_pairs, cpu_draws):
    """The eager and the (uncaptured) static step on CUDA, each against the CPU's."""
    cpu, cpu_losses = _run(
        PairTask(TrainConfig.from_dict({**FAST, **RUNS[run]}), distinct_pairs()), tmp_path
    )
    config = TrainConfig.from_dict({**FAST, **RUNS[run], "device": "cuda", "cuda_graph": False})
    for cls in (PairTask, StaticPairTask):
        cuda, losses = _run(cls(config, distinct_pairs()), tmp_path / cls.__name__)
        torch.testing.assert_close(cuda.model.weight.cpu(), cpu.model.weight, **CLOSE)
        assert losses == pytest.approx(cpu_losses, rel=1e-5)


def test_graphed_max_step_matches_cpu(tmp_path, distinct_pairs):
    """MAX draws nothing: the graphed CUDA run against the CPU run directly."""
    settings = {**FAST, **RUNS["jpa-max-cosine"]}
    cpu, _ = _run(PairTask(TrainConfig.from_dict(settings), distinct_pairs()), tmp_path / "cpu")
    cuda_config = TrainConfig.from_dict({**settings, "device": "cuda"})
    cuda, _ = _run(pair_task(cuda_config, distinct_pairs()), tmp_path / "cuda")
    torch.testing.assert_close(cuda.model.weight.cpu(), cpu.model.weight, **CLOSE)


def test_graphed_epochs_never_wait_for_the_gpu(distinct_pairs, never_waits):
    """After the first two steps (eager warm-up, capture), two epochs of steps, the eager last
    batches and the next epoch's batch order included, make no synchronising call."""
    config = TrainConfig.from_dict({**FAST, **RUNS["jpa-mix-euclidean-mean"], "device": "cuda"})
    task = pair_task(config, distinct_pairs(100))
    never_waits(task, 2, 2 * task.steps_per_epoch - 2)


@pytest.mark.parametrize("composer", ["sum", "gru"])
def test_compvec_cuda_step_matches_cpu(composer, cpu_draws):
    """CompVec (Scheepers et al.): the same batches, negatives and dropout masks on both."""
    words = [f"w{i}" for i in range(40)]
    matrix = torch.randn(40, 8, generator=torch.Generator().manual_seed(0)).numpy()
    definitions = [" ".join(words[(i * 7 + j) % 40] for j in range(1 + i % 6)) for i in range(50)]
    pairs = pa.table({"lemma": [words[i % 40] for i in range(50)], "definition": definitions})
    settings = {
        "objective": "targets",
        "optimizer": "adam",
        "composer": composer,
        "steps": 30,
        "batch_size": 8,
        "margin": 0.25,
        "dropout": 0.25,
        "lr": 0.01,
    }
    trained = {}
    for device in ("cpu", "cuda"):
        config = TrainConfig.from_dict({**settings, "device": device})
        task = TargetTask(config, pairs, words, matrix)
        for step, batch in zip(range(task.total_steps), task.batches(0), strict=False):
            task.step(step, batch)
        trained[device] = task.model
    # cuDNN's GRU rounds unlike the CPU's cells, and Adam scales each entry's rounding up to
    # a share of lr (0.028·lr seen on an H200): the GRU's runs are held to 0.05·lr.
    close = CLOSE if composer == "sum" else {"rtol": 1e-4, "atol": 0.05 * settings["lr"]}
    torch.testing.assert_close(trained["cuda"].weight.cpu(), trained["cpu"].weight, **close)
    for mine, theirs in zip(
        trained["cuda"].composer.parameters(), trained["cpu"].composer.parameters(), strict=True
    ):
        torch.testing.assert_close(mine.cpu(), theirs, **close)


def test_stacked_grid_on_cuda_is_the_points_alone(tmp_path, distinct_pairs):
    """A J_pa stack (MAX and MIX, cosine and Euclidean) in one graphed step against each point
    trained alone by the eager CUDA step."""
    base = {**FAST, "objective": "paraphrase", "device": "cuda"}
    points = [
        {"sampler": s, "score": score, "margin": m, "reg": r}
        for s in ("max", "mix")
        for score, m in (("cosine", 0.4), ("euclidean", 1.0))
        for r in (1e-5, 1e-2)
    ]
    configs = {i: TrainConfig.from_dict({**base, **p}) for i, p in enumerate(points)}
    folders = {i: tmp_path / "points" / str(i) for i in configs}
    stack = StackedPairTask(configs, distinct_pairs(), folders)
    assert stack.static is not None
    loop.run(stack, tmp_path / "stack", progress=False)
    assert stack.static._call.graph is not None
    for index, config in configs.items():
        eager_config = TrainConfig.from_dict({**config.to_dict(), "cuda_graph": False})
        alone, _ = _run(PairTask(eager_config, distinct_pairs()), tmp_path / str(index))
        torch.testing.assert_close(stack.members[index].model.weight, alone.model.weight, **CLOSE)


LEARNED = {
    "objective": "paraphrase",
    "sampler": "max",
    "optimizer": "adam",
    "lr": 1e-3,
    "epochs": 2,
    "batch_size": 16,
    "dim": 32,
    "shared_vocab": True,
    "device": "cuda",
}


@pytest.mark.parametrize(
    "run",
    [
        {"composer": "lstmavg", "dropout": 0.3, "scramble": 0.5},
        {"composer": "gran", "reg_initial": 1e-5},
        {"composer": "bigran", "word_dropout": 0.3},
        {"composer": "lstm_avg", "megabatch": 2, "scramble": 0.3},
    ],
)
def test_graphed_composer_run_is_the_eager_cuda_run(tmp_path, bible_sample, run):
    """Pair runs with learned composers: the composer replayed from CUDA graphs (forward and
    backward; the mining pass without gradient) against the eager CUDA run."""
    settings = {**LEARNED, **run}
    pairs = segment_pairs(bible_sample.slice(0, 120))
    graphed = PairTask(TrainConfig.from_dict(settings), pairs)
    assert isinstance(graphed.model.runner, GriddedComposer)
    _, graphed_losses = _run(graphed, tmp_path / "graphed")
    assert graphed.model.runner.shapes
    eager = PairTask(TrainConfig.from_dict({**settings, "cuda_graph": False}), pairs)
    assert eager.model.runner is None
    _, eager_losses = _run(eager, tmp_path / "eager")
    for mine, theirs in zip(graphed.model.parameters(), eager.model.parameters(), strict=True):
        torch.testing.assert_close(mine, theirs, rtol=0, atol=3e-3)
    assert graphed_losses == pytest.approx(eager_losses, rel=1e-4)


def _assert_trained_alike(mine: torch.Tensor, theirs: torch.Tensor, config: TrainConfig) -> None:
    """Equal up to rounding. Adam and AdaGrad divide each entry's gradient by its own running
    size, so an entry whose gradient is near zero moves by up to lr a step either way on a
    rounding difference (cuDNN's recurrent kernels on the grid round unlike the packed ones):
    every entry but at most 0.5% within 0.2·lr, and those within 5·lr."""
    if config.optimizer not in ("adam", "adagrad"):
        torch.testing.assert_close(mine, theirs, rtol=1e-4, atol=1e-4)
        return
    off = (mine - theirs).abs().detach()
    assert (off > 0.2 * config.lr).float().mean().item() <= 0.005
    assert off.max().item() <= 5 * config.lr


@pytest.mark.parametrize(
    "run",
    [
        {"composer": "lstmavg"},
        {"composer": "gran", "reg_initial": 1e-5, "reg_composer": 1e-4},
        {"composer": "gru", "sampler": "mix", "optimizer": "adagrad", "lr": 0.01},
        {"composer": "mean", "optimizer": "sgd", "lr": 0.05},
        {"composer": "lstm_avg", "megabatch": 2},
        {
            "composer": "wlo",
            "score": "log_eip",
            "margin": 1.0,
            "megabatch": 2,
            "prior_weight": 0.01,
        },
        {"composer": "mean", "megabatch": 2, "reg": 1e-4},
    ],
)
def test_graphed_learned_run_is_the_eager_cuda_run(tmp_path, bible_sample, run):
    """Without perturbations both draw the same (MIX: from the sampler's CUDA generator): the
    whole step replayed from a CUDA graph against the eager CUDA step."""
    pairs = segment_pairs(bible_sample.slice(0, 120))
    graphed = pair_task(TrainConfig.from_dict({**LEARNED, **run}), pairs)
    assert isinstance(graphed, StaticLearnedTask)
    _, graphed_losses = _run(graphed, tmp_path / "graphed")
    assert graphed._call.graph is not None
    eager = PairTask(TrainConfig.from_dict({**LEARNED, **run, "cuda_graph": False}), pairs)
    _, eager_losses = _run(eager, tmp_path / "eager")
    for mine, theirs in zip(graphed.model.parameters(), eager.model.parameters(), strict=True):
        _assert_trained_alike(mine, theirs, eager.config)
    assert graphed_losses == pytest.approx(eager_losses, rel=1e-4)


def test_graphed_learned_run_with_perturbations(tmp_path, bible_sample, never_waits):
    """Dropout and scrambling drawn on the GPU: it trains, never waits for the GPU within an
    epoch, and resumes from its checkpoint to the same weights."""
    pairs = segment_pairs(bible_sample.slice(0, 120))
    settings = {**LEARNED, "composer": "lstmavg", "dropout": 0.3, "scramble": 0.5}
    task = pair_task(TrainConfig.from_dict(settings), pairs)
    never_waits(task, 2, task.steps_per_epoch - 2)
    whole = pair_task(TrainConfig.from_dict(settings), pairs)
    _, losses = _run(whole, tmp_path / "whole")
    assert losses[-1] < losses[0]
    _run(pair_task(TrainConfig.from_dict({**settings, "epochs": 1}), pairs), tmp_path / "parts")
    resumed = pair_task(TrainConfig.from_dict(settings), pairs)
    _run(resumed, tmp_path / "parts")
    for mine, theirs in zip(resumed.model.parameters(), whole.model.parameters(), strict=True):
        torch.testing.assert_close(mine, theirs)
