"""Links opened on a server that has just started, under CPU load, in Chromium: each shows the view it names from
its first drawing on, and keeps it while the server's background work (the warm-up) finishes.

A busy-loop process runs for each test. Each test starts its own server over the real mteb files imported (with the
committed baselines and the papers' reported scores), and opens its link ten times in a row as soon as the server
answers. The page records every drawing of the view (a MutationObserver, installed before the page's own scripts);
the test waits until every event the page sent is answered, then checks each drawing: none may show another view
than the link's (another ranking, the filters' defaults, another page or other picks).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import urllib.parse
import urllib.request

import pytest
from browser_helpers import DESKTOP, chromium_missing, events_done, free_port, new_page, serving
from test_app_browser import browser, plain_env  # noqa: F401
from test_app_browser_first_screen import REAL, board, root  # noqa: F401  (the real board, imported once)

LOADS = 10

pytestmark = [
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.skipif(chromium_missing(), reason="Debian's chromium is not installed"),
    pytest.mark.skipif(not REAL.is_dir(), reason=f"real mteb results not found at {REAL}"),
]

# Every drawing of the board (its view's attributes and first rows), of the summary's ranking, and of the other
# tabs' views, in the order the page drew them.
RECORD_JS = """(() => {
  window.drawings = [];
  const seen = {};
  const note = (kind, value) => {
    const text = JSON.stringify(value);
    if (seen[kind] === text) return;
    seen[kind] = text;
    window.drawings.push([kind, value]);
  };
  const look = () => {
    const board = document.querySelector('#board .board-view');
    if (board) {
      const names = Array.from(board.querySelectorAll('#board-table tbody.ranked td.c-model a.to-model'))
        .slice(0, 5).map((a) => a.innerText.trim());
      note('board', {...board.dataset, names});
    }
    const summary = document.querySelector('#benchmark-summary');
    const ranked = summary && summary.innerText.match(/ranked by [^·]*/);
    const filtered = summary && summary.innerText.match(/filtered by [^·]*/);
    if (ranked) note('summary', [ranked[0].trim(), filtered ? filtered[0].replace('(clear)', '').trim() : '']);
    for (const tab of ['side', 'compare']) {
      const view = document.querySelector('.' + tab + '-view');
      if (view) note(tab, {...view.dataset});
    }
    const tab = document.querySelector('#tabs [role=tab][aria-selected=true]');
    if (tab) note('tab', tab.innerText.trim());
  };
  new MutationObserver(look).observe(document, {subtree: true, childList: true, characterData: true,
    attributes: true});
})();"""


@pytest.fixture
def cpu_load():
    """A busy-loop process for the test's duration: the server and the browser share the CPU with it."""
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield busy
    finally:
        busy.kill()
        busy.wait()


@contextlib.contextmanager
def just_started(folder, work):
    """A fresh ``leaderboard serve`` over ``folder``, yielded as soon as it answers (its warm-up under way)."""
    port = free_port()
    command = [sys.executable, "-m", "leaderboard", "serve", "--results", str(folder), "--port", str(port)]
    with serving(command, plain_env(work), port) as url:
        yield url


def background(url: str) -> dict:
    """The server's background work (``/_leaderboard/background``): what is running."""
    with urllib.request.urlopen(url + "_leaderboard/background", timeout=30) as answer:
        return json.loads(answer.read())


def drawings(browser, url: str, query: str) -> tuple[list, str]:  # noqa: F811
    """Open ``url + query`` once: every drawing the page made until its events were all answered, and its URL."""
    page = new_page(browser, DESKTOP)
    page.add_init_script(RECORD_JS)
    page.goto(url + query)
    page.wait_for_selector(".board-view", state="attached")  # the page load's drawing
    events_done(page, open_stream_ok=True)
    found = page.evaluate("() => window.drawings")
    search = page.evaluate("() => location.search")
    page.close()
    return found, search


def check_loads(browser, url: str, query: str, wanted: dict) -> None:  # noqa: F811
    """Open the link ``LOADS`` times in a row. ``wanted``: kind -> (check, every): each drawing of that kind passes
    ``check`` (``every``), or the first that passes and each after it (not ``every``: a view the page showed before
    the load's answer, such as the first tab); the URL keeps every parameter of the link."""
    asked = urllib.parse.parse_qs(query.lstrip("?"))
    working = []
    for attempt in range(1, LOADS + 1):
        working.append(background(url)["running"])
        found, search = drawings(browser, url, query)
        for kind, (check, every) in wanted.items():
            drawn = [value for k, value in found if k == kind]
            if not every:
                drawn = drawn[next((i for i, v in enumerate(drawn) if check(v)), 0) :]
            assert drawn, f"load {attempt}: no {kind} drawn:\n{found}"
            wrong = [value for value in drawn if not check(value)]
            assert not wrong, f"load {attempt} drew another {kind} than the link's: {wrong}\n{found}"
        kept = urllib.parse.parse_qs(search.lstrip("?"))
        assert {k: kept.get(k) for k in asked} == asked, f"load {attempt}: the URL became {search}"
    # the first load came while the server was starting or warming up: a cold start
    assert {"start", "warm-up"} & set(working[0]), working


