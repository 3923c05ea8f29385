"""Unpacking a fetched archive (zip, tar in any compression, Debian .deb) into a folder safely:
no member may leave the folder (absolute paths, ``..``, links pointing out), and a damaged
archive is a :class:`~paracomp.errors.DataError` naming it."""

from __future__ import annotations

import gzip
import lzma
import os
import tarfile
import tempfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath
from typing import Any

from paracomp.errors import DataError

ARCHIVE_ERRORS = (
    tarfile.TarError,
    zipfile.BadZipFile,
    EOFError,
    zlib.error,
    lzma.LZMAError,
    gzip.BadGzipFile,
    ValueError,  # malformed header fields
)


def safe_extract(archive: Path, dest: Path) -> None:
    """Unpack a zip, tar (plain, .gz, .bz2, .xz) or .deb archive into ``dest``.

    Members with absolute paths or ``..`` components, links leaving ``dest`` and device
    files are refused; a truncated or corrupt archive raises :class:`DataError`.
    """
    archive, dest = Path(archive), Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    try:
        with open(archive, "rb") as handle:
            magic = handle.read(8)
        if magic == b"!<arch>\n":
            _extract_deb(archive, dest)
        elif zipfile.is_zipfile(archive):
            _extract_zip(archive, dest)
        else:
            _extract_tar(archive, dest)
    except ARCHIVE_ERRORS as err:
        raise DataError(f"{archive}: truncated, corrupt or unsupported archive ({err})") from err


def _extract_zip(archive: Path, dest: Path) -> None:
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            _check_name(archive, info.filename)
        zf.extractall(dest)


def _extract_tar(archive: Path, dest: Path, label: Path | None = None) -> None:
    label = label or archive
    with tarfile.open(archive, "r:*") as tar:
        members = tar.getmembers()
        for member in members:
            _check_tar_member(label, member)
        # a second line of defence where available (Python 3.11.4+); ignored before
        tar.extraction_filter = getattr(tarfile, "data_filter", None)
        tar.extractall(dest, members=members)


def _extract_deb(archive: Path, dest: Path) -> None:
    """Unpack the ``data.tar.*`` member of a Debian package (an ``ar`` archive)."""
    with tempfile.TemporaryDirectory(prefix="paracomp-deb-") as work:
        _extract_tar(_ar_data_member(archive, Path(work)), dest, label=archive)


def _ar_data_member(archive: Path, work: Path) -> Path:
    """Copy the ``data.tar*`` member of an ``ar`` archive into ``work``."""
    with open(archive, "rb") as handle:
        handle.seek(8)
        while header := handle.read(60):
            if len(header) < 60 or header[58:60] != b"`\n":
                raise DataError(f"{archive}: truncated or corrupt ar header")
            name = header[:16].decode("ascii").strip().rstrip("/")
            size = int(header[48:58].decode("ascii").strip())
            if name.startswith("data.tar"):
                out = work / PurePosixPath(name).name
                with open(out, "wb") as dst:
                    if _copy_exact(handle, dst, size) != size:
                        raise DataError(f"{archive}: member {name} is truncated")
                return out
            handle.seek(size + size % 2, os.SEEK_CUR)
    raise DataError(f"{archive}: no data.tar member; not a Debian package")


def _copy_exact(src: Any, dst: Any, size: int, chunk: int = 1 << 20) -> int:
    """Copy at most ``size`` bytes; return how many were copied."""
    copied = 0
    while copied < size and (block := src.read(min(chunk, size - copied))):
        dst.write(block)
        copied += len(block)
    return copied


def _check_tar_member(archive: Path, member: tarfile.TarInfo) -> None:
    _check_name(archive, member.name)
    if member.issym():
        target = PurePosixPath(member.linkname)
        if target.is_absolute() or not _stays_inside(PurePosixPath(member.name).parent / target):
            raise DataError(
                f"{archive}: symlink {member.name!r} -> {member.linkname!r} points outside"
            )
    elif member.islnk():
        _check_name(archive, member.linkname)
    elif not (member.isfile() or member.isdir()):
        raise DataError(f"{archive}: member {member.name!r} is a device or fifo")


def _check_name(archive: Path, name: str) -> None:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts:
        raise DataError(f"{archive}: unsafe member path {name!r}")


def _stays_inside(path: PurePosixPath) -> bool:
    """Whether a relative path, normalised lexically, stays below its starting folder."""
    depth = 0
    for part in path.parts:
        depth += -1 if part == ".." else 0 if part == "." else 1
        if depth < 0:
            return False
    return True
