"""A model's page and five models side by side, in Chromium at 1440x900 and 390x844.

The board: bm25 and bm25-okapi run on small ComLQ and NegConstraint folders (app_fixtures), plus two
edited copies of those runs under other names (one with its license, open weights and release date) and
one copy marked as imported from mteb (no per-query values): five models, one of them imported.
Screenshots go to a temporary folder, and to docs/screenshots/ with LEADERBOARD_UPDATE_SCREENSHOTS=1.
"""

import copy
import json
import os
import urllib.parse

import pytest
from app_fixtures import build_comlq_negconstraint, folder_name
from browser_helpers import (
    SIZES,
    chromium_missing,
    open_page,
    publish_screenshots,
    serve_results,
    settle,
    tab_view,
    wait_url,
)
from conftest import REPO
from playwright.sync_api import expect

pytestmark = pytest.mark.skipif(chromium_missing(), reason="Debian's chromium is not installed (.ci/run installs it)")

IMPORTED = "gte-base"
# name -> (the run it copies, score scale, metadata); scales below 1 keep every metric in its range
COPIES = {
    "e5-small-v2": ("bm25-okapi", 0.96, {"n_parameters": 33_400_000, "embedding_dim": 384, "max_length": 512,
                                        "license": "mit", "open_weights": True, "release_date": "2023-05-19"}),
    "contriever": ("bm25", 0.9, {"n_parameters": 110_000_000, "embedding_dim": 768, "max_length": 512}),
    IMPORTED: ("bm25-okapi", 0.85, {"n_parameters": 109_000_000, "license": "mit", "open_weights": True}),
}  # fmt: skip
FIVE = ["bm25", "bm25-okapi", "e5-small-v2", "contriever", IMPORTED]


def _scaled(data, factor):
    for subsets in data["scores"].values():
        for values in subsets.values():
            for key in values:
                values[key] *= factor
    data["main_score"] *= factor


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    from leaderboard.records.result import PerQuery, decode_per_query, encode_per_query

    work = tmp_path_factory.mktemp("model-page")
    root = build_comlq_negconstraint(work / "results", work / "data")
    runs = [p for p in root.rglob("*.json") if "reported" not in p.parts and "older" not in p.parts]
    for name, (source, factor, meta) in COPIES.items():
        for path in runs:
            data = json.loads(path.read_text())
            if data["model"]["name"] != source or (name == IMPORTED and path.name != "comlq.json"):
                continue  # the imported model: on ComLQ only (as many mteb imports are on some tasks)
            data["model"].update(name=name, revision="v1", kind="dense")
            data["model"]["metadata"].update(name=name, kind="dense", reference=None, **meta)
            _scaled(data, factor)
            data["confidence_intervals"] = {}  # the board computes them from the per-query values
            if name == IMPORTED:
                data["per_query"] = None
                url = f"https://github.com/embeddings-benchmark/results/blob/main/results/{name}/{path.name}"
                data["imported_from"] = {"format": "mteb", "file": path.name, "mteb_version": "1.12.0", "url": url}
            elif data.get("per_query"):
                stored = decode_per_query(PerQuery.model_validate(data["per_query"]))
                scaled = {q: {m: v * factor for m, v in values.items()} for q, values in stored.items()}
                kept = {k: data["per_query"].get(k) for k in ("subsets", "metric_queries", "macro_over")}
                data["per_query"] = encode_per_query(scaled).model_dump() | kept  # which queries form each subset
            target = root / folder_name(name) / "v1" / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(data))
    return root


@pytest.fixture(scope="module")
def board(results):
    from leaderboard.app.server import loading
    from leaderboard.cli.serve import registered_benchmarks

    return loading.load(results, registered_benchmarks(), persist=False)


