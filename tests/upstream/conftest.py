"""The miniature upstream mirror: ``<tmp>/<dataset>/<file>`` for every dataset of the
catalogue that the published settings read, in each release's layout (README.md here says,
file by file, which release's format it follows and how we know).

Nothing is invented: a dataset the shared mirror holds contributes the first :data:`HEAD`
lines of each of its files; an upstream-only dataset is laid out from real text the project
already has (Bible verse pairs from the Debian SWORD packages, the shared mirror's PPDB pairs,
SICK pairs, GloVe 6B vectors from the registry), in that release's format.
"""

from __future__ import annotations

import gzip
import io
import shutil
import struct
import tarfile
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

HEAD = 300
"""Lines (or records) taken from each file of a dataset the shared mirror holds."""

UPSTREAM_ONLY = (
    "europarl-v7-es-en",
    "ppdb-1.0-xl-phrasal",
    "ppdb-1.0-xl-lexical",
    "simpwiki-v2",
    "glove-6b",
    "glove-840b-300d",
    "paragram-sl999",
    "fasttext-crawl-300d-2m",
    "fasttext-wiki-en",
    "paragram-merged-xxl-sl999",
    "word2vec-googlenews",
    "snli",
    "paranmt-5m",
)
"""Datasets that no shared mirror holds: laid out from real text in their release format."""

SNLI_COLUMNS = (
    "gold_label",
    "sentence1_binary_parse",
    "sentence2_binary_parse",
    "sentence1_parse",
    "sentence2_parse",
    "sentence1",
    "sentence2",
    "captionID",
    "pairID",
    "label1",
    "label2",
    "label3",
    "label4",
    "label5",
)
"""The header of ``snli_1.0_<split>.txt`` (SNLI 1.0 README)."""


GLOVE_LAYOUT = (
    "glove-6b/glove.6B.50d.txt",
    "glove-840b-300d/glove.840B.300d.txt",
    "paragram-sl999/paragram_300_sl999.txt",
)
"""Vector files laid out as GloVe writes them: ``word v1 … vd``, no header."""

FASTTEXT_LAYOUT = ("fasttext-crawl-300d-2m/crawl-300d-2M.vec", "fasttext-wiki-en/wiki.en.vec")
"""Vector files laid out as fastText writes them: a ``count dim`` header, a space after
every value."""


@dataclass(frozen=True)
class MiniMirror:
    """The miniature mirror's folder and the source records each upstream-only file was
    written from, for tests to check parsers against independently."""

    root: Path
    sources: dict[str, list]

    def dataset(self, name: str) -> Path:
        return self.root / name


def head_lines(path: Path, n: int = HEAD) -> bytes:
    """The first ``n`` lines of a file as bytes (decompressed for ``.gz``)."""
    opener: Callable[..., io.BufferedIOBase] = gzip.open if path.suffix == ".gz" else open
    out = []
    with opener(path, "rb") as handle:
        for _, line in zip(range(n), handle, strict=False):
            out.append(line)
    return b"".join(out)


def copy_heads(shared: Path, out: Path, names: Iterable[str]) -> None:
    """Each dataset's catalogue files, cut to their first :data:`HEAD` lines (gzip kept)."""
    from paracomp.data.catalog import load

    for name in names:
        for file in load().dataset(name).files:
            src, dst = shared / name / file, out / name / file
            dst.parent.mkdir(parents=True, exist_ok=True)
            data = head_lines(src)
            if src.suffix == ".gz":
                data = gzip.compress(data, mtime=0)
            dst.write_bytes(data)


def cut_compvec_vocabulary(shared: Path, out: Path) -> None:
    """CompVec's ``vocab.gz`` cut consistently with the cut pairs: its first :data:`HEAD`
    lines and every later line whose token a kept ``lemma ||| definition`` pair holds, in the
    release's order (a plain head would leave the kept lemmas out of the vocabulary, which the
    released split refuses)."""
    words = set()
    for name in ("train_data.gz", "test_data.gz"):
        with gzip.open(out / name, "rt", encoding="utf-8") as handle:
            words.update(handle.read().replace("|||", " ").split())
    with gzip.open(shared / "vocab.gz", "rt", encoding="utf-8") as handle:
        lines = [line for i, line in enumerate(handle) if i < HEAD or line.rstrip("\n") in words]
    (out / "vocab.gz").write_bytes(gzip.compress("".join(lines).encode("utf-8"), mtime=0))


