"""Evaluation: STS-style sentence-pair correlation, word similarity, and table aggregations."""
