"""MultiConIR: multi-condition queries across five domains (EIT-NLP; arXiv 2503.08046).

Tasks (each scores every query against its own small candidate set):
* task1  complexity robustness: WR_k = P[s(Query_k, Positive) > s(Query_k, HN_k)], k = 1..10
* task2  relevance monotonicity: adjacent win rates under Query10 (Positive>HN1, HN1>HN2, ..., HN9>HN10)
* task3  format invariance: flip rate of the ten adjacent outcomes between Query10 and Natural_Query10
* task4  document length: task2's metrics on the 512- and 1024-word files (two tasks)
Comparisons are strict: a tie counts as a loss. Cross-domain numbers are macro averages over the
five domains; every rate has a 95% bootstrap interval over records (stratified by domain).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from leaderboard import hookimpl
from leaderboard.contract.task import (
    CandidateData,
    CandidateSet,
    CandidateTask,
    DataSource,
    Metric,
    ScoreReport,
    TaskMetadata,
    View,
)
from leaderboard.data.hashing import content_hash
from leaderboard.data.remote import local_dir
from leaderboard.errors import BadInput
from leaderboard.fileio import cache_home
from leaderboard.metrics.bootstrap import bootstrap_interval, macro_mean

DOMAINS = ("Books", "Movies", "People", "Medical Case", "Legal Document")
K = range(1, 11)
INSTRUCTION = "Given a domain retrieval query, retrieve documents that meet the specified conditions."
ENV_VAR = "LEADERBOARD_MULTICONIR_DIR"
HUB_REPO = "Lux1997/MultiConIR"
REVISION_ENV = "LEADERBOARD_MULTICONIR_REVISION"
REFERENCE = "https://github.com/EIT-NLP/MultiConIR"
CITATION = "Lu et al. MultiConIR: Towards Multi-Condition Information Retrieval. arXiv:2503.08046 (2025)."
PAIRS = [("Positive", "HN1")] + [(f"HN{i}", f"HN{i + 1}") for i in range(1, 10)]  # the paper's order
PAIR_NAMES = ["pos_vs_hn1"] + [f"hn{i}_vs_hn{i + 1}" for i in range(1, 10)]
_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
# The paper's names for the adjacent pairs (Fig. 3): d⁺ vs d₁, d₁ vs d₂, ..., d₉ vs d₁₀.
PAIR_LABELS = {"pos_vs_hn1": "d⁺ vs d₁"} | {
    f"hn{i}_vs_hn{i + 1}": f"d{str(i).translate(_SUB)} vs d{str(i + 1).translate(_SUB)}" for i in range(1, 10)
}


# What a result keeps per record (for paired significance tests): the main metrics of each task.
PER_RECORD = {
    "task1": ("mean_win_rate", "decline"),
    "task2": ("mean_adjacent_win_rate",),
    "task3": ("flip_rate",),
    "task4": ("mean_adjacent_win_rate",),
}


@dataclass(frozen=True)
class Variant:
    name: str
    folder: str
    file_pattern: str  # with {domain}
    columns: tuple[str, ...]
    description: str


TASK1_COLUMNS = tuple(f"Query{k}" for k in K) + ("Positive",) + tuple(f"HN{k}" for k in K)
# Tasks 2 and 4 read Query10 and the eleven documents; Task 3 also Natural_Query10. The Task 4 files
# need not have Natural_Query10; the Task2_&_3 files (TASK2_COLUMNS, as published) do.
ADJACENT_COLUMNS = ("Query10", "Positive") + tuple(f"HN{k}" for k in K)
TASK2_COLUMNS = ("Query10", "Natural_Query10", "Positive") + tuple(f"HN{k}" for k in K)
TASK4_COLUMNS = ADJACENT_COLUMNS
VARIANTS = {
    "task1": Variant(
        "multiconir-task1",
        "Task1",
        "{domain}_Task1.csv",
        TASK1_COLUMNS,
        "complexity robustness: win rate vs number of conditions (1-10)",
    ),
    "task2": Variant(
        "multiconir-task2",
        "Task2_&_3",
        "{domain}_Task2_&_3.csv",
        ADJACENT_COLUMNS,
        "relevance monotonicity: adjacent win rates Positive>HN1>...>HN10",
    ),
    "task3": Variant(
        "multiconir-task3",
        "Task2_&_3",
        "{domain}_Task2_&_3.csv",
        TASK2_COLUMNS,
        "format invariance: flip rate between instruction-style and descriptive queries",
    ),
    "task4-512": Variant(
        "multiconir-task4-512",
        "Task4",
        "{domain}_512.csv",
        TASK4_COLUMNS,
        "document length: adjacent win rates on documents padded to 512 words",
    ),
    "task4-1024": Variant(
        "multiconir-task4-1024",
        "Task4",
        "{domain}_1024.csv",
        TASK4_COLUMNS,
        "document length: adjacent win rates on documents padded to 1024 words",
    ),
}


def _datasets_root(root: Path) -> Path:
    """Accept the repository root (holding datasets/) or the datasets/ folder itself."""
    return root / "datasets" if (root / "datasets").is_dir() else root


def read_table(path: Path, columns: tuple[str, ...]) -> pd.DataFrame:
    if not path.is_file():
        raise BadInput(f"Missing MultiConIR file {path}: expected a CSV with columns {', '.join(columns)}.")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: not a readable CSV ({exc}).") from None
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise BadInput(f"{path}: missing column {missing[0]!r}; expected columns {', '.join(columns)}.")
    for column in columns:
        empty = frame.index[frame[column].str.strip() == ""]
        if len(empty):
            row = int(empty[0]) + 1
            raise BadInput(
                f"{path}, data row {row} (after the header), column {column!r}: empty cell; "
                "every cell of this column must hold text."
            )
    if frame.empty:
        raise BadInput(f"{path}: no records.")
    return frame[list(columns)]


def fetch_from_hub() -> tuple[Path, DataSource]:
    from huggingface_hub import snapshot_download

    revision = os.environ.get(REVISION_ENV, "main")
    try:
        path = Path(snapshot_download(HUB_REPO, repo_type="dataset", revision=revision, allow_patterns=["*.csv"]))
    except Exception as exc:
        raise BadInput(
            f"Could not fetch {HUB_REPO}@{revision} from the Hugging Face hub ({type(exc).__name__}: {exc}). "
            f"Point the task at a local copy with --data-dir or {ENV_VAR}."
        ) from None
    return path, DataSource(kind="hub", uri=f"hf://datasets/{HUB_REPO}", revision=path.name)  # snapshot folder = commit


class MultiConIRTask(CandidateTask):
    def __init__(self, variant: str, data_dir: str | None = None, seed: int = 0, source: DataSource | None = None):
        self.variant = VARIANTS[variant]
        self.key = variant
        self.data_dir, self.seed, self.source = data_dir, seed, source
        self.metadata = self._metadata()

    def _metadata(self) -> TaskMetadata:
        if self.key == "task1":
            metrics = [Metric(f"win_rate_k{k}", "higher", f"P[s(Query{k}, Positive) > s(Query{k}, HN{k})]") for k in K]
            metrics += [  # score differences: unbounded
                Metric(f"margin_k{k}", "higher", f"mean s(Query{k}, Positive) - s(Query{k}, HN{k})", None, None)
                for k in K
            ]
            metrics += [
                Metric("decline", "lower", "win_rate_k1 - win_rate_k10", -1.0, 1.0),
                Metric("mean_win_rate", "higher", "mean of win_rate_k1..k10"),
            ]
            main = "mean_win_rate"
        elif self.key == "task3":
            metrics = [
                Metric(
                    "flip_rate",
                    "lower",
                    "fraction of (record, adjacent pair) outcomes that differ between Query10 and Natural_Query10",
                )
            ]
            metrics += [
                Metric(
                    f"flip_rate_{p}",
                    "lower",
                    f"pair {PAIR_LABELS[p]}: fraction of records whose outcome s({a}) > s({b}) differs between "
                    "Query10 and Natural_Query10",
                )
                for p, (a, b) in zip(PAIR_NAMES, PAIRS)
            ]
            metrics += [
                Metric(
                    f"mean_adjacent_win_rate_{style}",
                    "higher",
                    f"mean of the ten adjacent win rates under {column}",
                )
                for style, column in (("instruction", "Query10"), ("natural", "Natural_Query10"))
            ]
            main = "flip_rate"
        else:
            metrics = [
                Metric(f"win_rate_{p}", "higher", f"pair {PAIR_LABELS[p]}: P[s(Query10, {a}) > s(Query10, {b})]")
                for p, (a, b) in zip(PAIR_NAMES, PAIRS)
            ]
            metrics += [Metric("mean_adjacent_win_rate", "higher", "mean of the ten adjacent win rates")]
            main = "mean_adjacent_win_rate"
        return TaskMetadata(
            name=self.variant.name,
            family="multiconir",
            description=f"MultiConIR {self.variant.description}",
            reference=REFERENCE,
            citation=CITATION,
            metrics=metrics,
            main_score=main,
            subsets=["default"] + [f"domain={d}" for d in DOMAINS],
            instruction=INSTRUCTION,
            views=self._views(),
        )

    def _views(self) -> list[View]:
        domains = {f"domain={d}": d for d in DOMAINS}
        if self.key == "task1":
            return [
                View(
                    "curve",
                    "Win rate vs number of conditions (WR_k)",
                    metrics=tuple(f"win_rate_k{k}" for k in K),
                    labels={f"win_rate_k{k}": str(k) for k in K},
                    description="WR_k = P[s(Query_k, d⁺) > s(Query_k, HN_k)], macro average over the five domains; "
                    "a tie is a loss.",
                    y_range=(0.0, 1.0),
                ),
                View(
                    "table",
                    "Mean WR and Decline",
                    metrics=("mean_win_rate", "decline"),
                    labels={"mean_win_rate": "mean WR", "decline": "Decline (WR_1 - WR_10) ↓"},
                ),
                View(
                    "table",
                    "Mean WR per domain",
                    subsets=tuple(domains),
                    metrics=("mean_win_rate",),
                    labels=domains,
                ),
            ]
        if self.key == "task3":
            return [
                View(
                    "bars",
                    "Flip rate per domain (lower is better)",
                    subsets=("default", *domains),
                    metrics=("flip_rate",),
                    labels={"default": "all (macro)"} | domains,
                    description="Fraction of adjacent-pair outcomes that change between the instruction-style "
                    "Query10 and the descriptive Natural_Query10.",
                    y_range=(0.0, 1.0),
                ),
                View(
                    "curve",
                    "Flip rate per adjacent pair",
                    metrics=tuple(f"flip_rate_{p}" for p in PAIR_NAMES),
                    labels={f"flip_rate_{p}": PAIR_LABELS[p] for p in PAIR_NAMES},
                    y_range=(0.0, 1.0),
                ),
            ]
        title = "Adjacent win rates (relevance monotonicity)"
        description = "P[s(Query10, d_i) > s(Query10, d_i+1)] in the paper's order d⁺ vs d₁, d₁ vs d₂, ..., d₉ vs d₁₀."
        if self.key.startswith("task4"):
            words = self.key.split("-")[1]
            title = f"Adjacent win rates on {words}-word documents"
            description += " Compare with multiconir-task2 (the same pairs on the original documents)."
        return [
            View(
                "curve",
                title,
                metrics=tuple(f"win_rate_{p}" for p in PAIR_NAMES),
                labels={f"win_rate_{p}": PAIR_LABELS[p] for p in PAIR_NAMES},
                description=description,
                y_range=(0.0, 1.0),
            ),
            View(
                "table",
                "Mean adjacent win rate per domain",
                subsets=tuple(domains),
                metrics=("mean_adjacent_win_rate",),
                labels=domains,
            ),
        ]

    # -- data ---------------------------------------------------------------------------------
    def _locate(self) -> tuple[Path, DataSource]:
        folder = local_dir(self.data_dir, ENV_VAR)
        if folder is not None:
            return folder, self.source or DataSource(kind="local", uri=str(folder.resolve()))
        return fetch_from_hub()

    def load(self) -> CandidateData:
        root, source = self._locate()
        base = _datasets_root(root) / self.variant.folder
        tables, files = {}, []
        for domain in DOMAINS:
            path = base / self.variant.file_pattern.format(domain=domain)
            tables[domain] = read_table(path, self.variant.columns)
            files.append(path)
        source.content_hash = content_hash(files, _datasets_root(root))
        return CandidateData(self._sets(tables), source, extra={"records": {d: len(t) for d, t in tables.items()}})

    def _sets(self, tables: dict[str, pd.DataFrame]) -> list[CandidateSet]:
        sets = []
        for domain, table in tables.items():
            for i, row in enumerate(table.to_dict("records")):
                if self.key == "task1":
                    sets += [
                        CandidateSet(f"{domain}/{i}/k{k}", row[f"Query{k}"], [row["Positive"], row[f"HN{k}"]])
                        for k in K
                    ]
                else:
                    docs = [row["Positive"]] + [row[f"HN{k}"] for k in K]
                    sets.append(CandidateSet(f"{domain}/{i}/instruction", row["Query10"], docs))
                    if self.key == "task3":
                        sets.append(CandidateSet(f"{domain}/{i}/natural", row["Natural_Query10"], docs))
        return sets

    # -- metrics ------------------------------------------------------------------------------
    def per_record(
        self, data: CandidateData, scores: dict[str, list[float]]
    ) -> tuple[list[str], dict[str, np.ndarray], dict[str, list[str]]]:
        """Metric names; per domain, a (records x metrics) array whose column means are the metrics; row keys."""
        per_domain: dict[str, np.ndarray] = {}
        keys: dict[str, list[str]] = {}
        for domain, n in data.extra["records"].items():
            rows, ids = [], []
            for i in range(n):
                if self.key == "task1":
                    found = [scores.get(f"{domain}/{i}/k{k}") for k in K]
                    pairs = [p for p in found if p is not None]
                    if len(pairs) < len(found):
                        continue  # cut by --limit
                    wins = [1.0 if p[0] > p[1] else 0.0 for p in pairs]  # strict: a tie is a loss
                    margins = [p[0] - p[1] for p in pairs]
                    rows.append(wins + margins + [wins[0] - wins[-1], float(np.mean(wins))])
                    ids.append(f"{domain}/{i}")
                else:
                    inst = scores.get(f"{domain}/{i}/instruction")
                    nat = scores.get(f"{domain}/{i}/natural") if self.key == "task3" else None
                    if inst is None or (self.key == "task3" and nat is None):
                        continue
                    w_inst = [1.0 if inst[j] > inst[j + 1] else 0.0 for j in range(10)]
                    if nat is not None:
                        w_nat = [1.0 if nat[j] > nat[j + 1] else 0.0 for j in range(10)]
                        flips = [float(a != b) for a, b in zip(w_inst, w_nat)]
                        rows.append([float(np.mean(flips))] + flips + [float(np.mean(w_inst)), float(np.mean(w_nat))])
                    else:
                        rows.append(w_inst + [float(np.mean(w_inst))])
                    ids.append(f"{domain}/{i}")
            if rows:
                per_domain[domain] = np.asarray(rows, dtype=float)
                keys[domain] = ids
        return [m.name for m in self.metadata.metrics], per_domain, keys

    def compute_scores(self, data: CandidateData, scores: dict[str, list[float]]) -> ScoreReport:
        names, per_domain, keys = self.per_record(data, scores)
        if not per_domain:
            raise BadInput(
                f"{self.metadata.name}: no complete record was scored "
                "(is --limit smaller than one record's candidate sets?)."
            )
        out, intervals, sizes = {}, {}, {}
        strata = {"default": list(per_domain.values())} | {f"domain={d}": [x] for d, x in per_domain.items()}
        for subset, groups in strata.items():
            means = macro_mean(groups)
            low, high = bootstrap_interval(groups, seed=self.seed)
            out[subset] = dict(zip(names, means.tolist()))
            intervals[subset] = {n: [float(lo), float(hi)] for n, lo, hi in zip(names, low, high)}
            sizes[subset] = sum(g.shape[0] for g in groups)
        details = {
            "ties": "a tie counts as a loss (strict >)",
            "average": "macro over domains",
            "bootstrap": f"1000 resamples over records, seed {self.seed}",
        }
        kept = [names.index(n) for n in PER_RECORD[self.key.split("-")[0]]]
        per_query = {
            key: {names[j]: float(row[j]) for j in kept}
            for domain, table in per_domain.items()
            for key, row in zip(keys[domain], table)
        }
        return ScoreReport(
            {"test": out},
            confidence_intervals={"test": intervals},
            subset_sizes={"test": sizes},
            details=details,
            per_query=per_query,  # per record "<domain>/<row>"; the main score is their macro mean over domains
        )


@hookimpl
def register_tasks(register):
    for key, variant in VARIANTS.items():
        register(
            variant.name,
            lambda request, key=key: MultiConIRTask(key, request.data_dir, request.seed),
            description=f"MultiConIR {variant.description} (local dir: --data-dir or {ENV_VAR}; else hub {HUB_REPO})",
        )


class DemoMultiConIRTask(MultiConIRTask):
    """The same task on the project's own small fixture (offline; the texts are synthetic)."""

    def __init__(self, variant: str, data_dir: str | None = None, seed: int = 0):
        super().__init__(variant, data_dir, seed)
        self.metadata.name = self.variant.name.replace("multiconir-", "multiconir-demo-")
        self.metadata.family = "multiconir-demo"
        self.metadata.description += " (embedded synthetic fixture, 3 records per domain)"

    def _locate(self) -> tuple[Path, DataSource]:
        from .multiconir_fixture import write_fixture

        root = write_fixture(Path(self.data_dir) if self.data_dir else cache_home() / "multiconir-demo")
        return root, DataSource(kind="embedded", uri="leaderboard_tasks.multiconir_fixture")


@hookimpl(specname="register_tasks")
def register_demo_tasks(register):
    for key, variant in VARIANTS.items():
        demo = variant.name.replace("multiconir-", "multiconir-demo-")
        register(
            demo,
            lambda request, key=key: DemoMultiConIRTask(key, request.data_dir, request.seed),
            description=f"MultiConIR {variant.description}, on the embedded synthetic fixture (offline demo)",
        )