def write_lines(path: Path, lines: Iterable[str], end: str = "\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes("".join(line + end for line in lines).encode("utf-8"))


def float_text(values: np.ndarray) -> list[str]:
    """float32 values in their shortest round-trip decimal form (GloVe 6B's own text)."""
    return [np.format_float_positional(v, trim="-") for v in values.astype(np.float32)]


def vector_lines(words: Sequence[str], matrix: np.ndarray) -> list[str]:
    """``word v1 … vd`` lines, GloVe's text layout."""
    return [f"{w} {' '.join(float_text(row))}" for w, row in zip(words, matrix, strict=True)]


def ppdb_features(phrase: str, paraphrase: str) -> str:
    """The PPDB 1.0 count features that follow from the two sides alone (the release's
    probability and similarity features cannot be known and are left out)."""
    t1, t2 = phrase.split(), paraphrase.split()
    feats = {
        "Identity": int(t1 == t2),
        "Lexical": int(len(t1) == len(t2) == 1),
        "SourceWords": len(t1),
        "TargetWords": len(t2),
        "WordCountDiff": len(t2) - len(t1),
        "CharCountDiff": len(paraphrase) - len(phrase),
    }
    return " ".join(f"{k}={v}" for k, v in feats.items())


def identity_alignment(phrase: str, paraphrase: str) -> str:
    """``i-j`` links between equal tokens (the only links certain without the aligner)."""
    t2 = paraphrase.split()
    return " ".join(
        f"{i}-{j}" for i, a in enumerate(phrase.split()) for j, b in enumerate(t2) if a == b
    )


def binary_parse(tokens: Sequence[str]) -> str:
    """A right-branching bracketing of ``tokens`` in SNLI's ``sentence*_binary_parse`` syntax."""
    if len(tokens) == 1:
        return tokens[0]
    return f"( {tokens[0]} {binary_parse(tokens[1:])} )"


def read_mirror_pairs(path: Path, n: int) -> list[tuple[str, str]]:
    """The first ``n`` ``p1|||p2[|||score]`` pairs of a shared-mirror PPDB file."""
    pairs = []
    for line in head_lines(path, n).decode("utf-8").splitlines():
        p1, p2, *_ = line.split("|||")
        pairs.append((p1.strip(), p2.strip()))
    return pairs


def build(
    root: Path, shared: Path, bible: Callable[[], tuple[list, list]], glove: Callable
) -> MiniMirror:
    """Write the miniature mirror under ``root``."""
    from paracomp.data.catalog import load

    held = [name for name in load().datasets if (shared / name).is_dir()]
    copy_heads(shared, root, held)
    if "compvec-wordnet" in held:
        cut_compvec_vocabulary(shared / "compvec-wordnet", root / "compvec-wordnet")
    sources: dict[str, list] = {}
    en_es, kjv_web = bible()

    # Europarl v7 es-en: two line-aligned UTF-8 files, untokenised, one sentence a line
    verses = en_es[:HEAD]
    write_lines(root / "europarl-v7-es-en/europarl-v7.es-en.en", [e for _, e, _ in verses])
    write_lines(root / "europarl-v7-es-en/europarl-v7.es-en.es", [s for _, _, s in verses])
    sources["europarl-v7-es-en"] = verses

    # PPDB 1.0: LHS ||| phrase ||| paraphrase ||| features ||| alignment
    phrases = read_mirror_pairs(shared / "ppdb-phrase-train-60k/ppdb_train.txt", HEAD)
    lexicon = []
    for line in head_lines(shared / "ppdb-xl-lexicon/ppdb-xl.txt", 60).decode().splitlines():
        head, *paraphrases = line.split()
        lexicon += [(head, p) for p in paraphrases]
    for name, pairs in (("phrasal", phrases), ("lexical", lexicon[:HEAD])):
        rules = [
            f"[X] ||| {a} ||| {b} ||| {ppdb_features(a, b)} ||| {identity_alignment(a, b)}"
            for a, b in pairs
        ]
        write_lines(root / f"ppdb-1.0-xl-{name}/ppdb-1.0-xl-{name}", rules)
        sources[f"ppdb-1.0-xl-{name}"] = pairs

    # SimpWiki v2: article title <TAB> paragraph number <TAB> sentence, line i paired
    simp = kjv_web[:HEAD]
    for name, side in (("normal.aligned", 1), ("simple.aligned", 2)):
        lines = []
        for row in simp:
            book, chapter, _ = row[0].split(".")
            lines.append(f"{book}\t{int(chapter) - 1}\t{row[side]}")
        write_lines(root / f"simpwiki-v2/{name}", lines)
    sources["simpwiki-v2"] = simp

    # ParaNMT 5M processed: lowercased, tokenised, one tab-separated pair a line
    from paracomp.corpus.tokenize import tokenize_lines

    para = kjv_web[HEAD : 2 * HEAD]
    s1 = tokenize_lines([r[1] for r in para], "en", True, 1, True)
    s2 = tokenize_lines([r[2] for r in para], "en", True, 1, True)
    write_lines(
        root / "paranmt-5m/para-nmt-5m-processed.txt", [f"{a}\t{b}" for a, b in zip(s1, s2)]
    )
    sources["paranmt-5m"] = list(zip(s1, s2, strict=True))

    # SNLI 1.0 test: tab-separated with a header; SICK pairs and judgments
    snli = []
    for line in (
        head_lines(shared / "sick2014/SICK_test_annotated.txt", HEAD + 1).decode().splitlines()[1:]
    ):
        pair_id, a, b, _, judgment = line.split("\t")[:5]
        label = judgment.lower()
        tok_a, tok_b = a.split(), b.split()
        snli.append(
            [label, binary_parse(tok_a), binary_parse(tok_b), "", "", a, b, f"sick{pair_id}",
             f"sick{pair_id}", label, "", "", "", ""]
        )  # fmt: skip
    write_lines(root / "snli/snli_1.0_test.txt", ["\t".join(SNLI_COLUMNS), *map("\t".join, snli)])
    sources["snli"] = snli

    # word vectors: GloVe 6B 50d rows for the miniature mirror's words
    words, matrix = glove(vocabulary(root))
    sources["vectors"] = [words, matrix]
    lines = vector_lines(words, matrix)
    for path in GLOVE_LAYOUT:
        write_lines(root / path, lines)
    header = f"{len(words)} {matrix.shape[1]}"
    for path in FASTTEXT_LAYOUT:
        write_lines(root / path, [header, *(line + " " for line in lines)])
    write_lines(root / "paragram-merged-xxl-sl999/paragram_merged_xxl_simlex.vec", [header, *lines])
    binary = io.BytesIO()
    binary.write(f"{header}\n".encode())
    for word, row in zip(words, matrix, strict=True):
        binary.write(word.encode() + b" " + struct.pack(f"<{len(row)}f", *row) + b"\n")
    path = root / "word2vec-googlenews/GoogleNews-vectors-negative300.bin"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(binary.getvalue())
    return MiniMirror(root, sources)


def vocabulary(root: Path) -> set[str]:
    """Lowercased whitespace tokens of every text file written so far."""
    words: set[str] = set()
    for path in root.rglob("*"):
        if path.is_file() and path.suffix != ".gz":
            text = path.read_bytes().decode("utf-8", errors="replace").lower()
            words.update(text.replace("|||", " ").replace("\t", " ").split())
    return words


def upstream_archive(mini: MiniMirror, name: str, out: Path) -> str:
    """The release file of upstream-only dataset ``name`` rebuilt from the miniature mirror
    (archive type and member paths of the catalogue's ``upstream``), at ``out``; returns its
    ``file://`` URL."""
    from paracomp.data.catalog import load

    upstream = load().dataset(name).upstream
    members = {m: mini.dataset(name) / f for m, f in upstream["members"].items()}
    kind = upstream["archive"]
    out.parent.mkdir(parents=True, exist_ok=True)
    if kind == "zip":
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
            for member, path in members.items():
                zf.write(path, member)
    elif kind == "tar.gz":
        with tarfile.open(out, "w:gz") as tar:
            for member, path in members.items():
                tar.add(path, member)
    elif kind == "gz":
        (path,) = members.values()
        out.write_bytes(gzip.compress(path.read_bytes(), mtime=0))
    else:
        shutil.copyfile(next(iter(members.values())), out)
    return out.resolve().as_uri()


@pytest.fixture(scope="session")
def upstream_mirror(tmp_path_factory, mirror, package_root) -> MiniMirror:
    """The miniature upstream mirror (built once per session; needs the shared mirror and
    the Debian Bible and GloVe registry packages, else the test is skipped)."""
    from paracomp.corpus.bible import read_bible_pairs
    from paracomp.corpus.english_bible import read_kjv_web
    from paracomp.data.catalog import load
    from paracomp.data.embeddings import from_kumo

    def bible() -> tuple[list, list]:
        web, sparv, kjv = (
            package_root(p) for p in ("sword-text-web", "sword-text-sparv", "sword-text-kjv")
        )
        return read_bible_pairs(web, sparv), read_kjv_web(kjv, web)

    def glove(needed: set[str]) -> tuple[list[str], np.ndarray]:
        spec = load().embeddings["glove-6b-50d"]["registry"]
        words, matrix = from_kumo(package_root(spec["package"]), spec["matrix"], spec["index"])
        keep = [i for i, w in enumerate(words) if i < HEAD or w in needed]
        return [words[i] for i in keep], matrix[keep]

    return build(tmp_path_factory.mktemp("upstream-mirror"), mirror, bible, glove)


def miniature_checksums(dataset, folder: Path, upstream: dict | None = None):
    """Test-only override: ``dataset`` (a catalogue Dataset) expecting the sha256 of the
    miniature files in ``folder`` instead of the release's, and, when given, ``upstream`` in
    place of its release entry. The check itself (fetch.verify_file) is unchanged."""
    from dataclasses import replace

    from paracomp.atomic import sha256_file
    from paracomp.data.catalog import MirrorFile

    files = {
        name: MirrorFile(sha256_file(folder / name), (folder / name).stat().st_size, None)
        for name in dataset.files
    }
    return replace(dataset, files=files, upstream=upstream or dataset.upstream)


def override_file(mini: MiniMirror, path: Path) -> Path:
    """Write, for ``$PARACOMP_CHECKSUM_OVERRIDE``, the sha256 of every catalogue file the
    miniature mirror holds; return ``path``."""
    import yaml

    from paracomp.atomic import sha256_file
    from paracomp.data.catalog import load

    sha256 = {
        name: {file: sha256_file(mini.dataset(name) / file) for file in dataset.files}
        for name, dataset in load().datasets.items()
        if mini.dataset(name).is_dir()
    }
    path.write_text(yaml.safe_dump(sha256, sort_keys=True))
    return path


@pytest.fixture(scope="session")
def checksum_override_file(upstream_mirror, tmp_path_factory) -> Path:
    """The miniature mirror's checksums as a ``$PARACOMP_CHECKSUM_OVERRIDE`` file."""
    return override_file(upstream_mirror, tmp_path_factory.mktemp("override") / "sha256.yaml")


@pytest.fixture(scope="session")
def checksum_override():
    """:func:`miniature_checksums`, for tests."""
    return miniature_checksums


@pytest.fixture(scope="session")
def release_archive():
    """:func:`upstream_archive`, for tests."""
    return upstream_archive
