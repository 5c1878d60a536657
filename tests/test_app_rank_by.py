"""Ranking by another of a benchmark's declared aggregates, and the filters a reader expects (issue 38.4/38.5):
the choices come from the declaration, never from a list naming a benchmark."""

from __future__ import annotations

import dataclasses
import re

from test_app_board_table import FakeBoard, make_ranking

from leaderboard.app.data import aggregates, url_state
from leaderboard.app.data.filters import SOURCES, Filters, source_of
from leaderboard.app.data.ranking import Ranking
from leaderboard.app.views import board as board_table
from leaderboard.app.views.board_notes import benchmark_summary, board_notes, filter_note
from leaderboard.contract.benchmark import BenchmarkTask, SideAggregate


def _with_side(n: int = 4) -> Ranking:
    """A benchmark that declares a second mean ("mean gap", lower is better) beside its aggregate."""
    found = make_ranking(n, 1)
    side = SideAggregate("mean gap", "gap = mean of the gaps", (BenchmarkTask("t", "gap", "lower", "gap"),))
    found.benchmark = dataclasses.replace(found.benchmark, also=(side,))
    for position, line in enumerate(found.ranked):
        line.side = {"mean gap": None if position == 1 else float(position)}  # m001 has no gap
        line.intervals = {"c0": (0.1, 0.2)}
        line.aggregate_interval, line.p_value = (0.1, 0.9), 0.5
    found.unranked[0].side = {"mean gap": 0.0}  # the best gap, but incomplete on the declared aggregate
    return found


def test_the_choices_are_the_declared_aggregate_then_the_benchmarks_own_means():
    assert aggregates.choices(_with_side()) == ["nDCG@10", "mean gap"]
    assert aggregates.choices(make_ranking(3)) == ["nDCG@10"]  # nothing else declared: no choice offered


def test_ranking_by_a_declared_mean_uses_its_direction_and_keeps_the_declared_score_beside_it():
    declared = _with_side()
    by = aggregates.ranked_by(declared, "mean gap")
    assert by is aggregates.ranked_by(declared, "mean gap")  # derived once per ranking
    assert aggregates.ranked_by(declared, "nDCG@10") is declared and aggregates.ranked_by(declared, "x") is declared
    # lower is better: m000 (gap 0) first, m002 (2), m003 (3); m001 has no gap and u000 is not complete
    assert [(line.name, line.rank, line.aggregate) for line in by.ranked] == [
        ("m000", 1, 0.0),
        ("m002", 2, 2.0),
        ("m003", 3, 3.0),
    ]
    assert [line.name for line in by.unranked] == ["m001", "u000"]
    assert "no mean gap" in by.unranked[0].missing[-1]
    assert by.direction == "lower" and by.aggregate_label == "mean gap"
    # no interval and no test for the chosen mean (†), and the declared aggregate is a column beside it
    assert all(line.aggregate_interval is None and line.p_value is None for line in by.ranked)
    assert [line.marker for line in by.ranked] == ["", "†", "†"]
    assert by.ranked[1].side["nDCG@10"] == declared.ranked[2].aggregate
    assert by.ranked[0].intervals is declared.ranked[0].intervals  # statistics of the declared rows fill both
    # the declared ranking is untouched
    assert [line.rank for line in declared.ranked] == [1, 2, 3, 4] and declared.ranked[0].aggregate == 1.0
    assert aggregates.originals(by, by.ranked[:2]) == [declared.ranked[0], declared.ranked[2]]


def test_the_page_says_what_ranks_it_and_what_the_default_is():
    declared = _with_side()
    board = FakeBoard({"Bench": declared})
    board.benchmark = lambda name: declared.benchmark  # type: ignore[attr-defined]
    by = aggregates.ranked_by(declared, "mean gap")
    assert "ranked by mean gap (chosen; the default is nDCG@10)" in benchmark_summary(board, "Bench", by)  # type: ignore[arg-type]
    assert "ranked by nDCG@10 (the default; also: mean gap, under Rank by)" in benchmark_summary(
        board,  # type: ignore[arg-type]
        "Bench",
        declared,
    )
    html = board_table.board_html(by, board_table.TableRequest())
    header = re.search(r"<thead>(.*?)</thead>", html, re.S).group(1)
    assert "mean gap" in header and "nDCG@10" in header
    assert "Ranked by mean gap: no interval or test" in board_notes(by)


