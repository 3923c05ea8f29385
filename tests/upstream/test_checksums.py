"""The catalogue's real checksums reject the miniature mirror; it passes verification only
through the test-only override (:func:`miniature_checksums`), with the check unchanged; and
each upstream-only release, rebuilt from the miniature files with the catalogue's archive
type and member paths, unpacks to the mirror's names."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from paracomp.atomic import sha256_file
from paracomp.data.catalog import load
from paracomp.data.fetch import fetch_mirror, fetch_upstream, verify_fetched
from paracomp.errors import ChecksumError

pytestmark = pytest.mark.slow  # every test reads the miniature upstream mirror (~15 CPU-s to build)

CHECKSUMMED = sorted(
    name
    for name, dataset in load().datasets.items()
    if dataset.files and all(f.sha256 for f in dataset.files.values())
)


@pytest.mark.parametrize("name", CHECKSUMMED)
def test_real_checksums_reject_the_miniature(upstream_mirror, checksum_override, tmp_path, name):
    dataset = load().dataset(name)
    with pytest.raises(ChecksumError, match=f"dataset '{name}'"):
        fetch_mirror(dataset, upstream_mirror.root, tmp_path / "real")
    assert not (tmp_path / "real").exists()
    override = checksum_override(dataset, upstream_mirror.dataset(name))
    manifest = fetch_mirror(override, upstream_mirror.root, tmp_path / "mini")
    assert manifest["files"] == {f: m.sha256 for f, m in override.files.items()}
    assert verify_fetched(tmp_path / "mini") == manifest


def test_override_does_not_weaken_the_check(upstream_mirror, checksum_override, tmp_path):
    name = "sick2014"
    override = checksum_override(load().dataset(name), upstream_mirror.dataset(name))
    copy = tmp_path / "edited"
    (copy / name).mkdir(parents=True)
    for file in override.files:
        (copy / name / file).write_bytes((upstream_mirror.dataset(name) / file).read_bytes())
    with open(copy / name / "SICK_trial.txt", "ab") as handle:
        handle.write(b"\n")
    with pytest.raises(ChecksumError, match="SICK_trial.txt"):
        fetch_mirror(override, copy, tmp_path / "out")


UPSTREAM_ONLY = sorted(
    name
    for name, dataset in load().datasets.items()
    if dataset.upstream.get("members") and not any(f.sha256 for f in dataset.files.values())
)


@pytest.mark.parametrize("name", UPSTREAM_ONLY)
def test_upstream_release_layout(
    upstream_mirror, checksum_override, release_archive, tmp_path, name
):
    """fetch_upstream on the release rebuilt from the miniature files (``file://``): the
    catalogue's archive type and member paths give back the mirror's files byte for byte."""
    dataset = load().dataset(name)
    release = dict(dataset.upstream)
    url = release["url"].rsplit("/", 1)[-1].split("?")[0] or "download"
    release["url"] = release_archive(upstream_mirror, name, tmp_path / "release" / url)
    if release.get("sha256"):  # the real archive checksum rejects the rebuilt archive
        real = checksum_override(dataset, upstream_mirror.dataset(name), release)
        with pytest.raises(ChecksumError, match="upstream file://"):
            fetch_upstream(real, tmp_path / "real", attempts=1)
        release["sha256"] = sha256_file(tmp_path / "release" / url)
    override = checksum_override(dataset, upstream_mirror.dataset(name), release)
    manifest = fetch_upstream(override, tmp_path / "out", attempts=1)
    assert manifest["files"] == {f: m.sha256 for f, m in override.files.items()}
    for file in dataset.files:
        got = (tmp_path / "out" / file).read_bytes()
        assert got == (upstream_mirror.dataset(name) / file).read_bytes()


def test_override_file_passes_the_miniature_and_nothing_else(
    upstream_mirror, checksum_override_file, monkeypatch, tmp_path
):
    """``$PARACOMP_CHECKSUM_OVERRIDE`` (what the end-to-end run uses): the catalogue's own
    dataset passes with the miniature's sha256, recorded in the manifest; an edited copy still
    fails; without the variable the real checksum rejects the miniature file."""
    name, dataset = "sick2014", load().dataset("sick2014")
    with pytest.raises(ChecksumError, match="dataset 'sick2014'"):
        fetch_mirror(dataset, upstream_mirror.root, tmp_path / "real")
    monkeypatch.setenv("PARACOMP_CHECKSUM_OVERRIDE", str(checksum_override_file))
    manifest = fetch_mirror(dataset, upstream_mirror.root, tmp_path / "mini")
    assert manifest["files"] == {
        f: sha256_file(upstream_mirror.dataset(name) / f) for f in dataset.files
    }
    assert manifest["checksum_override"]["files"] == sorted(dataset.files)
    edited = tmp_path / "edited"
    shutil.copytree(upstream_mirror.dataset(name), edited / name)
    with open(edited / name / "SICK_trial.txt", "ab") as handle:
        handle.write(b"\n")
    with pytest.raises(ChecksumError, match="'SICK_trial.txt'"):
        fetch_mirror(dataset, edited, tmp_path / "out")


def test_override_file_pins_an_upstream_release_without_checksums(
    upstream_mirror, checksum_override_file, release_archive, monkeypatch, tmp_path
):
    """Europarl publishes no checksum: without the override any file passes; with it, the
    release's members must be the miniature's files, so an edited member fails."""
    name = "europarl-v7-es-en"
    dataset = load().dataset(name)
    monkeypatch.setenv("PARACOMP_CHECKSUM_OVERRIDE", str(checksum_override_file))
    url = release_archive(upstream_mirror, name, tmp_path / "good" / "es-en.tgz")
    good = dataclasses.replace(dataset, upstream={**dataset.upstream, "url": url})
    manifest = fetch_upstream(good, tmp_path / "out", attempts=1)
    assert manifest["checksum_override"]["files"] == sorted(dataset.files)
    edited = tmp_path / "edited"
    shutil.copytree(upstream_mirror.dataset(name), edited / name)
    with open(edited / name / "europarl-v7.es-en.es", "ab") as handle:
        handle.write("una frase más\n".encode())
    mini = dataclasses.replace(upstream_mirror, root=edited)
    url = release_archive(mini, name, tmp_path / "bad" / "es-en.tgz")
    bad = dataclasses.replace(dataset, upstream={**dataset.upstream, "url": url})
    with pytest.raises(ChecksumError, match="'europarl-v7.es-en.es' from upstream file://"):
        fetch_upstream(bad, tmp_path / "bad-out", attempts=1)
    monkeypatch.delenv("PARACOMP_CHECKSUM_OVERRIDE")
    assert "checksum_override" not in fetch_upstream(bad, tmp_path / "plain", attempts=1)
