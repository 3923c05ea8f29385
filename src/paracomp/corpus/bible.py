"""Verse-aligned English–Spanish Bible from the Debian SWORD packages.

``sword-text-web`` ships the World English Bible (``engWEB2015eb``, NRSVA versification) and
``sword-text-sparv`` the Reina-Valera 1909 (``spaRV1909eb``, KJV versification), both as OSIS
zText modules. Verses are paired by their OSIS key (book, chapter, verse); keys present in
only one versification (the deuterocanon, a few verse splits) and verses empty on either side
are skipped, which leaves 31,077 pairs.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from pathlib import Path

from pysword.bible import SwordBible
from pysword.modules import SwordModules

from paracomp.errors import DataError

EN_MODULE = "engWEB2015eb"
ES_MODULE = "spaRV1909eb"

# Footnotes sit between words ("God<note>…</note><w>created</w>"), so they become a space.
# <speaker> holds editorial speaker labels in the Song of Songs ("Beloved", "Friends") that
# the Spanish text lacks. Canonical psalm titles (<title type="psalm">) are kept as text.
_DROPPED = re.compile(r"<(note|speaker)\b[^>]*>.*?</\1>", re.DOTALL)
# The Spanish module glues words across <w>/<transChange> boundaries ("allí</w><transChange>
# también"), while a lone <transChange> inside a word ("preguntándo<transChange>le") must not
# split it; a <w> tag adjacent to another tag marks a word boundary.
_W_BOUNDARY = re.compile(r"(?<=</w>)(?=<)|(?<=>)(?=<w[\s>])")
_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")


def sword_dir(root: Path) -> Path:
    """The SWORD library folder (holding ``mods.d``) of an unpacked .deb root, or ``root``."""
    nested = Path(root) / "usr" / "share" / "sword"
    return nested if nested.is_dir() else Path(root)


def open_module(root: Path, name: str) -> SwordBible:
    """Open SWORD module ``name`` from an unpacked .deb root or a SWORD library folder."""
    library = sword_dir(root)
    if not (library / "mods.d").is_dir():
        raise DataError(f"{library}: no mods.d folder, not a SWORD library")
    modules = SwordModules(str(library))
    found = modules.parse_modules()
    if name not in found:
        raise DataError(f"{library}: no SWORD module {name!r} (found {sorted(found)})")
    bible = modules.get_bible_from_module(name)
    # pysword inflates the whole book block again for every verse; keep the last one.
    bible._decompressed_text = functools.lru_cache(maxsize=1)(bible._decompressed_text)
    return bible


def verse_text(markup: str) -> str:
    """Plain text of one verse's OSIS markup: notes dropped, other tags stripped."""
    text = _DROPPED.sub(" ", markup)
    text = _W_BOUNDARY.sub(" ", text)
    text = _TAG.sub("", text)
    return _SPACE.sub(" ", text).strip()


def iter_verses(bible: SwordBible) -> Iterator[tuple[str, str]]:
    """Yield ``(osis id, plain text)`` for every verse slot of the module's versification."""
    for books in bible.get_structure().get_books().values():
        for book in books:
            for chapter, n_verses in enumerate(book.chapter_lengths, start=1):
                raw = bible.get_iter(book.osis_name, chapter, clean=False)
                for verse, markup in zip(range(1, n_verses + 1), raw, strict=True):
                    yield f"{book.osis_name}.{chapter}.{verse}", verse_text(markup)


def read_bible_pairs(
    root_en: Path, root_es: Path, module_en: str = EN_MODULE, module_es: str = ES_MODULE
) -> list[tuple[str, str, str]]:
    """``(osis id, English, Spanish)`` for verses non-empty in both modules, in English order."""
    spanish = {key: text for key, text in iter_verses(open_module(root_es, module_es)) if text}
    return [
        (key, text, spanish[key])
        for key, text in iter_verses(open_module(root_en, module_en))
        if text and key in spanish
    ]
