"""Encoders over a trained pair run: unknown words take the UNK row (or are skipped), Gaussian
outputs compare as [μ ; σ²], the run's own encoder while training equals the loaded run's."""

import math

import numpy as np
import pyarrow as pa
import torch

from paracomp.eval.trained import TrainedEncoder, gaussian_features, load_run
from paracomp.models.registry import COMPOSERS
from paracomp.run_config import TrainConfig
from paracomp.train.tasks import train_pairs


def test_gaussian_features():
    rows = np.array([[1.0, -2.0, 0.0, math.log(4.0)]])
    np.testing.assert_allclose(gaussian_features(rows), [[1.0, -2.0, 1.0, 4.0]])


def test_unknown_words_take_the_unk_row_or_are_skipped():
    rows = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 3.0]], dtype=np.float32)
    sum_ = COMPOSERS["sum"](2)
    with_unk = TrainedEncoder(sum_, ["<unk>", "a", "b"], rows)
    np.testing.assert_allclose(
        with_unk.encode([["a", "x", "b"], ["y"], []]), [[4, 5], [1, 0], [0, 0]]
    )
    assert with_unk.known("a") and not with_unk.known("x") and not with_unk.known("<unk>")
    skipping = TrainedEncoder(sum_, ["a", "b"], rows[1:])
    np.testing.assert_allclose(skipping.encode([["a", "x", "b"], ["y"]]), [[3, 5], [0, 0]])


def test_wlo_encoder_features_and_empty_sentence():
    rows = np.array([[math.log(2.0), 1.0]], dtype=np.float32)  # k = 1: A = 2, B = 1
    encoder = TrainedEncoder(COMPOSERS["wlo"](1), ["w"], rows, gaussian_features)
    # "w w": μ = 2·(2·(0 + 1) + 1) = 6, σ² = 2⁴ = 16; an empty sentence: N(0, 1)
    np.testing.assert_allclose(
        encoder.outputs([["w", "w"], []]), [[6.0, math.log(16.0)], [0, 0]], rtol=1e-6
    )
    np.testing.assert_allclose(encoder.encode([["w", "w"]]), [[6.0, 16.0]], rtol=1e-6)


def test_pair_encoder_equals_the_loaded_run(tmp_path):
    pairs = pa.table(
        {"id": ["1", "2", "3"], "s1": ["a b c", "b c", "c a a"], "s2": ["a c", "b b c", "a"]}
    )
    config = TrainConfig(
        objective="paraphrase", composer="lstm_gaussian", dim=4, score="log_eip", shared_vocab=True,
        megabatch=1, batch_size=2, epochs=1, optimizer="adam", lr=0.01, export_unk=True,
    )  # fmt: skip
    result = train_pairs(config, pairs, tmp_path, progress=False)
    loaded_config, loaded = load_run(tmp_path)
    assert loaded_config == config
    sentences = [["a", "b"], ["c", "zzz"], []]
    with torch.no_grad():
        np.testing.assert_allclose(
            loaded.encode(sentences), result.encoder.encode(sentences), rtol=1e-6
        )
    assert loaded.unk == 0
