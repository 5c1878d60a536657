"""The real mteb results (../shared/data/mteb-results), imported, on the board: which models rank, and how each row says
it is a run made by mteb.

The expected sets are computed here from the raw files, independently of the importer and the board.
"""

from __future__ import annotations

import json
import math
import shutil
from collections import Counter
from pathlib import Path

import pytest
from conftest import SHARED_DATA, run_cli
from mteb_fixtures import write_mteb_folder

from leaderboard.app.data.filters import OPTIONAL_COLUMNS, Filters
from leaderboard.app.data.imported_runs import EXTERNAL_REASON
from leaderboard.app.server.loading import load
from leaderboard.app.views.about import about_html
from leaderboard.app.views.board import EXTRA_COLUMNS, TableRequest, board_html
from leaderboard.app.views.board_notes import IMPORTED_NOTE, board_notes
from leaderboard.app.views.provenance import provenance_html

REAL = SHARED_DATA / "mteb-results" / "results"
REPOSITORY = "https://github.com/embeddings-benchmark/results"
COMMIT = "f4cc6c8b365a3c779dbc708d6affe0b0355b2ddf"
FOLLOWIR = {  # task -> the metric of the FollowIR paper's score, the board's other aggregate (leaderboard_mteb)
    "Robust04InstructionRetrieval": "map_at_1000",
    "News21InstructionRetrieval": "ndcg_at_5",
    "Core17InstructionRetrieval": "map_at_1000",
}

pytestmark = pytest.mark.skipif(not REAL.is_dir(), reason=f"real mteb results not found at {REAL}")


def raw(path: Path) -> dict:
    return json.loads(path.read_text())


def model_name(folder: Path) -> str:
    meta = folder / "model_meta.json"
    return raw(meta)["name"] if meta.exists() else folder.parent.name.replace("__", "/")


def original_value(entry: dict, metric: str) -> float | None:
    """A FollowIR metric on the original instructions, in either layout mteb wrote (2.x og, 1.x individual.original)."""
    group = entry.get("og") or (entry.get("individual") or {}).get("original") or {}
    return group.get(metric)


def expected_followir() -> tuple[set[str], dict[str, str]]:
    """The models with all three FollowIR tasks on each task's most common dataset revision (with the metric)."""
    files = {task: sorted(REAL.glob(f"*/*/{task}.json")) for task in FOLLOWIR}
    majority = {
        task: Counter(raw(p)["dataset_revision"] for p in paths).most_common(1)[0][0] for task, paths in files.items()
    }
    has: dict[str, set[str]] = {}
    why: dict[str, str] = {}
    for task, paths in files.items():
        for path in paths:
            data, name = raw(path), model_name(path.parent)
            entry = (data.get("scores") or {}).get("test", [{}])[0]
            if data["dataset_revision"] != majority[task]:
                why[name] = "other data"
            elif original_value(entry, FOLLOWIR[task]) is None:
                why.setdefault(name, "no metric")
            else:
                has.setdefault(name, set()).add(task)
    ranked = {name for name, tasks in has.items() if tasks == set(FOLLOWIR)}
    return ranked, {name: reason for name, reason in why.items() if name not in ranked}


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("board")
    ran = run_cli("import", str(REAL), "--repository", REPOSITORY, "--commit", COMMIT, "-o", str(tmp / "results"))
    assert ran.returncode == 0, ran.stderr
    return tmp / "results"


@pytest.fixture(scope="module")
def board(imported, tmp_path_factory):
    from leaderboard.cli.serve import registered_benchmarks

    return load(imported, registered_benchmarks(), public=False, persist=False)


