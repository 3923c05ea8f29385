"""Exceptions raised for bad input; each message names the file, line or key at fault."""

from collections.abc import Mapping
from typing import TypeVar

T = TypeVar("T")


class ParacompError(Exception):
    """Base class: an error a user can act on, printed without a traceback by the CLI."""


class ConfigError(ParacompError):
    """A configuration key is missing, unknown or of the wrong type."""


class DataError(ParacompError):
    """An input file is malformed (the message names the file and line)."""


class WriteError(ParacompError):
    """An output cannot be written (a full disk, a read-only folder); the message names it."""


class ChecksumError(DataError):
    """A file's sha256 differs from the catalogue's."""

    def __init__(self, dataset: str, file: str, source: str, expected: str, actual: str):
        super().__init__(
            f"checksum mismatch for dataset {dataset!r}, file {file!r} from {source}: "
            f"expected sha256 {expected}, got {actual}"
        )
        self.dataset, self.file, self.source = dataset, file, source
        self.expected, self.actual = expected, actual


class SourceUnavailable(ParacompError):
    """No configured source can provide a dataset or file."""


def named(known: Mapping[str, T], name: str, where: str, what: str) -> T:
    """``known[name]``, or a :class:`ConfigError` naming the config key ``where`` that holds
    ``name`` and listing the ``what`` (e.g. "grid of papers.x.grids") there are."""
    try:
        return known[name]
    except KeyError:
        raise ConfigError(f"{where}: {name!r} is not a {what}; known: {sorted(known)}") from None
