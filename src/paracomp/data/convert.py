"""Fetched files into parquet artefacts, with their provenance: evaluation sets and pretrained
word vectors. Each reads a fetched folder through its ``MANIFEST.json``, after checking that
the folder still holds what was fetched."""

from __future__ import annotations

import logging
from pathlib import Path

from paracomp import artefacts
from paracomp.artefacts import Provenance
from paracomp.data import embeddings
from paracomp.data.catalog import load
from paracomp.data.parsers import parse_fetched

log = logging.getLogger(__name__)


def set_artefact(name: str, source: str, manifest: Path, out: Path) -> None:
    """Parse evaluation set ``name`` from the folder of ``manifest`` (fetched from ``source``)."""
    spec = load().set(name)
    table = parse_fetched(spec, source, manifest.parent)
    entry = spec.sources[source]
    schema = artefacts.SENTENCE_PAIRS if spec.kind == "sentence-pairs" else artefacts.WORD_PAIRS
    prov = Provenance(
        dataset=name,
        source=source,
        inputs=artefacts.input_checksums([manifest]),
        config={"source_entry": entry},
        notes=entry.get("note", ""),
    )
    artefacts.write(table, out, schema, prov)
    log.info("%s: %d rows from %s -> %s", name, table.num_rows, source, out)


def embeddings_artefact(name: str, source: str, manifest: Path, out: Path) -> None:
    """Convert the pretrained vectors ``name`` in the folder of ``manifest``."""
    spec = load().embeddings[name]
    words, matrix = embeddings.read_fetched(spec, source, manifest.parent)
    inputs = artefacts.input_checksums([manifest])
    prov = Provenance(name, source, inputs, {}, spec.get("title", ""))
    artefacts.write_embeddings(words, matrix, out, prov)
    log.info("%s: %d x %d -> %s", name, *matrix.shape, out)
