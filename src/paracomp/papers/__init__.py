"""The papers whose tables paracomp regenerates, one package each.

A paper's package holds everything specific to it: its settings (``settings.yaml``,
``published.yaml``), ``config.schema.yaml``, ``printed.yaml``, ``layout.yaml`` where its table
rows are evaluation subsets (all read through :mod:`paracomp.registry`), its table builders,
statistics, plots and, in ``cli.py``, its ``paracomp <paper> …`` commands. Generic stages never
import a paper; adding a paper means adding its package, its rules file
(``rules/papers/<paper>.smk``), its tests and its key to :data:`PAPERS`. This module is the list
alone: it imports nothing.
"""

PAPERS = ("elgohary2016", "wieting2015", "wieting2017", "scheepers2018", "chen2020")
"""Every paper, by key (the list of papers: the one generic place a new paper is named)."""
