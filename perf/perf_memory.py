"""Memory growth with corpus size (a script, not a timed test).

Peak RSS of ``leaderboard.evaluate`` with a tiny deterministic encoder (a random projection of
each text's byte histogram, so the model costs nothing) on synthetic BEIR corpora of 10k, 100k and
1M passages and 200 queries, each size in a fresh subprocess. Embedding shards are float16 files
on disk (``--dtype float16``) and are not memory. Goal: the 1M peak within 1.5x of the 10k peak.

    python perf/perf_memory.py [--sizes 10000 100000 1000000] [--data /tmp/bench-memory-data]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from leaderboard.contract.model import DenseModel, ModelKind, ModelMetadata

N_QUERIES = 200
GOAL = 1.5
VOCABULARY = [f"w{i}" for i in range(5000)]


class ByteHistogramEncoder(DenseModel):
    """A fixed random projection (seeded) of each text's byte histogram: deterministic and nearly free."""

    def __init__(self, dim: int = 64):
        self.metadata = ModelMetadata("byte-histogram-encoder", ModelKind.DENSE, revision="1", similarity="cosine")
        self.projection = np.random.default_rng(0).standard_normal((256, dim)).astype(np.float32)

    def settings(self) -> dict:
        return {"dim": self.projection.shape[1]}

    def encode(self, texts: Sequence[str], role) -> np.ndarray:
        counts = np.stack([np.bincount(np.frombuffer(t.encode(), np.uint8), minlength=256) for t in texts])
        return counts.astype(np.float32) @ self.projection


def write_corpus(root: Path, n: int) -> Path:
    """n passages of 20-120 words (ids p0..), 200 queries, two judged passages each."""
    if (root / "qrels" / "test.tsv").exists():
        return root
    rng = np.random.default_rng(n)
    (root / "qrels").mkdir(parents=True, exist_ok=True)
    with open(root / "corpus.jsonl.tmp", "w") as handle:
        for start in range(0, n, 10000):
            size = min(10000, n - start)
            lengths = rng.integers(20, 120, size=size)
            words = rng.integers(0, len(VOCABULARY), size=int(lengths.sum()))
            offset = 0
            for i, length in enumerate(lengths):
                text = " ".join(VOCABULARY[w] for w in words[offset : offset + length])
                offset += length
                handle.write(json.dumps({"_id": f"p{start + i}", "title": "", "text": text}) + "\n")
    os.replace(root / "corpus.jsonl.tmp", root / "corpus.jsonl")
    with open(root / "queries.jsonl", "w") as handle:
        for q in range(N_QUERIES):
            text = " ".join(VOCABULARY[w] for w in rng.integers(0, len(VOCABULARY), size=6))
            handle.write(json.dumps({"_id": f"q{q}", "text": text}) + "\n")
    with open(root / "qrels" / "test.tsv.tmp", "w") as handle:
        handle.write("query-id\tcorpus-id\tscore\n")
        for q in range(N_QUERIES):
            for d in rng.choice(n, size=2, replace=False):
                handle.write(f"q{q}\tp{d}\t1\n")
    os.replace(root / "qrels" / "test.tsv.tmp", root / "qrels" / "test.tsv")
    return root


def child(folder: str) -> None:
    """One run in this (fresh) process; prints its peak RSS."""
    import leaderboard

    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        (outcome,) = leaderboard.evaluate(
            [ByteHistogramEncoder()],
            [folder],
            output=out,
            use_cache=False,
            dtype="float16",
            shard_dir=str(Path(out) / "shards"),
        )
        seconds = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # Linux: KiB
    print(
        json.dumps(
            {
                "peak_rss_mib": peak_kib / 1024,
                "seconds": seconds,
                "documents": outcome.result.counts["documents"],
                "main_score": outcome.result.main_score,
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "bench-memory-data")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    peaks = {}
    for n in args.sizes:
        folder = write_corpus(args.data / f"corpus-{n}", n)
        ran = subprocess.run(
            [sys.executable, __file__, "--child", str(folder)], capture_output=True, text=True, check=False
        )
        if ran.returncode != 0:
            sys.exit(f"run on {n} passages failed:\n{ran.stderr[-3000:]}")
        row = json.loads(ran.stdout.strip().splitlines()[-1])
        peaks[n] = row["peak_rss_mib"]
        print(
            f"{n:>9,} passages: peak RSS {row['peak_rss_mib']:7.1f} MiB, {row['seconds']:6.1f} s, "
            f"documents={row['documents']}, nDCG@10={row['main_score']:.4f}",
            flush=True,
        )
    small, large = min(args.sizes), max(args.sizes)
    ratio = peaks[large] / peaks[small]
    verdict = "OK" if ratio <= GOAL else "OVER GOAL"
    print(f"peak({large:,}) / peak({small:,}) = {ratio:.3f} (goal <= {GOAL}) -> {verdict}")


if __name__ == "__main__":
    main()
