"""KEY=VALUE arguments (paracomp.arguments): a mapping, or pairs in order where a key repeats (a
wieting2017 run's grid points); an argument without its KEY is named."""

import pytest

from paracomp.arguments import key_value_pairs, key_values
from paracomp.errors import ConfigError


def test_pairs_keep_order_repeats_and_later_equals_signs():
    items = ["gran=results/a", "gran=results/b", "lstm=x=1", "empty="]
    assert key_value_pairs(items) == [
        ("gran", "results/a"),
        ("gran", "results/b"),
        ("lstm", "x=1"),
        ("empty", ""),
    ]
    assert key_values(items) == {"gran": "results/b", "lstm": "x=1", "empty": ""}
    assert key_values(None) == {} and key_value_pairs([]) == []


def test_an_argument_without_its_key_is_named():
    with pytest.raises(ConfigError, match="expected KEY=VALUE arguments, got 'results/a'"):
        key_value_pairs(["gran=results/b", "results/a"])
