"""Leaderboard app at scale: 30 result files vs 10,000, cold and warm, measured in a real browser.

Builds result folders from real runs (bm25 on the demo task and three MultiConIR demo tasks, through
``leaderboard.evaluate``), copied under many model names with their scores scaled, plus a
``benchmarks.json`` with two benchmarks over them. For each folder, on this machine:

* index build: ``leaderboard serve`` started once with an empty cache, so every file is validated
  into the results index (what ``pull`` or the first start does once; reported, not part of the goal);
* cold: a new ``leaderboard serve`` process over the indexed folder (the start a Space restart makes):
  seconds from process start to HTTP 200, and to the first ranked table in Chromium (the board of
  the first benchmark, ``?benchmark=Demo``, its first ranked row drawn);
* warm: a second page opened on the running server (the next reader): seconds to the first ranked table;
* RSS of the server process (current and peak) after those pages;
* interactions in that page, each timed from the click or keystroke to the table (or tab) redrawn:
  benchmark switch, header sort (server side, over every row), search, page 2, tab switch; the slowest.

    python perf/perf_app.py [--files 10000] [--small 30] [--keep DIR] [--large-only]

``--keep DIR`` (for iterating): the seed runs, folders and index caches live in DIR and are reused
when present (the index-build line is then a start over a built index); ``--large-only`` skips the
30-file folder (and so the ratio line). The default run measures everything from scratch.

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

TASKS = ["demo", "multiconir-demo-task1", "multiconir-demo-task2", "multiconir-demo-task3"]
BENCHMARKS = [
    {
        "name": "Demo",
        "description": "nDCG@10 on the demo task",
        "reference": "https://example.org/demo",
        "tasks": [
            {"task": "demo", "metric": "ndcg_at_10"},
            {"task": "demo", "metric": "mrr_at_10", "in_aggregate": False},
        ],
    },
    {
        "name": "Conditions",
        "description": "MultiConIR demo tasks 1 and 2",
        "reference": "https://example.org/conditions",
        "tasks": [
            {"task": "multiconir-demo-task1", "metric": "mean_win_rate"},
            {"task": "multiconir-demo-task2", "metric": "mean_adjacent_win_rate"},
            {"task": "multiconir-demo-task3", "metric": "flip_rate", "direction": "lower", "in_aggregate": False},
        ],
    },
]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
TABLE_ROW = "#board-table tbody.ranked tr"


def make_results(root: Path, seed: list[dict], files: int) -> None:
    """``files`` results: the seed runs copied under model names org/model-NNNNN, scores scaled per model."""
    from leaderboard.records.result import PerQuery, decode_per_query, encode_per_query

    decoded = {
        d["task"]["name"]: decode_per_query(PerQuery.model_validate(d["per_query"])) if d.get("per_query") else None
        for d in seed
    }
    for i in range(files):
        source = seed[i % len(seed)]
        data = json.loads(json.dumps(source))
        model = i // len(seed)
        name = f"org/model-{model:05d}"
        scale = 0.5 + (model % 97) / 200
        data["model"]["name"] = data["model"]["metadata"]["name"] = name
        data["model"]["metadata"]["n_parameters"] = int(10 ** (7 + (model % 30) / 10))
        data["main_score"] *= scale
        for subsets in data["scores"].values():
            for values in subsets.values():
                for key in values:
                    values[key] *= scale
        for subsets in data.get("confidence_intervals", {}).values():
            for values in subsets.values():
                for key in values:
                    values[key] = sorted(v * scale for v in values[key])
        per_query = decoded[data["task"]["name"]]
        if per_query:
            scaled = {q: {m: v * scale for m, v in row.items()} for q, row in per_query.items()}
            fresh = encode_per_query(scaled).model_dump()
            if data["per_query"].get("subsets"):  # which queries form each subset: unchanged by the scaling
                fresh["subsets"] = data["per_query"]["subsets"]
            data["per_query"] = fresh
        folder = root / name.replace("/", "__") / "r1"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{data['task']['name']}.json").write_text(json.dumps(data))
    (root / "benchmarks.json").write_text(json.dumps(BENCHMARKS))


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


class Server:
    def __init__(self, root: Path, cache: Path):
        self.port = free_port()
        env = {**os.environ, "XDG_CACHE_HOME": str(cache), "HF_HUB_OFFLINE": "1", "LEADERBOARD_PLUGINS": "bm25"}
        self.started = time.perf_counter()
        command = [sys.executable, "-m", "leaderboard", "serve", "--results", str(root), "--port", str(self.port)]
        self.proc = subprocess.Popen([*command, "--public"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        self.url = f"http://127.0.0.1:{self.port}/"
        while True:
            try:
                urllib.request.urlopen(self.url, timeout=5)
                break
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(self.proc.stderr.read().decode()) from None  # type: ignore[union-attr]
                time.sleep(0.05)
        self.ready = time.perf_counter() - self.started

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=20)


def first_table(browser, url: str, since: float | None = None) -> tuple[float, object]:
    """Seconds until the first ranked row is drawn (from ``since``, else from opening the page), and the page."""
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    start = time.perf_counter() if since is None else since
    page.goto(url + "?benchmark=Demo")
    page.wait_for_selector(TABLE_ROW, timeout=600_000)
    return time.perf_counter() - start, page


def timed(action, wait) -> float:
    start = time.perf_counter()
    action()
    wait()
    return time.perf_counter() - start


def interactions(page) -> dict[str, float]:
    """Each interaction, from the reader's action to the view redrawn."""
    out: dict[str, float] = {}

    def select(name: str) -> None:
        page.locator("#benchmark-select input").click()
        page.get_by_role("option", name=name, exact=True).click()

    def shown(name: str) -> None:
        page.wait_for_function(
            "(n) => { const s = document.querySelector('#benchmark-summary');"
            " return s && s.innerText.startsWith(n) && document.querySelector('#board-table tbody.ranked tr'); }",
            arg=name,
            timeout=300_000,
        )

    out["benchmark switch (Demo -> Conditions)"] = timed(lambda: select("Conditions"), lambda: shown("Conditions"))
    out["benchmark switch (Conditions -> Demo)"] = timed(lambda: select("Demo"), lambda: shown("Demo"))
    header = page.locator("#board-table thead th[data-key=c1]")
    out["sort by a column (server side, all rows)"] = timed(
        header.click, lambda: page.wait_for_selector("#board-table th[data-key=c1][aria-sort]", timeout=60_000)
    )
    pager = page.locator("#board-pager button[data-page='2']").first
    if pager.count():
        out["next page"] = timed(  # to page 2 drawn (the URL changes before the request is sent)
            pager.click,
            lambda: page.wait_for_function(
                "() => new URLSearchParams(location.search).get('p') === '2' && "
                "(document.querySelector('#board-pager span')?.innerText || '').includes('page 2 of')",
                timeout=60_000,
            ),
        )
    page.locator("#filters").get_by_text("Filters and columns").click()
    box = page.locator("#filter-search input, #filter-search textarea").first
    out["search (type a name)"] = timed(
        lambda: box.fill("model-0000"),
        lambda: page.wait_for_function(
            "() => { const rows = document.querySelectorAll('#board-table tbody.ranked tr');"
            " return rows.length > 0 && Array.from(rows).every(r => r.innerText.includes('model-0000')); }",
            timeout=60_000,
        ),
    )
    out["tab switch (About)"] = timed(
        lambda: page.get_by_role("tab", name="About").click(), lambda: page.wait_for_selector("#about", timeout=60_000)
    )
    out["tab switch (Provenance)"] = timed(
        lambda: page.get_by_role("tab", name="Provenance").click(),
        lambda: page.wait_for_selector("#provenance-table", timeout=60_000),
    )
    out["tab switch (back to Leaderboard)"] = timed(
        lambda: page.get_by_role("tab", name="Leaderboard").click(),
        lambda: page.wait_for_selector(TABLE_ROW, state="visible", timeout=60_000),
    )
    return out


