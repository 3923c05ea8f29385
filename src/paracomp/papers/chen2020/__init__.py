"""Chen & Gimpel (2020), Learning Probabilistic Sentence Representations from Paraphrases.

The stand-in training corpus and its subsets (:mod:`.corpus`), the sentences the tables score
(:mod:`.sentences`), zero-shot specificity protocols and baselines (:mod:`.specificity`), every
model's scores (:mod:`.scores`; torch only inside, for trained runs), the SNLI
entailment-direction analysis (:mod:`.snli`), the word and sentence lists (:mod:`.lists`,
:mod:`.examples`), the tables (:mod:`.tables`), the rules' inputs (:mod:`.workflow`) and the
CLI (:mod:`.cli`). Table 8's ``[μ ; σ²]`` vectors are
:func:`paracomp.eval.trained.gaussian_features`.
"""
