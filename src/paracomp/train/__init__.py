"""The one trainer: run settings (:mod:`~paracomp.train.config`), the training loop with its
checkpoints and export (:mod:`~paracomp.train.loop`), the tasks it runs (segment pairs,
:mod:`~paracomp.train.pairs`; segments and target words, :mod:`~paracomp.train.targets`; the
one choice of their step, eager or static, :mod:`~paracomp.train.tasks`),
optimisers, pretrained initial rows, the tuning grid (:mod:`~paracomp.train.grid`) and the
selection of its points (:mod:`~paracomp.train.tuning`).
Importing this package imports no torch."""
