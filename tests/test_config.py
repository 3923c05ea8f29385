"""The config schema: the shipped configs validate, bad keys are named."""

import copy
from pathlib import Path

import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from paracomp.papers import schema_path

REPO = Path(__file__).resolve().parents[1]
SCHEMA = str(REPO / "workflow" / "schemas" / "config.schema.yaml")


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


def test_shipped_paper_blocks_validate():
    config = load()
    for paper, block in config["papers"].items():
        validate(block, schema_path(paper))


@pytest.mark.parametrize(
    "mutate, key",
    [
        (lambda b: b["tables"]["table3"]["columns"]["glove"].update(modle="x"), "modle"),
        (lambda b: b["tuning"].update(epoch=3), "epoch"),
        (lambda b: b["runs"]["bisent_jbi"].update(data="bisentences"), "bisentences"),
    ],
)
def test_bad_key_of_a_paper_block_is_named(mutate, key):
    block = copy.deepcopy(load()["papers"]["elgohary2016"])
    mutate(block)
    with pytest.raises(WorkflowError, match=key):
        validate(block, schema_path("elgohary2016"))


def test_empty_column_needs_a_reason():
    block = copy.deepcopy(load()["papers"]["elgohary2016"])
    block["tables"]["table3"]["columns"]["glove"] = {"model": None}
    with pytest.raises(WorkflowError):
        validate(block, schema_path("elgohary2016"))
