"""Content digests of the sharded chains' intermediate files, and what they derive from.

Every intermediate records in its footer (:data:`DIGEST_KEY`) the rows and a CRC32 of each
column's decoded data for each of its partitions (``"all"`` for an unpartitioned file), the
digests of the inputs it was derived from, and its own digest (a sha256 of all that). A
reader recomputes the digest of what it reads, and checks that the pieces it merges derive
from the same inputs: a partition from another run of the same plan, or rows that decode but
are not those written, are refused in one line naming the file and what to delete.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from paracomp.errors import DataError

DIGEST_KEY = "paracomp.digest"
"""File metadata of an intermediate: ``{"rows", "content": {partition: "rows:crc-crc…"},
"inputs": {label: digest}, "digest"}``."""
WHOLE = "all"
"""The ``content`` key of an unpartitioned file."""
_DELETE = "delete it and rerun the job that wrote it"


class ContentDigest:
    """A running CRC32 of each column's data (for strings: lengths and bytes apart), the same
    whatever the chunks the rows arrive in."""

    def __init__(self) -> None:
        self.rows = 0
        self.crcs: dict[str, list[int]] = {}

    def update(self, table: pa.Table) -> None:
        self.rows += table.num_rows
        for name in table.column_names:
            crcs = self.crcs.setdefault(name, [0, 0])
            for chunk in table[name].chunks:
                for k, data in enumerate(_buffers(chunk)):
                    crcs[k] = zlib.crc32(data, crcs[k])

    def text(self) -> str:
        """``rows:crc-crc…`` (columns in name order)."""
        crcs = "-".join(f"{a:08x}{b:08x}" for _, (a, b) in sorted(self.crcs.items()))
        return f"{self.rows}:{crcs}"


def _buffers(chunk: pa.Array) -> tuple[memoryview, ...]:
    """The data of ``chunk`` as bytes, independent of how the rows are cut into chunks."""
    if chunk.null_count:
        valid = np.asarray(chunk.is_valid(), dtype=np.uint8)
        return (*_buffers(pc.fill_null(chunk, _zero(chunk.type))), memoryview(valid))
    if pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type):
        chunk = chunk.cast(pa.large_string())
        offsets = np.frombuffer(chunk.buffers()[1], np.int64)[
            chunk.offset : chunk.offset + len(chunk) + 1
        ]
        data = chunk.buffers()[2]
        body = memoryview(data)[offsets[0] : offsets[-1]] if data is not None else b""
        return memoryview(np.diff(offsets)), memoryview(body)
    return (memoryview(np.ascontiguousarray(chunk.to_numpy(zero_copy_only=False))),)


def _zero(kind: pa.DataType) -> pa.Scalar:
    return pa.scalar("" if pa.types.is_string(kind) or pa.types.is_large_string(kind) else 0, kind)


def record(content: Mapping[str, ContentDigest], inputs: Mapping[str, str]) -> dict[str, str]:
    """The file metadata holding the digests of ``content`` (by partition) and ``inputs``."""
    body = {
        "rows": sum(d.rows for d in content.values()),
        "content": {str(k): d.text() for k, d in sorted(content.items())},
        "inputs": dict(sorted(inputs.items())),
    }
    text = json.dumps(body, sort_keys=True)
    body["digest"] = hashlib.sha256(text.encode()).hexdigest()
    return {DIGEST_KEY: json.dumps(body, sort_keys=True)}


def recorded(path: Path, handle: pq.ParquetFile) -> dict[str, Any]:
    """The digest record of intermediate ``path``; one without is refused."""
    raw = (handle.metadata.metadata or {}).get(DIGEST_KEY.encode())
    if raw is None:
        raise DataError(f"{path}: no content digest (written by an older paracomp?); {_DELETE}")
    try:
        found = json.loads(raw)
        body = {k: found[k] for k in ("rows", "content", "inputs")}
    except (ValueError, KeyError, TypeError) as exc:
        raise DataError(f"{path}: unreadable content digest ({exc}); {_DELETE}") from None
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
    if found.get("digest") != digest or body["rows"] != handle.metadata.num_rows:
        raise DataError(f"{path}: its content digest does not match its footer; {_DELETE}")
    return found


def verify(path: Path, found: Mapping[str, Any], part: str, table: pa.Table) -> None:
    """Refuse ``table``, read as partition ``part`` of ``path``, unless it is what was
    written there."""
    digest = ContentDigest()
    digest.update(table)
    expected = found["content"].get(part, "0:")
    if table.num_rows == 0 and expected == "0:":
        return
    if digest.text() != expected:
        what = "partition " + part if part != WHOLE else "its data"
        raise DataError(
            f"{path}: {what} holds other rows than were written ({digest.rows} rows, "
            f"{expected.split(':')[0]} recorded, or their content differs); {_DELETE}"
        )


def file_digest(path: Path) -> str:
    """The recorded digest of an intermediate, else a sha256 of the file's footer and size
    (what tells one run's corpus from another's without reading it)."""
    handle = pq.ParquetFile(path)
    raw = (handle.metadata.metadata or {}).get(DIGEST_KEY.encode())
    if raw is not None:
        return str(recorded(path, handle)["digest"])
    size = Path(path).stat().st_size
    with open(path, "rb") as f:
        f.seek(size - 8)
        length = int.from_bytes(f.read(4), "little")
        f.seek(max(size - 8 - length, 0))
        footer = f.read()
    return hashlib.sha256(footer + str(size).encode()).hexdigest()


def input_digests(inputs: Mapping[str, Path]) -> dict[str, str]:
    """Each labelled input's :func:`file_digest`."""
    return {label: file_digest(path) for label, path in inputs.items()}


def pieces(paths: Sequence[Path], kind: str) -> dict[str, str]:
    """The inputs of a job that read ``paths``: ``{"<kind> k": digest}``."""
    return {f"{kind} {k}": file_digest(path) for k, path in enumerate(paths)}


def same_inputs(paths: Sequence[Path], records: Sequence[Mapping[str, Any]]) -> None:
    """Refuse pieces that derive from other inputs than most of them (another run's)."""
    inputs = [json.dumps(r["inputs"], sort_keys=True) for r in records]
    usual, _ = Counter(inputs).most_common(1)[0]
    for path, found, text in zip(paths, records, inputs, strict=True):
        if text != usual:
            theirs, ours = found["inputs"], json.loads(usual)
            differ = sorted(k for k in {*theirs, *ours} if theirs.get(k) != ours.get(k))
            raise DataError(
                f"{path}: derives from other inputs than the other {len(paths) - 1} pieces "
                f"({', '.join(differ[:3])} differ: a piece of another run?); {_DELETE}"
            )
