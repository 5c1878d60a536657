"""The board over the MTEB results repository's retrieval results, imported: 35,000 and 100,000 files, in Chromium.

Builds (once per size; reused with ``--keep``) a replica of the repository's text retrieval and
reranking results from the 1,317 real files (``perf/mteb_replica.py``: the real files, byte for byte,
in copies of their model folders under new names), imports it with ``leaderboard import`` (timed,
reported), writes the project's FollowIR, BRIGHT, IFIR and mFollowIR declarations beside the imported
results, and measures the board as ``perf/perf_app.py`` does (``measure``), side by side with a board
of 30 of those imported files:

* first start (the index built from nothing): goal at most 120 s at 35,000 files;
* warm start (a second page on the running server) to the first ranked table: goal at most 2x the
  30-file board;
* every interaction under 1 s (``perf_app.interactions``: with a model's page opened from its name on
  the board, another model picked there, and five models side by side with their pairwise tests); RSS under
  1 GB (peak).

Then mteb's own leaderboard app (``mteb.leaderboard.get_leaderboard_app``) over the same replica,
offline (HF_HUB_OFFLINE=1), in a fresh process: seconds to its first HTTP 200 and peak RSS, with its
results cache built from the files (``rebuild=True``) and then read back (``rebuild=False``). Offline,
its build cannot start as written: ``ResultCache.download_from_remote`` runs ``git clone`` or ``git
fetch`` of github.com/embeddings-benchmark/results before reading any file (and it loads only models
its own registry names). The script replaces that one method with "the folder is already here" and
says so; nothing else of mteb is changed.

    python perf/perf_board_mteb.py [--files 35000 100000] [--small 30] [--keep DIR] [--skip-mteb]

Chromium: /usr/bin/chromium (Playwright); mteb 2.x for its app.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mteb_replica import build as build_replica
from perf_app import CHROMIUM, goals, load_average, measure, report
from replicas import builtin_benchmarks

BENCHMARKS = ("FollowIR", "BRIGHT", "IFIR", "mFollowIR")
GOALS = {"build": 120.0, "rss": 1024.0, "step": 1.0, "warm_ratio": 2.0}


def imported(raw: Path, out: Path) -> float:
    """``leaderboard import`` of the replica into ``out`` (reused when done), with the benchmarks; seconds."""
    marker = out / ".imported"
    if marker.is_file():
        return float(marker.read_text())
    shutil.rmtree(out, ignore_errors=True)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "leaderboard", "import", str(raw / "results"), "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 4):  # 4: some files skipped (other task types, broken files), as documented
        raise SystemExit(f"import failed ({done.returncode}): {done.stderr[-2000:]}")
    (out / "benchmarks.json").write_text(json.dumps(builtin_benchmarks(BENCHMARKS)), "utf-8")
    marker.write_text(str(seconds))
    return seconds


SMALL_TASKS = ("Robust04InstructionRetrieval", "News21InstructionRetrieval", "Core17InstructionRetrieval")


def small_board(source: Path, out: Path, files: int) -> None:
    """About ``files`` imported results: the FollowIR results of models that have its three tasks, as a board of
    its own (for the first tables it is compared by; its interactions are not measured)."""
    if out.exists():
        return
    copied = 0
    for folder in sorted(p for p in source.glob("*/*") if p.is_dir()):
        found = [folder / f"{task}.json" for task in SMALL_TASKS]
        if copied + len(found) > files or not all(p.is_file() for p in found):
            continue
        for path in found:
            target = out / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
        copied += len(found)
    shutil.copy(source / "benchmarks.json", out / "benchmarks.json")


MTEB_APP = """
import logging, resource, sys, time, traceback, urllib.request
from pathlib import Path
started = time.perf_counter()
steps = []
class Steps(logging.Handler):
    def emit(self, record):
        if "complete" in record.getMessage():
            steps.append(f"{time.perf_counter() - started:.1f}s {record.getMessage()}")
logging.getLogger("mteb.leaderboard").addHandler(Steps())
from mteb.cache import ResultCache
from mteb.leaderboard.app import get_leaderboard_app

ResultCache.download_from_remote = lambda self, *a, **k: self.remote_repo_path  # offline: the folder is here
try:
    app = get_leaderboard_app(cache=ResultCache(sys.argv[1]), rebuild=sys.argv[2] == "rebuild", cache_repo_id=None)
    app.launch(server_name="127.0.0.1", server_port=int(sys.argv[3]), prevent_thread_lock=True)
    urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[3]}/", timeout=60)
    print("READY", f"{time.perf_counter() - started:.1f}", flush=True)
    app.close()
