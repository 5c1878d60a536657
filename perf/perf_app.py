"""Leaderboard app at scale: cold start with 10,000 result files vs 15, and the slowest interaction.

Builds result folders from real runs (bm25 on the demo task and three MultiConIR demo tasks, through
``leaderboard.evaluate``), copied under many model names with their scores scaled, plus a
``benchmarks.json`` with two benchmarks over them. Then, on this machine:

* index build: ``leaderboard serve`` started with an empty cache (every file validated once);
* cold start: ``leaderboard serve`` started again with the index built (as after a push/pull or an
  earlier start), timed from process start to HTTP 200 and to the first board rendered (the page's
  load event, called through gradio_client as a browser would);
* interactions, in one process with the board loaded: switching benchmark (first and cached),
  a filter change, and opening each tab (task views with their charts, size vs score, provenance,
  skipped files, About); the worst is reported.

    python perf/perf_app.py [--files 10000] [--small 15]
"""

from __future__ import annotations

import argparse
import json
import os
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


def make_results(root: Path, seed: list[dict], files: int) -> None:
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
            data["per_query"] = encode_per_query(scaled).model_dump()
        folder = root / name.replace("/", "__") / "r1"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{data['task']['name']}.json").write_text(json.dumps(data))
    (root / "benchmarks.json").write_text(json.dumps(BENCHMARKS))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_once(root: Path, cache: Path) -> tuple[float, float]:
    """Seconds from process start to HTTP 200, and to the first board rendered (the page's load event)."""
    from gradio_client import Client

    port = free_port()
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "HF_HUB_OFFLINE": "1", "LEADERBOARD_PLUGINS": "bm25"}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "leaderboard", "serve", "--results", str(root), "--port", str(port), "--public"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        while True:
            try:
                urllib.request.urlopen(url, timeout=5)
                break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError(proc.stderr.read().decode()) from None
                time.sleep(0.05)
        ready = time.perf_counter() - start
        client = Client(url, verbose=False)
        all_kinds = ["sparse"]  # every kind on this board (the copies of bm25 runs)
        client.predict("Demo", all_kinds, "any", [], "", ["Coverage"], api_name="/render_board")
        first_board = time.perf_counter() - start
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    return ready, first_board


def interactions(root: Path, cache: Path) -> dict[str, float]:
    """Seconds per interaction, with the board loaded in this process (what each event handler computes).

    "first view" computes a benchmark's ranking, intervals and tests from scratch; the app does that in
    a background thread as soon as a board is loaded, so a viewer normally meets "again".
    """
    os.environ["XDG_CACHE_HOME"] = str(cache)  # the index the server built
    from leaderboard.app import charts, loading, pages, render, views
    from leaderboard.app.filters import DEFAULT_COLUMNS, Filters

    timings: dict[str, float] = {}

    def timed(label, fn):
        start = time.perf_counter()
        result = fn()
        timings[label] = time.perf_counter() - start
        return result

    board = timed("load board (index read)", lambda: loading.load(root, public=True))
    for name in ("Demo", "Conditions"):
        ranking = timed(
            f"benchmark {name}: first view (ranking, intervals, tests, table)",
            lambda n=name: (
                board.ranking(n),
                render.board_table(board.ranking(n), Filters(), DEFAULT_COLUMNS),
            )[0],
        )
        timed(
            f"benchmark {name}: again (cached ranking)",
            lambda r=ranking: render.board_table(r, Filters(), DEFAULT_COLUMNS),
        )
        timed(
            f"benchmark {name}: filter change",
            lambda r=ranking: render.board_table(
                r, Filters(sizes=("< 100M", "100M–1B"), search="model-0"), DEFAULT_COLUMNS
            ),
        )
        timed(f"benchmark {name}: CSV of the view", lambda r=ranking: render.csv_frame(r, Filters()).to_csv())

        def views_tab(r=ranking):
            lines = r.ranked[:8]
            for task in dict.fromkeys(c.spec.task for c in r.columns):
                paths = {line.key: line.paths[task] for line in lines if task in line.paths}
                for view in views.views_of(board, task):
                    frame = views.view_frame(board, view, paths)
                    charts.view_chart(frame, view, view.title).to_json() if view.kind != "table" else None

        timed(f"benchmark {name}: task views tab", views_tab)
        timed(
            f"benchmark {name}: size vs score tab",
            lambda r=ranking: charts.size_chart(pages.size_frame(r)[0], "score").to_json(),
        )
        timed(
            f"benchmark {name}: provenance tab",
            lambda r=ranking: pages.provenance_html(board, [c.spec.task for c in r.columns]),
        )
    timed("skipped tab", lambda: pages.skipped_html(board))
    timed("about tab", lambda: pages.about_html(board))
    timed("overall (mean rank) view", lambda: render.overall_table(*board.overall(), Filters()))
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--small", type=int, default=15)
    args = parser.parse_args()
    import leaderboard

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        leaderboard.evaluate(["bm25"], TASKS, output=tmp_path / "seed")
        seed = [json.loads(p.read_text()) for p in sorted((tmp_path / "seed").rglob("*.json"))]
        sizes = {"small": args.small, "large": args.files}
        results = {}
        for label, count in sizes.items():
            root = tmp_path / label
            started = time.perf_counter()
            make_results(root, seed, count)
            print(f"{label}: wrote {count} result files in {time.perf_counter() - started:.1f}s", flush=True)
            cache = tmp_path / f"cache-{label}"
            build_ready, build_board = serve_once(root, cache)  # empty cache: every file validated
            ready, board = serve_once(root, cache)  # the index exists: cold start
            results[label] = (build_ready, build_board, ready, board)
            print(
                f"{label} ({count} files): first start, index built: HTTP 200 after {build_ready:.2f}s, board after "
                f"{build_board:.2f}s; cold start with the index: HTTP 200 after {ready:.2f}s, board after {board:.2f}s",
                flush=True,
            )
        small, large = results["small"], results["large"]
        print(
            f"cold-start ratio ({args.files} vs {args.small} files, index built): "
            f"HTTP 200 {large[2] / small[2]:.2f}x, first board {large[3] / small[3]:.2f}x (goal <= 1.5x)"
        )
        print(f"first start that builds the index ({args.files} files): {large[0]:.1f}s to HTTP 200")
        timings = interactions(tmp_path / "large", tmp_path / "cache-large")
        for label, seconds in timings.items():
            print(f"  {seconds * 1000:8.1f} ms  {label}")
        shown = {k: v for k, v in timings.items() if not k.startswith("load board")}
        worst = max((v, k) for k, v in shown.items() if "first view" not in k)
        cold = max((v, k) for k, v in shown.items() if "first view" in k)
        print(f"worst interaction ({args.files} files): {worst[0]:.3f}s ({worst[1]}) (goal < 1 s)")
        print(f"worst ranking computed from scratch (done in the background at start): {cold[0]:.3f}s ({cold[1]})")


if __name__ == "__main__":
    main()