def _served(root, cache):
    """``leaderboard serve`` over ``root`` with its own cache folder, every installed plugin loaded."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "XDG_CACHE_HOME": str(cache)}
    env.pop("LEADERBOARD_PLUGINS", None)
    return serve_results(root, env)


@pytest.fixture(scope="module")
def server(results, tmp_path_factory):
    with _served(results, tmp_path_factory.mktemp("cache")) as url:
        yield url


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = tmp_path_factory.mktemp("screenshots")
    yield folder
    publish_screenshots(folder, REPO / "docs" / "screenshots")


def test_the_fixture_has_five_models_one_imported(board):
    from leaderboard.app.data.model_index import model_index

    assert set(FIVE) <= set(model_index(board).names)
    imported = [line.name for line in board.ranking("ComLQ").lines if line.imported]
    assert imported == [IMPORTED]


def test_a_papers_number_is_named_as_copied_never_as_a_run(board):
    from leaderboard.app.views.model import model_page, model_page_html

    (comlq,) = [part for part in model_page(board, "bm25").parts if part.benchmark == "ComLQ"]
    assert [row.paper for row in comlq.reported] == ["ComLQ"]  # the paper's BM25, matched case-insensitively
    html = model_page_html(board, "bm25")
    assert "reported in ComLQ" in html and "copied from the paper, not reproduced here" in html


@pytest.mark.parametrize("size", SIZES)
def test_a_model_page_by_its_link(browser, server, board, shots, size):
    page = open_page(browser, server, SIZES[size], "?model=e5-small-v2", ready=".model-view")
    view = tab_view(page, "model", model="e5-small-v2")
    expect(view.locator("#model-name")).to_have_text("e5-small-v2")
    facts = view.locator("#model-facts").inner_text()
    for text in ("33.4M", "384", "512", "MIT", "yes", "2023-05-19", "v1"):  # the license by its SPDX id
        assert text in facts, text
    for name in ("ComLQ", "NegConstraint"):
        line = next(line for line in board.ranking(name).lines if line.name == "e5-small-v2")
        section = view.locator(f'section.mp-part[data-benchmark="{name}"]')
        assert section.locator(".mp-rank").get_attribute("data-rank") == str(line.rank or "")
        rows = section.locator("table.mp-table tbody tr")
        expect(rows).to_have_count(len(board.ranking(name).columns))
        assert "run here" in section.locator(".mp-sources").inner_text()
    settle(page)
    page.screenshot(path=str(shots / f"{size}-model-page.png"), full_page=True)
    if size == "desktop":  # the BibTeX, copied by its button (or selected, where the clipboard is refused)
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        cite = view.locator('section.mp-part[data-benchmark="ComLQ"] details.mp-cite')
        cite.locator("summary").click()
        assert cite.locator("pre").inner_text().lstrip().startswith(("@", "%"))
        cite.locator(".mp-copy").click()
        expect(cite.locator(".mp-copy")).to_have_attribute("data-copied", "1")
        copied = page.evaluate("() => navigator.clipboard.readText()")
        assert copied == cite.locator("pre").inner_text()
    assert not page.dialogs
    page.close()


def test_a_model_name_on_the_board_opens_its_page(browser, server):
    page = open_page(browser, server, SIZES["desktop"], "?benchmark=ComLQ")
    tab_view(page, "board", benchmark="ComLQ")
    page.evaluate("() => { window.samePage = true; }")  # gone if the click loaded the page again
    link = page.locator("#board-table tbody.ranked td.c-model a.to-model").first
    name = link.inner_text()
    link.click()
    tab_view(page, "model", model=name)
    wait_url(page, "model", name)
    wait_url(page, "tab", "model")
    expect(page.locator("#model-name")).to_have_text(name)
    # a leader's name on the page opens the leader's page, in place too
    leader = page.locator("#model-page table.mp-table a.to-model").filter(has_not_text=name).first
    other = leader.inner_text()
    leader.click()
    tab_view(page, "model", model=other)
    wait_url(page, "model", other)
    assert page.evaluate("() => window.samePage === true")  # opened in place: no page load
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_five_models_side_by_side_with_the_chart_and_the_tests(browser, server, board, shots, size):
    query = "?" + urllib.parse.urlencode({"side": "|".join(FIVE)})
    page = open_page(browser, server, SIZES[size], query, ready=".side-view")
    view = tab_view(page, "side", models="|".join(FIVE))
    comlq = view.locator('table.side-table[data-benchmark="ComLQ"]')
    expect(comlq.locator("thead th")).to_have_count(1 + len(FIVE))
    score = comlq.locator("tr.side-score td").all_inner_texts()
    for name, text in zip(FIVE, score[1:]):
        line = next(line for line in board.ranking("ComLQ").lines if line.name == name)
        assert text.splitlines()[0] == f"{line.aggregate:.4f}", name
    assert "no interval: imported" in score[1 + FIVE.index(IMPORTED)]
    page.locator("#side-plot svg.marks, #side-plot canvas.marks").first.wait_for()
    settle(page)
    page.screenshot(path=str(shots / f"{size}-side-by-side.png"), full_page=True)
    if size == "desktop":
        page.locator("#side-tests").click()
        pairs = tab_view(page, "side-pairs", models="|".join(FIVE), tested="1").locator("#side-pairs-table tbody tr")
        expect(pairs.first).to_be_visible()
        tested = pairs.locator("xpath=self::tr[@data-tested='1']")
        untested = pairs.locator("xpath=self::tr[@data-tested='0']")
        assert tested.count() > 0
        for text in untested.all_inner_texts():
            assert IMPORTED in text and "no interval: imported" in text
        settle(page)
        page.locator("#side-pairs").screenshot(path=str(shots / "desktop-side-by-side-tests.png"))
        # picking another set rewrites the link
        page.locator("#side-pick .token").filter(has_text="contriever").locator(".token-remove").click()
        wait_url(page, "side", "|".join(name for name in FIVE if name != "contriever"))
    assert not page.dialogs
    page.close()


EXTRA = 510  # models past the pickers' listing limit (tabs.picks.LISTED_AT_MOST)


@pytest.fixture(scope="module")
def many_results(results, tmp_path_factory):
    """The five models plus ``EXTRA`` copies of bm25's NegConstraint run, named ``zz-extra-NNNN``: the last
    ones sort after the first ``LISTED_AT_MOST`` of every picker."""
    import shutil

    root = tmp_path_factory.mktemp("many") / "results"
    shutil.copytree(results, root)
    source = json.loads(next((root / folder_name("bm25")).glob("*/negconstraint.json")).read_text())
    for number in range(EXTRA):
        name = f"zz-extra-{number:04d}"
        data = copy.deepcopy(source)
        data["model"].update(name=name, revision="v1")
        data["model"]["metadata"].update(name=name)
        target = root / folder_name(name) / "v1" / "negconstraint.json"
        target.parent.mkdir(parents=True)
        target.write_text(json.dumps(data))
    return root


@pytest.fixture(scope="module")
def many_server(many_results, tmp_path_factory):
    with _served(many_results, tmp_path_factory.mktemp("cache-many")) as url:
        yield url


def test_a_model_past_those_the_pickers_list_is_typed_whole_or_linked(browser, many_results, many_server):
    """The model page's and the side-by-side pickers list the first ``LISTED_AT_MOST`` models (thousands of
    listed choices slow every click in the browser): any other is typed whole, or opened by a link."""
    from leaderboard.app.data.model_index import model_index
    from leaderboard.app.tabs.picks import LISTED_AT_MOST, listed_names

    last = f"zz-extra-{EXTRA - 1:04d}"
    page = open_page(browser, many_server, SIZES["desktop"], "?model=bm25", ready=".model-view")
    tab_view(page, "model", model="bm25")
    box = page.locator("#model-pick input")
    box.click()
    box.press("Control+a")  # the name shown, replaced by the one typed
    box.press_sequentially(last, delay=10)
    box.press("Enter")
    tab_view(page, "model", model=last)
    wait_url(page, "model", last)
    page.goto(many_server + "?" + urllib.parse.urlencode({"side": f"bm25|{last}"}))
    tab_view(page, "side", models=f"bm25|{last}")
    expect(page.locator("#side-pick .token")).to_have_text(["bm25", last])
    page.close()
    # the server's side: what the pickers were sent
    from leaderboard.app.server import loading
    from leaderboard.cli.serve import registered_benchmarks

    names = model_index(loading.load(many_results, registered_benchmarks(), persist=False)).names
    assert len(names) == EXTRA + len(FIVE) and last in names[LISTED_AT_MOST:]
    assert listed_names(names, [last]) == [*names[:LISTED_AT_MOST], last]
