"""Parsers against the real mirror, the registry packages and small malformed files."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pytest

from paracomp.artefacts import SENTENCE_PAIRS, WORD_PAIRS
from paracomp.data import catalog
from paracomp.data.catalog import SetSpec
from paracomp.data.fetch import fetch_mirror
from paracomp.data.parsers import (
    EXPECTED_SUBSETS,
    SICK_LABELS,
    find_member,
    missing_subsets,
    parse_fetched,
    parse_set,
)
from paracomp.errors import DataError

# (split, subset) -> (pairs, scored pairs), from MANIFEST.md
STS_COUNTS = {
    "sts2012": {
        ("test", "MSRpar"): (750, 750),
        ("test", "MSRvid"): (750, 750),
        ("test", "SMTeuroparl"): (459, 459),
        ("test", "surprise.OnWN"): (750, 750),
        ("test", "surprise.SMTnews"): (399, 399),
    },
    "sts2012-train": {
        ("train", "MSRpar"): (750, 750),
        ("train", "MSRvid"): (750, 750),
        ("train", "SMTeuroparl"): (734, 734),
    },
    "sts2013": {
        ("test", "headlines"): (750, 750),
        ("test", "OnWN"): (561, 561),
        ("test", "FNWN"): (189, 189),
    },
    "sts2014": {
        ("test", "deft-forum"): (450, 450),
        ("test", "deft-news"): (300, 300),
        ("test", "headlines"): (750, 750),
        ("test", "images"): (750, 750),
        ("test", "OnWN"): (750, 750),
        ("test", "tweet-news"): (750, 750),
    },
    "sts2015": {
        ("test", "answers-forums"): (2000, 375),
        ("test", "answers-students"): (1500, 750),
        ("test", "belief"): (2000, 375),
        ("test", "headlines"): (1500, 750),
        ("test", "images"): (1500, 750),
    },
    "sts2016": {
        ("test", "answer-answer"): (1572, 254),
        ("test", "headlines"): (1498, 249),
        ("test", "plagiarism"): (1271, 230),
        ("test", "postediting"): (3287, 244),
        ("test", "question-question"): (1555, 209),
    },
    "stsbenchmark": {
        ("train", "stsb"): (5749, 5749),
        ("dev", "stsb"): (1500, 1500),
        ("test", "stsb"): (1379, 1379),
    },
    "sick2014": {
        ("train", "sick"): (4500, 4500),
        ("trial", "sick"): (500, 500),
        ("test", "sick"): (4927, 4927),
    },
    "twitter-pit2015": {
        ("train", "pit2015"): (13063, 13063),
        ("dev", "pit2015"): (4727, 4727),
        ("test", "pit2015"): (972, 972),
    },
}

WORD_COUNTS = {
    "simlex999": 999,
    "ws353-all": 353,
    "ws353-sim": 203,
    "ws353-rel": 252,
    "men": 3000,
    "rw": 2034,
    "simverb3500": 3500,
}

# subset -> pairs in the STS-B rows of each SemEval year
REGISTRY_COUNTS = {
    "sts2012": {"MSRpar": 750, "MSRvid": 750},
    "sts2012-train": {"MSRpar": 750, "MSRvid": 750},
    "sts2013": {"headlines": 750},
    "sts2014": {"deft-forum": 450, "deft-news": 300, "headlines": 750, "images": 750},
    "sts2015": {"answers-forums": 375, "headlines": 750, "images": 750},
    "sts2016": {"answer-answer": 254, "headlines": 249},
}

REGISTRY_WORD_COUNTS = {
    "simlex999": 999,
    "ws353-all": 353,
    "ws353-sim": 203,
    "ws353-rel": 252,
    "men": 3000,
    "rw": 2034,
}


def parse_mirror(name: str, mirror: Path) -> pa.Table:
    spec = catalog.load().set(name)
    return parse_set(spec, "mirror", mirror / spec.sources["mirror"]["dataset"])


def parse_registry(name: str, package_root: Callable[[str], Path]) -> pa.Table:
    """``name`` parsed from its registry package, fetched (or taken from the package cache)
    and unpacked as the workflow's ``fetch_package`` does."""
    spec = catalog.load().set(name)
    return parse_set(spec, "registry", package_root(spec.sources["registry"]["package"]))