def mteb_main_scores() -> dict[str, float]:
    """Each model's mean of the three FollowIR tasks' main scores, as mteb reads its own files
    (``TaskResult.from_disk(...).get_score()``), over the models with all three on each task's most common
    dataset revision (results on other data are not comparable)."""
    import logging
    import warnings

    from mteb import TaskResult

    scores: dict[str, dict[str, float]] = {}
    for task in FOLLOWIR:
        paths = sorted(REAL.glob(f"*/*/{task}.json"))
        majority = Counter(raw(p)["dataset_revision"] for p in paths).most_common(1)[0][0]
        for path in paths:
            if raw(path)["dataset_revision"] != majority:
                continue
            logging.disable(logging.WARNING)  # mteb warns about every old file it converts
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    value = TaskResult.from_disk(path).get_score()
            finally:
                logging.disable(logging.NOTSET)
            scores.setdefault(model_name(path.parent), {})[task] = value
    return {name: sum(found.values()) / 3 for name, found in scores.items() if len(found) == 3}


def test_followir_ranks_by_mtebs_main_score_in_mtebs_order(board):
    """mteb ranks FollowIR by its tasks' main score, p-MRR: the board's default ranking is that order, read from the
    raw files by mteb itself."""
    import mteb

    assert {mteb.get_task(task).metadata.main_score for task in FOLLOWIR} == {"p-MRR"}
    expected = mteb_main_scores()
    order = sorted(expected, key=lambda name: (-expected[name], name))
    ranking = board.ranking("FollowIR")
    assert ranking.aggregate_label == "mean p-MRR"
    assert [line.name for line in ranking.ranked] == order
    for line in ranking.ranked:
        assert line.aggregate == pytest.approx(expected[line.name], abs=1e-12), line.name
    # the 158 models the paper's score ranks are among them, in the same order
    paper_ranked, _ = expected_followir()
    assert len(paper_ranked) == 158 and paper_ranked < set(order)
    shown = [line.name for line in ranking.ranked if line.name in paper_ranked]
    assert shown == [name for name in order if name in paper_ranked]


def test_followir_by_the_papers_score_ranks_the_158_models_with_all_three_tasks_on_one_dataset_revision(board):
    from leaderboard.app.data import aggregates

    declared = board.ranking("FollowIR")
    ranking = aggregates.ranked_by(declared, "FollowIR score")
    expected, unranked = expected_followir()
    assert len(expected) == 158
    assert {line.name for line in ranking.ranked} == expected and len(ranking.ranked) == 158
    # among the others: 33 ran on mteb 2's revisions (listed, unranked, with why), 9 hold p-MRR only (ranked by
    # the mean p-MRR, without the paper's score)
    assert Counter(unranked.values()) == {"other data": 33, "no metric": 9}
    assert {line.name for line in declared.unranked} == {n for n, why in unranked.items() if why == "other data"}
    assert {n for n, why in unranked.items() if why == "no metric"} <= {line.name for line in declared.ranked}
    for line in declared.unranked:
        text = "; ".join(line.missing)
        assert "computed on other data (dataset revision" in text, text
    paper = {}  # model -> the three files' own values of the paper's metrics
    for task, metric in FOLLOWIR.items():
        for path in REAL.glob(f"*/*/{task}.json"):
            entry = (raw(path).get("scores") or {}).get("test", [{}])[0]
            paper.setdefault(model_name(path.parent), []).append(original_value(entry, metric))
    for line in ranking.ranked:  # the paper's score is their mean
        assert line.aggregate == pytest.approx(sum(paper[line.name]) / 3, abs=1e-12), line.name
        assert line.imported and line.imported.startswith("run by mteb ")


