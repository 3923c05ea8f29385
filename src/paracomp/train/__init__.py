"""The one trainer: three families of tasks over a shared core.

- Core: the training loop with its checkpoints (:mod:`~paracomp.train.loop`), seeds
  (:mod:`~paracomp.train.seeds`), optimisers (:mod:`~paracomp.train.optim`), composers replayed
  from CUDA graphs (:mod:`~paracomp.train.cuda_graph`), the one choice of a run's step, eager or
  static, and its runner (:mod:`~paracomp.train.tasks`, :mod:`~paracomp.train.job`), pretrained
  initial rows, the tuning grid (:mod:`~paracomp.train.grid`, :mod:`~paracomp.train.stacks`) and the
  selection of its points (:mod:`~paracomp.train.tuning`).
- :mod:`paracomp.train.pairs`: segment pairs under the hinge objectives and their step
  variants; :mod:`paracomp.train.targets`: segments towards target words (CompVec);
  :mod:`paracomp.train.similarity`: a composer under a similarity head on scored pairs
  (objective ``supervised``).

The families import the core, never each other; of the core only the dispatch (``tasks``,
``job``) imports a family. A run's settings (:mod:`paracomp.run_config`) and its folder
(:mod:`paracomp.run_folder`) live below the trainer: evaluation reads a run through them and
never imports the trainer. Importing this package imports no torch."""
