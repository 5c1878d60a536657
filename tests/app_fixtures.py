"""A results folder for the app tests: real runs, plus edited copies and the declarations of a few
test benchmarks (the app's own fixtures; the built-in benchmark declarations are not used here).

Models: bm25 (real runs), two edited copies (one with a hostile name), ``partial-model`` (covers
one task of a two-task benchmark), ``limited-model`` (only a ``--limit`` run, which must never be ranked).
Tasks: the demo task, three MultiConIR demo tasks (with views declared the way a task declares
them), ``followish`` (a metric that goes negative), ``stray-task`` (in no benchmark). Plus an
invalid file and a file of an unknown schema version.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from leaderboard.records.result import PerQuery, decode_per_query, encode_per_query

HOSTILE = "<img src=x onerror=alert(1)>"
REPO = Path(__file__).resolve().parent.parent
EXAMPLE_PLUGIN = REPO / "plugins" / "leaderboard-example-task"

# name -> (kind, parameters, scale applied to every score, followish p-MRR)
MODELS = {
    "bm25": ("sparse", None, 1.0, 0.05),
    "tiny-dense-model": ("dense", 22_700_000, 0.5, -0.12),
    HOSTILE: ("dense", 7_600_000_000, 0.9, 0.31),
}

BENCHMARKS = [
    {
        "name": "Demo retrieval",
        "description": "The demo task's nDCG@10 (a test benchmark); MRR@10 shown beside it.",
        "reference": "https://example.org/papers/demo-retrieval",
        "tasks": [
            {"task": "demo", "metric": "ndcg_at_10", "label": "Demo"},
            {"task": "demo", "metric": "mrr_at_10", "label": "Demo", "in_aggregate": False},
        ],
        "aggregate_label": "nDCG@10",
        "formula": "nDCG@10(demo)",
        "citation": "@misc{demo-retrieval, title={Demo retrieval}, year={2026}}",
    },
    {
        "name": "Conditions",
        "description": "Win rates under more and more conditions (a test benchmark over the MultiConIR demo tasks).",
        "reference": "https://example.org/papers/conditions",
        "tasks": [
            {"task": "multiconir-demo-task1", "metric": "mean_win_rate", "label": "Task 1"},
            {"task": "multiconir-demo-task2", "metric": "mean_adjacent_win_rate", "label": "Task 2"},
            {
                "task": "multiconir-demo-task3",
                "metric": "flip_rate",
                "direction": "lower",
                "label": "Task 3",
                "in_aggregate": False,
            },
        ],
        "aggregate_label": "mean of Task 1 WR and Task 2 adjacent WR",
        "formula": "(mean_win_rate(task1) + mean_adjacent_win_rate(task2)) / 2",
    },
    {
        "name": "Followish",
        "description": "A metric that can be negative (a test benchmark).",
        "reference": "https://example.org/papers/followish",
        "tasks": [{"task": "followish", "metric": "p-MRR", "label": "Followish"}],
        "formula": "p-MRR(followish)",
    },
    {
        "name": "Hidden demo",
        "description": "A non-public benchmark: never on the public board.",
        "reference": "https://example.org/papers/hidden",
        "tasks": [{"task": "demo", "metric": "map_at_100"}],
        "public": False,
    },
]

VIEWS = {
    "multiconir-demo-task1": [
        {
            "kind": "curve",
            "title": "Win rate vs number of conditions",
            "subsets": ["default"],
            "metrics": [f"win_rate_k{k}" for k in range(1, 11)],
            "labels": {f"win_rate_k{k}": str(k) for k in range(1, 11)},
            "description": "WR_k, strict >: a tie is a loss.",
            "y_range": [0.0, 1.0],
        }
    ],
    "multiconir-demo-task2": [
        {
            "kind": "curve",
            "title": "Adjacent-pair win rate",
            "subsets": ["default"],
            "metrics": ["win_rate_pos_vs_hn1"] + [f"win_rate_hn{i}_vs_hn{i + 1}" for i in range(1, 10)],
            "labels": {"win_rate_pos_vs_hn1": "d+ > HN1"}
            | {f"win_rate_hn{i}_vs_hn{i + 1}": f"HN{i} > HN{i + 1}" for i in range(1, 10)},
            "y_range": [0.0, 1.0],
        }
    ],
    "multiconir-demo-task3": [
        {
            "kind": "table",
            "title": "Flip rate per domain",
            "subsets": ["domain=Books", "domain=Movies", "domain=People"],
            "metrics": ["flip_rate"],
            "labels": {"domain=Books": "Books", "domain=Movies": "Movies", "domain=People": "People"},
        },
        {
            "kind": "bars",
            "title": "A view whose metric no result has",
            "subsets": ["default"],
            "metrics": ["metric_nobody_reports", "another_missing_metric"],
        },
    ],
}


def folder_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def per_query(mean: float, seed: int, n: int = 12, metric: str = "ndcg_at_10", low=0.0, high=1.0) -> dict:
    """Per-query values averaging to ``mean`` (noise kept inside the metric's range)."""
    noise = np.random.default_rng(seed).normal(0, 0.15, n)
    noise -= noise.mean()
    room = min(mean - low, high - mean)
    scale = min(1.0, 0.95 * room / max(float(np.abs(noise).max()), 1e-9))
    values = mean + noise * scale
    return {f"q{i:02d}": {metric: float(v)} for i, v in enumerate(values)}


def _scaled(data: dict, factor: float) -> None:
    for subsets in data["scores"].values():
        for values in subsets.values():
            for key in values:
                values[key] *= factor
    for subsets in data.get("confidence_intervals", {}).values():
        for values in subsets.values():
            for key in values:
                values[key] = sorted(v * factor for v in values[key])
    data["main_score"] *= factor
    if data.get("per_query") and factor != 1.0:  # the copies' per-query values follow their scores
        stored = decode_per_query(PerQuery.model_validate(data["per_query"]))
        scaled = {q: {m: v * factor for m, v in values.items()} for q, values in stored.items()}
        data["per_query"] = encode_per_query(scaled).model_dump()


def _write(root: Path, data: dict, name: str | None = None) -> Path:
    name = name or data["task"]["name"]
    folder = root / folder_name(data["model"]["name"]) / folder_name(data["model"]["revision"] or "none")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{name}.json"
    target.write_text(json.dumps(data))
    return target


def _as_model(data: dict, name: str, kind: str, parameters: int | None) -> dict:
    data = json.loads(json.dumps(data))
    data["model"].update(name=name, kind=kind, revision="r1")
    data["model"]["metadata"].update(name=name, kind=kind, n_parameters=parameters, reference=None)
    return data


def _followish(demo: dict, value: float, seed: int) -> dict:
    data = json.loads(json.dumps(demo))
    data["task"].update(name="followish", family="followish", main_score="p-MRR", views=[])
    data["task"]["metrics"] = [
        {"name": "p-MRR", "direction": "higher", "description": "pairwise MRR change (test)", "low": -1.0, "high": 1.0}
    ]
    data["scores"] = {"test": {"default": {"p-MRR": value}}}
    data["main_score"] = value
    data["confidence_intervals"], data["subset_sizes"] = {}, {}
    data["per_query"] = encode_per_query(per_query(value, seed, metric="p-MRR", low=-1.0)).model_dump()
    return data


def build_results(root: Path, example_result: Path | None = None) -> Path:
    """The fixture folder (``root/results-like`` layout + benchmarks.json); returns root."""
    import leaderboard

    seed = root.parent / f"{root.name}-seed"
    tasks = ["demo", "multiconir-demo-task1", "multiconir-demo-task2", "multiconir-demo-task3"]
    leaderboard.evaluate(["bm25"], tasks, output=seed)
    leaderboard.evaluate(["bm25"], ["demo"], output=seed / "limited", limit=5)
    sources = {}
    for path in sorted(seed.rglob("*.json")):
        data = json.loads(path.read_text())
        sources["limited" if "limited" in path.parts else data["task"]["name"]] = data
    for task, views in VIEWS.items():
        sources[task]["task"]["views"] = views
    for number, (name, (kind, parameters, scale, pmrr)) in enumerate(MODELS.items()):
        for task in tasks:
            data = _as_model(sources[task], name, kind, parameters) if name != "bm25" else sources[task]
            _scaled(data, scale if name != "bm25" else 1.0)
            if task == "demo":
                data["per_query"] = encode_per_query(per_query(data["main_score"], number)).model_dump()
            _write(root, data)
        demo = sources["demo"] if name == "bm25" else _as_model(sources["demo"], name, kind, parameters)
        _write(root, _followish(demo, pmrr, 10 + number))
    partial = _as_model(sources["multiconir-demo-task1"], "partial-model", "reranker", 110_000_000)
    _write(root, partial)
    _write(root, _followish(_as_model(sources["demo"], "partial-model", "reranker", 110_000_000), -0.45, 20))
    limited = _as_model(sources["limited"], "limited-model", "dense", 335_000_000)
    assert limited["coverage"]["complete"] is False and limited["settings"]["limit"] == 5
    _write(root, limited, "demo.partial-limit5")
    stray = json.loads(json.dumps(sources["demo"]))
    stray["task"]["name"] = "stray-task"
    _write(root, stray)
    if example_result is not None:
        shutil.copy(example_result, root / "bm25" / folder_name(sources["demo"]["model"]["revision"]) / "example.json")
    (root / "benchmarks.json").write_text(json.dumps(BENCHMARKS))
    (root / "broken.json").write_text("{ this is not json")
    future = json.loads(json.dumps(sources["demo"]))
    future["schema_version"] = "99"
    (root / "future.json").write_text(json.dumps(future))
    shutil.rmtree(seed)
    return root


def install_example_plugin(site: Path) -> Path:
    """The example task plugin as an install leaves it (package + dist-info with its entry point) on ``site``.

    Putting ``site`` on PYTHONPATH makes importlib.metadata discover it (no pip, no network).
    """
    site.mkdir(parents=True, exist_ok=True)
    shutil.copytree(EXAMPLE_PLUGIN / "leaderboard_example_task", site / "leaderboard_example_task")
    info = site / "leaderboard_example_task-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: leaderboard-example-task\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[leaderboard]\nexample-topics = leaderboard_example_task.plugin\n")
    return site


