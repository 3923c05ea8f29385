"""Specificity parsers on the real mirror files: sizes, label polarity and counts, the News
train/test overlap, undecodable bytes; mismatched files and unknown labels are errors."""

from pathlib import Path

import numpy as np
import pytest

from paracomp.data.specificity import (
    DOMAINS,
    SpecificitySet,
    read_ko2019_domain,
    read_ko2019_news,
    read_speciteller_news,
    without,
)
from paracomp.errors import DataError


@pytest.fixture(scope="module")
def news(mirror_file) -> SpecificitySet:
    return read_speciteller_news(mirror_file("specificity-news-speciteller/labels.txt").parent)


@pytest.fixture(scope="module")
def ko2019(mirror_file) -> Path:
    return mirror_file("specificity-ko2019/data.txt").parent


def test_news_test_set(news):
    assert (len(news), news.binary) == (885, True)
    assert int(news.labels.sum()) == 483  # -1 = specific
    assert news.sentences[0].startswith("Thousands of queue-hardened Soviets")
    assert news.labels[0] == 1.0  # a long, detailed sentence labelled -1
    assert "clich\ufffd \ufffd s" in news.sentences[650]  # the split UTF-8 character


def test_news_training_set(ko2019):
    train = read_ko2019_news(ko2019)
    assert (len(train), int(train.labels.sum())) == (4342, 2231)  # 2 = specific
    assert train.sentences[1].startswith("Assets of the 400 taxable funds")
    assert train.labels[:3].tolist() == [0.0, 1.0, 0.0]


def test_news_overlap_removed(ko2019, news):
    train = read_ko2019_news(ko2019)
    clean = without(train, news)
    assert len(clean) == 4342 - 362
    assert not set(clean.sentences) & set(news.sentences)
    kept = [i for i, s in enumerate(train.sentences) if s not in set(news.sentences)]
    assert np.array_equal(clean.labels, train.labels[kept])


@pytest.mark.parametrize(
    ("domain", "size", "first"),
    [("twitter", 984, 3.375), ("yelp", 845, None), ("movie", 920, None)],
)
def test_rated_domains(ko2019, domain, size, first):
    data = read_ko2019_domain(ko2019, domain)
    assert (len(data), data.binary) == (size, False)
    assert np.isfinite(data.labels).all()
    if first is not None:
        assert data.labels[0] == first
    assert domain in DOMAINS


def test_errors(tmp_path):
    (tmp_path / "tknsents.txt").write_text("a b\nc d\n")
    (tmp_path / "labels.txt").write_text("-1\n")
    with pytest.raises(DataError, match="2 sentences but 1 labels"):
        read_speciteller_news(tmp_path)
    (tmp_path / "labels.txt").write_text("-1\n0\n")
    with pytest.raises(DataError, match=r"\['0'\]"):
        read_speciteller_news(tmp_path)
    with pytest.raises(DataError, match="domain"):
        read_ko2019_domain(tmp_path, "news")
    (tmp_path / "yelps.txt").write_text("good\n")
    (tmp_path / "yelpv.txt").write_text("high\n")
    with pytest.raises(DataError, match="yelpv.txt"):
        read_ko2019_domain(tmp_path, "yelp")
