"""The corpus chain's steps on 400 real Bible verses: artefacts, provenance, selection rules."""

from __future__ import annotations

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from paracomp import artefacts
from paracomp.artefacts import Provenance
from paracomp.corpus import steps
from paracomp.corpus.build import BILINGUAL_PAIRS
from paracomp.data.catalog import load
from paracomp.data.parsers import parse_set
from paracomp.papers.elgohary2016.stats import DESCRIPTIONS, training_set_stats


@pytest.fixture(scope="module")
def chain(tmp_path_factory, bible_sample):
    folder = tmp_path_factory.mktemp("chain")
    sentences = folder / "bilingual_sentences.parquet"
    artefacts.write(bible_sample, sentences, BILINGUAL_PAIRS, Provenance("s", "bible", {}, {}))
    steps.align(sentences, folder / "alignments.parquet", model=3)
    steps.phrase_table(
        sentences, folder / "alignments.parquet", folder / "pt.parquet", max_length=7
    )
    return folder


@pytest.mark.slow
def test_alignment_artefact_is_cached_with_its_caveat(chain):
    aligned = pq.read_table(chain / "alignments.parquet")
    assert aligned.column_names == ["id", "e2f", "f2e"] and aligned.num_rows == 400
    assert "no seed" in artefacts.provenance(chain / "alignments.parquet")["notes"]


@pytest.mark.slow
def test_phrase_table_probabilities_are_normalised(chain):
    table = pq.read_table(chain / "pt.parquet").to_pandas()
    assert len(table) > 10_000
    assert table.groupby("es")["p_en_given_es"].sum().round(9).eq(1).all()
    assert table.groupby("en")["p_es_given_en"].sum().round(9).eq(1).all()
    assert ((table["lex_en_given_es"] > 0) & (table["lex_en_given_es"] <= 1)).all()
    assert (table["en"].str.split().str.len() <= 7).all()
    prov = artefacts.provenance(chain / "pt.parquet")
    assert prov["config"]["symmetrization"] == "grow-diag-final-and" and len(prov["inputs"]) == 2


@pytest.mark.slow
def test_bilingual_phrase_selection_obeys_the_rules(chain):
    out = chain / "biphr.parquet"
    rules = {"min_count": 2, "min_prob": 0.1, "min_length": 2, "max_length": 5, "max_pairs": 500}
    steps.bilingual_phrases(chain / "pt.parquet", out, rules=rules, seed=3)
    picked = pq.read_table(out).to_pandas()
    table = pq.read_table(chain / "pt.parquet").to_pandas().set_index(["en", "es"])
    assert len(picked) == 500
    rows = table.loc[list(zip(picked["en"], picked["es"]))]
    assert (rows["count"] >= 2).all() and (rows["p_es_given_en"] >= 0.1).all()
    assert picked["len_en"].between(2, 5).all() and picked["len_es"].between(2, 5).all()
    steps.bilingual_phrases(chain / "pt.parquet", chain / "again.parquet", rules=rules, seed=3)
    assert pq.read_table(chain / "again.parquet").equals(pq.read_table(out))


@pytest.mark.slow
def test_pivot_paraphrases_and_stats(chain):
    out = chain / "mono.parquet"
    rules = {
        "min_count": 1,
        "min_translation_prob": 0.0,
        "min_prob": 0.05,
        "top_k": 5,
        "max_pairs": None,
    }
    steps.pivot_paraphrases(chain / "pt.parquet", out, rules=rules)
    mono = pq.read_table(out).to_pandas()
    assert len(mono) > 100 and (mono["s1"] != mono["s2"]).all()
    assert (mono["score"] >= 0.05).all() and (mono.groupby("s1").size() <= 5).all()
    stats = training_set_stats({"mono": out, "bisent": chain / "bilingual_sentences.parquet"})
    assert stats["rows"]["bisent"]["examples"] == 400
    # the data column names the raw corpus, followed through the pivot and the phrase table
    bible = f"(from {DESCRIPTIONS['bible']}): "
    assert bible in stats["data"]["bisent"] and bible in stats["data"]["mono"]
    assert stats["rows"]["mono"]["avg_length"] == pytest.approx(
        (mono["len1"].sum() + mono["len2"].sum()) / (2 * len(mono))
    )


@pytest.mark.slow
def test_sick_bigram_filter_and_samples(chain, mirror, tmp_path):
    spec = load().set("sick2014")
    sick = tmp_path / "sick.parquet"
    artefacts.write(
        parse_set(spec, "mirror", mirror / "sick2014"),
        sick,
        artefacts.SENTENCE_PAIRS,
        Provenance("sick2014", "mirror", {}, {}),
    )
    out = tmp_path / "filtered.parquet"
    steps.bigram_filtered(chain / "bilingual_sentences.parquet", sick, out)
    kept = pq.read_table(out)
    assert 0 < kept.num_rows < 400
    # "a man" is one of the most frequent SICK bigrams: no kept verse contains it
    assert not pc.any(pc.match_substring(kept["en"], "a man ")).as_py()
    small, large = tmp_path / "s.parquet", tmp_path / "l.parquet"
    steps.sampled(chain / "bilingual_sentences.parquet", small, fraction=None, n=50, seed=1)
    steps.sampled(chain / "bilingual_sentences.parquet", large, fraction=None, n=200, seed=1)
    assert set(pq.read_table(small)["id"].to_pylist()) <= set(
        pq.read_table(large)["id"].to_pylist()
    )


def test_europarl_style_parallel_text(tmp_path):
    from paracomp.corpus.build import bilingual_sentences, read_parallel_text
    from paracomp.errors import DataError

    en, es = tmp_path / "ep.en", tmp_path / "ep.es"
    en.write_text("Resumption of the session\n\nI declare resumed the session.\n")
    es.write_text("Reanudación del período de sesiones\nHola\nDeclaro reanudado el período.\n")
    pairs = list(read_parallel_text(en, es))
    assert [p[0] for p in pairs] == ["1", "2", "3"]
    table = bilingual_sentences(pairs)  # the pair with an empty English line is cleaned away
    assert table["id"].to_pylist() == ["1", "3"]
    assert table["en"][1].as_py() == "i declare resumed the session ."
    es.write_text("uno\n")
    with pytest.raises(DataError, match=r"ep\.es: ends after line 1, its other side has line 2"):
        list(read_parallel_text(en, es))
