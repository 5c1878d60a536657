"""Leaderboard app cold start with 1,000 result files (a script, not a timed test).

Builds 1,000 valid result files (copies of real demo runs under 1,000 model names, 4 tasks
each, 250 models), then times, in one process: loading + validating them, building every
table, and constructing the Gradio app (everything `leaderboard serve` does before it listens).

    python benchmarks/bench_app.py [--files 1000]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from click.testing import CliRunner

from leaderboard.cli import cli


def make_results(root: Path, files: int) -> None:
    seed = root / "seed"
    ran = CliRunner().invoke(
        cli,
        [
            "run",
            "-m",
            "bm25",
            "-t",
            "demo",
            "-t",
            "multiconir-demo-task1",
            "-t",
            "multiconir-demo-task2",
            "-t",
            "multiconir-demo-task3",
            "--output",
            str(seed),
        ],
    )
    assert ran.exit_code == 0, ran.output
    sources = [json.loads(p.read_text()) for p in sorted(seed.rglob("*.json"))]
    for i in range(files):
        data = json.loads(json.dumps(sources[i % len(sources)]))
        name = f"org/model-{i // len(sources):04d}"
        data["model"]["name"] = data["model"]["metadata"]["name"] = name
        data["main_score"] *= 0.5 + (i % 97) / 200
        folder = root / "results" / name.replace("/", "__") / "r1"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{data['task']['name']}.json").write_text(json.dumps(data))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        make_results(Path(tmp), args.files)
        from leaderboard.app import data
        from leaderboard.app.ui import build_app

        start = time.perf_counter()
        loaded = data.load(Path(tmp) / "results")
        loaded_s = time.perf_counter() - start
        data.overview(loaded.rows)
        tables_s = time.perf_counter() - start - loaded_s
        build_app(Path(tmp) / "results")  # loads again, as serve does, then builds every component
        total_s = time.perf_counter() - start
        print(
            f"app cold start, {len(loaded.rows)} result files ({len(loaded.skipped)} skipped): load+validate {loaded_s:.2f}s, "
            f"overview table {tables_s:.2f}s, build_app (load + all tabs) {total_s - loaded_s - tables_s:.2f}s, total {total_s:.2f}s"
        )


if __name__ == "__main__":
    main()