def test_bright_ifir_and_mfollowir_boards_show_their_models(board):
    domains = [t.task for t in board.benchmark("BRIGHT").tasks]
    with_bright = {model_name(p.parent) for task in domains for p in REAL.glob(f"*/*/{task}.json")}
    bright = board.ranking("BRIGHT")
    assert {line.name for line in bright.lines} == with_bright and len(bright.ranked) >= 10
    ifir = board.ranking("IFIR")
    # every model is ranked; two whose files are byte-identical are one row (the copy: ``copied``)
    ranked = {line.name for line in ifir.ranked + ifir.copied}
    assert ranked == {model_name(p.parent) for p in REAL.glob("*/*/IFIRAila.json")}
    assert len(ifir.copied) == 1 and ifir.copied[0].copy_of in {line.name for line in ifir.ranked}
    mfollowir = board.ranking("mFollowIR")  # the repository holds only the cross-lingual task: shown, not ranked
    (line,) = mfollowir.lines
    assert line.name == "VPLabs/SearchMap_Preview" and line.rank is None
    cross = next(c for c in mfollowir.columns if c.spec.task == "mFollowIRCrossLingual" and c.spec.subset == "default")
    source = raw(next(REAL.glob("*/*/mFollowIRCrossLingualInstructionRetrieval.json")))
    mean = sum(e["main_score"] for e in source["scores"]["test"]) / 3
    assert math.isclose(line.values[cross.key], mean, abs_tol=1e-12)
    assert any(m.startswith("mFollowIR: no result") for m in line.missing)


def test_each_imported_row_says_run_by_mteb_links_its_file_and_is_marked_dagger(board):
    ranking = board.ranking("FollowIR")
    html = board_html(ranking, TableRequest(Filters(), OPTIONAL_COLUMNS))
    first = ranking.ranked[0]
    version = first.imported.removeprefix("run by mteb ").split(",")[0]
    assert f"run by mteb {version}, imported †" in html
    assert f'href="{REPOSITORY}/blob/{COMMIT}/results/' in html
    assert first.marker == "†" and all(line.marker == "†" for line in ranking.ranked)  # #1 too: never tested
    assert "no interval: run by mteb" in html  # said once per row (†), each cell's title says why
    notes = board_notes(ranking)
    assert IMPORTED_NOTE.split(":")[0].replace("†", "&dagger;") in notes or "† run by mteb, imported" in notes
    provenance = provenance_html(board, [t.task for t in ranking.benchmark.tasks])
    assert "run by mteb" in provenance and "none in the file" in provenance  # undated files say so
    about = about_html(board)
    assert "dataset revision" in about and "external" in about and "Zero-shot" in about


def test_model_columns_come_from_model_meta(board):
    ranking = board.ranking("FollowIR")
    line = next(line for line in ranking.ranked if line.name == "intfloat/e5-large")
    meta = raw(next(REAL.glob("intfloat__e5-large/4*/model_meta.json")))
    assert line.info["n_parameters"] == meta["n_parameters"] and line.info["embedding_dim"] == meta["embed_dim"]
    assert line.info["max_length"] == meta["max_tokens"] and line.info["license"] == meta["license"]
    assert line.info["open_weights"] is meta["open_weights"] and line.info["release_date"] == meta["release_date"]
    html = board_html(ranking, TableRequest(Filters(search="intfloat/e5-large"), EXTRA_COLUMNS))
    for header in ("License", "Open weights", "Released", "Zero-shot", "Dimension", "Max tokens"):
        assert f'<span class="h">{header}</span>' in html
    assert meta["license"] == "apache-2.0"  # shown by its SPDX id
    assert f">{meta['release_date']}<" in html and ">Apache-2.0<" in html


def test_zero_shot_follows_mtebs_rule_and_filters(board):
    from mteb.models.model_meta import ModelMeta

    ranking = board.ranking("mteb:SciFact (task in no benchmark)")
    assert ranking is not None
    statuses = Counter(line.zero_shot for line in ranking.lines)
    assert statuses[False] and statuses[True] and statuses[None]  # models trained on SciFact exist
    folders = {(model_name(p.parent), p.parent.name): p.parent for p in REAL.glob("*/*/SciFact.json")}
    checked = 0
    for line in ranking.lines:
        meta_file = folders[line.key] / "model_meta.json"
        if not meta_file.exists():
            assert line.zero_shot is None
            continue
        meta = raw(meta_file)
        trained = meta.get("training_datasets")
        meta |= {"adapted_from": None, "training_datasets": None if trained is None else set(trained)}
        # mteb's own rule on the same model_meta (mteb adds an adapted_from model's data from its own registry)
        assert line.zero_shot == ModelMeta.model_construct(**meta).is_zero_shot_on(["SciFact"]), line.name
        checked += 1
    assert checked > 50
    only = [line for line in ranking.lines if Filters(zero_shot="only").keep(line.info)]
    known = [line for line in ranking.lines if Filters(zero_shot="known").keep(line.info)]
    assert {line.zero_shot for line in only} == {True} and None not in {line.zero_shot for line in known}
    assert len(only) == statuses[True] and len(known) == statuses[True] + statuses[False]


