"""Leaderboard app at scale: 30 result files vs 10,000 real-size ones, cold and warm, in a real browser.

The folders hold real results replicated (``perf/replicas.py``): the committed complete ComLQ runs
(2,909 queries, 52 subsets, LSNC) and NegConstraint runs (366 queries), copied under thousands of
model names and revisions with their per-query values mixed and mapped and every score recomputed
from them, so each file is a valid result of real size, and ``benchmarks.json`` holds the project's
ComLQ and NegConstraint benchmarks (17 and 8 columns; per-type cells with their own intervals).
For each folder, on this machine:

* index build (first start): ``leaderboard serve`` started with an empty cache, so every file is
  validated into the results index (what the first start of a Space does); goal: at most 60 s at
  10,000 files;
* cold: a new ``leaderboard serve`` process over the indexed folder (the start a Space restart makes):
  seconds from process start to HTTP 200, and to the first ranked table in Chromium
  (``?benchmark=ComLQ``, its first ranked row drawn);
* warm: a second page opened on the running server (the next reader): seconds to the first ranked table;
* RSS of the server process (current and peak) after every interaction; goal: under 600 MB;
* interactions, each timed from the reader's click or keystroke to the view redrawn, each once the
  server has finished its background work (the warm-up after a start, the next page computed ahead;
  ``--no-settle``: back to back), with the server's CPU seconds during it: benchmark
  switch, header sort (server side, over every row), next page, search, opening Compare (#1 vs #2),
  Compare per subset, another model B, Task views, Size vs score, About, Provenance, a model's page opened
  from its name on the board (a page load) and another model picked there, five models side by side (the
  fifth pick) and their pairwise tests (on request); goal: each under 1 s.
  A pick from a menu (a benchmark, model B) is timed from the click on the option, once the menu has
  opened and stopped moving; opening the menu is timed as a step of its own ("open a menu").

    python perf/perf_app.py [--files 10000] [--small 30] [--keep DIR] [--large-only]

``--keep DIR`` (for iterating): the folders and index caches live in DIR and are reused when
present (the index-build line is then a start over a built index); ``--large-only`` skips the
30-file folder (and so the ratio line). The default run measures everything from scratch.
The load average is printed beside the numbers: timings on a busy machine are not the goal's.

Chromium: /usr/bin/chromium (Playwright drives it; ``pip install playwright``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from replicas import write_real_replicas

FIRST, SECOND = "ComLQ", "NegConstraint"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
TABLE_ROW = "#board-table tbody.ranked tr"
GOALS = {"build": 60.0, "rss": 600.0, "step": 1.0, "warm_ratio": 2.0}


def load_average() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


BACKGROUND = "/_leaderboard/background"  # leaderboard.app.background.PATH (not imported: no app in this process)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mib(pid: int) -> tuple[float, float]:
    """(current, peak) resident set size of a process, MiB (Linux /proc)."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = int(value.split()[0]) / 1024
    return found.get("VmRSS", 0.0), found.get("VmHWM", 0.0)


