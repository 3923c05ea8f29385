"""The config schema: the shipped configs validate, bad keys are named."""

import copy
from pathlib import Path

import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from paracomp.errors import ConfigError
from paracomp.papers import PAPERS
from paracomp.registry import merged, paper_settings, schema_path
from paracomp.settings import CONFIG_SCHEMA

REPO = Path(__file__).resolve().parents[1]
SCHEMA = CONFIG_SCHEMA


def load(name="config.yaml"):
    return yaml.safe_load((REPO / name).read_text())


def test_shipped_config_validates_and_gets_defaults():
    config = load()
    validate(config, SCHEMA)
    assert config["download"] == {"attempts": 4, "backoff_seconds": 2.0}


@pytest.mark.parametrize(
    "mutate, key",
    [
        (lambda c: c.update(mirorr="/data"), "mirorr"),
        (lambda c: c["evaluation"].update(oov="ignore"), "ignore"),
        (lambda c: c.update(sources=["mirror", "ftp"]), "ftp"),
    ],
)
def test_bad_key_is_named(mutate, key):
    config = copy.deepcopy(load())
    mutate(config)
    with pytest.raises(WorkflowError, match=key):
        validate(config, SCHEMA)


@pytest.mark.parametrize("settings", ["default", "published"])
def test_shipped_paper_settings_validate(settings):
    for paper in PAPERS:
        validate(paper_settings(paper, settings), schema_path(paper))


def test_paper_settings_merge_as_snakemake_config_files():
    """Published on top of the default, a user's block on top of both: mappings merge key by
    key in the base's order, lists and scalars are replaced."""
    base = {"a": {"x": 1, "y": [1, 2]}, "b": 2}
    assert merged(base, {"a": {"y": [3], "z": None}, "c": {"d": 1}}) == {
        "a": {"x": 1, "y": [3], "z": None},
        "b": 2,
        "c": {"d": 1},
    }
    assert list(merged(base, {"c": 1, "a": {}})) == ["a", "b", "c"]
    default = paper_settings("wieting2017")
    published = paper_settings("wieting2017", "published")
    assert (default["corpus"], published["corpus"]) == ("bible", "simpwiki")
    assert published["composers"] == default["composers"]  # not in published.yaml: kept
    user = paper_settings("wieting2017", "published", {"dim": 25, "epochs": {"avg": 1}})
    assert user["dim"] == 25 and user["epochs"] == {**published["epochs"], "avg": 1}
    user["grids"]["none"].clear()  # a copy: the next call reads the files' settings again
    assert paper_settings("wieting2017")["grids"]["none"]
    with pytest.raises(ConfigError, match="publishd"):
        paper_settings("wieting2017", "publishd")


@pytest.mark.parametrize(
    "mutate, key",
    [
        (lambda b: b["tables"]["table3"]["columns"]["glove"].update(modle="x"), "modle"),
        (lambda b: b["tuning"].update(epoch=3), "epoch"),
        (lambda b: b["runs"]["bisent_jbi"].update(data="bisentences"), "bisentences"),
    ],
)
def test_bad_key_of_a_paper_block_is_named(mutate, key):
    block = paper_settings("elgohary2016")
    mutate(block)
    with pytest.raises(WorkflowError, match=key):
        validate(block, schema_path("elgohary2016"))


def test_empty_column_needs_a_reason():
    block = paper_settings("elgohary2016")
    block["tables"]["table3"]["columns"]["glove"] = {"model": None}
    with pytest.raises(WorkflowError):
        validate(block, schema_path("elgohary2016"))