def test_the_choice_and_the_new_filters_round_trip_through_the_url():
    state = url_state.parse("?benchmark=B&by=mean+p-MRR&lic=mit|apache-2.0&open=yes&src=imported|reported")
    assert state.by == "mean p-MRR" and state.licenses == ("mit", "apache-2.0") and state.open_weights == "yes"
    assert state.sources == ("imported", "reported")
    assert url_state.parse("?benchmark=B").by == "" and url_state.parse("").licenses is None


def test_license_open_weights_and_source_filters():
    mit = {"name": "a", "license": "mit", "open_weights": True, "source": "imported"}
    closed = {"name": "b", "license": None, "open_weights": False, "source": "imported"}
    unknown = {"name": "c", "source": "run here"}
    rows = [mit, closed, unknown]
    assert [r["name"] for r in rows if Filters(licenses=("mit",)).keep(r)] == ["a"]
    assert [r["name"] for r in rows if Filters(licenses=("unknown",)).keep(r)] == ["b", "c"]
    assert [r["name"] for r in rows if Filters(open_weights="yes").keep(r)] == ["a"]
    assert [r["name"] for r in rows if Filters(open_weights="no").keep(r)] == ["b"]  # unknown is neither
    assert [r["name"] for r in rows if Filters(sources=("run here",)).keep(r)] == ["c"]
    assert Filters(sources=("run here",)).shows_reported is False and Filters().shows_reported
    assert source_of(None) == "run here" and source_of("run by mteb 2.18, imported") == "imported"
    assert source_of("reported by the model's authors (mteb's `external`), imported") == "reported"
    assert SOURCES == ("run here", "imported", "reported")
    assert "license mit" in filter_note("B", Filters(licenses=("mit",)))
    assert "source imported" in filter_note("B", Filters(sources=("imported",)))


def test_a_license_or_kind_new_since_the_page_was_built_is_never_hidden():
    """The checkboxes offer the values of the board the page was built on: a model loaded later with a license (or
    kind) they do not offer stays shown, and only what the reader unticked is hidden."""
    from leaderboard.app.tabs.board import _filters, shown_values

    offered, current = ["mit"], ["apache-2.0", "mit"]
    assert shown_values(["mit"], offered, current) == ()  # all offered ticked: no filter, the new one shown
    assert shown_values([], ["mit", "unknown"], ["apache-2.0", "mit", "unknown"]) == ()  # none ticked: no filter
    assert shown_values(["mit"], ["mit", "unknown"], ["apache-2.0", "mit", "unknown"]) == ("apache-2.0", "mit")
    new = {"name": "word-overlap", "license": "apache-2.0", "kind": "sparse"}
    filters = _filters(
        ["dense"], ["dense", "sparse"], "any", None, "", licenses=["mit"], all_licenses=current,
        offered_kinds=["dense"], offered_licenses=offered,
    )  # fmt: skip
    assert filters.licenses == () and filters.kinds == () and filters.keep(new)


def test_the_source_filter_hides_or_keeps_the_papers_tier():
    from test_app_board_table import reported

    from leaderboard.app.data.reported_tier import reported_lines

    ranking = make_ranking(2)
    rows = reported_lines(FakeBoard({"Bench": ranking}, [reported("paper-only", 0.9)]), ranking)  # type: ignore[arg-type]
    shown = board_table.board_html(ranking, board_table.TableRequest(Filters(sources=("reported",))), rows)
    assert 'class="reported"' in shown and 'tbody class="ranked"></tbody>' in shown  # run-here rows filtered out
    hidden = board_table.board_html(ranking, board_table.TableRequest(Filters(sources=("run here",))), rows)
    assert 'class="reported"' not in hidden


