"""Every parser of an upstream format, on the miniature mirror's file in that format: it
parses, yields what the source records the fixture wrote hold (computed here, not by the
parser), and a malformed line is an error naming the file and line."""

from __future__ import annotations

import gzip
import shutil
import struct

import numpy as np
import pytest

from paracomp.errors import DataError

pytestmark = pytest.mark.slow  # every test reads the miniature upstream mirror (~15 CPU-s to build)


def _copy(mini, dataset, tmp_path):
    """A writable copy of one dataset folder of the miniature mirror."""
    return shutil.copytree(mini.dataset(dataset), tmp_path / dataset)


def _append(path, text: str) -> None:
    with open(path, "ab") as handle:
        handle.write(text.encode("utf-8"))


# --- Europarl v7 ----------------------------------------------------------------------------


def test_europarl(upstream_mirror, tmp_path):
    from paracomp.corpus.build import read_parallel_text

    folder = upstream_mirror.dataset("europarl-v7-es-en")
    en, es = folder / "europarl-v7.es-en.en", folder / "europarl-v7.es-en.es"
    pairs = list(read_parallel_text(en, es))
    verses = upstream_mirror.sources["europarl-v7-es-en"]
    assert [(e, s) for _, e, s in pairs] == [(e, s) for _, e, s in verses]
    assert [n for n, _, _ in pairs] == [str(i) for i in range(1, len(verses) + 1)]

    copy = _copy(upstream_mirror, "europarl-v7-es-en", tmp_path)
    _append(copy / "europarl-v7.es-en.en", "One more sentence.\n")
    with pytest.raises(DataError, match=rf"europarl-v7\.es-en\.es: ends after line {len(verses)}"):
        list(read_parallel_text(copy / "europarl-v7.es-en.en", copy / "europarl-v7.es-en.es"))


def test_europarl_line_ends(upstream_mirror, tmp_path):
    """A carriage return or U+2028 inside a sentence does not end its line; bytes that are not
    UTF-8 name the file and line."""
    from paracomp.corpus.build import read_parallel_text

    verses = upstream_mirror.sources["europarl-v7-es-en"][:3]
    en, es = tmp_path / "e.en", tmp_path / "e.es"
    en.write_bytes(b"".join(f"{e}\n".encode() for _, e, _ in verses))
    es.write_bytes(
        f"{verses[0][2]}\r{verses[0][2]}\n{verses[1][2]}\u2028\n{verses[2][2]}\n".encode()
    )
    pairs = list(read_parallel_text(en, es))
    assert len(pairs) == 3
    assert pairs[2][2] == verses[2][2]
    es.write_bytes(f"{verses[0][2]}\n".encode() + b"\xff\xfe\n" + f"{verses[2][2]}\n".encode())
    with pytest.raises(DataError, match=r"e\.es:2: not UTF-8"):
        list(read_parallel_text(en, es))


# --- PPDB 1.0 release -----------------------------------------------------------------------


@pytest.mark.parametrize("package", ["phrasal", "lexical"])
def test_ppdb_release(upstream_mirror, tmp_path, package):
    from paracomp.paraphrase.ppdb import read_ppdb

    name = f"ppdb-1.0-xl-{package}"
    path = upstream_mirror.dataset(name) / name
    rules = list(read_ppdb(path))
    pairs = upstream_mirror.sources[name]
    assert [(r.phrase, r.paraphrase) for r in rules] == pairs
    assert all(r.lhs == "[X]" and r.entailment is None for r in rules)
    assert [r.features["SourceWords"] for r in rules] == [len(a.split()) for a, _ in pairs]
    assert [r.line for r in rules] == list(range(1, len(pairs) + 1))

    bad = tmp_path / name
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[6] = lines[6].replace(" ||| ", " || ", 1)
    bad.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(DataError, match=rf"{name}:7: expected 5 or 6 ' \|\|\| ' fields, got 4"):
        list(read_ppdb(bad))
    gz = tmp_path / f"{name}.gz"  # the release's own compression
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert [(r.phrase, r.paraphrase) for r in read_ppdb(gz)] == pairs


