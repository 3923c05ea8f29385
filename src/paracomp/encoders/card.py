"""The model card (``README.md``) of an exported model: what it is (paper, run, composition),
how it was trained (the run's settings, its training data and their licences, from the
provenance of its rows), its scores on the evaluator's sets (the leaderboard's, with their 95%
intervals where it has them), its tokenisation and how to load it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from paracomp.encoders.encoder import Encoder
from paracomp.errors import DataError

CARD = "README.md"

LOADING = {
    "word2vec": (
        "from gensim.models import KeyedVectors\n"
        'vectors = KeyedVectors.load_word2vec_format("vectors.txt")'
    ),
    "glove": (
        "from gensim.models import KeyedVectors\n"
        'vectors = KeyedVectors.load_word2vec_format("vectors.txt", no_header=True)'
    ),
    "sentence-transformers": (
        "from sentence_transformers import SentenceTransformer\n"
        'model = SentenceTransformer("<this folder>")\n'
        'vectors = model.encode(["A sentence."])'
    ),
    "model2vec": (
        "from model2vec import StaticModel\n"
        'model = StaticModel.from_pretrained("<this folder>")\n'
        'vectors = model.encode(["A sentence."])'
    ),
    "paracomp": (
        "import paracomp\n"
        'encoder = paracomp.load_encoder("<this folder>")\n'
        'vectors = encoder.encode(["A sentence."])'
    ),
}


def _provenance_chain(path: Path, root: Path, depth: int = 4) -> list[dict[str, Any]]:
    """The provenance of the artefact ``path`` and of its parquet inputs, ``depth`` levels
    up (inputs no longer on disk are left out)."""
    from paracomp import artefacts

    if depth == 0 or path.suffix != ".parquet" or not path.is_file():
        return []
    prov = artefacts.provenance(path)
    chain = [prov]
    for name in prov.get("inputs", {}):
        chain += _provenance_chain(root / name, root, depth - 1)
    return chain


def licences(chain: list[dict[str, Any]]) -> dict[str, str]:
    """The catalogue's licence of each dataset or package named in the provenance ``chain``
    (as a dataset, or a folder or file of an input's path)."""
    from paracomp.data.catalog import load

    catalog = load()
    text = json.dumps(chain)
    named = {**catalog.datasets, **catalog.packages}
    return {
        name: spec.licence
        for name, spec in named.items()
        if spec.licence and any(f"{a}{name}{b}" in text for a in '"/' for b in '"/.')
    }


LEADERBOARD = Path("results") / "leaderboard.csv"
SCORES_HEAD = ["| set | score ×100 | 95% interval |", "|---|---|---|"]


def _interval(row: dict[str, Any], column: str) -> str:
    """``low–high`` of ``column``'s interval columns in the leaderboard ``row``, else ""."""
    low, high = row.get(f"{column} ci_low"), row.get(f"{column} ci_high")
    return "" if low is None or high is None else f"{float(low):.1f}–{float(high):.1f}"


def _leaderboard_scores(model: str, path: Path) -> list[str] | None:
    """The model's row of the leaderboard ``path`` with each score's 95% interval where it
    has one (``<column> ci_low``/``ci_high``) and its rank interval; None if not there."""
    import pandas as pd

    from paracomp.tables.leaderboard import HEAD, RANK_COLUMNS, STS_MEAN

    if not model or not path.is_file():
        return None
    frame = pd.read_csv(path)
    if "model" not in frame.columns:
        raise DataError(f"{path}: no column 'model'; the columns are {list(frame.columns)}")
    found = frame[frame["model"] == model]
    if not len(found):
        return None
    row = {k: (None if pd.isna(v) else v) for k, v in found.iloc[0].to_dict().items()}
    sets = [
        c
        for c in frame.columns
        if c not in (*HEAD, *RANK_COLUMNS, "note") and "/" not in c
        and not c.endswith((" ci_low", " ci_high"))
    ]  # fmt: skip
    lines = [
        f"| {c} | {float(row[c]):.1f} | {_interval(row, c)} |" for c in sets if row[c] is not None
    ]
    ranked = frame["rank"].notna().sum() if "rank" in frame.columns else 0
    rank = (
        [
            "",
            f"Rank by {STS_MEAN}: {int(row['rank'])} of {ranked} (95% interval "
            f"{int(row['rank_low'])}–{int(row['rank_high'])} over the joint resamples).",
        ]
        if row.get("rank") is not None and row.get("rank_low") is not None
        else []
    )
    note = ["", str(row["note"])] if row.get("note") else []
    return [
        "Pearson r per sentence-pair set (a yearly STS set: the mean over its subsets), "
        "Spearman ρ per word set, from the leaderboard "
        f"(`{path}`); the intervals are its 95% test-set bootstrap intervals, where it "
        "computes one:",
        "",
        *SCORES_HEAD,
        *lines,
        *rank,
        *note,
    ]


def _scores(model: str, root: Path) -> list[str]:
    """The model's scores (×100): its leaderboard row with their intervals, else its row of
    the evaluator's scores from its evaluation folder (no intervals)."""
    import pandas as pd

    from paracomp.tables.leaderboard import Entry, model_row

    ranked = _leaderboard_scores(model, root / LEADERBOARD)
    if ranked is not None:
        return ranked
    folder = root / "results" / "eval" / model
    if not model or not (folder / "sts.csv").is_file():
        return ["No evaluation of this model was found."]
    sts = list(dict.fromkeys(pd.read_csv(folder / "sts.csv")["dataset"]))
    words = list(dict.fromkeys(pd.read_csv(folder / "wordsim.csv")["dataset"]))
    row = model_row(Entry(model, "", folder), sts, words)
    lines = [
        f"| {name} | {row[name]:.1f} | |"
        for name in [*sts, "sts mean", *words, "wordsim mean"]
        if row.get(name) is not None
    ]
    note = f"\n{row['note']}" if row.get("note") else ""
    return [
        "Pearson r per sentence-pair set (a yearly STS set: the mean over its subsets), "
        "Spearman ρ per word set, as the leaderboard computes them, from "
        f"`{folder}` (the model is not in `{root / LEADERBOARD}`, whose bootstrap gives the "
        "intervals: none here):",
        "",
        *SCORES_HEAD,
        *lines,
        note,
    ]


def render(encoder: Encoder, fmt: str, root: Path) -> str:
    """The card of ``encoder`` exported as ``fmt``."""
    info, t = encoder.info, encoder.tokenisation
    model = info.get("model", "")
    source = Path(info.get("source", ""))
    rows = source / "embeddings.parquet" if source.is_dir() else source
    chain = _provenance_chain(root / rows if not rows.is_absolute() else rows, root)
    found = licences(chain)
    paper = model.split("/")[0] if "/" in model else "(pretrained vectors, no paper)"
    lines = [
        f"# {model or source}",
        "",
        f"Exported by paracomp as **{fmt}**.",
        "",
        f"- paper: {paper}",
        f"- model: `{model or '(not on the leaderboard)'}`; source `{source}`",
        f"- composition: {info.get('composition', '')}"
        + (f"; objective {info['objective']}" if info.get("objective") else ""),
        *(
            [f"- words outside its rows: those of `{info['fallback']}`"]
            if info.get("fallback")
            else []
        ),
        f"- tokenisation: {t.tokenizer}, lowercase {t.lowercase}, OOV policy {t.oov}",
        *(
            [
                f"- length: paracomp composes the first {limit} tokens of a sentence; this "
                f"{fmt} export reads them all (longer sentences encode otherwise)"
            ]
            if fmt != "paracomp" and (limit := getattr(encoder.inner, "max_length", None))
            else []
        ),
        "",
        "## Training",
        "",
        *(
            ["Settings of the run:", "", "```json", json.dumps(encoder.settings, indent=1), "```"]
            if encoder.settings
            else ["Word vectors (no training run of this project's composer)."]
        ),
        "",
        "Data, from the provenance of its rows: "
        + (", ".join(sorted({p.get("dataset", "") for p in chain} - {""})) or "not recorded"),
        "",
        "## Data licences",
        "",
        *(
            [f"- {name}: {licence}" for name, licence in sorted(found.items())]
            or ["None of the catalogue's datasets is named in the provenance."]
        ),
        "",
        "## Scores",
        "",
        *_scores(model, root),
        "",
        "## Loading",
        "",
        "```python",
        LOADING[fmt],
        "```",
        "",
    ]
    return "\n".join(lines)