def test_licenses_are_named_by_their_spdx_id_case_insensitively_and_a_link_apart():
    from leaderboard.app.data.filters import LINKED_LICENSE, UNKNOWN_LICENSE, Filters, license_of

    def named(value):
        return license_of({"license": value})

    # model_meta.json's spellings of one license are one filter entry: its SPDX id
    assert {named(v) for v in ("MIT", "mit", " Mit ")} == {"MIT"}
    assert named("apache-2.0") == "Apache-2.0" and named("cc-by-nc-4.0") == "CC-BY-NC-4.0"
    assert named("Gemma") == named("gemma") == "gemma"  # not an SPDX id: its name, in lower case
    for missing in (None, "", "not specified", "Not Specified", "unknown", "none", 3):
        assert named(missing) == UNKNOWN_LICENSE, missing
    url = "https://huggingface.co/nvidia/llama-embed-nemotron-8b/blob/main/LICENSE"
    assert named(url) == LINKED_LICENSE  # not a model's name: a license at a link, apart from the names
    assert Filters(licenses=("MIT",)).keep({"license": "mit"}) and not Filters(licenses=("MIT",)).keep({})


def test_a_row_whose_file_many_models_share_names_three_and_counts_the_rest():
    found = make_ranking(2)
    line = found.ranked[0]
    line.identical = {"c0": ["x1", "x2", "x3", "x4", "x5"]}
    text = board_table.identical_span(line, found)
    assert "same source file as x1, x2, x3 and 2 more (1 of 2 columns)" in text and "x4, x5" in text  # tooltip


def test_a_subset_of_tasks_ranks_by_the_mean_rank_over_them_as_overall_does():
    import numpy as np
    import pytest
    import scipy.stats

    from leaderboard.app.data.ranking import Column, Line
    from leaderboard.contract.benchmark import Benchmark

    specs = tuple(BenchmarkTask(f"t{i}", "ndcg_at_10", "higher", f"T{i}") for i in range(3))
    benchmark = Benchmark("Three", "three tasks", "https://example.org", specs, aggregate_label="mean nDCG@10")
    columns = [Column(f"c{i}", s, s.label, s.metric, "") for i, s in enumerate(specs)]
    rng = np.random.default_rng(7)
    values = np.round(rng.uniform(size=(12, 3)), 2)  # rounded: ties on some task
    ranked, unranked = [], []
    for i, row in enumerate(values):
        line = Line((f"m{i:02d}", ""), {"name": f"m{i:02d}"}, "", "")
        line.values = {f"c{j}": float(v) for j, v in enumerate(row)}
        if i == 11:  # complete on T0 and T2 only: not ranked by the benchmark, ranked over those two
            line.values["c1"] = None
            unranked.append(line)
        else:
            line.aggregate = float(row.mean())
            ranked.append(line)
    ranked.sort(key=lambda line: -line.aggregate)
    for rank, line in enumerate(ranked, start=1):
        line.rank = rank
    declared = Ranking(benchmark, columns, ranked, unranked, 3)
    assert aggregates.task_choices(declared) == ["T0", "T1", "T2"]
    assert aggregates.over_tasks(declared, ("T0", "T1", "T2")) is declared  # every task: the benchmark's own
    assert aggregates.chosen_tasks(declared, ("T2", "nope", "T0")) == ("T0", "T2")
    found = aggregates.over_tasks(declared, ("T0", "T2"))
    assert aggregates.base(found) is declared and found.direction == "lower"
    # independently: scipy's ranks per task (ties share the better rank), averaged, over the 12 models
    chosen = values[:, [0, 2]]
    per_task = np.column_stack([scipy.stats.rankdata(-chosen[:, j], method="min") for j in range(2)])
    mean_rank = {f"m{i:02d}": per_task[i].mean() for i in range(12)}
    assert len(found.ranked) == 12 and not found.unranked
    assert [line.aggregate for line in found.ranked] == sorted(mean_rank.values())
    for line in found.ranked:
        assert line.aggregate == pytest.approx(mean_rank[line.name])
        better = sum(1 for other in mean_rank.values() if other < mean_rank[line.name])
        assert line.rank == better + 1
        assert line.side["mean score over the 2 tasks"] == pytest.approx(chosen[int(line.name[1:])].mean())
    # one task: its own order, and models without that task's value are listed unranked
    only = aggregates.over_tasks(declared, ("T1",))
    assert [line.name for line in only.unranked] == ["m11"]
