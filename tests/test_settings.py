"""One settings parser: every command's JSON argument and the workflow's config are checked
against the same schemas, a typo refused in one line naming the key; --config's strings are
coerced to the schema's type."""

import copy
import json
from pathlib import Path

import pytest
import yaml

from paracomp.cli import main
from paracomp.corpus.steps import SHARDED_STEPS, STEPS, params_schema
from paracomp.errors import ConfigError
from paracomp.registry import paper_settings, schema_path
from paracomp.settings import CONFIG_SCHEMA, checked, coerce, config_schema

REPO = Path(__file__).resolve().parents[1]


def config():
    return yaml.safe_load((REPO / "config.yaml").read_text())


def one_line_error(argv: list[str], capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


def test_a_misspelt_pivot_rule_is_refused_naming_it(tmp_path: Path, capsys) -> None:
    """``rules.min_cont`` used to fall back to min_count 1 silently (3,000,000 pairs instead of
    221,894 on the Bible); now it is refused before the table is read, nothing written."""
    rules = {**config()["corpus"]["pivot"]}
    rules["min_cont"] = rules.pop("min_count")
    out = tmp_path / "mono.parquet"
    argv = ["corpus", "pivot", "--input", str(tmp_path / "phrase_table.parquet")]
    err = one_line_error(
        [*argv, "--params", json.dumps({"rules": rules}), "--out", str(out)], capsys
    )
    assert "corpus pivot --params: rules: unknown key(s) ['min_cont']" in err
    assert "known: ['max_pairs', 'min_count'" in err
    assert not out.exists()


@pytest.mark.parametrize(
    "params, message",
    [
        ({"rulez": {}}, "unknown key(s) ['rulez']; known: ['partitions', 'rules']"),
        ({"rules": {"min_count": "2"}}, "rules.min_count='2': '2' is not of type 'integer'"),
        ({"partitions": 2}, "'rules' is a required property"),
        ([1], "[1] is not of type 'object'"),
    ],
)
def test_a_bad_top_level_key_is_one_line_not_a_type_error(tmp_path, capsys, params, message):
    argv = ["corpus", "pivot", "--input", str(tmp_path / "t.parquet"), "--out", str(tmp_path / "o")]
    assert message in one_line_error([*argv, "--params", json.dumps(params)], capsys)


def test_every_step_takes_the_settings_the_workflow_passes() -> None:
    """The shipped config's corpus settings, as the rules pass them, are valid for each step;
    each step's schema holds the config's own part (a change there applies here too)."""
    corpus = config()["corpus"]
    assert (
        params_schema("pivot")["properties"]["rules"]
        == config_schema()["properties"]["corpus"]["properties"]["pivot"]
    )
    from paracomp.settings import check

    check({"rules": corpus["pivot"], "partitions": 3}, params_schema("pivot-split"), "x")
    check(
        {"rules": corpus["bilingual_phrases"], "seed": 1}, params_schema("bilingual-phrases"), "x"
    )
    check(corpus["aligner"], params_schema("align"), "x")
    for step in [*STEPS, *SHARDED_STEPS, "sentences"]:
        assert params_schema(step)["additionalProperties"] is False


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["wieting2017", "sentences", "--input", "x", "--out", "y", "--params",
             '{"corpus": "bible", "max_tokens": 3, "pairs": 5, "sede": 1}'],
            "wieting2017 sentences --params: unknown key(s) ['sede']",
        ),
        (
            ["chen2020", "subsets", "--input", "x", "--out", "y", "--tuning", "z", "--params",
             '{"max_tokens": null, "train_pairs": "all", "tuning_pairs": 10, "seed": 1}'],
            "chen2020 subsets --params: train_pairs='all': 'all' is not of type 'integer', 'null'",
        ),
    ],
)  # fmt: skip
def test_a_papers_json_argument_is_checked_against_its_schema(argv, message, capsys) -> None:
    assert message in one_line_error(argv, capsys)


def test_a_train_params_typo_is_named(tmp_path: Path, capsys) -> None:
    argv = ["train", "--pairs", "p", "--out", str(tmp_path / "r"), "--record", "r.json"]
    argv += ["--params", '{"lrr": 1}']
    assert "unknown key(s) ['lrr']" in one_line_error(argv, capsys)


