"""The seeds a run derives (train.seeds): the pair run's four streams are the words of one
SeedSequence state, whatever the number drawn, and keyed seeds depend on every key."""

import numpy as np

from paracomp.train import seeds


def test_pair_streams_are_one_state_read_in_order():
    for seed in (0, 1, 7, 2**40):
        state = np.random.SeedSequence(seed).generate_state(4)
        streams = [seeds.INIT, seeds.ORDER, seeds.NEGATIVES, seeds.PERTURBATION]
        assert [seeds.stream(seed, s) for s in streams] == [int(x) for x in state]
    assert len({seeds.stream(1, s) for s in range(4)}) == 4


def test_keyed_seeds_depend_on_every_key():
    found = {seeds.keyed(1, purpose, step) for purpose in range(3) for step in range(50)}
    assert len(found) == 150
    assert seeds.keyed(1, 2, 3) == int(np.random.SeedSequence([1, 2, 3]).generate_state(1)[0])
