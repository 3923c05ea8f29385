"""Using a trained or pretrained model on one's own sentences: :func:`load_encoder`
(:mod:`~paracomp.encoders.load`), the exports other libraries read
(:mod:`~paracomp.encoders.export`) and the self-contained folder of any model
(:mod:`~paracomp.encoders.bundle`). Importing this package imports neither Snakemake nor torch.
"""
