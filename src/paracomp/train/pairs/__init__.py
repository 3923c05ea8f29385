"""The pair family of the trainer: segment pairs under the hinge objectives (J_bi, J_pa) with
any composer, and its task variants: the eager step (:mod:`.task`), its objects (:mod:`.build`),
noise (:mod:`.perturb`, :mod:`.noisy`), mega-batches (:mod:`.megabatch`), the static-shape steps
replayed from CUDA graphs (:mod:`.static`, :mod:`.static_learned`) and grid
points trained as one stack (:mod:`.stacked`). :func:`paracomp.train.tasks.pair_task` picks the
step."""