# -- a folder of ComLQ and NegConstraint results (real runs on small data in each task's own format) ------------

WORDS = [
    "saturn",
    "rings",
    "ice",
    "planet",
    "jupiter",
    "gas",
    "giant",
    "ethanol",
    "alcohol",
    "beer",
    "king",
    "israel",
    "dynasty",
    "founder",
    "river",
    "mountain",
    "desert",
    "ocean",
    "island",
    "forest",
    "city",
    "bridge",
    "castle",
    "painter",
    "novel",
    "poem",
    "opera",
    "violin",
    "bishop",
    "temple",
    "harbor",
    "glacier",
    "volcano",
    "comet",
    "orbit",
    "crater",
    "canyon",
    "meadow",
    "falcon",
    "salmon",
    "copper",
    "marble",
]


def _comlq_query_types() -> list[tuple[str, int]]:
    """(query type as released, number of qrels): every type and evidence level the task declares."""
    from leaderboard_tasks.comlq import EVIDENCE_LEVELS

    found = [("1p", 1)]
    for base, levels in EVIDENCE_LEVELS.items():
        found += [(f"{base}_{n}", n) for n in levels]
    return found


def write_comlq(root: Path, per_type: int = 3, seed: int = 7) -> dict[str, str]:
    """A ComLQ folder (corpus, queries with their type, qrels) covering every declared subset; query id -> type."""
    rng = np.random.default_rng(seed)
    corpus: dict[str, str] = {}
    queries, qrels, types = [], ["query-id\tcorpus-id\tscore"], {}
    for t, evidence in _comlq_query_types():
        for i in range(per_type):
            qid = f"q-{t}-{i}"
            words = list(rng.choice(WORDS, size=4, replace=False))
            queries.append({"_id": qid, "text": "which " + " and ".join(words), "answer": words[0], "type": t})
            types[qid] = t.split("_")[0]
            for _ in range(evidence):
                pid = f"p{len(corpus)}"
                own = list(rng.choice(words, size=int(rng.integers(1, 4)), replace=False))
                corpus[pid] = " ".join(own + list(rng.choice(WORDS, size=5)))
                qrels.append(f"{qid}\t{pid}\t1")
    for _ in range(60):  # distractors
        corpus[f"p{len(corpus)}"] = " ".join(rng.choice(WORDS, size=6))
    root.mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps({"_id": k, "text": v}) + "\n" for k, v in corpus.items()))
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (root / "qrels").mkdir(exist_ok=True)
    (root / "qrels" / "test.tsv").write_text("\n".join(qrels) + "\n")
    return types


