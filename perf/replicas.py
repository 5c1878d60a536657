"""Real results replicated to board scale: many models, each a valid result of real size and shape.

The seeds are complete real runs (``submissions/*/results``: ComLQ, 2,909 queries with per-type
subsets and LSNC; NegConstraint, 366 queries). Each replica is a new model whose per-query values
are a mix of two real models' (each query's row taken from one of them) passed through a monotone
map that keeps every value in its metric's range (x -> x**gamma on [0, 1] metrics, a scale towards
0 on others). Every score with per-query values (the task's whole set and each subset whose queries
the result names) is then recomputed as the mean the readers check, so every file validates as a
real one does; scores without per-query values get the same mix and map. Names, revisions, kinds,
sizes and dates vary per model; a tenth of the models have a second, older revision.

    from replicas import write_real_replicas
    write_real_replicas(Path("out"), 10_000)   # 10,000 result files + benchmarks.json (ComLQ, NegConstraint)
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SEED_TASKS = ("comlq", "negconstraint")
BENCHMARKS = ("ComLQ", "NegConstraint")
ORGS = ("acme-ai", "northwind", "bluefin", "quarry-labs", "openretrieval", "kestrel", "meridian", "lattice")
FAMILIES = ("e5", "gte", "bge", "minilm", "mpnet", "splade", "colbert", "contriever", "stella", "arctic")
KINDS = ("dense", "dense", "dense", "sparse", "reranker")


def seed_results(root: Path = ROOT) -> dict[str, list[dict[str, Any]]]:
    """Task -> the committed complete real results of that task that carry per-query values."""
    seeds: dict[str, list[dict[str, Any]]] = {task: [] for task in SEED_TASKS}
    for path in sorted((root / "submissions").glob("*/results/**/*.json")):
        data = json.loads(path.read_text("utf-8"))
        task = data.get("task", {}).get("name")
        if task in seeds and data.get("per_query") and (data.get("coverage") or {}).get("complete"):
            seeds[task].append(data)
    missing = [task for task, found in seeds.items() if not found]
    if missing:
        raise SystemExit(f"no complete real result with per-query values for {missing} under {root / 'submissions'}")
    return seeds


class _Seed:
    """One real result, decoded once: its per-query rows, subset membership and metric ranges."""

    def __init__(self, data: dict[str, Any]):
        from leaderboard.records.per_query_codec import decode_per_query, decode_subset_queries

        self.data = data
        self.rows = decode_per_query(data["per_query"])
        self.members = decode_subset_queries(data["per_query"])
        self.ranges = {m["name"]: (m.get("low"), m.get("high")) for m in data["task"]["metrics"]}
        self.split = data["task"]["splits"][0]


def _mapper(ranges: dict[str, tuple[Any, Any]], gamma: float, scale: float):
    def apply(metric: str, value: float) -> float:
        low, high = ranges.get(metric, (None, None))
        if low == 0 and high == 1:
            return float(value) ** gamma  # stays in [0, 1]; 0 and 1 stay put
        return float(value) * scale  # scale <= 1 towards 0: stays in any range holding 0

    return apply


def replicate(base: _Seed, other: _Seed, rng: random.Random) -> dict[str, Any]:
    """A new result of ``base``'s task: rows mixed from ``base`` and ``other``, mapped, scores recomputed."""
    from leaderboard.records.per_query_codec import pack

    data = json.loads(json.dumps(base.data))
    share = rng.uniform(0.3, 1.0)  # of rows from the base model
    apply = _mapper(base.ranges, rng.uniform(0.75, 1.35), rng.uniform(0.7, 1.0))
    rows: dict[str, dict[str, float]] = {}
    for qid, row in base.rows.items():
        alternative = other.rows.get(qid)
        if alternative is not None and alternative.keys() == row.keys() and rng.random() > share:
            row = alternative
        rows[qid] = {metric: apply(metric, value) for metric, value in row.items()}
    scores = data["scores"][base.split]
    for subset, values in scores.items():  # scores without per-query values: the same mix and map
        theirs = other.data["scores"][other.split].get(subset, {})
        for metric, value in values.items():
            mixed = share * value + (1 - share) * theirs.get(metric, value)
            values[metric] = apply(metric, mixed)
    for subset, ids in [("default", list(rows)), *base.members.items()]:  # with per-query values: their means
        if subset not in scores:
            continue
        for metric in {m for q in ids for m in rows[q]}:
            if metric in scores[subset]:
                column = [rows[q][metric] for q in ids if metric in rows[q]]
                scores[subset][metric] = math.fsum(column) / len(column)
    data["main_score"] = scores["default"][data["task"]["main_score"]]
    data["confidence_intervals"] = {}  # the board computes intervals from the per-query values
    sha256, packed = pack(rows)
    data["per_query"].update(sha256=sha256, data=packed, count=len(rows))
    return data


def _models(rng: random.Random) -> Iterator[tuple[str, str, str | None]]:
    """(name, revision, older revision or None) per model, without end."""
    i = 0
    while True:
        name = f"{ORGS[i % len(ORGS)]}/{FAMILIES[(i // 8) % len(FAMILIES)]}-{i:05d}"
        older = f"v{rng.randint(1, 3)}.0" if i % 10 == 3 else None
        yield name, f"v{rng.randint(4, 9)}.{rng.randint(0, 9)}", older
        i += 1


def write_real_replicas(out: Path, files: int, seed: int = 0, root: Path = ROOT) -> int:
    """``files`` valid result files of real size under ``out`` (one folder per model and revision), and a
    ``benchmarks.json`` with the project's own ComLQ and NegConstraint declarations. Returns files written."""
    rng = random.Random(seed)
    seeds = {task: [_Seed(d) for d in found] for task, found in seed_results(root).items()}
    out.mkdir(parents=True, exist_ok=True)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    written = 0
    for i, (name, revision, older) in enumerate(_models(rng)):
        if written >= files:
            break
        kind = KINDS[i % len(KINDS)]
        params = int(10 ** rng.uniform(6.5, 10))
        for rev, age in [(revision, 0)] + ([(older, 200)] if older else []):
            for task, choices in seeds.items():
                if written >= files:
                    break
                if i % 17 == 5 and task == SEED_TASKS[-1]:  # some models lack a task: listed, not ranked
                    continue
                base, other = rng.sample(choices, 2) if len(choices) > 1 else (choices[0], choices[0])
                data = replicate(base, other, rng)
                created = start + timedelta(minutes=rng.randint(0, 500_000) - age * 1440)
                data["created_at"] = created.strftime("%Y-%m-%dT%H:%M:%SZ")
                model = data["model"]
                model["name"] = model["metadata"]["name"] = name
                model["revision"] = model["metadata"]["revision"] = rev
                model["kind"] = model["metadata"]["kind"] = kind
                model["metadata"]["n_parameters"] = params
                folder = out / name.replace("/", "__") / rev
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f"{task}.json").write_text(json.dumps(data), "utf-8")
                written += 1
    (out / "benchmarks.json").write_text(json.dumps(builtin_benchmarks(BENCHMARKS)), "utf-8")
    return written


def builtin_benchmarks(names: tuple[str, ...]) -> list[dict[str, Any]]:
    """The project's own declarations of these benchmarks, as ``push`` writes them into benchmarks.json."""
    from leaderboard.cli.serve import registered_benchmarks

    found = {b.name: b for b in registered_benchmarks()}
    return [found[name].to_json() for name in names]