def counts(table: pa.Table) -> dict[tuple[str, str], tuple[int, int]]:
    rows = table.select(["split", "subset", "score"]).to_pylist()
    pairs = Counter((r["split"], r["subset"]) for r in rows)
    scored = Counter((r["split"], r["subset"]) for r in rows if r["score"] is not None)
    return {key: (n, scored[key]) for key, n in pairs.items()}


def first(table: pa.Table, subset: str) -> dict[str, object]:
    return table.filter(pa.compute.equal(table["subset"], subset)).slice(0, 1).to_pylist()[0]


# --- mirror ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(STS_COUNTS))
def test_mirror_sentence_counts(name: str, mirror: Path) -> None:
    table = parse_mirror(name, mirror)
    assert table.schema == SENTENCE_PAIRS
    assert set(table["dataset"].to_pylist()) == {name}
    assert counts(table) == STS_COUNTS[name]
    assert table.group_by(["split", "subset", "id"]).aggregate([]).num_rows == table.num_rows
    labelled = table.num_rows - table["label"].null_count
    assert labelled == (table.num_rows if name == "sick2014" else 0)


@pytest.mark.parametrize("name", sorted(WORD_COUNTS))
def test_mirror_word_counts(name: str, mirror: Path) -> None:
    table = parse_mirror(name, mirror)
    assert table.schema == WORD_PAIRS
    assert table.num_rows == WORD_COUNTS[name]
    assert table["score"].null_count == 0


def test_sts2012_first_pair(mirror: Path) -> None:
    row = first(parse_mirror("sts2012", mirror), "MSRpar")
    assert row["id"] == "1"
    assert row["s1"].startswith("The problem likely will mean corrective changes")
    assert row["s2"].endswith("cleared to fly again.")
    assert row["score"] == 4.4


def test_sts2013_unicode_and_missing_smt(mirror: Path) -> None:
    table = parse_mirror("sts2013", mirror)
    row = first(table, "headlines")
    assert row["s2"] == "Suspected drug lord known as \u2018El Taliban\u2019 held in Mexico"
    assert row["score"] == 2.6
    assert missing_subsets("sts2013", table) == {"SMT": EXPECTED_SUBSETS["sts2013"]["SMT"]}
    assert missing_subsets("sts2012", parse_mirror("sts2012", mirror)) == {}


def test_sts2015_blank_gold_is_null(mirror: Path) -> None:
    rows = parse_mirror("sts2015", mirror).slice(0, 5).to_pylist()
    assert [r["score"] for r in rows] == [3.0, None, None, None, 0.6]
    assert rows[0]["s1"].startswith("You'll need to check the particular policies")


def test_sts2016_extra_fields_dropped(mirror: Path) -> None:
    row = first(parse_mirror("sts2016", mirror), "headlines")
    assert row["s1"] == "Digital era threatens tenuous future of drive-ins"
    assert row["s2"] == "Digital Era Threatens Future of Drive-Ins"
    assert row["score"] is None


def test_stsb_and_sick_spot_checks(mirror: Path) -> None:
    stsb = parse_mirror("stsbenchmark", mirror)
    test = stsb.filter(pa.compute.equal(stsb["split"], "test")).slice(0, 1).to_pylist()[0]
    assert test["id"] == "MSRvid-2012test-0024"
    assert (test["s1"], test["s2"], test["score"]) == (
        "A girl is styling her hair.",
        "A girl is brushing her hair.",
        2.5,
    )
    sick = parse_mirror("sick2014", mirror)
    row = sick.filter(pa.compute.equal(sick["split"], "test")).slice(0, 1).to_pylist()[0]
    assert (row["id"], row["score"], row["label"]) == ("6", 3.3, "NEUTRAL")
    assert row["s1"] == "There is no boy playing outdoors and there is no man smiling"


