"""The board over the real mteb results (../shared/data/mteb-results), imported: every imported number labelled for
what it is, and FollowIR ranked by its declared mean p-MRR or by the paper's score.

Expected values are read here from the raw mteb files, independently of the importer and the board."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from conftest import SHARED_DATA, run_cli

from leaderboard.app.data import aggregates
from leaderboard.app.data.reported_tier import reported_lines
from leaderboard.app.server.loading import load
from leaderboard.app.views import board as board_table
from leaderboard.app.views.board_notes import board_notes
from leaderboard.app.views.compare import comparison_html, plain_difference_html

REAL = SHARED_DATA / "mteb-results" / "results"
REPOSITORY = "https://github.com/embeddings-benchmark/results"
COMMIT = "f4cc6c8b365a3c779dbc708d6affe0b0355b2ddf"
FOLLOWIR = ("Robust04InstructionRetrieval", "News21InstructionRetrieval", "Core17InstructionRetrieval")

pytestmark = pytest.mark.skipif(not REAL.is_dir(), reason=f"real mteb results not found at {REAL}")


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    from conftest import REPO

    from leaderboard.cli.serve import registered_benchmarks

    root = tmp_path_factory.mktemp("labels") / "results"
    ran = run_cli("import", str(REAL), "--repository", REPOSITORY, "--commit", COMMIT, "-o", str(root))
    assert ran.returncode == 0, ran.stderr
    (root / "reported").mkdir()
    for paper in (REPO / "submissions" / "reported").glob("*.json"):  # the papers tier (InF-IR's FollowIR table)
        (root / "reported" / paper.name).write_bytes(paper.read_bytes())
    return load(root, registered_benchmarks(), public=False, persist=False)


def _raw(path):
    return json.loads(path.read_text())


def test_byte_identical_source_files_of_two_models_are_flagged_on_both_rows(board):
    ranking = board.ranking("IFIR", with_stats=False)
    tasks = [c.spec.task.removeprefix("mteb:") for c in ranking.columns]
    lines = {line.name: line for line in ranking.lines}
    a, b = lines["GritLM/GritLM-7B"], lines["intfloat/e5-mistral-7b-instruct"]
    # the files the board's rows use, compared byte for byte
    grit, e5 = (REAL.parent / line.chosen[ranking.columns[0].key]["imported_from"]["file"] for line in (a, b))
    identical = [t for t in tasks if (grit.parent / f"{t}.json").read_bytes() == (e5.parent / f"{t}.json").read_bytes()]
    assert identical, "the raw files are no longer identical"
    flagged = {c.spec.task.removeprefix("mteb:") for c in ranking.columns if c.key in a.identical}
    assert flagged == set(identical) and set(a.identical) == set(b.identical)
    assert all(others == ["intfloat/e5-mistral-7b-instruct"] for others in a.identical.values())
    # every file of the score is one blob: one row, one rank, both names on it (and a search for either finds it)
    assert len(identical) == len(tasks)
    assert a in ranking.ranked and b not in ranking.ranked and b in ranking.copied and b in ranking.lines
    assert a.copies == [b.name] and b.copy_of == a.name and b.rank == a.rank == 1
    assert [line.rank for line in ranking.ranked] == list(range(1, len(ranking.ranked) + 1))  # no tie of the two
    html = board_table.board_html(ranking, board_table.TableRequest())
    row = re.search(rf"<tr>(?:(?!</tr>).)*{re.escape(a.name)}(?:(?!</tr>).)*</tr>", html, re.S).group(0)
    assert b.name in row and "byte-identical result files, one row" in row
    assert html.count(f">{b.name}</a>") == 1  # named on that row only
    from leaderboard.app.data.filters import Filters

    found = board_table.board_html(ranking, board_table.TableRequest(Filters(search="e5-mistral")))
    assert a.name in found and "No results yet" not in found
    assert all(others == ["GritLM/GritLM-7B"] for others in b.identical.values())
    assert not any(line.identical for line in ranking.lines if line not in (a, b))  # no other model shares a file
    assert "byte-identical" in board_notes(ranking)


def test_the_papers_tier_names_mtebs_run_never_reproduced(board):
    ranking = board.ranking("FollowIR", with_stats=False)
    rows = reported_lines(board, ranking)
    compared = [row for row in rows if row.reproduced is not None and row.difference is not None]
    assert compared and all(row.reproduced.imported for row in compared)  # every run beside them is mteb's
    html = board_table.board_html(ranking, board_table.TableRequest(page=10**6), rows)
    tier = re.search(r'<tbody class="reported">(.*?)</tbody>', html, re.S).group(1)
    deltas = re.findall(r'<span class="delta">([^<]*)</span>', tier)
    assert deltas and not any("reproduced" in d for d in deltas)
    grit = next(row for row in compared if row.model == "GritLM/GritLM-7B")
    version = grit.reproduced.imported.removesuffix(", imported")
    assert version.startswith("run by mteb ")
    assert f"{version} {grit.reproduced.aggregate:.4f} · Δ +{grit.difference:.4f}" in deltas


def test_rows_on_another_dataset_revision_show_their_values_greyed_with_the_revision(board):
    ranking = board.ranking("FollowIR", with_stats=False)
    majority = {t: Counter(_raw(p)["dataset_revision"] for p in REAL.glob(f"*/*/{t}.json")) for t in FOLLOWIR}
    column = next(c for c in ranking.columns if c.spec.task.endswith(FOLLOWIR[2]) and c.spec.in_aggregate)
    other = [line for line in ranking.unranked if column.key in line.other_data]
    assert other
    for line in other:
        folder = next(REAL.glob(f"{line.name.replace('/', '__')}/*/{FOLLOWIR[2]}.json"), None)
        if folder is None:
            continue
        data = _raw(folder)
        assert data["dataset_revision"] != majority[FOLLOWIR[2]].most_common(1)[0][0]
        assert line.other_data[column.key] == f"dataset revision {data['dataset_revision'][:8]}"
        assert line.values[column.key] is not None and line.rank is None
    html = board_table.board_html(ranking, board_table.TableRequest(page=10**6))
    cell = re.search(r'<td[^>]*class="other-data"[^>]*>(.*?)</td>', html, re.S)
    assert cell and re.search(r'<span class="v">−?\d\.\d{4}</span><span class="od">dataset revision', cell.group(1))
    assert "other data" in board_notes(ranking)


def test_followir_ranked_by_mean_p_mrr_and_by_the_papers_score_match_the_raw_files(board):
    declared = board.ranking("FollowIR", with_stats=False)
    assert aggregates.choices(declared) == ["mean p-MRR", "FollowIR score"]  # mteb's main score first
    for line in declared.ranked[:10]:
        folder = line.chosen[declared.columns[0].key]["imported_from"]["file"].rsplit("/", 1)[0]
        files = [_raw(REAL.parent / folder / f"{t}.json") for t in FOLLOWIR]
        # mteb 1's first files hold a "test" group with p-MRR only
        values = [f["scores"]["test"][0]["p-MRR"] if "scores" in f else f["test"]["p-MRR"] for f in files]
        assert line.aggregate == pytest.approx(sum(values) / 3, abs=1e-12), line.name
    by = aggregates.ranked_by(declared, "FollowIR score")
    assert {line.key for line in by.ranked} <= {line.key for line in declared.ranked}
    metrics = ("map_at_1000", "ndcg_at_5", "map_at_1000")  # on the original instructions
    for line in by.ranked[:10]:
        folder = line.chosen[declared.columns[0].key]["imported_from"]["file"].rsplit("/", 1)[0]
        entries = [_raw(REAL.parent / folder / f"{t}.json")["scores"]["test"][0] for t in FOLLOWIR]
        values = [(e.get("og") or e["individual"]["original"])[m] for e, m in zip(entries, metrics, strict=True)]
        assert line.aggregate == pytest.approx(sum(values) / 3, abs=1e-12), line.name
    for ranking in (declared, by):
        means = [line.aggregate for line in ranking.ranked]
        assert means == sorted(means, reverse=True) and ranking.ranked[0].rank == 1


def test_compare_of_two_imported_models_shows_the_plain_difference(board):
    ranking = board.ranking("FollowIR", with_stats=False, all_revisions=True)
    a, b = ranking.ranked[0], ranking.ranked[1]
    found = board.comparison("FollowIR", a.key, b.key, subsets=False)
    assert not found.tasks  # no per-query values: nothing tested
    plain = plain_difference_html(a.name, b.name, a, b, ranking.columns, {t for t, _ in found.skipped})
    html = comparison_html(a.name, b.name, found.ordered(ranking), found.problems(), plain=plain)
    assert "No task with per-query scores" not in html and "no interval: imported" in html
    column = ranking.columns[0]
    difference = a.values[column.key] - b.values[column.key]
    assert f"{difference:+.4f}".replace("-", "−") in html
    assert html.count(">no interval: imported<") == sum(
        1 for c in ranking.columns if a.values.get(c.key) is not None and b.values.get(c.key) is not None
    )


def test_the_csv_says_which_values_are_on_other_data_or_from_an_identical_file(board):
    from leaderboard.app.data.filters import Filters
    from leaderboard.app.views.render import csv_frame

    ifir = csv_frame(board.ranking("IFIR", with_stats=False), Filters())
    copies = [c for c in ifir.columns if c.endswith(":identical_source_of")]
    assert copies and set(ifir[copies[0]]) == {"intfloat/e5-mistral-7b-instruct", "GritLM/GritLM-7B"}
    followir = csv_frame(board.ranking("FollowIR", with_stats=False), Filters())
    notes = [c for c in followir.columns if c.endswith(":ci_note")]
    other = followir[followir[notes[0]].str.startswith("computed on dataset revision", na=False)]
    assert len(other) and other.iloc[0][notes[0].removesuffix(":ci_note")] is not None
    assert (other["rank"].isna()).all()


def test_the_model_page_gives_each_followir_aggregate_with_its_rank(board):
    """Qwen3-Embedding-0.6B on FollowIR: its rank by the mean p-MRR and by the paper's score, both on its page."""
    from leaderboard.app.views.model import model_page_html

    name = "Qwen/Qwen3-Embedding-0.6B"
    declared = board.ranking("FollowIR", with_stats=False)
    by_paper = aggregates.ranked_by(declared, "FollowIR score")
    ranks = {}
    for label, ranking in (("mean p-MRR", declared), ("FollowIR score", by_paper)):
        (line,) = [line for line in ranking.ranked if line.name == name]
        better = [other for other in ranking.ranked if other.aggregate > line.aggregate]  # rank = 1 + those ahead
        assert line.rank == len(better) + 1
        ranks[label] = f"#{line.rank} of {len(ranking.ranked)}"
    html = model_page_html(board, name)
    for label, rank in ranks.items():
        row = re.search(rf'<tr data-aggregate="{re.escape(label)}">(.*?)</tr>', html, re.S)
        assert row and rank in row.group(1) and "no interval: run by mteb" in row.group(1), (label, rank)
    assert ranks["mean p-MRR"] != ranks["FollowIR score"]


def test_every_benchmark_board_has_a_cite_panel_with_the_benchmark_and_its_tasks(board):
    from leaderboard.app.views.board_notes import cite_html
    from leaderboard.app.views.render import esc as html_escape
    from leaderboard.contract.citation import benchmark_bibtex

    for benchmark in board.benchmarks:
        if board.ranking(benchmark.name, with_stats=False) is None:
            continue
        html = cite_html(board, benchmark)
        assert 'id="board-cite"' in html and "Copy BibTeX" in html, benchmark.name
        first_line = benchmark_bibtex(benchmark).splitlines()[0]
        assert html_escape(first_line) in html, benchmark.name  # as `leaderboard cite` prints it
    # each task paper once, however many of its tasks the benchmark has (BRIGHT: 12 tasks, one paper)
    bright = cite_html(board, board.benchmark("BRIGHT"))
    assert bright.count(html_escape("@article{su2024bright")) == 1
    followir = cite_html(board, board.benchmark("FollowIR"))
    assert followir.count(html_escape("@misc{weller2024followir")) == 1
