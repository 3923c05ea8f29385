"""The trained run's folder (paracomp.run_folder): what a run writes is what evaluation reads;
an unreadable composer is named in one line."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from paracomp import artefacts, run_folder
from paracomp.errors import ConfigError
from paracomp.eval.trained import load_run
from paracomp.models.base import SegmentBatch
from paracomp.models.registry import make_composer
from paracomp.run_config import TrainConfig


def _written(folder):
    config = TrainConfig.from_dict({"objective": "paraphrase", "composer": "lstmavg", "dim": 4})
    composer = make_composer("lstmavg", 4, torch.Generator().manual_seed(0))
    words = ["<unk>", "the", "cat"]
    matrix = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    prov = artefacts.Provenance("trained", "test", {}, config.to_dict())
    run_folder.write_run(folder, config, composer.state_dict(), words, matrix, prov)
    return config, composer, words, matrix


def test_a_written_run_reads_back(tmp_path):
    config, composer, words, matrix = _written(tmp_path / "run")
    read, state = run_folder.read_composer(tmp_path / "run")
    assert read == config
    assert state.keys() == composer.state_dict().keys()
    for key, value in composer.state_dict().items():
        assert torch.equal(state[key], value), key
    got_words, got_matrix = run_folder.read_rows(tmp_path / "run")
    assert got_words == words and np.array_equal(got_matrix, matrix)
    loaded, encoder = load_run(tmp_path / "run")
    assert loaded == config
    batch = SegmentBatch(torch.from_numpy(matrix[1:]), torch.tensor([0, 1]), torch.tensor([0]))
    with torch.no_grad():
        expected = composer.eval()(batch).numpy()
    np.testing.assert_allclose(encoder.encode([["the", "cat"]]), expected, rtol=1e-6)


def test_an_unreadable_composer_is_named_in_one_line(tmp_path):
    _written(tmp_path / "run")
    (tmp_path / "run" / run_folder.COMPOSER).write_bytes(b"not a torch file")
    with pytest.raises(ConfigError) as caught:
        run_folder.read_composer(tmp_path / "run")
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'run' / 'composer.pt'}: unreadable trained composer (")
    assert "\n" not in message and "weights_only" not in message
