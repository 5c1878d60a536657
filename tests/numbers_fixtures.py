"""Real result pairs for the number checks (issue 31/32): the committed baseline runs on ComLQ and
NegConstraint, MultiConIR runs of two seeded rerankers on a fixture whose domains differ in size
(as the released data: 420-500 records per domain), and an independent recomputation of any
(subset, metric) cell straight from a result file's per-query field."""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path

import pandas as pd

from leaderboard.contract.model import ModelKind, ModelMetadata, Reranker
from leaderboard.records.result import decode_per_query, decode_subset_queries, encode_per_query

REPO = Path(__file__).resolve().parent.parent
BM25 = REPO / "submissions" / "bm25" / "results" / "bm25" / "bm25s-0.3.16"
MINILM = next((REPO / "submissions" / "all-MiniLM-L6-v2" / "results").glob("*/*"))
LSNC10 = "lsnc_lexical_v1_at_10"
DROPPED = 40  # judged negation queries a forged second judge leaves unlabelled


def copy_real_results(root: Path, tasks=("comlq", "negconstraint")) -> dict[str, dict[str, Path]]:
    """bm25's and all-MiniLM-L6-v2's complete runs copied into ``root`` (model -> task -> path)."""
    found: dict[str, dict[str, Path]] = {}
    for model, folder in (("bm25", BM25), ("all-MiniLM-L6-v2", MINILM)):
        target = root / folder.parent.name / folder.name
        target.mkdir(parents=True, exist_ok=True)
        for task in tasks:
            shutil.copy(folder / f"{task}.json", target / f"{task}.json")
            found.setdefault(model, {})[task] = target / f"{task}.json"
    return found


def mean(values) -> float:
    values = list(values)
    return math.fsum(values) / len(values)


def cell_ids(data: dict, subset: str, metric: str) -> dict[str, float]:
    """query id -> value of ``metric`` on ``subset``'s queries, straight from a result file (JSON)."""
    values = decode_per_query(data["per_query"])
    members = decode_subset_queries(data["per_query"])
    ids = set(values) if subset == "default" else set(members[subset])
    return {q: values[q][metric] for q in ids if metric in values[q]}


def strata_ids(data: dict, subset: str, metric: str) -> list[dict[str, float]]:
    """As ``cell_ids``, split into the subsets a macro-averaged default score averages (one part otherwise)."""
    macro = (data["per_query"].get("macro_over") or []) if subset == "default" else []
    return [cell_ids(data, part, metric) for part in macro] or [cell_ids(data, subset, metric)]


def forge_second_judge(data: dict, dropped: int = DROPPED) -> dict:
    """The result as if its judge had left ``dropped`` more negation queries unlabelled: LSNC's values,
    membership and every LSNC score (default and each subset) recomputed, so the file stays valid."""
    data = json.loads(json.dumps(data))
    values = decode_per_query(data["per_query"])
    members = decode_subset_queries(data["per_query"])
    lsnc = [m for m in data["per_query"]["metrics"] if m.startswith("lsnc_")]
    judged = sorted(q for q, row in values.items() if LSNC10 in row)
    for q in judged[:dropped]:
        for m in lsnc:
            values[q].pop(m)
    for subset, scores in data["scores"]["test"].items():
        ids = set(values) if subset == "default" else set(members.get(subset, []))
        for m in lsnc:
            have = [values[q][m] for q in ids if m in values[q]]
            if have:
                scores[m] = mean(have)
            else:
                scores.pop(m, None)
    if LSNC10 in data["scores"]["test"]["default"]:
        data["main_score"] = data["scores"]["test"]["default"][data["task"]["main_score"]]
    metric_queries = {m: sorted(q for q in values if m in values[q]) for m in lsnc}
    data["per_query"] = encode_per_query(values, members, metric_queries).model_dump(mode="json")
    return data


class SeededReranker(Reranker):
    """Scores a (query, document) pair by a hash of the pair and a seed: different, reproducible win rates."""

    def __init__(self, name: str, seed: int):
        self.metadata = ModelMetadata(name, ModelKind.RERANKER, revision=f"seed-{seed}")
        self.seed = seed

    def settings(self):
        return {"seed": self.seed}

    def score_pairs(self, pairs):
        out = []
        for query, document in pairs:
            digest = hashlib.sha256(f"{self.seed}\0{query}\0{document}".encode()).digest()
            out.append(int.from_bytes(digest[:4], "big") / 2**32)
        return out


DOMAIN_ROWS = {"Books": 3, "Movies": 2, "People": 3, "Medical Case": 1, "Legal Document": 3}


def write_uneven_multiconir(root: Path) -> Path:
    """The MultiConIR fixture with domains of different sizes (3, 2, 3, 1, 3 records)."""
    from leaderboard_tasks.multiconir.fixture import write_fixture

    write_fixture(root)
    for domain, rows in DOMAIN_ROWS.items():
        for path in (root / "datasets").rglob(f"{domain}_*.csv"):
            pd.read_csv(path).iloc[:rows].to_csv(path, index=False)
    return root


def multiconir_pair(root: Path, tasks=("multiconir-task1", "multiconir-task2")) -> dict[str, dict[str, Path]]:
    """Two seeded rerankers' complete runs on the uneven fixture (model -> task -> path)."""
    import leaderboard

    data = write_uneven_multiconir(root / "data")
    dirs = {task: str(data) for task in tasks}
    models = [SeededReranker("seeded-a", 1), SeededReranker("seeded-b", 2)]
    outcomes = leaderboard.evaluate(models, list(tasks), output=root / "results", data_dirs=dirs)
    found: dict[str, dict[str, Path]] = {}
    for outcome in outcomes:
        found.setdefault(outcome.model, {})[outcome.task] = outcome.path
    return found
