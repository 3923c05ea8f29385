"""Markdown files of the repository as pages of the docs site (the README as its home page,
each paper's README as the paper's page): one source, with the relative links rewritten for
the page's place in the site."""

from __future__ import annotations

import html
import posixpath
import re
from collections.abc import Mapping
from pathlib import PurePosixPath

LINK = re.compile(r"(\]\()([^)\s#]+)(#[^)\s]*)?(\))")
"""A markdown inline link's target: ``](path#anchor)``."""


def relink(text: str, source: str, page: str, pages: Mapping[str, str]) -> str:
    """``text`` of the repository file ``source`` as the site page ``page``: a relative link to a
    file that is a page (``pages``: repository path -> page path, e.g. ``docs/guide.md`` ->
    ``guide.md``) points to that page; a relative link to any other file of the repository
    becomes its path in code (the site does not hold it); absolute URLs stay."""

    def replace(match: re.Match[str]) -> str:
        target, anchor = match.group(2), match.group(3) or ""
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
            return match.group(0)
        path = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
        if path in pages:
            here = posixpath.dirname(page) or "."
            return f"{match.group(1)}{posixpath.relpath(pages[path], here)}{anchor}{match.group(4)}"
        return f"{match.group(1)}{_CODE}{path}{match.group(4)}"

    return _code_links(LINK.sub(replace, text))


_CODE = "\0code:"


def _code_links(text: str) -> str:
    """``[label](\\0code:path)`` -> ``label (`path`)``; a label that is the path -> ``path``."""

    def replace(match: re.Match[str]) -> str:
        label, path = match.group(1), match.group(2)
        if label.strip("`") == path or PurePosixPath(path).name == label.strip("`"):
            return f"`{path}`"
        return f"{label} (`{path}`)"

    return re.sub(r"\[([^\]]*)\]\(\0code:([^)]*)\)", replace, text)


def cell(text: str) -> str:
    """``text`` as one cell of a markdown table: on one line, ``|`` escaped, and outside code
    spans ``<``, ``>`` and ``&`` as entities (``<dataset>`` would be read as an HTML tag)."""
    parts = " ".join(text.split()).split("`")
    parts[::2] = [html.escape(part, quote=False) for part in parts[::2]]
    return "`".join(parts).replace("|", "\\|")