def test_ppdb_release_packages(upstream_mirror):
    """The phrasal and lexical files split as PPDB's packages do: rules_to_pairs keeps the
    multi-word rules of one and wieting2015's read_lexical the one-word rules of the other."""
    from paracomp.papers.wieting2015.data import read_lexical
    from paracomp.paraphrase.ppdb import read_ppdb, rules_to_pairs

    name = "ppdb-1.0-xl-phrasal"
    table = rules_to_pairs(read_ppdb(upstream_mirror.dataset(name) / name), name)
    multi = [(a, b) for a, b in upstream_mirror.sources[name] if len(a.split() + b.split()) > 2]
    assert list(zip(table["s1"].to_pylist(), table["s2"].to_pylist(), strict=True)) == multi
    lexical = read_lexical("ppdb-1.0-xl-lexical", upstream_mirror.dataset("ppdb-1.0-xl-lexical"))
    got = list(zip(lexical["s1"].to_pylist(), lexical["s2"].to_pylist(), strict=True))
    assert got == upstream_mirror.sources["ppdb-1.0-xl-lexical"]


def test_wieting2017_ppdb(upstream_mirror, tmp_path):
    """wieting2017 reads the release's rules and the mirror's ``p1|||p2|||score`` pairs alike;
    a line of neither kind names its file and line."""
    from paracomp.papers.wieting2017.data import read_ppdb

    name = "ppdb-1.0-xl-phrasal"
    release = upstream_mirror.dataset(name) / name
    mirror = upstream_mirror.dataset("ppdb-phrase-train-60k") / "ppdb_train.txt"
    table = read_ppdb([release, mirror])
    pairs = upstream_mirror.sources[name]
    assert table.num_rows == 2 * len(pairs)  # the release was written from the mirror's pairs
    want = [" ".join(a.lower().split()) for a, _ in pairs]
    assert table["s1"].to_pylist() == want * 2
    bad = tmp_path / "ppdb_train.txt"
    bad.write_text("".join(mirror.read_text().splitlines(keepends=True)[:4]) + "only one side\n")
    with pytest.raises(DataError, match=r"ppdb_train\.txt:5: expected 'p1\|\|\|p2"):
        read_ppdb([bad])


# --- SimpWiki v2, ParaNMT, SNLI ---------------------------------------------------------


def test_simpwiki(upstream_mirror, tmp_path):
    from paracomp.papers.wieting2017.data import read_simpwiki

    table = read_simpwiki(upstream_mirror.dataset("simpwiki-v2"))
    rows = upstream_mirror.sources["simpwiki-v2"]  # (id, normal, simple)
    assert table["s1"].to_pylist() == [" ".join(r[2].lower().split()) for r in rows]
    assert table["s2"].to_pylist() == [" ".join(r[1].lower().split()) for r in rows]

    copy = _copy(upstream_mirror, "simpwiki-v2", tmp_path)
    _append(copy / "normal.aligned", "A sentence without its title and paragraph number\n")
    with pytest.raises(DataError, match=rf"normal\.aligned:{len(rows) + 1}: expected 'title"):
        read_simpwiki(copy)
    _copy(upstream_mirror, "simpwiki-v2", tmp_path / "b")
    _append(tmp_path / "b/simpwiki-v2/normal.aligned", "Gen\t0\tOne more.\n")
    with pytest.raises(DataError, match=rf"has {len(rows)} lines but .*normal\.aligned has"):
        read_simpwiki(tmp_path / "b/simpwiki-v2")


def test_paranmt(upstream_mirror, tmp_path):
    from paracomp.papers.chen2020.corpus import read_paranmt

    path = upstream_mirror.dataset("paranmt-5m") / "para-nmt-5m-processed.txt"
    table = read_paranmt(path)
    pairs = upstream_mirror.sources["paranmt-5m"]
    assert list(zip(table["s1"].to_pylist(), table["s2"].to_pylist(), strict=True)) == pairs
    assert table["len1"].to_pylist() == [len(a.split()) for a, _ in pairs]
    bad = tmp_path / path.name
    bad.write_text(path.read_text().replace("\t", " ", 1))
    with pytest.raises(DataError, match=r"para-nmt-5m-processed\.txt:1: expected"):
        read_paranmt(bad)