def test_config_strings_are_coerced_to_the_schema_type() -> None:
    """Snakemake hands ``--config 'training={threads: 2}'`` over as ``{'threads': '2'}``."""
    given = copy.deepcopy(config())
    given["training"].update(threads="2", stack_grid="true")
    given["corpus"]["pivot"].update(min_prob="0.1", top_k="null")
    given["corpus"]["aligner"]["model"] = "3"
    given["download"] = {"backoff_seconds": "1.5"}
    values = checked(given, CONFIG_SCHEMA, "config")
    assert values["training"]["threads"] == 2 and values["training"]["stack_grid"] is True
    assert values["corpus"]["pivot"]["min_prob"] == 0.1
    assert values["corpus"]["pivot"]["top_k"] is None
    assert values["corpus"]["aligner"]["model"] == 3
    assert values["download"]["backoff_seconds"] == 1.5
    assert checked(config(), CONFIG_SCHEMA, "config") == config()


def test_a_config_non_number_is_still_refused_by_name() -> None:
    given = copy.deepcopy(config())
    given["training"]["threads"] = "two"
    with pytest.raises(
        ConfigError, match=r"^config: training\.threads='two': 'two' is not of type"
    ):
        checked(given, CONFIG_SCHEMA, "config")


def test_a_papers_block_is_coerced_through_its_refs() -> None:
    """A paper's block (its schema refers to the table schema in another file)."""
    block = paper_settings("wieting2017")
    block["dim"] = "300"
    block["epochs"] = {"default": "2"}
    values = checked(block, schema_path("wieting2017"), "papers.wieting2017")
    assert values["dim"] == 300 and values["epochs"] == {"default": 2}
    block = paper_settings("elgohary2016")
    assert checked(block, schema_path("elgohary2016"), "papers.elgohary2016") == block


def test_run_defaults_are_coerced() -> None:
    from paracomp.run_config import schema

    assert coerce({"lr": "0.1", "k": "5", "score": "null"}, schema()) == {
        "lr": 0.1,
        "k": 5,
        "score": None,
    }


BLOCK_ARGUMENTS = {
    ("wieting2017", "sentences"): ["corpus", "sentences.*"],
    ("wieting2017", "ppdb"): ["ppdb.seed"],
    ("wieting2017", "parse"): [
        "gates.sentences",
        "gates.max_tokens",
        "gates.max_words",
        "gates.seed",
    ],
    ("chen2020", "subsets"): ["max_tokens", "train_pairs", "tuning_pairs", "seed"],
    ("chen2020", "word-lists"): ["word_lists.*"],
    ("chen2020", "sentence-lists"): ["sentence_lists.*", "seed"],
    ("wieting2015", "sst"): ["sst.*"],
}
"""The papers' commands whose JSON argument is checked, and the keys of the block it holds."""


@pytest.mark.slow
def test_every_json_argument_the_workflow_plans_is_accepted(tmp_path, mirror):
    """The default workflow's dry run: every `paracomp corpus` step's --params and every
    checked paper argument a rule would pass validates (the same checks the commands make)."""
    import os
    import shlex
    import subprocess
    import sys

    from paracomp.cli import build_parser
    from paracomp.registry import block_argument
    from paracomp.settings import check

    cmd = [sys.executable, "-m", "snakemake", "all", "-n", "-p", "--cores", "1"]
    cmd += ["--snakefile", str(REPO / "Snakefile"), "--configfile", str(REPO / "config.yaml")]
    env = {**os.environ, "PARACOMP_MIRROR": str(mirror)}
    proc = subprocess.run([*cmd, "--directory", str(tmp_path)], capture_output=True, text=True,
                          env=env, timeout=900)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [line.split("Shell command: ", 1)[1] for line in proc.stdout.splitlines()
             if "Shell command: paracomp " in line]  # fmt: skip
    seen = set()
    for line in lines:
        argv = shlex.split(line.split(" > ")[0])[1:]
        args = build_parser().parse_args(argv)
        if argv[0] == "corpus":
            check(json.loads(args.params), params_schema(args.step), line)
            seen.add(args.step)
        elif (key := tuple(argv[:2])) in BLOCK_ARGUMENTS:
            text = args.settings if key == ("wieting2015", "sst") else args.params
            block_argument(key[0], text, BLOCK_ARGUMENTS[key], line)
            seen.add(key)
    assert {"pivot-split", "pivot-sum", "bilingual-phrases", "phrase-shard", "sample"} <= seen
    assert set(BLOCK_ARGUMENTS) <= seen
