"""The target family of the trainer: segments composed towards target words (Scheepers et
al.'s CompVec): the eager step (:mod:`.task`) and its static-shape step replayed from CUDA
graphs (:mod:`.static`). :func:`paracomp.train.tasks.target_task` picks the step."""