def test_external_results_are_shown_never_ranked_and_lose_to_any_other_revision(board, tmp_path):
    ranking = board.ranking("mteb:SciFact (task in no benchmark)")
    external = [line for line in ranking.lines if line.key[1] == "external"]
    assert external and all(line.rank is None for line in external)
    assert all(any(EXTERNAL_REASON in m for m in line.missing) for line in external)
    assert all(line.imported.startswith("reported by the model's authors") for line in external)
    # a model with the authors' number and a run of mteb (the real external file, and a copy as a run): one row, the run
    source = tmp_path / "results" / "intfloat__e5-large"
    shutil.copytree(REAL / "intfloat__e5-large" / "external", source / "external")
    run = json.loads((source / "external" / "SciFact.json").read_text())
    run |= {"dataset_revision": "0228b52cf27578f30900b9e5271d331663a030d7", "mteb_version": "1.12.0"}
    (source / "abc123").mkdir()
    (source / "abc123" / "SciFact.json").write_text(json.dumps(run))
    assert run_cli("import", str(tmp_path), "-o", str(tmp_path / "out")).returncode == 0
    both = load(tmp_path / "out", None, public=False, persist=False).ranking("mteb:SciFact")
    assert [(line.key, line.rank) for line in both.lines] == [(("intfloat/e5-large", "abc123"), 1)]
    assert both.lines[0].other_revisions == ["external"]


def test_undated_revisions_lose_to_dated_ones_and_then_to_newer_mteb_versions(board):
    from leaderboard.app.data.imported_runs import preference

    dated = {"created_at": "2025-01-01T00:00:00+00:00", "imported_from": {"mteb_version": "1.12.0"}}
    undated_new = {"created_at": "", "imported_from": {"mteb_version": "2.1.0"}}
    undated_old = {"created_at": "", "imported_from": {"mteb_version": "1.2.0"}}
    external = {"created_at": "2026-01-01T00:00:00+00:00", "imported_from": {"mteb_version": "2.1.0", "external": True}}
    ours = {"created_at": "2020-01-01T00:00:00+00:00", "imported_from": None}
    order = sorted([dated, undated_new, undated_old, external, ours], key=lambda r: preference(r, "r"), reverse=True)
    assert order == [ours, dated, undated_new, undated_old, external]


@pytest.fixture(scope="module")
def with_our_bm25(imported, tmp_path_factory):
    """The import plus this harness's BM25 run of mteb:SciFact: a real run on a small local copy, its source then
    edited to the hub revision most imported SciFact results ran on (as if run from the hub)."""
    tmp = tmp_path_factory.mktemp("ours")
    docs = {"d1": "Aspirin lowers the risk of heart attack.", "d2": "Vitamin C does not cure a cold.", "d3": "Smoke."}
    queries = {"q1": ("aspirin heart attack risk", "d1"), "q2": ("does vitamin c cure colds", "d2")}
    data = write_mteb_folder(
        tmp / "scifact",
        {
            "corpus": [{"_id": d, "title": "", "text": t} for d, t in docs.items()],
            "queries": [{"_id": q, "text": t} for q, (t, _) in queries.items()],
            "default": [{"query-id": q, "corpus-id": d, "score": 1} for q, (_, d) in queries.items()],
        },
    )
    out = tmp / "results"
    shutil.copytree(imported, out)
    ran = run_cli("run", "-m", "bm25", "-t", "mteb:SciFact", "--data-dir", str(data), "-o", str(tmp / "ran"))
    assert ran.returncode == 0, ran.stderr
    (path,) = (tmp / "ran").rglob("*.json")
    record = json.loads(path.read_text())
    assert (
        record["task"]["name"] == "mteb:SciFact" and record["model"]["metadata"]["mteb_name"] == "mteb/baseline-bm25s"
    )
    bm25s = raw(REAL / "mteb__baseline-bm25s" / "0_1_10" / "SciFact.json")
    record["task"]["source"] |= {
        "kind": "hub",
        "uri": "hf://datasets/mteb/scifact",
        "revision": bm25s["dataset_revision"],
    }
    target = out / path.relative_to(tmp / "ran")
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(record))
    return out, record, bm25s


