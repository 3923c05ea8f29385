"""Reference pages of the docs site, generated from the code so that they cannot drift: every
config key from the JSON schemas (:mod:`.schema`), every ``paracomp`` command and option from
its argparse parser (:mod:`.commands`), every Snakemake target and rule of the workflow
(:mod:`.targets`), and the papers' READMEs as pages (:mod:`.pages`). ``docs/hooks.py`` calls
them when ``mkdocs build`` runs; tests check that nothing lacks a description."""