def write_negconstraint(root: Path, per_category: int = 8, seed: int = 11) -> None:
    """A NegConstraint folder: each query with a satisfying and a violating passage, in every category."""
    from leaderboard_tasks.negconstraint import CATEGORIES

    rng = np.random.default_rng(seed)
    corpus, queries = [], []
    for c, category in enumerate(CATEGORIES):
        for i in range(per_category):
            words = list(rng.choice(WORDS, size=3, replace=False))
            good, bad = f"n{c}-{i}-s", f"n{c}-{i}-v"
            corpus.append(
                {"doc_id": good, "text": " ".join(words[: int(rng.integers(1, 3))] + list(rng.choice(WORDS, 4)))}
            )
            corpus.append({"doc_id": bad, "text": " ".join(words + list(rng.choice(WORDS, 2)))})
            queries.append(
                {
                    "query_id": f"nq{c}-{i}",
                    "query": f"{' '.join(words)} but not {words[-1]}",
                    "category": category,
                    "constraint_satisfying_doc_ids": [good],
                    "constraint_violating_doc_ids": [bad],
                    "graded_relevance": {good: 2, bad: 0},
                }
            )
    root.mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus))
    (root / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in queries))


REPORTED_COMLQ = {
    "schema_version": "1",
    "kind": "reported",
    "paper": "ComLQ",
    "title": "Benchmarking Complex Logical Queries in Information Retrieval",
    "paper_file": "004_test_fixture",
    "url": "https://arxiv.org/abs/2511.12004",
    "bibtex": "@inproceedings{comlq, title={Benchmarking Complex Logical Queries in Information Retrieval}}",
    "tables": [
        {
            "table": "Table 3",
            "caption": "nDCG@10 (x100) of sparse and dense retrievers (a test copy of two cells)",
            "benchmark": "ComLQ",
            "scale": 100,
            "columns": [{"label": "nDCG@10", "task": "comlq", "metric": "ndcg_at_10"}],
            "rows": [
                {"label": "BM25", "model": "BM25", "values": ["50.5"]},
                {"label": "Contriever", "model": "facebook/contriever", "values": ["41.2"]},
            ],
        }
    ],
}


