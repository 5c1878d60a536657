"""Content-word counts, CW buckets and the CW-score correlation, against hand counts and scipy."""

from __future__ import annotations

import itertools
import math

import pytest
from scipy import stats

from leaderboard.metrics.complexity import (
    STOPWORDS,
    STOPWORDS_NAME,
    TOKEN_PATTERN,
    content_words,
    cw_buckets,
    cw_correlation,
    describe,
    describe_strata,
    mean_cw,
    tokens,
)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", 0),
        ("the of and", 0),  # all stopwords
        ("Find a book", 2),  # find, book
        ("Find a book where: The genre is amber.", 5),  # find, book, where, genre, amber
        (
            "The U.S. court's ruling, not the appeal",
            3,
        ),  # court, ruling, appeal; u, s, s are one letter; "not" a stopword
        ("Café au lait, café!", 3),  # café, au, lait: (?u) keeps accented letters; a repeat counts once
        ("covid-19 in 2020", 3),  # covid, 19, 2020
        ("dog dog dog", 1),
    ],
)
def test_content_words_by_hand(text, expected):
    assert content_words(text) == expected


def test_cw_of_five_queries_by_hand_and_their_mean():
    """Eq. 1 of Complexity-Aware Training: unique tokens, not stopwords, more than one character."""
    queries = {
        # repeats: "data" x3 and "Data" are one word -> data, science, course
        "q1": "data science course with data and DATA",
        # one-letter words: "a", "b", "c", "x" never count -> vitamin, deficiency, symptoms
        "q2": "vitamin b deficiency symptoms: a, c, x",
        # stopwords only, plus one-letter -> nothing
        "q3": "is it a or the i",
        # repeats across case and punctuation; "not" and "the" are stopwords -> films, directed, nolan, released, 2010
        "q4": "Films directed by Nolan, not released in 2010; films by NOLAN",
        # all three at once: "Hamlet's" splits into hamlet + s (one letter) -> who, wrote, hamlet, play
        # ("who" is not in bm25s' English list)
        "q5": "who wrote Hamlet, the play? a play that is Hamlet's",
    }
    by_hand = {"q1": 3, "q2": 3, "q3": 0, "q4": 5, "q5": 4}
    assert {q: content_words(t) for q, t in queries.items()} == by_hand
    assert mean_cw(queries.values()) == pytest.approx((3 + 3 + 0 + 5 + 4) / 5)
    assert mean_cw([]) is None


def test_tokenizer_and_stopwords():
    assert tokens("The U.S. court's ruling") == ["the", "u", "s", "court", "s", "ruling"]
    assert TOKEN_PATTERN == r"(?u)\b\w+\b"
    assert {"the", "a", "not", "no", "with"} <= STOPWORDS and "find" not in STOPWORDS
    info = describe()
    assert info["stopwords"] == {"name": STOPWORDS_NAME, "size": len(STOPWORDS)}
    assert info["tokenizer"] == {"pattern": TOKEN_PATTERN, "lowercase": True}
    assert "unique" in info["measure"] and "eq. 1" in info["source"]
    assert describe_strata()["buckets"]


def test_buckets_by_quantile():
    # 8 queries; numpy linear quantiles at .25/.5/.75 of (2,3,5,7,8,9,12,15): 4.5, 7.5, 9.75
    cw = dict(zip("abcdefgh", [2, 3, 5, 7, 8, 9, 12, 15], strict=True))
    assignment, boundaries = cw_buckets(cw)
    assert boundaries == [(2, 3), (5, 7), (8, 9), (12, 15)]
    assert assignment == {
        "a": "cw=2-3",
        "b": "cw=2-3",
        "c": "cw=5-7",
        "d": "cw=5-7",
        "e": "cw=8-9",
        "f": "cw=8-9",
        "g": "cw=12-15",
        "h": "cw=12-15",
    }


def test_buckets_value_on_a_cut_goes_left():
    # quantiles of (1..5) at .25/.5/.75 are exactly 2, 3, 4: right-closed buckets {1,2}, {3}, {4}, {5}
    _, boundaries = cw_buckets(dict(zip("abcde", [1, 2, 3, 4, 5], strict=True)))
    assert boundaries == [(1, 2), (3, 3), (4, 4), (5, 5)]


def test_buckets_with_ties_stay_non_empty():
    # Quantile cuts 1, 1, 2.75: {1}, {}, {2}, {3,4,5}; the empty one is dropped and {3,4,5} split at 3|4,5.
    cw = {f"q{i}": v for i, v in enumerate([1] * 6 + [2, 3, 4, 5])}
    assignment, boundaries = cw_buckets(cw)
    assert boundaries == [(1, 1), (2, 2), (3, 3), (4, 5)]
    assert [assignment[f"q{i}"] for i in range(10)] == ["cw=1"] * 6 + ["cw=2", "cw=3", "cw=4-5", "cw=4-5"]
    # Fewer distinct values than buckets: one bucket per value.
    assert cw_buckets({"a": 4, "b": 4, "c": 9})[1] == [(4, 4), (9, 9)]
    assert cw_buckets({"a": 4, "b": 4}) == ({"a": "cw=4", "b": "cw=4"}, [(4, 4)])
    assert cw_buckets({}) == ({}, [])


def test_every_bucket_non_empty_and_ordered():
    cw = {f"q{i}": v for i, v in enumerate([3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 6, 10, 10, 11, 30])}
    assignment, boundaries = cw_buckets(cw, n_buckets=5)
    assert len(boundaries) == 5
    assert all(lo <= hi for lo, hi in boundaries)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(boundaries))
    labels = set(assignment.values())
    assert len(labels) == 5


def test_correlation_against_scipy_and_by_hand():
    cw = {"a": 1, "b": 2, "c": 3, "d": 4}
    score = {"a": 0.2, "b": 0.4, "c": 0.6, "d": 0.8, "extra": 1.0}  # "extra" has no CW and is ignored
    r, p = cw_correlation(cw, score)
    assert r == pytest.approx(1.0) and p == pytest.approx(0.0, abs=1e-12)
    cw = {"a": 1, "b": 2, "c": 3}
    score = {"a": 1.0, "b": 0.0, "c": 0.5}
    # By hand: x - mean = (-1, 0, 1), y - mean = (.5, -.5, 0): r = -0.5 / sqrt(2 * 0.5) = -0.5
    r, p = cw_correlation(cw, score)
    assert r == pytest.approx(-0.5, abs=1e-12)
    ref = stats.pearsonr([1, 2, 3], [1.0, 0.0, 0.5])
    assert p == pytest.approx(ref.pvalue, abs=1e-12)
    # n = 3: t = r sqrt(1 / (1 - r^2)) with 1 d.f.; p = 1 - 2 atan(|t|) / pi = 2/3 for r = -0.5
    assert p == pytest.approx(1 - 2 * math.atan(0.5 / math.sqrt(0.75)) / math.pi, abs=1e-12)


def test_correlation_undefined_cases():
    assert cw_correlation({"a": 1, "b": 2}, {"a": 0.1, "b": 0.2}) is None
    assert cw_correlation({"a": 1, "b": 1, "c": 1}, {"a": 0.1, "b": 0.2, "c": 0.3}) is None
    assert cw_correlation({"a": 1, "b": 2, "c": 3}, {"a": 0.5, "b": 0.5, "c": 0.5}) is None