def test_our_run_and_mtebs_of_one_model_are_one_row_with_both_values_and_the_difference(with_our_bm25):
    from leaderboard.cli.serve import registered_benchmarks

    out, ours, theirs = with_our_bm25
    board = load(out, registered_benchmarks(), public=False, persist=False)
    ranking = board.ranking("mteb:SciFact (task in no benchmark)")
    rows = [line for line in ranking.lines if line.key[0] == "bm25"]
    assert len(rows) == 1  # a model appears once: mteb/baseline-bm25s is bm25's mteb name
    (line,) = rows
    assert line.imported is None and line.key[1] == ours["model"]["revision"]
    (column,) = ranking.columns
    theirs_value = next(e for e in theirs["scores"]["test"] if e["hf_subset"] == "default")["ndcg_at_10"]
    mteb = line.mteb[column.key]
    assert mteb.value == theirs_value and mteb.difference == pytest.approx(ours["main_score"] - theirs_value, abs=1e-12)
    assert mteb.label == "run by mteb 1.20, imported"
    html = board_html(ranking, TableRequest(Filters(search="bm25"), ()))
    assert f"mteb {theirs_value:.4f} · Δ " in html
    assert "mteb/baseline-bm25s" not in html  # not a second row


@pytest.mark.browser
def test_the_browser_shows_the_followir_board_with_run_by_mteb_and_dagger(imported, tmp_path_factory):
    """Chromium: the FollowIR board over the imported real files, at desktop and phone sizes (screenshots)."""
    pytest.importorskip("playwright")
    from browser_helpers import (
        DESKTOP,
        PHONE,
        board_view,
        chromium,
        chromium_missing,
        in_viewport,
        open_page,
        publish_screenshots,
        serve_results,
        settle,
    )
    from test_app_browser import plain_env

    if chromium_missing():
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    shots = tmp_path_factory.mktemp("shots")
    ranked = len(mteb_main_scores())  # the models with mteb's main score of the three tasks (167)
    with serve_results(imported, plain_env(tmp_path_factory.mktemp("serve"))) as url, chromium() as browser:
        for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            page = open_page(browser, url, viewport, "?benchmark=FollowIR")
            first = board_view(page, benchmark="FollowIR").locator("#board-table tbody.ranked tr").first
            source = first.locator("td.c-model .src.imported")
            assert source.inner_text().startswith("run by mteb ") and source.inner_text().endswith("†")
            assert source.locator("a").get_attribute("href").startswith(f"{REPOSITORY}/blob/{COMMIT}/results/")
            assert first.locator("td.c-rank").inner_text().strip() == "1 †"
            settle(page)
            assert source.is_visible() and in_viewport(source, viewport)  # under the name, on the first screen
            summary = page.locator("#summary, .summary").first.inner_text()
            assert f"{ranked} ranked" in summary
            page.screenshot(path=str(shots / f"{size}-board-followir-imported.png"))
            page.close()
    publish_screenshots(shots, Path(__file__).resolve().parent.parent / "docs" / "screenshots")