def build_comlq_negconstraint(root: Path, data: Path) -> Path:
    """Results of bm25 and bm25-okapi on small ComLQ and NegConstraint folders, no benchmarks.json.

    Plus an older revision of bm25's ComLQ result (one row by default) and ``reported/comlq.json``
    (the paper's BM25 50.5 beside the reproduced run). Returns ``root``; the query types are in
    ``root.parent / "comlq-types.json"``.
    """
    import leaderboard

    types = write_comlq(data / "comlq")
    write_negconstraint(data / "negconstraint")
    dirs = {"comlq": str(data / "comlq"), "negconstraint": str(data / "negconstraint")}
    leaderboard.evaluate(["bm25", "bm25-okapi"], ["comlq", "negconstraint"], output=root, data_dirs=dirs)
    (root.parent / "comlq-types.json").write_text(json.dumps(types))
    bm25 = next(p for p in root.rglob("comlq.json") if json.loads(p.read_text())["model"]["name"] == "bm25")
    old = json.loads(bm25.read_text())
    old["model"]["revision"] = "older-revision"
    old["created_at"] = "2025-01-01T00:00:00+00:00"
    _write(root / "older", old)
    (root / "reported").mkdir(exist_ok=True)
    (root / "reported" / "comlq.json").write_text(json.dumps(REPORTED_COMLQ))
    return root