def test_sick_entailment_labels(mirror: Path) -> None:
    rows = parse_mirror("sick2014", mirror).select(["split", "label"]).to_pylist()
    assert set(SICK_LABELS) == {r["label"] for r in rows}
    test = Counter(r["label"] for r in rows if r["split"] == "test")
    assert test == {"NEUTRAL": 2793, "ENTAILMENT": 1414, "CONTRADICTION": 720}


def test_pit2015_scores(mirror: Path) -> None:
    table = parse_mirror("twitter-pit2015", mirror)
    test = table.filter(pa.compute.equal(table["split"], "test"))
    assert test.slice(0, 1).to_pylist()[0]["score"] == pytest.approx(0.6)
    assert set(test["score"].to_pylist()) == {0.0, 0.2, 0.4, 0.6, 0.8, 1.0}
    train = table.filter(pa.compute.equal(table["split"], "train")).slice(0, 3).to_pylist()
    assert [r["score"] for r in train] == [1.0, 1.0, 0.6]


# --- registry -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(REGISTRY_COUNTS))
def test_registry_sts_years(name: str, package_root: Callable[[str], Path], mirror: Path) -> None:
    table = parse_registry(name, package_root)
    assert table.schema == SENTENCE_PAIRS
    split = "train" if name.endswith("-train") else "test"
    assert counts(table) == {(split, s): (n, n) for s, n in REGISTRY_COUNTS[name].items()}
    missing = missing_subsets(name, table, "registry")
    assert set(missing) == set(EXPECTED_SUBSETS[name]) - set(REGISTRY_COUNTS[name])
    assert all("STS-B-recoverable" in reason for reason in missing.values())
    # ids are the original line numbers, so rows match the mirror's exactly
    full = {(r["subset"], r["id"]): r for r in parse_mirror(name, mirror).to_pylist()}
    for row in table.to_pylist():
        assert full[row["subset"], row["id"]] == row


def test_registry_stsb_equals_mirror(package_root: Callable[[str], Path], mirror: Path) -> None:
    assert parse_registry("stsbenchmark", package_root).equals(parse_mirror("stsbenchmark", mirror))


@pytest.mark.parametrize("name", sorted(REGISTRY_WORD_COUNTS))
def test_registry_word_counts(name: str, package_root: Callable[[str], Path], mirror: Path) -> None:
    table = parse_registry(name, package_root)
    assert table.schema == WORD_PAIRS
    assert table.num_rows == REGISTRY_WORD_COUNTS[name]
    if name == "men":  # mangoes ships MEN's natural form, the mirror Faruqui's lemma form
        pair = {"dataset": "men", "w1": "abandoned", "w2": "button", "score": 9.0}
        assert pair in table.to_pylist()
    else:
        assert table.equals(parse_mirror(name, mirror))


# --- small files ----------------------------------------------------------------------------


def word_spec(fmt: str) -> SetSpec:
    return SetSpec("toy", "word-pairs", fmt, {"mirror": {"dataset": "toy", "file": "pairs.txt"}})


def sts_spec(name: str = "toy") -> SetSpec:
    return SetSpec(name, "sentence-pairs", "sts-semeval", {"mirror": {"dataset": "toy"}})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a\tb\t1.0\nc\td\n", "pairs.txt:2: expected 3 fields, got 2"),
        ("a\tb\t1.0\n\nc\td\tx1\n", "pairs.txt:3: unparseable score 'x1'"),
        ("a\tb\tnan\n", "pairs.txt:1: non-finite score 'nan'"),
    ],
)
def test_malformed_word_file(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "pairs.txt").write_text(text)
    with pytest.raises(DataError, match=message) as info:
        parse_set(word_spec("wordvectors-org"), "mirror", tmp_path)
    assert str(tmp_path / "pairs.txt") in str(info.value)