def cpu_seconds(pid: int) -> float:
    """CPU time of a process and its finished children (index workers), seconds (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(v) for v in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime, stime, cutime, cstime


class Server:
    """``leaderboard serve`` over a folder, with its own cache folder; ``ready``: seconds to HTTP 200."""

    def __init__(self, root: Path, cache: Path, log: Path):
        self.port = free_port()
        env = {**os.environ, "XDG_CACHE_HOME": str(cache), "HF_HUB_OFFLINE": "1", "LEADERBOARD_PLUGINS": "bm25"}
        self.started = time.perf_counter()
        command = [sys.executable, "-m", "leaderboard", "serve", "--results", str(root), "--port", str(self.port)]
        self.log = log.open("wb")  # a file, not a pipe: a chatty server never blocks on a full pipe
        self.proc = subprocess.Popen([*command, "--public"], stdout=subprocess.DEVNULL, stderr=self.log, env=env)
        self.url = f"http://127.0.0.1:{self.port}/"
        while True:
            try:
                urllib.request.urlopen(self.url, timeout=5)
                break
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(log.read_text(errors="replace")[-3000:]) from None
                time.sleep(0.05)
        self.ready = time.perf_counter() - self.started
        self.ready_cpu = cpu_seconds(self.proc.pid)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=20)
        self.log.close()


def first_table(browser, url: str, benchmark: str, since: float | None = None) -> tuple[float, object]:
    """Seconds until the first ranked row is drawn (from ``since``, else from opening the page), and the page."""
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    start = time.perf_counter() if since is None else since
    page.goto(f"{url}?benchmark={benchmark}")
    page.wait_for_selector(TABLE_ROW, timeout=600_000)
    return time.perf_counter() - start, page


def settle(url: str, limit: float = 180.0) -> float:
    """Wait until the server says its own background work is done (the warm-up after a start, the next page
    computed ahead: ``leaderboard.app.background``, asked at ``/_leaderboard/background`` without counting
    as a reader's request); seconds waited. Not its CPU: an idle Gradio server still polls its queue."""
    start = time.perf_counter()
    idle_in_a_row = 0
    while time.perf_counter() - start < limit:
        with urllib.request.urlopen(url.rstrip("/") + BACKGROUND, timeout=30) as answer:
            idle = json.load(answer)["idle"]
        idle_in_a_row = idle_in_a_row + 1 if idle else 0
        if idle_in_a_row == 2:  # twice, 50 ms apart: not the moment between two pieces of work
            break
        time.sleep(0.05)
    return time.perf_counter() - start


class Timer:
    """Times each step (wall seconds) and the server's CPU seconds during it. With ``settle``, each step starts
    once the server's background work (the warm-up after a start, the next page computed ahead) is done: a
    reader's click, not a benchmark of clicks in a row."""

    def __init__(self, server: Server, settle: bool = True):
        self.pid, self.url = server.proc.pid, server.url
        self.wall, self.cpu, self.settle, self.waited = {}, {}, settle, 0.0

    def __call__(self, name: str, action, wait) -> None:
        if self.settle:
            self.waited += settle(self.url)
        start, cpu = time.perf_counter(), cpu_seconds(self.pid)
        action()
        wait()
        self.wall[name] = time.perf_counter() - start
        self.cpu[name] = cpu_seconds(self.pid) - cpu
        print(f"      ({self.wall[name]:.2f}s, server CPU {self.cpu[name]:.2f}s: {name})", flush=True)


def interactions(page, timed: Timer, first: str, second: str, search: str) -> None:
    """Each interaction, from the reader's action to the view redrawn."""

    def option(menu: str, name: str | None = None, nth: int = 0):
        """A menu opened and one of its options shown still (the menu's opening animation over): the reader's
        click on it is then timed alone. Playwright's click would wait for the option to stop moving inside
        the timed step (0.4 s here), which no reader waits for; the opening is timed as a step of its own."""
        timed(
            f"open a menu ({menu}, for {name or f'option {nth + 1}'})",
            lambda: page.locator(f"{menu} input").click(),
            lambda: page.get_by_role("option").first.wait_for(timeout=300_000),
        )
        found = page.get_by_role("option", name=name, exact=True) if name else page.get_by_role("option").nth(nth)
        found.hover(timeout=300_000)  # Playwright's actionability: visible, stable (not animating) and hit
        return found

    def shown(name: str) -> None:
        page.wait_for_function(
            "(n) => { const s = document.querySelector('#benchmark-summary');"
            " return s && s.innerText.startsWith(n) && document.querySelector('#board-table tbody.ranked tr'); }",
            arg=name,
            timeout=300_000,
        )

    def rows(selector: str, more_than: int = 0) -> None:
        page.wait_for_function(
            "([s, n]) => document.querySelectorAll(s).length > n", arg=[selector, more_than], timeout=300_000
        )

    def tab(label: str, name: str, ready: str) -> None:
        timed(
            label,
            lambda: page.get_by_role("tab", name=name).click(),
            lambda: page.wait_for_selector(ready, timeout=300_000),
        )

    for before, after in ((first, second), (second, first)):
        pick = option("#benchmark-select", after)
        # force: the option's actionability was checked by its hover
        timed(
            f"benchmark switch ({before} -> {after})",
            lambda pick=pick: pick.click(force=True),
            lambda after=after: shown(after),
        )
    header = page.locator("#board-table thead th[data-key=c1]")
    timed(
        "sort by a column (server side, all rows)",
        header.click,
        lambda: page.wait_for_selector("#board-table th[data-key=c1][aria-sort]", timeout=300_000),
    )
    pager = page.locator("#board-pager button[data-page='2']").first
    if pager.count():
        timed(
            "next page",  # to page 2 drawn (the URL changes before the request is sent)
            pager.click,
            lambda: page.wait_for_function(
                "() => new URLSearchParams(location.search).get('p') === '2' && "
                "(document.querySelector('#board-pager span')?.innerText || '').includes('page 2 of')",
                timeout=300_000,
            ),
        )
    page.locator("#filters").get_by_text("Filters and columns").click()
    box = page.locator("#filter-search input, #filter-search textarea").first
    timed(
        "search (type a name)",
        lambda: box.fill(search),
        lambda: page.wait_for_function(
            "(s) => { const rows = document.querySelectorAll('#board-table tbody.ranked tr');"
            " return rows.length > 0 && Array.from(rows)"
            ".every(r => r.cells[1].innerText.split('\\n')[0].includes(s)); }",
            arg=search,
            timeout=300_000,
        ),
    )
    # (a row's name is its model cell's first line: the notes under it may name other models)
    box.fill("")  # the whole board again, drawn before the next step (whose settle would not see it coming)
    page.wait_for_function(
        "(s) => Array.from(document.querySelectorAll('#board-table tbody.ranked tr'))"
        ".some(r => !r.cells[1].innerText.split('\\n')[0].includes(s))",
        arg=search,
        timeout=300_000,
    )
    # the comparison; for two imported models (no per-query values to pair) their plain difference, or why none
    drawn = "#compare-table tbody tr, #compare-plain tbody tr, #compare .empty"
    tab("tab switch (Compare: #1 vs #2)", "Compare two models", drawn)
    tasks_only = page.locator("#compare-table tbody tr").count()
    if tasks_only:
        timed(
            "Compare per subset",
            lambda: page.locator("#compare-subsets").click(),
            lambda: rows("#compare-table tbody tr", tasks_only),
        )
    before = page.locator("#compare").inner_text()
    third = option("#compare-b", nth=2)  # a third model (#1 and #2 are shown)
    timed(
        "Compare: another model B",
        lambda: third.click(force=True),
        lambda: page.wait_for_function(
            "(b) => { const t = document.querySelector('#compare'); return t && t.innerText !== b; }",
            arg=before,
            timeout=300_000,
        ),
    )
    tab("tab switch (Task views)", "Task views", ".view-plot canvas.marks, .view-plot svg.marks, table[id^='view-']")
    tab("tab switch (Size vs score)", "Size vs score", "#size-plot canvas.marks, #size-plot svg.marks")
    tab("tab switch (About)", "About", "#about")
    tab("tab switch (Provenance)", "Provenance", "#provenance-table")
    timed(
        "tab switch (back to Leaderboard)",
        lambda: page.get_by_role("tab", name="Leaderboard").click(),
        lambda: page.wait_for_selector(TABLE_ROW, state="visible", timeout=300_000),
    )
    model_page_and_side_by_side(page, timed, option)


def model_page_and_side_by_side(page, timed: Timer, option) -> None:
    """A model's page from its name on the board (opened in place on the Model tab), another model picked there,
    and five models side by side (the fifth pick timed), with their pairwise tests on request."""

    def model_shown(name: str | None = None, other_than: str | None = None) -> None:
        page.wait_for_function(
            "([n, o]) => { const v = document.querySelector('#model-page');"
            " return !!v && (n === null || v.dataset.model === n) && (o === null || v.dataset.model !== o); }",
            arg=[name, other_than],
            timeout=300_000,
        )

    link = page.locator("#board-table tbody.ranked td.c-model a.to-model").nth(1)
    name = link.inner_text()
    timed("open a model page (its name on the board)", link.click, lambda: model_shown(name))
    another = option("#model-pick", nth=2)
    timed("Model: another model picked", lambda: another.click(force=True), lambda: model_shown(other_than=name))
    timed(
        "tab switch (Side by side: no picks yet)",
        lambda: page.get_by_role("tab", name="Side by side").click(),
        lambda: page.wait_for_selector(".side-view", timeout=300_000),
    )
    for count in range(1, 6):
        # the first model not picked yet (the most benchmarks first; a multiselect menu lists the picked too),
        # clicked without waiting for the menu to stop moving (it re-renders as picks are added), the menu then
        # closed by a click outside it
        page.locator("#side-pick input").click()
        page.locator("#side-pick [role=option]").first.wait_for(timeout=300_000)
        pick = page.locator("#side-pick [role=option][aria-selected=false]").first

        def picked(count=count) -> None:
            page.wait_for_function(
                "(n) => { const v = document.querySelector('.side-view');"
                " return !!v && (v.dataset.models || '').split('|').filter(Boolean).length === n; }",
                arg=count,
                timeout=300_000,
            )

        if count < 5:
            pick.click(force=True)
            picked()
        else:
            timed("Side by side: a fifth model picked", lambda pick=pick: pick.click(force=True), picked)
        page.locator("#title").click()
    timed(
        "Side by side: pairwise tests (Holm; on request)",
        lambda: page.locator("#side-tests").click(),
        lambda: page.wait_for_selector(".side-pairs-view[data-tested='1']", timeout=300_000),
    )


def measure(
    browser,
    root: Path,
    cache: Path,
    *,
    first: str = FIRST,
    second: str = SECOND,
    search: str = "-0001",
    calm: bool = True,
    interact: bool = True,
) -> dict:
    """Index build, cold and warm first table, interactions and RSS of the board over ``root``."""
    log = cache.parent / f"{cache.name}.log"
    build = Server(root, cache, log)  # an empty cache (the caller's): every file validated into the index
    try:
        build_table, page = first_table(browser, build.url, first, build.started)
        page.close()
    finally:
        build.stop()
    server = Server(root, cache, log)  # cold: a new process over the indexed folder
    try:
        cold_table, page = first_table(browser, server.url, first, server.started)
        page.close()
        warm_table, page = first_table(browser, server.url, first)  # warm: the next reader
        rss_after_pages = rss_mib(server.proc.pid)
        timer = Timer(server, calm)
        if interact:
            interactions(page, timer, first, second, search)
        page.close()
        rss, peak = rss_mib(server.proc.pid)
    finally:
        server.stop()
    return {
        "build_ready": build.ready,
        "build_cpu": build.ready_cpu,
        "build_table": build_table,
        "cold_ready": server.ready,
        "cold_table": cold_table,
        "warm_table": warm_table,
        "rss_pages": rss_after_pages[0],
        "rss": rss,
        "peak": peak,
        "steps": timer.wall,
        "cpu": timer.cpu,
        "waited": timer.waited,
    }


def report(count: int, found: dict) -> None:
    worst = max(found["steps"].items(), key=lambda kv: kv[1], default=("none measured", 0.0))
    print(
        f"{count} files: index build (first start): HTTP 200 {found['build_ready']:.2f}s "
        f"(server CPU {found['build_cpu']:.1f}s), first table {found['build_table']:.2f}s\n"
        f"{count} files: cold: HTTP 200 {found['cold_ready']:.2f}s, first ranked table "
        f"{found['cold_table']:.2f}s | warm: first ranked table {found['warm_table']:.2f}s | "
        f"RSS {found['rss']:.0f} MiB (peak {found['peak']:.0f} MiB)\n"
        f"{count} files: slowest interaction {worst[1]:.3f}s ({worst[0]}) | load average {load_average()}",
        flush=True,
    )
    if found.get("waited"):
        print(f"    (before the steps, {found['waited']:.1f}s in all waiting for the server's background work)")
    print("    wall ms   server CPU ms  interaction", flush=True)
    for step, seconds in found["steps"].items():
        print(f"    {seconds * 1000:7.0f}   {found['cpu'][step] * 1000:13.0f}  {step}", flush=True)


def goals(label: str, large: dict, small: dict | None, limits: dict) -> str:
    """The goal line: each measured number beside its goal."""
    verdicts = [
        f"index build {large['build_ready']:.1f}s (goal <= {limits['build']:.0f})",
        f"RSS peak {large['peak']:.0f} MiB (goal < {limits['rss']:.0f})",
        f"slowest interaction {max(large['steps'].values(), default=0.0):.3f}s (goal < {limits['step']:.0f} s)",
    ]
    if small is not None:
        verdicts.insert(
            0,
            f"cold first table {large['cold_table'] / small['cold_table']:.2f}x, warm first table "
            f"{large['warm_table'] / small['warm_table']:.2f}x (goal <= {limits['warm_ratio']:.0f}x)",
        )
    return f"{label}: " + "; ".join(verdicts) + f" | load average {load_average()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--small", type=int, default=30)
    parser.add_argument("--keep", type=Path, help="reuse the folders and caches in this folder")
    parser.add_argument("--large-only", action="store_true", help="measure the large folder only")
    parser.add_argument(
        "--no-settle",
        action="store_true",
        help="interactions back to back, not each on a server with no background work",
    )
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    print(f"load average at start: {load_average()} ({os.cpu_count()} cores)", flush=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        tmp_path = args.keep or Path(tmp)
        results = {}
        sizes = [("small", args.small)] * (not args.large_only) + [("large", args.files)]
        for label, count in sizes:
            root = tmp_path / f"real-{count}"
            if not root.exists():
                started = time.perf_counter()
                write_real_replicas(root, count)
                print(f"{count} files: written in {time.perf_counter() - started:.1f}s", flush=True)
            cache = tmp_path / f"cache-{root.name}"
            if args.keep is None:
                shutil.rmtree(cache, ignore_errors=True)
            results[label] = found = measure(browser, root, cache, calm=not args.no_settle)
            report(count, found)
        browser.close()
    small = None if args.large_only else results["small"]
    print(goals(f"ratio {args.files} vs {args.small} files", results["large"], small, GOALS))


if __name__ == "__main__":
    main()
