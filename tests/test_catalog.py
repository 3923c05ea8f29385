"""The mirror setting and source choice: a mis-typed mirror is an error, a partial one is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from paracomp.cli import main
from paracomp.data.catalog import MIRROR_ENV, choose_source, describe_sources, load, mirror_dir
from paracomp.errors import ConfigError


@pytest.fixture
def no_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv(MIRROR_ENV, raising=False)
    return monkeypatch


def test_no_mirror_anywhere_is_none(no_env: pytest.MonkeyPatch) -> None:
    assert mirror_dir(None) is None
    assert mirror_dir("") is None


def test_missing_mirror_from_config_is_named(no_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    with pytest.raises(ConfigError) as caught:
        mirror_dir(str(missing))
    assert str(caught.value) == f"mirror {missing} (from config key `mirror`) does not exist"


def test_missing_mirror_from_environment_is_named(
    no_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    no_env.setenv(MIRROR_ENV, str(tmp_path / "nonexistent"))
    with pytest.raises(ConfigError, match=r"\$PARACOMP_MIRROR\) does not exist"):
        mirror_dir(None)


def test_mirror_that_is_a_file(no_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    file = tmp_path / "data.txt"
    file.write_text("not a folder")
    with pytest.raises(ConfigError, match=f"mirror {file} .*is not a directory"):
        mirror_dir(str(file), origin="--mirror")


def test_config_wins_over_environment(no_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    no_env.setenv(MIRROR_ENV, str(tmp_path / "nonexistent"))
    (tmp_path / "men").mkdir()
    assert mirror_dir(str(tmp_path)) == tmp_path.resolve()


def test_mirror_lacking_a_dataset_falls_back(no_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "men").mkdir()
    partial = mirror_dir(str(tmp_path))
    assert partial == tmp_path.resolve()
    cat = load()
    assert choose_source(cat.set("simlex999"), ["mirror", "registry"], partial, cat) == "registry"
    assert choose_source(cat.set("sick2014"), ["mirror", "registry"], partial, cat) is None


def test_mirror_holding_no_dataset_is_refused(no_env: pytest.MonkeyPatch, mirror: Path) -> None:
    """The real mirror's parent (a likely slip) holds folders, but none is a dataset."""
    with pytest.raises(ConfigError) as caught:
        mirror_dir(str(mirror.parent))
    message = str(caught.value)
    assert message.startswith(f"mirror {mirror.parent.resolve()} (from config key `mirror`) ")
    assert "holds none of the catalogue's datasets" in message and message.endswith(
        "check the path"
    )


@pytest.mark.slow  # a Snakemake dry run
def test_dry_run_refuses_a_mirror_holding_no_dataset(dry_run, tmp_path: Path) -> None:
    (tmp_path / "not-a-dataset").mkdir()
    with pytest.raises(AssertionError, match="holds none of the catalogue's datasets"):
        dry_run(tmp_path / "work", "results/elgohary2016/table3.csv", mirror=tmp_path)


def test_cli_catalog_reports_a_missing_mirror(
    no_env: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nonexistent"
    assert main(["catalog", "--mirror", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"paracomp: error: mirror {missing} ")
    assert "does not exist" in err and "Traceback" not in err
    no_env.setenv(MIRROR_ENV, str(missing))
    assert main(["catalog"]) == 2
    assert "(from $PARACOMP_MIRROR) does not exist" in capsys.readouterr().err


def test_cli_fetch_mirror_reports_a_missing_mirror(
    no_env: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    no_env.setenv(MIRROR_ENV, str(tmp_path / "nonexistent"))
    out = tmp_path / "out"
    assert main(["fetch", "mirror", "simlex999", "--out", str(out)]) == 2
    assert "(from $PARACOMP_MIRROR) does not exist" in capsys.readouterr().err
    assert not out.exists()


def test_describe_sources_says_where_each_set_comes_from(tmp_path: Path, mirror: Path) -> None:
    sets = ["simlex999", "sick2014"]
    assert describe_sources(sets, ["mirror", "registry"], mirror) == [
        f"simlex999: mirror {mirror}/simlex999",
        f"sick2014: mirror {mirror}/sick2014",
    ]
    assert describe_sources(sets, ["mirror", "registry"], tmp_path) == [
        f"simlex999: registry package gensim (mirror {tmp_path} has no simlex999)",
        "sick2014: unavailable: no source in ['mirror', 'registry'] provides it "
        f"(mirror {tmp_path} has no sick2014)",
    ]
    assert describe_sources(sets, ["registry", "upstream", "mirror"], None) == [
        "simlex999: registry package gensim",
        "sick2014: upstream release of sick2014",
    ]
    assert describe_sources(["simlex999"], ["mirror", "registry"], None) == [
        "simlex999: registry package gensim (no mirror configured)"
    ]


def test_a_datasets_papers_are_papers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each dataset's `papers` names keys of the papers handed in (the workflow hands in
    paracomp.papers.PAPERS); a typo is refused."""
    import yaml

    from paracomp.data import catalog
    from paracomp.papers import PAPERS

    for dataset in load(PAPERS).datasets.values():
        assert dataset.papers and set(dataset.papers) <= set(PAPERS), dataset.name
    text = catalog.files("paracomp.data").joinpath("catalog.yaml").read_text()
    raw = yaml.safe_load(text)
    raw["datasets"]["sts2012-test"]["papers"].append("wieting2071")
    with pytest.raises(ConfigError, match=r"datasets\.sts2012-test\.papers: 'wieting2071'"):
        catalog._parse(raw, PAPERS)


def test_cli_catalog_lists_the_datasets_with_their_papers(
    mirror: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["catalog", "--mirror", str(mirror)]) in (0, None)
    lines = capsys.readouterr().out.splitlines()
    datasets = lines[lines.index("datasets (what a mirror holds as <dataset>/<file>):") :]
    sick = next(line for line in datasets if line.startswith("sick2014 "))
    assert "in mirror" in sick and "papers=" in sick and "elgohary2016" in sick
