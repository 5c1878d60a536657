"""LSNC, the paired win rate and the lexical violation judge, against values worked out by hand."""

import math

import pytest
from leaderboard_judges.lexical import LexicalJudge

from leaderboard.contract.judge import JudgeItem
from leaderboard.metrics.negation import lsnc, lsnc_per_query, paired_wins


@pytest.mark.parametrize(
    "v, k, expected",
    [
        (0, 10, 1.0),  # no violation: fully consistent
        (10, 10, 0.0),  # every retrieved passage violates
        (1, 10, math.log(11 / 2) / math.log(11)),  # 0.710923...
        (0, 100, 1.0),
        (100, 100, 0.0),
        (1, 100, math.log(101 / 2) / math.log(101)),  # 0.849815...
        (4, 10, math.log(11 / 5) / math.log(11)),
    ],
)
def test_lsnc_values(v, k, expected):
    assert lsnc(v, k) == pytest.approx(expected, abs=1e-12)


def test_lsnc_hand_checked_decimals():
    assert lsnc(1, 10) == pytest.approx(0.7109, abs=1e-4)
    assert lsnc(1, 100) == pytest.approx(0.8498, abs=1e-4)
    with pytest.raises(ValueError):
        lsnc(11, 10)


def test_lsnc_counts_only_the_top_k_in_trec_order():
    # ranks: a(0.9) b(0.8) then a tie at 0.5 between 'c' and 'z' ('z' first: ids descending)
    run = {"q": {"a": 0.9, "b": 0.8, "c": 0.5, "z": 0.5}}
    assert lsnc_per_query(run, {"q": {"b"}}, 2)["q"] == pytest.approx(lsnc(1, 2))
    assert lsnc_per_query(run, {"q": {"c"}}, 3)["q"] == 1.0  # 'c' is 4th, outside the top 3
    assert lsnc_per_query(run, {"q": {"z"}}, 3)["q"] == pytest.approx(lsnc(1, 3))
    assert lsnc_per_query({}, {"q": {"a"}}, 10)["q"] == 1.0  # nothing retrieved, nothing violates


def test_paired_wins():
    run = {
        "win": {"sat": 2.0, "bad": 1.0},
        "loss": {"sat": 1.0, "bad": 2.0},
        "sat_missing": {"bad": 1.0},
        "bad_missing": {"sat": 1.0},
        "both_missing": {"other": 1.0},
        "tie_by_id": {"sat": 1.0, "vio": 1.0},  # trec order: 'vio' > 'sat' by id, so 'vio' ranks first
    }
    pairs = {q: (["sat"], ["vio" if q == "tie_by_id" else "bad"]) for q in run}
    wins = paired_wins(run, pairs)
    assert wins == {
        "win": 1.0,
        "loss": 0.0,
        "sat_missing": 0.0,
        "bad_missing": 1.0,
        "both_missing": 0.0,
        "tie_by_id": 0.0,
    }


@pytest.mark.parametrize(
    "query, cue, condition",
    [
        ("Conditions under which aircraft can fly VFR but not IFR.", "but not", "IFR"),
        ("Which kings ruled over Israel but were not founders of a dynasty?", "but were not", "founders of a dynasty"),
        ("Aaron's profile, but don't mention Moses.", "don't", "mention Moses"),
        ("Provide an introduction to Aalborg Municipality without Denmark.", "without", "Denmark"),
        (
            "Renaissance art, excluding the influence of classical antiquity, and later movements",
            "excluding",
            "the influence of classical antiquity",
        ),
        ("Which planets have moons other than Titan and are gas giants?", "other than", "Titan and are gas giants"),
        ("Which rivers flow north?", None, None),
    ],
)
def test_judge_finds_cue_and_condition(query, cue, condition):
    found_cue, found_condition, _ = LexicalJudge().negated_condition(query)
    assert (found_cue, found_condition) == (cue, condition)


def test_judge_keywords_and_violation_rule():
    judge = LexicalJudge()
    _, _, keywords = judge.negated_condition("Which kings ruled over Israel but were not founders of a dynasty?")
    assert keywords == ["dynasti", "founder"]  # stopwords dropped, Snowball stems
    query = "Which kings ruled over Israel but were not founders of a dynasty?"
    passages = {
        "mentions_both": "Omri was the founder of a new dynasty in Israel.",
        "mentions_one": "Ahab ruled the northern kingdom; his dynasty ended violently.",
        "unrelated": "Jericho is an ancient city.",
    }
    items = [JudgeItem("q", query, doc, text) for doc, text in passages.items()]
    # two keywords: both must appear (relevant passages are never sent to a judge: the task skips them)
    assert judge.judge(items) == [True, False, False]


def test_judge_threshold_for_longer_conditions():
    judge = LexicalJudge()
    assert [judge.needed(n) for n in (1, 2, 3, 4, 5, 6)] == [1, 2, 2, 3, 4, 4]
    query = "Parties that did not favor the creation of an independent Irish republic?"
    _, _, keywords = judge.negated_condition(query)
    assert keywords == ["creation", "favor", "independ", "irish", "republ"]  # 5 keywords: 4 needed
    assert judge.violates(query, "the creation of an Irish republic, independent of Britain") is True
    assert judge.violates(query, "an independent Irish state") is False  # three of five keywords
    assert judge.violates("Which rivers flow north?", "north") is None  # no cue: no label