except Exception as exc:
    where = traceback.extract_tb(exc.__traceback__)[-1]
    print("FAILED", f"{type(exc).__name__}: {exc} (at {Path(where.filename).name}:{where.lineno}, "
          f"after {time.perf_counter() - started:.1f}s)", flush=True)
for step in steps:
    print("STEP", step)
print("RSS", f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}")
"""


def mteb_app(raw: Path, cache: Path, mode: str, extra: Path | None = None) -> str:
    """mteb's leaderboard app over the replica in a fresh process: its steps, HTTP 200 or why not, peak RSS."""
    (cache / "remote").mkdir(parents=True, exist_ok=True)
    if not (cache / "remote" / "results").exists():
        (cache / "remote" / "results").symlink_to(raw / "results")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
    if extra is not None:  # mteb's leaderboard extras (cachetools, plotly, ...) installed apart from this venv
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(extra), env.get("PYTHONPATH", "")]))
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", MTEB_APP, str(cache), mode, str(port)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=3600,
    )
    lines = [line.split(" ", 1) for line in done.stdout.splitlines() if " " in line]
    found = {key: value for key, value in lines if key in ("READY", "FAILED", "RSS")}
    steps = [value for key, value in lines if key == "STEP"]
    if "READY" in found:
        outcome = f"HTTP 200 after {found['READY']}s"
    elif "FAILED" in found:
        outcome = f"did not start: {found['FAILED']}"
    else:
        outcome = f"did not start (exit {done.returncode}): {(done.stderr.strip().splitlines() or ['?'])[-1]}"
    shown = "; ".join(steps) or "no step completed"
    return (
        f"{outcome}; peak RSS {found.get('RSS', '?')} MiB; process {time.perf_counter() - started:.1f}s\n"
        f"    its steps: {shown}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, nargs="+", default=[35_000, 100_000])
    parser.add_argument("--small", type=int, default=30)
    parser.add_argument("--keep", type=Path, help="reuse the replicas, imports and caches in this folder")
    parser.add_argument("--skip-mteb", action="store_true", help="do not start mteb's leaderboard app")
    parser.add_argument(
        "--mteb-extra",
        type=Path,
        help="a folder holding mteb's leaderboard extras apart from this venv (its gradio pin would replace "
        "the board's; --no-deps, so that no second numpy or pillow shadows the venv's): pip install --no-deps "
        "--target DIR cachetools 'plotly<6' pymongo matplotlib tenacity dnspython contourpy cycler fonttools "
        "kiwisolver pyparsing",
    )
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    print(f"load average at start: {load_average()} ({os.cpu_count()} cores)", flush=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        work = args.keep or Path(tmp)
        small_result = None
        for count in args.files:
            raw = work / f"mteb-replica-{count}"
            build_replica(raw, files=count, retrieval=count)
            results = work / f"mteb-imported-{count}"
            print(f"{count} files: imported in {imported(raw, results):.1f}s", flush=True)
            if small_result is None:
                small = work / f"mteb-imported-small-{args.small}"
                small_board(results, small, args.small)
                cache = work / f"cache-{small.name}"
                shutil.rmtree(cache, ignore_errors=True)
                small_result = measure(browser, small, cache, first="FollowIR", interact=False)
                report(args.small, small_result)
            cache = work / f"cache-{results.name}"
            shutil.rmtree(cache, ignore_errors=True)  # the first start builds the index from nothing
            found = measure(browser, results, cache, first="FollowIR", second="BRIGHT", search="-copy1")
            report(count, found)
            print(goals(f"ratio {count} vs {args.small} files", found, small_result, GOALS), flush=True)
            if not args.skip_mteb:
                mteb_cache = work / f"mteb-cache-{count}"
                shutil.rmtree(mteb_cache / "leaderboard", ignore_errors=True)
                for mode, how in (("rebuild", "built from the files"), ("cached", "from its cache")):
                    found_mteb = mteb_app(raw, mteb_cache, mode, args.mteb_extra)
                    print(f"{count} files: mteb's leaderboard app, {how}: {found_mteb}", flush=True)
        browser.close()
    print(f"load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
