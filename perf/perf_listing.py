"""`leaderboard show --reported` of a 100,000-cell reported file: the terminal table against CSV and JSON.

The file is ComLQ's own reported table (``submissions/reported/comlq.json``: its columns, row shape and
printed numbers) with its rows replicated under new model names until it holds ``--cells`` cells
(a paper's file is tens of kilobytes; this one is the size the reader must survive). Each format is
run as a user runs it (a fresh ``python -m leaderboard`` process, output to a file), alternating
formats ``--repeat`` times; the table's time is reported as a ratio to CSV's (the goal: the same order
of time, where laying out every row with rich would take minutes).

    python perf/perf_listing.py [--cells 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SEED = REPO / "submissions" / "reported" / "comlq.json"


def build(folder: Path, cells: int) -> int:
    paper = json.loads(SEED.read_text("utf-8"))
    table = paper["tables"][0]
    seed_rows, width = table["rows"], len(table["columns"])
    rows = []
    while len(rows) * width < cells:
        row = dict(seed_rows[len(rows) % len(seed_rows)])
        row["label"] = row["model"] = f"{row['model']} copy {len(rows)}"
        rows.append(row)
    paper["tables"] = [table | {"rows": rows}]
    (folder / "reported").mkdir(parents=True)
    (folder / "reported" / "big.json").write_text(json.dumps(paper), "utf-8")
    return sum(1 for row in rows for value in row["values"] if value is not None)


def timed(folder: Path, fmt: str, out: Path) -> float:
    env = {**os.environ, "XDG_CACHE_HOME": str(folder / "cache")}
    start = time.perf_counter()
    with out.open("w") as sink:
        ran = subprocess.run(
            [sys.executable, "-m", "leaderboard", "show", str(folder), "--reported", "--format", fmt],
            stdout=sink,
            stderr=subprocess.DEVNULL,
            env=env,
            timeout=1200,
        )
    if ran.returncode != 0:
        raise SystemExit(f"show --format {fmt} exited {ran.returncode}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cells", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="perf-listing-") as tmp:
        folder = Path(tmp) / "root"
        cells = build(folder, args.cells)
        times: dict[str, list[float]] = {"table": [], "csv": [], "json": []}
        for _ in range(args.repeat):
            for fmt in times:
                times[fmt].append(timed(folder, fmt, Path(tmp) / f"out.{fmt}"))
        lines = sum(1 for _ in (Path(tmp) / "out.table").open())
    print(f"show --reported of {cells:,} reported cells ({lines:,} table lines), median of {args.repeat} runs:")
    csv_time = statistics.median(times["csv"])
    for fmt, values in times.items():
        median = statistics.median(values)
        print(f"  --format {fmt:<5}  {median:6.2f} s   ({median / csv_time:.2f} x CSV)")
    print(f"load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