def measure(browser, root: Path, cache: Path) -> dict[str, object]:
    build = Server(root, cache)  # empty cache: every file validated into the index
    build_table, page = first_table(browser, build.url, build.started)
    page.close()
    build.stop()
    server = Server(root, cache)  # cold: a new process over the indexed folder
    cold_table, page = first_table(browser, server.url, server.started)
    page.close()
    warm_table, page = first_table(browser, server.url)  # warm: the next reader
    rss_after_pages = rss_mib(server.proc.pid)
    steps = interactions(page)
    page.close()
    rss, peak = rss_mib(server.proc.pid)
    server.stop()
    return {
        "build_ready": build.ready,
        "build_table": build_table,
        "cold_ready": server.ready,
        "cold_table": cold_table,
        "warm_table": warm_table,
        "rss_pages": rss_after_pages[0],
        "rss": rss,
        "peak": peak,
        "steps": steps,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--small", type=int, default=30)
    parser.add_argument("--keep", type=Path, help="reuse the seed, folders and caches in this folder")
    parser.add_argument("--large-only", action="store_true", help="measure the large folder only")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    import leaderboard

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        tmp_path = args.keep or Path(tmp)
        if not (tmp_path / "seed").exists():
            leaderboard.evaluate(["bm25"], TASKS, output=tmp_path / "seed")
        seed = [json.loads(p.read_text()) for p in sorted((tmp_path / "seed").rglob("*.json"))]
        results = {}
        sizes = [("small", args.small)] * (not args.large_only) + [("large", args.files)]
        for label, count in sizes:
            root = tmp_path / (label if args.keep is None else f"{label}-{count}")
            if not root.exists():
                started = time.perf_counter()
                make_results(root, seed, count)
                print(f"{count} files: written in {time.perf_counter() - started:.1f}s", flush=True)
            found = measure(browser, root, tmp_path / f"cache-{root.name}")
            results[label] = found
            worst = max(found["steps"].items(), key=lambda kv: kv[1])  # type: ignore[union-attr]
            print(
                f"{count} files: index build (first start): HTTP 200 {found['build_ready']:.2f}s, first table "
                f"{found['build_table']:.2f}s\n"
                f"{count} files: cold: HTTP 200 {found['cold_ready']:.2f}s, first ranked table "
                f"{found['cold_table']:.2f}s | warm: first ranked table {found['warm_table']:.2f}s | "
                f"RSS {found['rss']:.0f} MiB (peak {found['peak']:.0f} MiB)\n"
                f"{count} files: slowest interaction {worst[1]:.3f}s ({worst[0]})",
                flush=True,
            )
            for step, seconds in found["steps"].items():  # type: ignore[union-attr]
                print(f"    {seconds * 1000:8.0f} ms  {step}", flush=True)
        browser.close()
        if args.large_only:
            return
        small, large = results["small"], results["large"]
        print(
            f"ratio {args.files} vs {args.small} files: cold first table "
            f"{large['cold_table'] / small['cold_table']:.2f}x, warm first table "  # type: ignore[operator]
            f"{large['warm_table'] / small['warm_table']:.2f}x (goal <= 2x); "  # type: ignore[operator]
            f"RSS {large['rss']:.0f} MiB (goal < 600); slowest interaction "
            f"{max(large['steps'].values()):.3f}s (goal < 1 s)"  # type: ignore[union-attr]
        )


if __name__ == "__main__":
    main()
