"""WordNet 3.0 for Scheepers et al. (2018): an offline NLTK install, the lemma–definition
dataset, the released CompVec split and a lemma-grouped train/test split."""
