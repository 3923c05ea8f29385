"""The docs site's reference, generated from the code: every config key, every ``paracomp``
command and option has a description, and the generators read schemas, parsers, links and the
workflow as they are."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from paracomp.cli import build_parser
from paracomp.papers import PAPERS
from paracomp.reference import commands, pages, schema, site, targets

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("path", list(site.schema_files()))
def test_every_config_key_is_described(path: str) -> None:
    found = schema.keys(REPO / path)
    assert found
    assert schema.undocumented(found) == [], f"{path}: keys without a description"


def test_every_command_and_option_is_described() -> None:
    found = commands.commands(build_parser())
    assert commands.undocumented(found) == []
    paths = {command.path for command in found}
    assert {"paracomp train", "paracomp evaluate", "paracomp table"} <= paths
    assert {f"paracomp {paper}" for paper in PAPERS} <= paths
    assert "paracomp A … --then B …" in found[0].help  # read outside argparse, told in its epilog


def test_schema_keys_follow_refs_and_report_a_missing_description(tmp_path: Path) -> None:
    (tmp_path / "other.yaml").write_text("description: the other file\ntype: object\n")
    (tmp_path / "main.yaml").write_text(
        """
$defs:
  point: {type: object, properties: {x: {type: integer, minimum: 1, description: a coordinate}}}
properties:
  n: {type: integer, minimum: 0, maximum: 9, default: 3, description: a count}
  mode: {enum: [a, b], description: a mode}
  where: {$ref: "#/$defs/point", description: a point}
  other: {$ref: "other.yaml"}
  named:
    type: object
    description: name -> settings
    additionalProperties:
      type: object
      properties:
        seed: {type: integer}
  rows: {type: array, description: rows, items: {type: object, properties: {id: {type: string, description: its id}}}}
"""
    )
    found = {key.path: key for key in schema.keys(tmp_path / "main.yaml", "top")}
    assert list(found) == [
        "top.n",
        "top.mode",
        "top.where",
        "top.where.x",
        "top.other",
        "top.named",
        "top.named.<name>",
        "top.named.<name>.seed",
        "top.rows",
        "top.rows[].id",
    ]
    assert (found["top.n"].kind, found["top.n"].default) == ("integer ≥ 0, ≤ 9", "3")
    assert found["top.mode"].kind == 'one of: "a", "b"'
    assert found["top.where.x"].description == "a coordinate"
    assert (found["top.other"].ref, found["top.other"].description) == (
        "other.yaml",
        "the other file",
    )
    assert schema.undocumented(list(found.values())) == ["top.named.<name>.seed"]
    table = schema.markdown(list(found.values()), {"other.yaml": "#other"})
    assert "| `top.other` | see [other.yaml](#other) |  | the other file |" in table


def test_commands_report_a_command_or_option_without_help() -> None:
    parser = argparse.ArgumentParser(prog="tool", description="a tool", epilog="and more")
    sub = parser.add_subparsers(dest="command")
    done = sub.add_parser("done", help="a described command")
    done.add_argument("--out", help="where to (default: %(default)s)", default="x")
    bare = sub.add_parser("bare")
    bare.add_argument("name")
    bare.add_argument("--flag", "-f", action="store_true")
    found = commands.commands(parser)
    assert [c.path for c in found] == ["tool", "tool done", "tool bare"]
    assert found[0].help == "a tool and more"
    assert found[1].options[0].help == "where to (default: x)"
    assert commands.undocumented(found) == ["tool bare", "tool bare name", "tool bare --flag"]
    text = commands.markdown(found)
    assert "## `tool done`" in text and "| `--out` |  | where to (default: x) |" in text


def test_relink_points_links_at_pages_or_names_the_file() -> None:
    text = (
        "[guide](../../docs/guide/x.md#part) [home](../../README.md) [rules](../../rules/a.smk) "
        "[a.smk](../../rules/a.smk) [web](https://example.org/p.md)"
    )
    links = {"docs/guide/x.md": "guide/x.md", "README.md": "index.md"}
    out = pages.relink(text, "src/pkg/README.md", "papers/pkg.md", links)
    assert out == (
        "[guide](../guide/x.md#part) [home](../index.md) rules (`rules/a.smk`) "
        "`rules/a.smk` [web](https://example.org/p.md)"
    )


def test_cell_escapes_tags_and_pipes_outside_code() -> None:
    assert (
        pages.cell("a <dir>/x & y\n `<name>|z` | w") == "a &lt;dir&gt;/x &amp; y `<name>\\|z` \\| w"
    )


def test_config_page_lists_every_key_of_every_schema() -> None:
    text = site.config_page(REPO)
    for path, (_, prefix) in site.schema_files().items():
        for key in schema.keys(REPO / path, prefix):
            assert f"| `{key.path}` |" in text


@pytest.mark.slow
def test_targets_are_read_from_the_snakefile() -> None:
    rules = targets.read(REPO)
    named = {rule.name: rule.files for rule in rules if rule.target}
    for paper in PAPERS:
        assert named[paper] and all(f.startswith(f"results/{paper}/") for f in named[paper])
    assert "results/leaderboard.csv" in named["leaderboard"]
    made = {rule.name: rule.files for rule in rules if not rule.target}
    assert "results/eval/{model}/sts.csv" in made["evaluate"]
    page = targets.markdown({"the default": rules})
    assert "### `elgohary2016`" in page and "| `evaluate` |" in page


def test_readme_is_a_front_door_and_its_pages_link_within_the_site() -> None:
    readme = (REPO / "README.md").read_text()
    assert len(readme.splitlines()) <= 300
    for source in ["README.md", *(site.paper_readme(paper) for paper in PAPERS)]:
        for _, link, _, _ in pages.LINK.findall((REPO / source).read_text()):
            if "://" not in link:
                assert (REPO / source).parent.joinpath(link).exists(), f"{source}: {link}"
    out = site.readme_pages(REPO, REPO / "docs")
    assert set(out) == {"index.md"} | {f"papers/{paper}.md" for paper in PAPERS}
    for paper in PAPERS:
        assert f"(src/paracomp/papers/{paper}/README.md)" in readme
        assert f"(papers/{paper}.md)" in out["index.md"]
    for page, text in out.items():
        for target in pages.LINK.findall(text):
            link = target[1]
            if "://" in link:
                continue
            resolved = (REPO / "docs" / Path(page).parent / link).resolve()
            assert resolved.is_file() or resolved.relative_to(REPO / "docs").as_posix() in out, (
                f"{page}: {link}"
            )
