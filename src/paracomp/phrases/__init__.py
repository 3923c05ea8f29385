"""Moses-style phrase extraction, counting and phrase-table scoring."""
