"""What is trained: vocabularies and encoded segments, word tables and the composers that
compose their rows into segment vectors."""

LEARNED_COMPOSERS = frozenset(
    {"sum_proj", "rnn", "gru", "bigru", "cnn3", "cnn3579"}
    | {"lstm_avg", "lstm_gaussian"}  # Chen & Gimpel 2020 (models.gaussian)
    | {"tree_rnn"}  # Wieting et al. 2015 (models.tree_rnn)
    | {"lstm", "lstmavg", "bilstmavg", "bigran", "gran5_mean"}  # Wieting & Gimpel 2017
    | {"gran", "gran2", "gran3", "gran4", "gran5"}  # (models.peephole)
)
"""Composers with parameters of their own: a fact the workflow needs when it builds the DAG,
without importing torch (tests check it against the registry)."""

STATIC_COMPOSERS = frozenset(
    {"sum", "mean", "product", "max", "max_pad", "sum_proj"}  # models.algebraic
    | {"rnn", "gru", "bigru", "cnn3", "cnn3579"}  # models.recurrent, models.convolutional
    | {"wlo", "lstm_avg", "lstm_gaussian"}  # models.gaussian
    | {"lstm", "lstmavg", "bilstmavg", "bigran", "gran5_mean"}  # models.peephole, untagged
    | {"gran", "gran2", "gran3", "gran4", "gran5"}
    | {"tree_rnn"}  # models.tree_rnn, over its default branching trees
)
"""Composers whose forward over a :class:`~paracomp.models.base.StaticLayout` batch has shapes
fixed by the layout and reads nothing back on the host (the peephole ones with
``boundary_tags`` ``none``; ``tree_rnn`` over its branching trees, not a batch's parser trees):
a step over them can be captured in a CUDA graph (tests trace each with
``torch.compile(fullgraph=True)``)."""

PROBABILISTIC_COMPOSERS = frozenset({"wlo", "lstm_gaussian"})
"""Composers whose output rows are diagonal Gaussians ``[μ | log σ²]`` (models.gaussian)."""

PRIOR_COMPOSERS = frozenset({"wlo"})
"""Composers whose word operators take the KL-to-N(0, I) prior (losses.gaussian.wlo_prior)."""

BI_COMPOSERS = frozenset({"bilstmavg", "bigran"})
"""Composers that combine two directions and take the setting ``bi_combine``
(models.peephole)."""

TAGGED_COMPOSERS = frozenset(
    {"lstm", "lstmavg", "bilstmavg", "gran", "gran2", "gran3", "gran4", "gran5", "gran5_mean"}
    | {"bigran"}
)
"""Composers that take the setting ``boundary_tags`` (models.peephole)."""
