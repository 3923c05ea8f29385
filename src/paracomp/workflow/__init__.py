"""What the Snakemake rules compute their inputs and parameters from: the sources of the data,
the corpus chain's files, the generic runs, the models and the tables. The rules files keep thin
input functions that call these; nothing here imports torch, pandas or numpy."""