def test_snli(upstream_mirror, tmp_path):
    from paracomp.data.snli import read_snli_txt

    path = upstream_mirror.dataset("snli") / "snli_1.0_test.txt"
    rows = upstream_mirror.sources["snli"]
    pairs = read_snli_txt(path)
    assert [p.label for p in pairs] == [r[0] for r in rows]
    assert [p.premise for p in pairs] == [tuple(r[5].split()) for r in rows]
    assert [p.hypothesis for p in read_snli_txt(path, "whitespace")] == [
        tuple(r[6].split()) for r in rows
    ]
    lines = path.read_text().splitlines(keepends=True)
    lines[3] = lines[3].replace("\t", " ", 1)
    bad = tmp_path / path.name
    bad.write_text("".join(lines))
    with pytest.raises(DataError, match=r"snli_1\.0_test\.txt:4: expected 14 tab-separated"):
        read_snli_txt(bad)


# --- word vectors ---------------------------------------------------------------------------

TEXT_VECTORS = [
    "glove-6b/glove.6B.50d.txt",
    "glove-840b-300d/glove.840B.300d.txt",
    "paragram-sl999/paragram_300_sl999.txt",
    "fasttext-crawl-300d-2m/crawl-300d-2M.vec",
    "fasttext-wiki-en/wiki.en.vec",
    "paragram-merged-xxl-sl999/paragram_merged_xxl_simlex.vec",
]


@pytest.mark.parametrize("relative", TEXT_VECTORS)
def test_text_vectors(upstream_mirror, tmp_path, relative):
    from paracomp.data.embeddings import from_glove_text

    path = upstream_mirror.root / relative
    words, matrix = from_glove_text(path)
    want_words, want = upstream_mirror.sources["vectors"]
    assert words == want_words
    np.testing.assert_array_equal(matrix, want)
    header = path.read_text(encoding="utf-8").split("\n", 1)[0]
    lines = path.read_bytes().split(b"\n")
    first = 2 if header.count(" ") == 1 else 1
    lines[first + 4] = lines[first + 4].rsplit(b" ", 3)[0]  # a truncated vector
    bad = tmp_path / path.name
    bad.write_bytes(b"\n".join(lines))
    with pytest.raises(DataError, match=rf"{path.name} line {first + 5}: expected a word and 50"):
        from_glove_text(bad)


def test_word2vec_binary(upstream_mirror, tmp_path):
    from paracomp.data.embeddings import from_word2vec_binary

    path = upstream_mirror.dataset("word2vec-googlenews") / "GoogleNews-vectors-negative300.bin"
    words, matrix = from_word2vec_binary(path)
    want_words, want = upstream_mirror.sources["vectors"]
    assert words == want_words
    np.testing.assert_array_equal(matrix, want)
    data = path.read_bytes()
    cut = data[: len(data) - struct.calcsize("<50f") - 2]  # the last vector truncated
    bad = tmp_path / path.name
    bad.write_bytes(cut)
    with pytest.raises(DataError, match=rf"truncated at vector {len(words)} of {len(words)}"):
        from_word2vec_binary(bad)


def test_compvec_vocabulary_holds_the_kept_pairs(upstream_mirror, mirror):
    """The cut ``vocab.gz`` holds every lemma of the cut pairs, its lines in the release's
    order (a subsequence of the shared mirror's)."""
    from paracomp.papers.scheepers2018.wordnet_pairs import read_released, read_vocabulary

    folder = upstream_mirror.dataset("compvec-wordnet")
    vocabulary = read_vocabulary(folder / "vocab.gz")
    lemmas = {
        lemma
        for name in ("train_data.gz", "test_data.gz")
        for lemma in read_released(folder / name).column("lemma").to_pylist()
    }
    assert lemmas and lemmas <= set(vocabulary)
    release = iter(read_vocabulary(mirror / "compvec-wordnet" / "vocab.gz"))
    assert all(word in release for word in vocabulary)
