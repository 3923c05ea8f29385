"""Parallel corpora: reading (the SWORD Bible), Moses tokenisation and cleaning, derived sets."""