def test_gensim_comments_and_simlex_header(tmp_path: Path) -> None:
    (tmp_path / "pairs.txt").write_text("# title\n# Word 1\tWord 2\tHuman\nold\tnew\t1.58\n")
    assert parse_set(word_spec("gensim-simlex"), "mirror", tmp_path)["w2"].to_pylist() == ["new"]
    (tmp_path / "pairs.txt").write_text("word1\tword2\tPOS\tSimLex999\r\nold\tnew\tA\t1.58\r\n")
    assert parse_set(word_spec("simlex"), "mirror", tmp_path)["score"].to_pylist() == [1.58]
    (tmp_path / "pairs.txt").write_text("word1\tword2\tPOS\tSimLex999\nold\tnew\t1.58\n")
    with pytest.raises(DataError, match="pairs.txt:2: expected 4 fields, got 3"):
        parse_set(word_spec("simlex"), "mirror", tmp_path)


def test_one_latin1_byte_leaves_the_other_lines_alone(tmp_path: Path, mirror: Path, caplog) -> None:
    """A real STS 2013 file with one byte of Latin-1 written into line 300: that line falls
    back (with a warning naming it), every UTF-8 line (curly quotes included) is as before."""
    shutil.copytree(mirror / "sts2013-test", tmp_path / "sts2013-test")
    path = tmp_path / "sts2013-test" / "STS.input.headlines.txt"
    lines = path.read_bytes().split(b"\n")
    lines[299] = lines[299].replace(b" ", " caf\xe9 ".encode("latin-1"), 1)
    path.write_bytes(b"\n".join(lines))
    name = "sts2013"
    original = parse_mirror(name, mirror).to_pylist()
    with caplog.at_level("WARNING"):
        changed = parse_mirror(name, tmp_path).to_pylist()
    assert f"{path}: not UTF-8 at line 300 (cp1252)" in caplog.text
    differ = [i for i, (a, b) in enumerate(zip(original, changed, strict=True)) if a != b]
    assert len(differ) == 1 and " café " in changed[differ[0]]["s1"]
    assert any("‘El Taliban’" in row["s2"] for row in changed)


def test_sts_semeval_small(tmp_path: Path) -> None:
    (tmp_path / "STS.input.news.txt").write_bytes("caf\xe9\tb\nc\td\textra\n".encode("cp1252"))
    (tmp_path / "STS.gs.news.txt").write_text("4.0\n\n")
    rows = parse_set(sts_spec(), "mirror", tmp_path).to_pylist()
    assert [(r["subset"], r["id"], r["s1"], r["score"]) for r in rows] == [
        ("news", "1", "caf\xe9", 4.0),
        ("news", "2", "c", None),
    ]
    assert missing_subsets("sts2013", parse_set(sts_spec("sts2013"), "mirror", tmp_path)) == {
        s: r or "absent from the source files" for s, r in EXPECTED_SUBSETS["sts2013"].items()
    }


@pytest.mark.parametrize(
    ("inputs", "gold", "message"),
    [
        ("a\tb\nc\td\n", "1\n", r"STS.input.news.txt has 2 lines but .*STS.gs.news.txt has 1"),
        ("a\tb\nc d\n", "1\n2\n", "STS.input.news.txt:2: expected at least 2 fields, got 1"),
        ("a\tb\nc\td\n", "1\nfive\n", "STS.gs.news.txt:2: unparseable score 'five'"),
    ],
)
def test_sts_semeval_malformed(tmp_path: Path, inputs: str, gold: str, message: str) -> None:
    (tmp_path / "STS.input.news.txt").write_text(inputs)
    (tmp_path / "STS.gs.news.txt").write_text(gold)
    with pytest.raises(DataError, match=message):
        parse_set(sts_spec(), "mirror", tmp_path)


def test_stsb_malformed(tmp_path: Path) -> None:
    spec = SetSpec("toy", "sentence-pairs", "stsb", {"mirror": {"dataset": "toy"}})
    good = "g\tf\t2012\t0001\t1.0\ta\tb\n"
    for split in ("train", "dev"):
        (tmp_path / f"sts-{split}.csv").write_text(good)
    (tmp_path / "sts-test.csv").write_text(good + 'g\tf\t2012\t0002\t2.0\t"a\n')
    with pytest.raises(DataError, match="sts-test.csv:2: expected at least 7 fields, got 6"):
        parse_set(spec, "mirror", tmp_path)


