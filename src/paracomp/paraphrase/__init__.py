"""English paraphrase pairs: PPDB and its derived sets, and bilingual pivoting."""
