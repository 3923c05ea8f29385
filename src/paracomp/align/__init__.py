"""Word alignment: directional aligners and their symmetrisation."""