def board_rows(real, name: str, by: str = "", filters=None, sort=None, page: int = 1) -> list[str]:
    """The first five ranked names of the board's table for this view."""
    from leaderboard.app.data import aggregates
    from leaderboard.app.data.filters import Filters
    from leaderboard.app.data.sorting import PAGE_SIZE, first_sorted

    ranking = aggregates.ranked_by(real.ranking(name, with_stats=False), by)
    lines = first_sorted(ranking, *sort, len(ranking.lines)) if sort else ranking.lines
    kept = [line.name for line in lines if line.rank is not None and (filters or Filters()).keep(line.info)]
    return kept[(page - 1) * PAGE_SIZE :][:5]


def table(benchmark: str, names: list[str], page: str = "1", sort: str = ""):
    """The board drawn for this view, with these first ranked rows."""
    assert names, "the view must show ranked rows for the check to mean something"
    wanted = {"benchmark": benchmark, "page": page, "sort": sort, "names": names}
    return lambda drawn: drawn == wanted, True


def summary(ranked_by: str, filtered: str = ""):
    return lambda drawn: drawn[0].startswith(f"ranked by {ranked_by}") and drawn[1] == filtered, True


def test_the_followir_link_from_a_cold_start(browser, root, board, cpu_load, tmp_path):  # noqa: F811
    from leaderboard.app.data.filters import Filters

    query = "?" + urllib.parse.urlencode(
        {"benchmark": "FollowIR", "by": "mean p-MRR", "size": "< 100M|100M–1B", "open": "yes"}
    )
    filters = Filters(sizes=("< 100M", "100M–1B"), open_weights="yes")
    names = board_rows(board, "FollowIR", "mean p-MRR", filters)
    assert names != board_rows(board, "FollowIR", "FollowIR score", filters)  # the rankings differ at the top
    wanted = {
        "board": table("FollowIR", names),
        "summary": summary("mean p-MRR", "filtered by size < 100M/100M–1B, open weights"),
    }
    with just_started(root, tmp_path) as url:
        check_loads(browser, url, query, wanted)


def test_a_benchmark_link_from_a_cold_start(browser, root, board, cpu_load, tmp_path):  # noqa: F811
    label = board.ranking("IFIR", with_stats=False).aggregate_label
    wanted = {"board": table("IFIR", board_rows(board, "IFIR")), "summary": summary(label)}
    with just_started(root, tmp_path) as url:
        check_loads(browser, url, "?benchmark=IFIR", wanted)


def test_a_filtered_link_from_a_cold_start(browser, root, board, cpu_load, tmp_path):  # noqa: F811
    from leaderboard.app.data.filters import Filters

    query = "?" + urllib.parse.urlencode(
        {"benchmark": "FollowIR", "by": "FollowIR score", "kind": "dense", "q": "e5", "zs": "known"}
    )
    filters = Filters(kinds=("dense",), search="e5", zero_shot="known")
    names = board_rows(board, "FollowIR", "FollowIR score", filters)
    wanted = {
        "board": table("FollowIR", names),
        "summary": summary("FollowIR score", "filtered by 'e5', kind dense, known training data only"),
    }
    with just_started(root, tmp_path) as url:
        check_loads(browser, url, query, wanted)


def test_a_sorted_page_link_from_a_cold_start(browser, root, board, cpu_load, tmp_path):  # noqa: F811
    ranking = board.ranking("FollowIR", with_stats=False)
    key = ranking.columns[1].key
    names = board_rows(board, "FollowIR", sort=(key, "asc"), page=2)
    query = "?" + urllib.parse.urlencode({"benchmark": "FollowIR", "sort": f"{key}.asc", "p": "2"})
    wanted = {"board": table("FollowIR", names, page="2", sort=f"{key}.asc")}
    with just_started(root, tmp_path) as url:
        check_loads(browser, url, query, wanted)


def test_a_side_by_side_link_from_a_cold_start(browser, root, board, cpu_load, tmp_path):  # noqa: F811
    picks = [line.name for line in board.ranking("FollowIR", with_stats=False).ranked[:3]]
    query = "?" + urllib.parse.urlencode({"side": "|".join(picks)})
    wanted = {
        "side": (lambda drawn: drawn.get("models") == "|".join(picks), False),
        "tab": (lambda drawn: drawn == "Side by side", False),
    }
    with just_started(root, tmp_path) as url:
        check_loads(browser, url, query, wanted)


def test_a_compare_link_from_a_cold_start(browser, root, board, cpu_load, tmp_path):  # noqa: F811
    a, b = [line.name for line in board.ranking("FollowIR", with_stats=False).ranked[2:4]]
    query = "?" + urllib.parse.urlencode({"benchmark": "FollowIR", "tab": "compare", "a": a, "b": b})
    wanted = {
        "compare": (
            lambda drawn: (drawn.get("benchmark"), drawn.get("a"), drawn.get("b")) == ("FollowIR", a, b),
            False,
        ),
        "tab": (lambda drawn: drawn == "Compare two models", False),
    }
    with just_started(root, tmp_path) as url:
        check_loads(browser, url, query, wanted)
