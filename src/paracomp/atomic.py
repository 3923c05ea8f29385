"""Atomic file output and checksums: a file is either complete or absent.

A write goes to ``.<name>.<host>.<pid>.<random>.part`` beside the output and is renamed into
place on success. A killed job leaves its part behind; the next write of the same output
removes the parts of that output that are stale (:func:`clean_stale_parts`).
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import re
import shutil
import socket
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from paracomp.errors import DataError, WriteError
from paracomp.timing import phase

STALE_AFTER = 24 * 3600.0
"""Seconds after its last change when a part whose writer cannot be checked counts as stale."""

HOST = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:40] or "host"
"""This machine's name as it appears in part names (no dots, so names parse unambiguously)."""

log = logging.getLogger(__name__)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _prefix(target: Path) -> str:
    return f".{target.name}.{HOST}.{os.getpid()}."


def _part_name(name: str) -> re.Pattern[str]:
    """Part names of output ``name``: this module's, and the ``.<name>.<random>.part`` of
    earlier versions (no host or pid); ``random`` is :mod:`tempfile`'s 8 characters."""
    return re.compile(
        rf"\.{re.escape(name)}\.(?:(?P<host>[A-Za-z0-9-]+)\.(?P<pid>\d+)\.)?[a-z0-9_]{{8}}\.part"
    )


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def clean_stale_parts(target: str | os.PathLike[str], now: float | None = None) -> list[Path]:
    """Remove stale partial writes of ``target``; return what was removed.

    Only parts of this very output are considered (``.<name>.…part`` as written by
    :func:`atomic_path` / :func:`atomic_dir`, never another output's). A part is stale when
    its writer ran on this host and that process is gone, or, when the writer cannot be
    checked (another host on a shared file system, or a part named by an earlier version),
    when it has not changed for :data:`STALE_AFTER` seconds. A part whose writer is still
    running is kept, whatever its age; a reused pid only delays a removal.
    """
    target = Path(target)
    pattern, now = _part_name(target.name), time.time() if now is None else now
    removed = []
    try:
        entries = list(os.scandir(target.parent))
    except FileNotFoundError:
        return []
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if match is None:
            continue
        try:
            if match["pid"] is not None and match["host"] == HOST:
                stale = not _running(int(match["pid"]))
            else:
                stale = now - entry.stat(follow_symlinks=False).st_mtime > STALE_AFTER
            if not stale:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
        except FileNotFoundError:  # removed meanwhile by a concurrent writer
            continue
        except OSError as err:
            log.warning("cannot remove stale partial output %s: %s", entry.path, err)
            continue
        log.info("removed stale partial output %s", entry.path)
        removed.append(Path(entry.path))
    return removed


WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EFBIG})
"""Errors that only a write raises: reported as the output's (:class:`WriteError`)."""

ACCESS_ERRNOS = frozenset({errno.EACCES, errno.EPERM})
"""Errors a read can raise too: the output's only where they name its folder or part."""


@contextmanager
def _writing(target: Path) -> Iterator[None]:
    """Turn the block's failure to write ``target`` (or its part) into a :class:`WriteError`
    naming ``target``; any other error passes unchanged."""
    try:
        yield
    except OSError as exc:
        on_output = exc.filename is None or Path(exc.filename).parent in (target.parent, target)
        if exc.errno in WRITE_ERRNOS or (exc.errno in ACCESS_ERRNOS and on_output):
            raise WriteError(f"{target}: cannot write ({os.strerror(exc.errno)})") from exc
        raise


@contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; move it into place only if the block succeeds.
    A full disk or a read-only folder is a :class:`WriteError` naming ``path``."""
    target = Path(path)
    with _writing(target):
        target.parent.mkdir(parents=True, exist_ok=True)
        clean_stale_parts(target)
        fd, tmp = tempfile.mkstemp(prefix=_prefix(target), suffix=".part", dir=target.parent)
        os.close(fd)
        tmp_path = Path(tmp)
        try:
            with phase("write"):
                yield tmp_path
            os.chmod(tmp_path, 0o666 & ~_umask())  # mkstemp makes 0600 files
            os.replace(tmp_path, target)
        finally:
            if tmp_path.exists():
                tmp_path.unlink()


@contextmanager
def atomic_dir(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary directory beside ``path``; it replaces ``path`` only on success.
    A full disk or a read-only folder is a :class:`WriteError` naming ``path``."""
    target = Path(path)
    with _writing(target):
        target.parent.mkdir(parents=True, exist_ok=True)
        clean_stale_parts(target)
        tmp = Path(tempfile.mkdtemp(prefix=_prefix(target), suffix=".part", dir=target.parent))
        try:
            with phase("write"):
                yield tmp
            os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes 0700 folders
            if target.exists():
                shutil.rmtree(target)
            os.replace(tmp, target)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp)


def sha256_file(path: str | os.PathLike[str], chunk: int = 1 << 20) -> str:
    """Hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def write_json(path: str | os.PathLike[str], value: Any) -> None:
    """``value`` as indented JSON with sorted keys, written atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(value, indent=2, sort_keys=True) + "\n")


def read_json(path: str | os.PathLike[str]) -> Any:
    """The JSON document in file ``path``; a file that is not UTF-8 JSON (a parquet file given
    for a record …) is a one-line :class:`DataError` naming it."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise DataError(f"{path}: not a JSON file (not UTF-8 text)") from None
    except json.JSONDecodeError as exc:
        raise DataError(
            f"{path}: not a JSON file ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None


def unwritable(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The folders ``paths`` would be written in (each one's parent, or the nearest ancestor
    that exists) that this process cannot write into, each once, in order: where an old
    output could not be removed nor a new one written."""
    found: dict[Path, None] = {}
    for path in paths:
        folder = Path(path).absolute().parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        if not os.access(folder, os.W_OK | os.X_OK):
            found[folder] = None
    return list(found)
