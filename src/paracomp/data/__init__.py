"""Datasets: the catalogue, fetching from the mirror, registries or upstream, and parsers."""
