"""Results tables in the layout of each paper, with comparison against the printed numbers."""