def test_sick_bad_label_names_file_and_line(tmp_path: Path) -> None:
    spec = SetSpec("toy", "sentence-pairs", "sick", {"mirror": {"dataset": "toy"}})
    header = "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"
    good = header + "1\tA man\tA person\t4.5\tENTAILMENT\n"
    for name in ("SICK_train.txt", "SICK_test_annotated.txt"):
        (tmp_path / name).write_text(good)
    (tmp_path / "SICK_trial.txt").write_text(good + "2\tA dog\tA cat\t2.0\tentailment\n")
    with pytest.raises(DataError, match="SICK_trial.txt:3: unknown entailment judgment"):
        parse_set(spec, "mirror", tmp_path)
    (tmp_path / "SICK_trial.txt").write_text(good)
    assert parse_set(spec, "mirror", tmp_path)["label"].to_pylist() == ["ENTAILMENT"] * 3


def test_pit2015_malformed_votes(tmp_path: Path) -> None:
    spec = SetSpec("toy", "sentence-pairs", "pit2015", {"mirror": {"dataset": "toy"}})
    (tmp_path / "train.data").write_text("1\tt\ta\tb\t(3, 2)\tx\ty\n1\tt\ta\tb\t(3 2)\tx\ty\n")
    with pytest.raises(DataError, match=r"train.data:2: unparseable vote label '\(3 2\)'"):
        parse_set(spec, "mirror", tmp_path)


def test_find_member_tolerates_top_folder(tmp_path: Path) -> None:
    member = tmp_path / "pkg-1.0" / "pkg" / "data.txt"
    member.parent.mkdir(parents=True)
    member.write_text("x")
    assert find_member(tmp_path, "pkg/data.txt") == member
    with pytest.raises(DataError, match="pkg/other.txt"):
        find_member(tmp_path, "pkg/other.txt")


# --- fetched folders ------------------------------------------------------------------------


@pytest.fixture
def fetched_simlex(mirror: Path, tmp_path: Path) -> Path:
    """SimLex-999 fetched from the mirror into ``resources/mirror/simlex999``."""
    out = tmp_path / "resources" / "mirror" / "simlex999"
    fetch_mirror(catalog.load().dataset("simlex999"), mirror, out)
    return out


def edit_score(folder: Path) -> Path:
    """Change the first 9.2 of SimLex-999 into 1.2, as a hand edit would."""
    path = folder / "SimLex-999.txt"
    text = path.read_text()
    assert "\t9.2\t" in text
    path.write_text(text.replace("\t9.2\t", "\t1.2\t", 1))
    return path


def test_parse_fetched_reads_an_intact_folder(fetched_simlex: Path, mirror: Path) -> None:
    spec = catalog.load().set("simlex999")
    assert parse_fetched(spec, "mirror", fetched_simlex).equals(parse_mirror("simlex999", mirror))


def test_parse_fetched_refuses_an_edited_file(fetched_simlex: Path) -> None:
    path = edit_score(fetched_simlex)
    with pytest.raises(DataError) as caught:
        parse_fetched(catalog.load().set("simlex999"), "mirror", fetched_simlex)
    message = str(caught.value)
    assert message.startswith(f"{path}: changed since it was fetched")
    assert f"delete {fetched_simlex} and rerun" in message


def test_cli_parse_set_refuses_an_edited_file(
    fetched_simlex: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from paracomp.cli import main

    path = edit_score(fetched_simlex)
    manifest = fetched_simlex / "MANIFEST.json"
    out = tmp_path / "simlex999.parquet"
    args = ["parse-set", "simlex999", "--source", "mirror", "--manifest", str(manifest)]
    assert main([*args, "--out", str(out)]) == 2
    assert f"paracomp: error: {path}: changed since it was fetched" in capsys.readouterr().err
    assert not out.exists()
