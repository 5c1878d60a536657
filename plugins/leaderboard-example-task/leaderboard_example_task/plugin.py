"""``example-topics``: eight embedded passages on two topics, four queries, and a view of its own.

Everything here comes from the public contract (``from leaderboard import ...``): the task
declares its metadata, loads its data (with a content hash), scores a run, and declares the views
the leaderboard draws for it (``TaskMetadata.views``). It also declares a one-task benchmark, so
the board ranks it. The leaderboard app knows nothing about it: the views travel in the results.
"""

from __future__ import annotations

import hashlib
import json

from leaderboard import (
    Benchmark,
    BenchmarkTask,
    DataSource,
    Metric,
    RetrievalData,
    RetrievalTask,
    Run,
    ScoreReport,
    TaskMetadata,
    View,
    hookimpl,
)

PASSAGES = {
    "a1": "The cheetah is the fastest land animal and hunts antelope on the savanna.",
    "a2": "Octopuses have three hearts and can change the colour of their skin.",
    "a3": "Honey bees communicate the direction of flowers with a waggle dance.",
    "a4": "Emperor penguins huddle together to survive the Antarctic winter.",
    "s1": "Jupiter is the largest planet of the solar system and has a great red spot.",
    "s2": "A light year is the distance light travels in one year, about 9.46 trillion kilometres.",
    "s3": "The Hubble space telescope was launched into low Earth orbit in 1990.",
    "s4": "Mars has two small moons called Phobos and Deimos.",
}
QUERIES = {
    "q1": ("animals", "which animal is the fastest on land"),
    "q2": ("animals", "how do bees tell each other where flowers are"),
    "q3": ("space", "what are the moons of Mars called"),
    "q4": ("space", "when was the Hubble telescope launched"),
}
RELEVANT = {"q1": "a1", "q2": "a3", "q3": "s4", "q4": "s3"}
TOPICS = ("animals", "space")


def _metadata() -> TaskMetadata:
    labels = {f"topic={t}": t.capitalize() for t in TOPICS} | {"hit_at_1": "Hit@1", "reciprocal_rank": "MRR"}
    return TaskMetadata(
        name="example-topics",
        family="example",
        description="Example plugin task: 8 passages on two topics, 4 queries, one relevant passage each",
        reference="https://example.org/example-topics",
        metrics=[
            Metric("reciprocal_rank", "higher", "1 / rank of the relevant passage in the top 10 (0 if absent)"),
            Metric("hit_at_1", "higher", "1 when the relevant passage is ranked first"),
        ],
        main_score="reciprocal_rank",
        subsets=["default", *(f"topic={t}" for t in TOPICS)],
        top_k=10,
        views=[
            View(
                kind="bars",
                title="Reciprocal rank per topic",
                subsets=tuple(f"topic={t}" for t in TOPICS),
                metrics=("reciprocal_rank",),
                labels=labels,
                description="Mean reciprocal rank of the relevant passage, per topic of the query.",
                y_range=(0.0, 1.0),
            ),
            View(
                kind="table",
                title="Both metrics",
                metrics=("reciprocal_rank", "hit_at_1"),
                labels=labels,
            ),
        ],
    )


class TopicsTask(RetrievalTask):
    def __init__(self) -> None:
        self.metadata = _metadata()

    def load(self) -> RetrievalData:
        payload = json.dumps([PASSAGES, QUERIES, RELEVANT], sort_keys=True).encode()
        source = DataSource(
            kind="embedded",
            uri="leaderboard_example_task.plugin",
            content_hash=f"sha256:{hashlib.sha256(payload).hexdigest()}",
        )
        return RetrievalData(
            corpus=dict(PASSAGES),
            queries={q: text for q, (_, text) in QUERIES.items()},
            qrels={q: {d: 1} for q, d in RELEVANT.items()},
            source=source,
        )

    def compute_scores(self, data: RetrievalData, run: Run) -> ScoreReport:
        per_query = {}
        for query in data.queries:
            ranked = sorted(run.get(query, {}).items(), key=lambda item: (-item[1], item[0]))[:10]
            ids = [doc for doc, _ in ranked]
            relevant = RELEVANT[query]
            rank = ids.index(relevant) + 1 if relevant in ids else None
            per_query[query] = {"reciprocal_rank": 1.0 / rank if rank else 0.0, "hit_at_1": float(rank == 1)}
        subsets = {"default": list(per_query)} | {
            f"topic={t}": [q for q in per_query if QUERIES[q][0] == t] for t in TOPICS
        }
        scores = {
            name: {m: sum(per_query[q][m] for q in queries) / len(queries) for m in ("reciprocal_rank", "hit_at_1")}
            for name, queries in subsets.items()
        }
        return ScoreReport(
            scores={"test": scores},
            subset_sizes={"test": {name: len(queries) for name, queries in subsets.items()}},
            per_query=per_query,
        )


@hookimpl
def register_tasks(register):
    register("example-topics", lambda request: TopicsTask(), description="Example plugin task (two topics)")


@hookimpl
def register_benchmarks(register):
    register(
        "Example topics",
        lambda: Benchmark(
            name="Example topics",
            description="The example plugin's one-task benchmark: mean reciprocal rank over its four queries.",
            reference="https://example.org/example-topics",
            tasks=(BenchmarkTask("example-topics", "reciprocal_rank", label="Example topics"),),
            aggregate_label="MRR",
            formula="MRR(example-topics)",
            citation="@misc{example-topics, title={Example topics}, year={2026}}",
        ),
        description="Example plugin benchmark (one task)",
    )
