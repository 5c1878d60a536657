"""Import speed and memory on the MTEB results repository's scale, as ratios to json.load of the same files.

Builds (once; reused) a synthetic replica of the whole repository from the real files
(``perf/mteb_replica.py``: about 105,000 files, 35,000 of them text retrieval or reranking), then,
side by side in this run:

1. ``json.load`` of every result file, and of the retrieval/reranking ones only (the files the
   import reads), in this process;
2. ``leaderboard import`` of the whole replica into an empty folder, in a fresh process (its
   startup, the task plugins' declarations and mteb's import included): wall time and peak RSS;
3. the same import again (nothing changed: nothing is read but the listing and the unchanged
   check), wall time and peak RSS;
4. the import of the real folder (1,317 files) for the smaller size's peak RSS (memory bounded:
   it must not grow with the repository).

Targets: the whole repository in at most 5 minutes on the 2-core machine, bounded memory.

    python perf/perf_import.py [--replica /tmp/mteb-replica] [--files 105000] [--retrieval 35000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mteb_replica import REAL, build, json_files

TARGET_SECONDS = 300


def load_all(paths: list[Path]) -> float:
    start = time.perf_counter()
    for path in paths:
        with open(path, "rb") as handle:
            json.load(handle)
    return time.perf_counter() - start


def run_import(source: Path, output: Path) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MiB, first line of output) of ``leaderboard import`` in a fresh process."""
    code = (
        "import resource, sys, runpy; sys.argv = ['leaderboard', 'import', sys.argv[1], '-o', sys.argv[2]];\n"
        "try:\n    runpy.run_module('leaderboard', run_name='__main__')\n"
        "finally:\n    print('RSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)"
    )
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code, str(source), str(output)], capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 4):
        raise SystemExit(f"import failed ({done.returncode}): {done.stderr[-2000:]}")
    rss = next(int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("RSS "))
    return seconds, rss / 1024, done.stdout.strip().splitlines()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replica", type=Path, default=Path(tempfile.gettempdir()) / "mteb-replica")
    parser.add_argument("--files", type=int, default=105_000)
    parser.add_argument("--retrieval", type=int, default=35_000)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} (cores: {os.cpu_count()})")
    start = time.perf_counter()
    build(args.replica, args.files, args.retrieval)
    print(f"replica: {args.replica} ({time.perf_counter() - start:.0f} s to build or check)")
    everything = json_files(args.replica / "results")
    from leaderboard.mteb.tasks import registry

    tasks = registry()
    imported = [p for p in everything if (t := tasks.find(p.stem)) is not None and t.imported]
    load_all(imported[:2000])  # the page cache warm for both sides alike
    all_seconds = load_all(everything)
    read_seconds = load_all(imported)
    print(f"json.load: {len(everything):,} files {all_seconds:.1f} s; {len(imported):,} imported {read_seconds:.1f} s")
    out = Path(tempfile.mkdtemp(prefix="perf-import-"))
    try:
        first, first_rss, said = run_import(args.replica, out / "replica")
        print(f"import (empty output): {first:.1f} s, peak RSS {first_rss:.0f} MiB — {said}")
        again, again_rss, said = run_import(args.replica, out / "replica")
        print(f"import again (unchanged): {again:.1f} s, peak RSS {again_rss:.0f} MiB — {said}")
        small, small_rss, said = run_import(REAL, out / "real")
        print(f"import of the real folder (1,317 files): {small:.1f} s, peak RSS {small_rss:.0f} MiB")
    finally:
        shutil.rmtree(out, ignore_errors=True)
    print(
        f"ratios: import / json.load of the imported files {first / read_seconds:.1f}x, "
        f"/ json.load of every file {first / all_seconds:.1f}x; unchanged re-import / json.load of the imported "
        f"files {again / read_seconds:.1f}x"
    )
    print(
        f"target: whole repository <= {TARGET_SECONDS} s: {'met' if first <= TARGET_SECONDS else 'NOT met'} "
        f"({first:.0f} s); memory: {first_rss:.0f} MiB at {len(everything):,} files vs {small_rss:.0f} MiB at 1,317"
    )
    print(f"this process: peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
