"""``$PARACOMP_CHECKSUM_OVERRIDE``: a file of replacement sha256 values, checked when read (each
error names the file and the key), used by the fetch instead of the catalogue's for the files
it names and recorded in the manifest; the comparison itself is the fetch's own."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest

from paracomp.data import checksums
from paracomp.data.catalog import Dataset, MirrorFile
from paracomp.data.fetch import fetch_mirror
from paracomp.errors import ChecksumError, ConfigError

SICK = "sick2014"


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]\n", "expected a mapping"),
        ("nosuchset: {a: b}\n", "'nosuchset' is not a catalogue dataset"),
        (f"{SICK}: [x]\n", f"{SICK}: expected file -> sha256"),
        (f"{SICK}:\n  nosuchfile.txt: {'0' * 64}\n", f"{SICK}.nosuchfile.txt: not a file of"),
        (f"{SICK}:\n  SICK_trial.txt: abc\n", f"{SICK}.SICK_trial.txt: 'abc' is not a lowercase"),
        (f"{SICK}:\n  SICK_trial.txt: {'A' * 64}\n", f"{SICK}.SICK_trial.txt: '{'A' * 64}'"),
        ("a: [\n", "unreadable"),
    ],
)
def test_a_bad_override_names_file_and_key(tmp_path, text, message):
    path = write(tmp_path / "override.yaml", text)
    with pytest.raises(ConfigError, match=f"checksum override {path}") as err:
        checksums.read_override(path)
    assert message in str(err.value)


def test_a_missing_override_file_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv(checksums.OVERRIDE_ENV, str(tmp_path / "absent.yaml"))
    with pytest.raises(ConfigError, match=r"absent\.yaml \(\$PARACOMP_CHECKSUM_OVERRIDE\)"):
        checksums.active()


def test_no_override_when_unset(monkeypatch):
    monkeypatch.delenv(checksums.OVERRIDE_ENV, raising=False)
    assert checksums.active() is None


def test_fetch_expects_the_override_only_for_the_files_it_names(tmp_path, monkeypatch, caplog):
    """A dataset of two files, one named by the override: that one must have the override's
    sha256, the other the catalogue's; a file edited after the override was written fails."""
    data = {"SICK_trial.txt": b"trial\n", "readme.txt": b"readme\n"}
    mirror = tmp_path / "mirror"
    (mirror / SICK).mkdir(parents=True)
    for name, content in data.items():
        (mirror / SICK / name).write_bytes(content)
    real = "f" * 64  # a stand-in for the release's checksum, which neither file has
    dataset = Dataset(SICK, "t", "k", (), "l", {n: MirrorFile(real, None, None) for n in data})
    trial = hashlib.sha256(data["SICK_trial.txt"]).hexdigest()
    override = write(tmp_path / "o.yaml", f"{SICK}:\n  SICK_trial.txt: {trial}\n")
    monkeypatch.setenv(checksums.OVERRIDE_ENV, str(override))
    with pytest.raises(ChecksumError, match="'readme.txt'"):
        fetch_mirror(dataset, mirror, tmp_path / "out")  # readme: the catalogue's value
    only = dataclasses.replace(dataset, files={"SICK_trial.txt": dataset.files["SICK_trial.txt"]})
    manifest = fetch_mirror(only, mirror, tmp_path / "out")
    assert manifest["files"] == {"SICK_trial.txt": trial}
    assert manifest["checksum_override"] == {
        "path": str(override.resolve()),
        "files": ["SICK_trial.txt"],
    }
    assert f"checksum override {override.resolve()} in force" in caplog.text
    (mirror / SICK / "SICK_trial.txt").write_bytes(b"trial, edited\n")
    with pytest.raises(ChecksumError, match=f"expected sha256 {trial}"):
        fetch_mirror(only, mirror, tmp_path / "again")
    monkeypatch.delenv(checksums.OVERRIDE_ENV)
    (mirror / SICK / "SICK_trial.txt").write_bytes(data["SICK_trial.txt"])
    with pytest.raises(ChecksumError, match=f"expected sha256 {real}"):
        fetch_mirror(only, mirror, tmp_path / "without")
