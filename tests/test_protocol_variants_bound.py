"""A paper's protocol runs on its paper's benchmark only, and shows there beside the default with its Δ.

- ``bm25:mair`` (MAIR's eval_bm25) on NegConstraint exits 2 with one line naming MAIR and its tasks; nothing
  is written, not even the default model's run named beside it; the Python API refuses the same;
- ``bm25-okapi`` (rank_bm25's BM25Okapi, MultiConIR's own BM25) declares itself a variant of ``bm25`` for
  MultiConIR: the MultiConIR board names the protocol with its Δ vs bm25; on any other board (it runs
  anywhere, as rank_bm25's BM25) it is a model like any other, with no protocol note.
"""

from __future__ import annotations

import math

import pytest
from app_fixtures import write_negconstraint
from conftest import run_cli

import leaderboard
from leaderboard.errors import BadInput

MAIR_TASKS = "mair-dd-2015, mair-dd-2016, mair-dd-2017, mair-fairranking-2021, mair-fairranking-2022"
MULTICONIR_TASKS = ("multiconir-task1", "multiconir-task2", "multiconir-task3", "multiconir-task4-512",
                    "multiconir-task4-1024")  # fmt: skip
OKAPI_PROTOCOL = "MultiConIR's rank_bm25 BM25Okapi (Lu et al., 2025)"


def test_a_protocol_variant_on_another_benchmark_exits_2_naming_its_benchmark(tmp_path):
    write_negconstraint(tmp_path / "negconstraint")
    out = tmp_path / "out"
    ran = run_cli("run", "-m", "bm25", "-m", "bm25:mair", "-t", "negconstraint", "--data-dir",
                  f"negconstraint={tmp_path / 'negconstraint'}", "-o", str(out), env={"COLUMNS": "1000"})  # fmt: skip
    assert ran.returncode == 2, ran.stdout + ran.stderr
    (line,) = ran.stderr.strip().splitlines()  # one line
    assert line == (
        "Error: model 'bm25:mair' is MAIR's eval_bm25 (Sun et al., EMNLP 2024), a protocol variant of bm25 that runs "
        f"only on its paper's benchmark (MAIR: {MAIR_TASKS}), not on negconstraint; run bm25 there instead."
    )
    assert not list(out.rglob("*.json"))  # refused before anything ran, bm25 included
    with pytest.raises(BadInput, match="a protocol variant of bm25 that runs only on its paper's benchmark"):
        leaderboard.evaluate(["bm25:mair"], ["demo"], output=tmp_path / "api")


@pytest.fixture(scope="module")
def boards(tmp_path_factory):
    from leaderboard_tasks.multiconir.fixture import write_fixture

    from leaderboard.app.server.loading import load
    from leaderboard.cli.serve import registered_benchmarks

    root = tmp_path_factory.mktemp("okapi")
    data = write_fixture(root / "multiconir")
    results = root / "results"
    dirs = {task: str(data) for task in MULTICONIR_TASKS}
    leaderboard.evaluate(["bm25", "bm25-okapi"], [*MULTICONIR_TASKS, "demo"], output=results, data_dirs=dirs)
    return load(results, registered_benchmarks(), public=False, persist=False)


def test_multiconirs_own_bm25_shows_on_its_board_beside_bm25_with_its_delta(boards):
    from leaderboard.app.data.filters import Filters
    from leaderboard.app.views.board import TableRequest, board_html

    ranking = boards.ranking("MultiConIR")
    lines = {line.name: line for line in ranking.lines}
    okapi, default = lines["bm25-okapi"], lines["bm25"]
    assert okapi.rank and default.rank and math.isfinite(okapi.aggregate - default.aggregate)
    html = board_html(ranking, TableRequest(Filters(), ()))
    gap = f"{okapi.aggregate - default.aggregate:+.4f}".replace("-", "−")
    assert f"{OKAPI_PROTOCOL} · Δ {gap} vs bm25".replace("'", "&#x27;") in html
    assert "bm25 with Okapi IDF with rank_bm25&#x27;s epsilon floor, text.lower().split() tokens" in html
    assert html.count('class="rev variant"') == 1  # bm25, the default, says nothing of the kind


def test_elsewhere_it_is_a_model_like_any_other(boards):
    from leaderboard.app.data.filters import Filters
    from leaderboard.app.views.board import TableRequest, board_html

    ranking = boards.ranking("demo")
    assert {line.name for line in ranking.lines} >= {"bm25", "bm25-okapi"}
    html = board_html(ranking, TableRequest(Filters(), ()))
    assert 'class="rev variant"' not in html and "MultiConIR" not in html
