"""Tables 9-11 of Wieting & Gimpel (2017): the L1 norms of the GRAN's gate by POS tag and
dependency label.

The paper tags and parses 10,000 English Wikipedia sentences of at most 15 tokens with the
Stanford parser (PTB tags, Stanford basic dependencies) and averages, per tag, per label and
per (tag, label), the L1 norm of the gate ``σ(W_x x_t + W_h h_t + b)`` of its oracle-selected
GRAN (Table 3) at every token. English Wikipedia is not obtainable here: :func:`parse_sentences`
samples (seeded) sentences of the World English Bible (Debian ``sword-text-web``, the cased
English side of the KJV-WEB pairs) and tags and parses them with spaCy's ``en_core_web_sm``
3.8.0 (PTB tags as the paper; ClearNLP dependency labels, mapped to the Stanford basic ones
where an equivalent exists: :data:`LABEL_MAP`). :func:`token_norms` runs the selected GRAN on
each sentence's lowercased tokens (the run's vocabulary; a token without a row, and no UNK
row, gets no gate) and :func:`aggregate` averages the norms.

A mean norm's 95% interval resamples the sentences (the sampled unit; one seeded ``B × n``
matrix over the parsed sentences, :func:`sentence_replicates`): on each resample, the norms of
a tag's tokens with a label summed over the drawn sentences and divided by their count.
Table 9's ranked labels and the token counts get none, each cell saying why.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from spacy.language import Language

    from paracomp.eval.bootstrap import Resampler
    from paracomp.tables.printed import PrintedTable

LABEL_MAP: dict[str, str] = {
    "ROOT": "root",
    "compound": "nn",
    "nummod": "num",
    "case": "possessive",
    "relcl": "rcmod",
    "acl": "vmod",
    "dative": "iobj",
    "intj": "discourse",
    **{
        label: label
        for label in [
            "acomp",
            "advcl",
            "advmod",
            "amod",
            "appos",
            "aux",
            "auxpass",
            "cc",
            "ccomp",
            "conj",
            "csubj",
            "csubjpass",
            "dep",
            "det",
            "dobj",
            "expl",
            "mark",
            "neg",
            "npadvmod",
            "nsubj",
            "nsubjpass",
            "parataxis",
            "pcomp",
            "pobj",
            "poss",
            "preconj",
            "predet",
            "prep",
            "prt",
            "punct",
            "quantmod",
            "xcomp",
        ]
    },
}
"""spaCy's ClearNLP label -> the Stanford basic dependency label it stands for (same name
where both schemes have it; ``compound``→``nn``, ``nummod``→``num``, ``case``→``possessive``
(spaCy labels only the possessive 's ``case``), ``relcl``→``rcmod``, ``acl``→``vmod`` (both
clausal modifiers of a noun; SD's vmod is the non-finite kind), ``dative``→``iobj``,
``intj``→``discourse``)."""
UNMAPPED_CLEAR = ("agent", "attr", "meta", "nmod", "oprd")
"""ClearNLP labels without a Stanford basic equivalent: kept under their own name."""
UNMATCHED_STANFORD = ("cop", "number", "tmod", "mwe", "goeswith", "xsubj", "ref")
"""Stanford basic labels that spaCy's scheme never produces (e.g. ``cop``: ClearNLP heads the
clause with the copula, ``attr``/``acomp`` for its complement; ``number``: ``compound`` or
``quantmod``; ``tmod``: ``npadvmod``)."""


def stanford_label(label: str) -> str:
    """A spaCy (ClearNLP) dependency label in the Stanford basic scheme (:data:`LABEL_MAP`;
    others unchanged)."""
    return LABEL_MAP.get(label, label)


def label_note() -> str:
    mapped = ", ".join(f"{k}→{v}" for k, v in LABEL_MAP.items() if k != v)
    return (
        "Dependency labels: spaCy en_core_web_sm 3.8.0 (ClearNLP scheme) mapped to the paper's "
        f"Stanford basic labels where an equivalent exists ({mapped}; the rest share their "
        f"name); ClearNLP labels without one, kept as they are: {', '.join(UNMAPPED_CLEAR)}; "
        f"Stanford labels spaCy never produces: {', '.join(UNMATCHED_STANFORD)}."
    )


# -- sentences --------------------------------------------------------------------------------


def pipeline_path(folder: Path) -> Path:
    """The spaCy pipeline directory (``config.cfg`` and ``meta.json``) inside a fetched
    package folder."""
    for config in sorted(Path(folder).rglob("config.cfg")):
        if (config.parent / "meta.json").exists():
            return config.parent
    raise FileNotFoundError(f"no spaCy pipeline (config.cfg + meta.json) under {folder}")


def load_pipeline(folder: Path) -> Language:
    """spaCy's pipeline from a fetched package folder, checked against the digests its fetch
    recorded first (:func:`~paracomp.data.fetch.verify_fetched`), without NER and lemmatizer."""
    import spacy

    from paracomp.data.fetch import verify_fetched

    verify_fetched(folder)
    return spacy.load(pipeline_path(Path(folder)), exclude=["ner", "lemmatizer"])


def candidates(texts: Iterable[str], max_words: int, seed: int) -> list[str]:
    """Non-empty texts of at most ``max_words`` whitespace words, in a seeded random order
    (spaCy's tokens may be more: the parse decides)."""
    kept = [" ".join(t.split()) for t in texts]
    kept = sorted({t for t in kept if t and len(t.split()) <= max_words})
    random.Random(seed).shuffle(kept)
    return kept


def parse_sentences(
    texts: Sequence[str], nlp, n: int, max_tokens: int, batch_size: int = 256
) -> pd.DataFrame:
    """Tag and parse ``texts`` in order, split each into spaCy's sentences and keep those of
    at most ``max_tokens`` tokens until ``n`` are kept: one row per token (``sentence``,
    ``position``, ``token``, ``tag``, ``dep`` (spaCy's), ``label`` (Stanford basic))."""
    rows: list[tuple[int, int, str, str, str]] = []
    count = 0
    for doc in nlp.pipe(texts, batch_size=batch_size):
        for sent in doc.sents:
            words = [t for t in sent if not t.is_space]
            if not words or len(words) > max_tokens:
                continue
            rows += [(count, i, t.text, t.tag_, t.dep_) for i, t in enumerate(words)]
            count += 1
            if count == n:
                break
        if count == n:
            break
    frame = pd.DataFrame(rows, columns=["sentence", "position", "token", "tag", "dep"])
    frame["label"] = frame["dep"].map(stanford_label)
    return frame


# -- gate norms -------------------------------------------------------------------------------


def token_norms(frame: pd.DataFrame, encoder, batch_size: int = 512) -> pd.DataFrame:
    """``frame`` (:func:`parse_sentences`) with ``norm``: the L1 norm of the GRAN gate at
    each token (NaN for a token without a row), the gates of :meth:`GRANComposer.gates`
    (``encoder`` a :class:`~paracomp.eval.trained.TrainedEncoder` over a GRAN) run on the
    sentence's lowercased tokens that have a row."""
    import torch

    from paracomp.models.base import SegmentBatch

    composer = encoder.composer
    norms = np.full(len(frame), np.nan)
    groups = [g for _, g in frame.groupby("sentence", sort=True)]
    for start in range(0, len(groups), batch_size):
        ids, where = [], []
        for group in groups[start : start + batch_size]:
            sentence = []
            for index, token in zip(group.index, group["token"]):
                token = token.lower()
                row = encoder.index.get(token, encoder.unk)
                if row is not None:
                    sentence.append(row)
                    where.append(index)
            ids.append(sentence)
        lengths = torch.tensor([len(x) for x in ids], dtype=torch.long)
        flat = torch.tensor([i for x in ids for i in x], dtype=torch.long)
        if flat.numel() == 0:
            continue
        index, local = torch.unique(flat, return_inverse=True)
        offsets = torch.cumsum(lengths, 0) - lengths
        batch = SegmentBatch(encoder.rows[index], local, offsets)
        with torch.no_grad():
            gates = composer.gates(batch)
        norms[frame.index.get_indexer(where)] = gates.abs().sum(1).double().cpu().numpy()
    return frame.assign(norm=norms)


def aggregate(frame: pd.DataFrame, by: str | Sequence[str]) -> pd.DataFrame:
    """Mean, count and standard deviation of ``norm`` per value of ``by`` (tokens with a
    norm), highest mean first (ties: by name)."""
    scored = frame.dropna(subset=["norm"])
    out = scored.groupby(by)["norm"].agg(["mean", "count", "std"]).reset_index()
    keys = [by] if isinstance(by, str) else list(by)
    return out.sort_values(["mean", *keys], ascending=[False, *[True] * len(keys)],
                           kind="stable").reset_index(drop=True)  # fmt: skip


def ranked(frame: pd.DataFrame, by: str, k: int = 10, min_count: int = 1) -> tuple[list, list]:
    """Table 9's lists: the ``k`` values of ``by`` with the highest mean norm (highest first)
    and the ``k`` with the lowest (lowest first), among those with ``min_count`` tokens;
    each item ``(name, mean, count)``."""
    means = aggregate(frame, by)
    means = means[means["count"] >= min_count]
    items = [(str(r[by]), float(r["mean"]), int(r["count"])) for _, r in means.iterrows()]
    return items[:k], items[::-1][:k]


SENTENCES_KEY = "wieting2017/gate-sentences"
"""The key of the parsed sentences' resamples (:mod:`paracomp.eval.bootstrap`)."""
RANKED_NOISE = "no interval: a ranked label is a name, not an estimate (its mean is in the data)"
COUNT_NOISE = "no interval: a count of our parsed tokens, a fact of the sample, not an estimate"


def sentence_replicates(
    frame: pd.DataFrame, selected: pd.Series, resampler: Resampler
) -> tuple[np.ndarray | None, str]:
    """The mean ``norm`` of the ``selected`` scored tokens on every resample of the sentences
    of ``frame`` (:data:`SENTENCES_KEY`), or None and why (the tokens lie in fewer than
    :data:`~paracomp.eval.bootstrap.MIN_PAIRS` sentences)."""
    from paracomp.eval import bootstrap

    codes, sentences = pd.factorize(frame["sentence"], sort=True)
    chosen = selected.to_numpy(bool) & frame["norm"].notna().to_numpy()
    spread = len(np.unique(codes[chosen]))
    if spread < bootstrap.MIN_PAIRS:
        return None, f"no interval: its tokens lie in {spread} sentences (< {bootstrap.MIN_PAIRS})"
    size = len(sentences)
    sums = np.bincount(codes[chosen], frame["norm"].to_numpy()[chosen], minlength=size)
    tokens = np.bincount(codes[chosen], minlength=size).astype(np.float64)
    counts = resampler.counts(bootstrap.Sample.whole(SENTENCES_KEY, size))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (counts @ sums) / (counts @ tokens), ""


def by_label(frame: pd.DataFrame, tag: str) -> Mapping[str, tuple[float, int]]:
    """Tables 10-11: tokens tagged ``tag``, mean norm and count per Stanford label."""
    means = aggregate(frame[frame["tag"] == tag], "label")
    return {str(r["label"]): (float(r["mean"]), int(r["count"])) for _, r in means.iterrows()}


# -- Tables 9-11 ------------------------------------------------------------------------------

TABLE9_COLUMNS = {
    "pos_top": "POS top 10",
    "pos_bottom": "POS bot. 10",
    "dep_top": "Dep. Label top 10",
    "dep_bottom": "Dep. Label bot. 10",
}
TABLE9_PAPER = {
    "pos_top": ["NNP", "NNPS", "CD", "NNS", "VBG", "NN", "JJ", "UH", "VBN", "JJS"],
    "pos_bottom": ["TO", "WDT", "POS", "DT", "WP", "IN", "CC", "PRP", "EX", "WRB"],
    "dep_top": ["number", "nn", "num", "acomp", "appos", "pobj", "vmod", "dobj", "amod", "conj"],
    "dep_bottom": [
        "possessive",
        "cop",
        "det",
        "auxpass",
        "prep",
        "cc",
        "mark",
        "aux",
        "expl",
        "neg",
    ],
}
"""Table 9 as the digest recovers it from the §5.2 running text (labels, no numbers)."""
TABLE9_REASON = (
    "the paper prints ranked labels, no numbers: no paper value (its label, recovered from the "
    "running text, in the note)"
)
TABLE11_ROWS = ["amod", "xcomp", "pcomp", "root", "vmod", "prep", "auxpass"]
PER_DIM = "per_dim"
COUNT = "tokens"
PAPER_DIM = 300
"""The paper's gate dimensions (its word vectors: PARAGRAM-SL999 300d)."""


def _printed(table: str):
    import dataclasses

    from paracomp.papers.wieting2017.tables import PAPER, omitted_tables
    from paracomp.registry import printed_table
    from paracomp.tables.printed import PrintedTable

    if table == "table10":
        printed = printed_table(PAPER, "table10")
        return dataclasses.replace(
            printed, columns=[*printed.columns, PER_DIM, COUNT],
            column_labels={**printed.column_labels, PER_DIM: "Weight / dim", COUNT: "Tokens"},
            column_decimals={**printed.column_decimals, PER_DIM: 3, COUNT: 0},
        )  # fmt: skip
    caption = next(t["caption"] for t in omitted_tables() if t["table"] == table)
    if table == "table9":
        return PrintedTable(
            paper=PAPER, key=table, caption=caption, metric="l1_norm", scale=1, decimals=1,
            row_label="Rank", rows=[str(i) for i in range(1, 11)], columns=list(TABLE9_COLUMNS),
            row_labels={}, column_labels=TABLE9_COLUMNS, values={}, notes=[TABLE9_REASON],
            column_decimals={},
        )  # fmt: skip
    return PrintedTable(
        paper=PAPER, key=table, caption=caption, metric="l1_norm", scale=1, decimals=1,
        row_label="Dep. Label", rows=TABLE11_ROWS, columns=["weight", PER_DIM, COUNT],
        row_labels={}, values={}, notes=[], column_decimals={PER_DIM: 3, COUNT: 0},
        column_labels={"weight": "Weight", PER_DIM: "Weight / dim", COUNT: "Tokens"},
    )  # fmt: skip


def table9_cells(frame: pd.DataFrame, min_count: int) -> dict:
    from paracomp.tables.build import Cell

    cells = {}
    lists = dict(zip(("pos_top", "pos_bottom"), ranked(frame, "tag", 10, min_count), strict=True))
    lists |= dict(
        zip(("dep_top", "dep_bottom"), ranked(frame, "label", 10, min_count), strict=True)
    )
    for column, items in lists.items():
        for rank in range(10):
            row, paper = str(rank + 1), TABLE9_PAPER[column][rank]
            note = f"paper: {paper}"
            if rank >= len(items):
                cells[row, column] = Cell(
                    None, "", f"fewer than {rank + 1} with {min_count}+ tokens; {note}"
                )
                continue
            name, mean, count = items[rank]
            cells[row, column] = Cell(f"{name} ({mean:.1f})", f"mean L1 {mean:.3f} over {count} tokens", note, noise=RANKED_NOISE)  # fmt: skip
    return cells


def label_cells(
    frame: pd.DataFrame,
    tag: str,
    rows: Sequence[str],
    dim: int,
    paper: Callable[[str], float | None],
    resampler: Resampler,
) -> dict:
    """Tables 10-11: per label, the mean norm of ``tag``'s tokens (``weight``), per gate
    dimension, and the count; the means with their sentence-resampled replicates."""
    from paracomp.tables.build import Cell

    found = by_label(frame, tag)
    total = int(((frame["tag"] == tag) & frame["norm"].notna()).sum())
    cells = {}
    for row in rows:
        if row not in found:
            why = f"no {tag} token with label {row} among our {total} {tag} tokens"
            cells[row, "weight"] = cells[row, PER_DIM] = Cell(None, "", why)
            cells[row, COUNT] = Cell(0, f"of {total} {tag} tokens", noise=COUNT_NOISE)
            continue
        mean, count = found[row]
        data = f"{count} of {total} {tag} tokens; gate dim {dim}"
        printed = paper(row)
        note = (f"paper {printed} / {PAPER_DIM} dims = {printed / PAPER_DIM:.3f} "
                "a dim" if printed is not None else "")  # fmt: skip
        selected = (frame["tag"] == tag) & (frame["label"] == row)
        boot, noise = sentence_replicates(frame, selected, resampler)
        sets = (SENTENCES_KEY,) if boot is not None else ()
        cells[row, "weight"] = Cell(mean, data, "", boot, sets, noise)
        per_dim = None if boot is None else boot / dim
        cells[row, PER_DIM] = Cell(mean / dim, data, note, per_dim, sets, noise)
        cells[row, COUNT] = Cell(count, data, noise=COUNT_NOISE)
    return cells


def per_dimension(printed: PrintedTable, dim: int) -> tuple[PrintedTable, dict[str, str]]:
    """Table 10 as compared: the paper's weights (of its 300-d gate) also per dimension, in
    ``Weight / dim``, and why its weights get no delta unless ``dim`` is 300 (an L1 norm
    grows with the gate's dimensions)."""
    import dataclasses

    values = {
        row: {**cols, PER_DIM: round(cols["weight"] / PAPER_DIM, 4)}
        for row, cols in printed.values.items()
    }
    why = (
        f"no delta: our gate has {dim} dimensions, the paper's {PAPER_DIM}, and an L1 norm "
        "grows with them; compared per dimension in Weight / dim"
    )
    uncompared = {} if dim == PAPER_DIM else {"weight": why}
    return dataclasses.replace(printed, values=values), uncompared


def gate_lines(setting: Mapping[str, Any]) -> list[str]:
    g = setting["gates"]
    return [
        f"Sentences: {g['n_sentences']:,} sentences of at most {g['max_tokens']} tokens "
        f"({g['n_tokens']:,} tokens, {g['n_scored']:,} with a row of the run and so a gate), "
        f"sampled (seed {g['seed']}) from {g['corpus']}; the paper: 10,000 English Wikipedia "
        "sentences, which are not obtainable here.",
        "Tags and labels: spaCy en_core_web_sm 3.8.0 (PTB tags, as the paper; ClearNLP "
        "dependencies), the paper: the Stanford parser (Stanford basic dependencies). "
        + label_note(),
        f"Model: {g['model']}. Gate: σ(W_x x_t + W_h h_t + b) at each token, its L1 norm; our "
        f"gate has the run's {g['dim']} dimensions (the paper's 300: its norms lie in (0, 300), "
        f"ours in (0, {g['dim']})), so 'Weight / dim' (the mean gate value) is the comparable "
        "figure.",
        f"Table 9 keeps tags and labels with at least {g['min_count']} scored tokens (the paper "
        "states no threshold).",
        *([setting["note"]] if setting.get("note") else []),
    ]


def write_gate_table(table: str, tokens: Path, setting: Mapping[str, Any], out: Path) -> None:
    """Build gate table ``table`` from the tokens' norms; write its files and replicates."""
    from paracomp.eval import bootstrap
    from paracomp.papers.wieting2017.tables import MISSING_BODY
    from paracomp.tables.custom import render_custom
    from paracomp.tables.write import write_cell_replicates, write_outputs

    frame = pd.read_parquet(tokens)
    g = setting["gates"]
    printed = _printed(table)
    resampler = bootstrap.Resampler()
    extra: list[str] = []
    uncompared: dict[str, str] = {}
    if table == "table9":
        cells = table9_cells(frame, g["min_count"])
        extra.append(f"Paper column: {TABLE9_REASON}.")
        for column, label in TABLE9_COLUMNS.items():
            extra.append(f"- paper's {label}: {' '.join(TABLE9_PAPER[column])}")
    elif table == "table10":
        cells = label_cells(frame, "JJ", printed.rows, g["dim"],
                            lambda r: printed.value(r, "weight"), resampler)  # fmt: skip
        printed, uncompared = per_dimension(printed, g["dim"])
        extra.append(
            f"Compared per gate dimension: our weights (a {g['dim']}-d gate) and the paper's (a "
            f"{PAPER_DIM}-d one) each divided by their dimensions, in Weight / dim"
            + ("; the weights themselves get no delta." if uncompared else ".")
        )
    else:
        cells = label_cells(frame, "VBG", printed.rows, g["dim"], lambda r: None, resampler)
    if table != "table9":
        extra.append(
            "Intervals: the sentences resampled (B = 1,000, seeded, percentile); a mean over "
            "tokens in fewer than 10 sentences gets none, token counts none (not estimates)."
        )
    no_paper = TABLE9_REASON if table == "table9" else MISSING_BODY
    wide, compare, markdown = render_custom(printed, cells, gate_lines(setting), extra,
                                            no_paper=no_paper, uncompared=uncompared)  # fmt: skip
    write_outputs(out, wide, compare, markdown)
    write_cell_replicates(out, cells, resampler)
