"""MAIR (Sun et al., EMNLP 2024): instructed retrieval, each query with its own instruction.

Reads MAIR's published layout (hub datasets ``MAIR-Bench/MAIR-Queries`` and ``MAIR-Bench/MAIR-Docs``:
``<Task>/queries.jsonl`` with ``qid``, ``instruction``, ``query`` and graded ``labels``;
``<Task>/docs.jsonl`` with ``id`` and ``doc``). A task with several splits runs one split at a time
(``--task-option split=``), because MAIR searches each split's own documents. Scored as MAIR's
``trec_eval``: pytrec_eval's nDCG@10 over the top 100, the labels' grades as gains. Where this differs
from MAIR's code (a query with no hit scores 0, no rounding, instructions only for models that take
them) is said in the result and on the Benchmarks page of the documentation.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from leaderboard import BadInput, DataUnavailable, hookimpl
from leaderboard.contract.benchmark import Benchmark, BenchmarkTask
from leaderboard.contract.model import Run
from leaderboard.contract.task import DataSource, RetrievalData, RetrievalTask, ScoreReport, TaskMetadata, TaskRequest
from leaderboard.toolkit import (
    HEADLINE,
    content_hash,
    grade_value,
    local_dir,
    mean_scores,
    metric_definitions,
    per_query_scores,
    read_jsonl,
    select,
)

from .beir import headline_view

ENV_VAR = "LEADERBOARD_MAIR_DIR"
REVISION_ENV_VAR = "LEADERBOARD_MAIR_REVISION"  # a hub commit to pin; default: the repositories' main
QUERIES_REPO, DOCS_REPO = "MAIR-Bench/MAIR-Queries", "MAIR-Bench/MAIR-Docs"
REFERENCE = "https://github.com/sunnweiwei/MAIR"
CITATION = """@inproceedings{Sun2024MAIR,
  title={MAIR: A Massive Benchmark for Evaluating Instructed Information Retrieval},
  author={Weiwei Sun and Zhengliang Shi and Jiulong Wu and Lingyong Yan and Xinyu Ma and Yiding Liu
          and Min Cao and Dawei Yin and Zhaochun Ren},
  booktitle={EMNLP},
  year={2024}
}"""
# The five tasks InF-IR reports (its column labels -> MAIR's task names), in the paper's order.
INF_IR_TASKS = {
    "DD-15": "DD_2015",
    "DD-16": "DD_2016",
    "DD-17": "DD_2017",
    "FR-21": "FairRanking_2021",
    "FR-22": "FairRanking_2022",
}
TOP_K = 100  # MAIR retrieves the top 100 (faiss / bm25s k=min(100, len(docs)))
QUERY_FIELDS = ("qid", "instruction", "query", "labels")


def task_name(mair_task: str) -> str:
    """The harness's name for a MAIR task: ``mair-`` and MAIR's name, lower-cased, ``_`` as ``-``."""
    return "mair-" + mair_task.lower().replace("_", "-")


def mair_metadata(mair_task: str, split: str | None = None) -> TaskMetadata:
    suffix = f" (split {split})" if split else ""
    return TaskMetadata(
        name=task_name(mair_task),
        family="instruction-following",
        description=f"MAIR {mair_task}{suffix}: instructed retrieval, each query with its own instruction",
        reference=REFERENCE,
        citation=CITATION,
        metrics=metric_definitions(),
        main_score="ndcg_at_10",
        top_k=TOP_K,
        views=[headline_view()],
    )


def find_task_folders(root: Path, mair_task: str) -> tuple[Path, Path]:
    """(queries folder, docs folder) of one task under a local copy.

    Accepts the two hub repositories side by side (``root/MAIR-Queries/<Task>``, ``root/MAIR-Docs/<Task>``,
    as two ``snapshot_download`` calls leave them) or one folder per task holding both files.
    """
    pairs = [
        (root / "MAIR-Queries" / mair_task, root / "MAIR-Docs" / mair_task),
        (root / mair_task, root / mair_task),
    ]
    for queries_dir, docs_dir in pairs:
        if queries_dir.is_dir() and docs_dir.is_dir():
            return queries_dir, docs_dir
    raise BadInput(
        f"{root}: no MAIR task {mair_task!r} here; expected {root / 'MAIR-Queries' / mair_task}/queries.jsonl and "
        f"{root / 'MAIR-Docs' / mair_task}/docs.jsonl (the layout of the hub datasets {QUERIES_REPO} and {DOCS_REPO})."
    )


def query_splits(queries_dir: Path) -> list[str]:
    """The task's query splits: "queries", or the X of each ``X_queries.jsonl``."""
    names = sorted(p.name for p in queries_dir.glob("*queries.jsonl"))
    return ["queries" if n == "queries.jsonl" else n.removesuffix("_queries.jsonl") for n in names]


def download(mair_task: str) -> tuple[Path, str]:
    """Both hub datasets' files for one task, through huggingface_hub's cache; (root, resolved commits)."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError

    revision = os.environ.get(REVISION_ENV_VAR) or None
    folders = []
    try:
        for repo in (QUERIES_REPO, DOCS_REPO):
            folders.append(
                Path(snapshot_download(repo, repo_type="dataset", revision=revision, allow_patterns=[f"{mair_task}/*"]))
            )
    except (HfHubHTTPError, OSError, ValueError) as exc:
        raise DataUnavailable(
            f"Could not download MAIR task {mair_task!r} from the hub ({type(exc).__name__}: {str(exc)[:200]}). "
            f"Point the task at a local copy with --data-dir or {ENV_VAR}."
        ) from None
    # snapshot_download returns .../snapshots/<commit>: that commit is the revision actually loaded.
    return folders[0].parent, f"{QUERIES_REPO}@{folders[0].name} {DOCS_REPO}@{folders[1].name}"


def load_mair(queries_file: Path, docs_file: Path, source: DataSource, root: Path) -> RetrievalData:
    """One query split and its documents, with every field checked (errors name file, line and field)."""
    corpus = read_documents(docs_file)
    queries: dict[str, str] = {}
    instructions: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    what = "a MAIR query ({qid, instruction, query, labels})"
    for line_no, r in read_jsonl(queries_file, ("qid", "query"), what):
        where = f"{queries_file}, line {line_no}"
        for key in QUERY_FIELDS:
            if key not in r:
                raise BadInput(f"{where}: missing field {key!r}; expected {what}.")
        qid = str(r["qid"])
        if qid in queries:
            raise BadInput(f"{where}: duplicate 'qid' {qid!r}.")
        for key in ("instruction", "query"):
            if not isinstance(r[key], str):
                raise BadInput(f"{where}: field {key!r} must be text.")
        grades = read_labels(r["labels"], where)
        missing = [d for d in grades if d not in corpus]
        if missing:
            raise BadInput(f"{where}: labelled document {missing[0][:60]!r} is not in {docs_file}.")
        queries[qid], instructions[qid] = r["query"], r["instruction"]
        if grades:  # MAIR's qrels hold every query; pytrec_eval ignores one without labels, and so do we
            qrels[qid] = grades
    if not queries:
        raise BadInput(f"{queries_file}: no queries.")
    source.content_hash = content_hash([queries_file, docs_file], root)
    return RetrievalData(corpus, queries, qrels, source, query_instructions=instructions)


def read_documents(docs_file: Path) -> dict[str, str]:
    """A MAIR docs file as id -> text (errors name file, line and field)."""
    corpus: dict[str, str] = {}
    for line_no, r in read_jsonl(docs_file, ("id", "doc"), "a MAIR document ({id, doc})"):
        doc_id = str(r["id"])
        if doc_id in corpus:
            raise BadInput(f"{docs_file}, line {line_no}: duplicate document 'id' {doc_id!r}.")
        if not isinstance(r["doc"], str):
            raise BadInput(f"{docs_file}, line {line_no}: field 'doc' must be text.")
        corpus[doc_id] = r["doc"]
    return corpus


def read_labels(labels: Any, where: str) -> dict[str, int]:
    """A query's ``labels`` ([{id, score}]) as document id -> integer grade."""
    if not isinstance(labels, list):
        raise BadInput(f"{where}: field 'labels' must be a list of {{id, score}} objects.")
    grades: dict[str, int] = {}
    for label in labels:
        if not isinstance(label, dict) or "id" not in label or "score" not in label:
            raise BadInput(f"{where}: each entry of 'labels' must be an object with 'id' and 'score'.")
        try:
            grades[str(label["id"])] = grade_value(label["score"])
        except ValueError:
            raise BadInput(
                f"{where}: label {str(label['id'])[:60]!r} has the score {str(label['score'])[:40]!r}; "
                "expected an integer grade."
            ) from None
    return grades


class MairTask(RetrievalTask):
    def __init__(self, mair_task: str, data_dir: str | None = None, split: str | None = None):
        self.mair_task, self.data_dir, self.split = mair_task, data_dir, split
        self.metadata = mair_metadata(mair_task, split)
        self.metadata.options = {"split": "for a task whose queries come in several splits: the one to run"}

    def load(self) -> RetrievalData:
        folder = local_dir(self.data_dir, ENV_VAR)
        if folder is not None:
            root, source = folder, DataSource(kind="local", uri=str(folder.resolve()))
        else:
            root, revision = download(self.mair_task)
            source = DataSource(kind="hub", uri=f"{QUERIES_REPO} + {DOCS_REPO}", revision=revision)
        queries_dir, docs_dir = find_task_folders(root, self.mair_task)
        splits = query_splits(queries_dir)
        if not splits:
            raise BadInput(
                f"{queries_dir}: no queries.jsonl (or <split>_queries.jsonl) for MAIR task {self.mair_task}."
            )
        split = self.split or (splits[0] if len(splits) == 1 else None)
        if split is None:
            raise BadInput(
                f"MAIR task {self.mair_task} has {len(splits)} query splits ({', '.join(splits)}); MAIR scores each "
                f"against its own documents: run one with --task-option split=NAME."
            )
        if split not in splits:
            raise BadInput(f"--task-option split={split}: MAIR task {self.mair_task} has {', '.join(splits)}.")
        stem = "" if split == "queries" else f"{split}_"
        return load_mair(queries_dir / f"{stem}queries.jsonl", docs_dir / f"{stem}docs.jsonl", source, root)

    def compute_scores(self, data: RetrievalData, run: Run) -> ScoreReport:
        per_query = per_query_scores(data.qrels, run)
        distinct = sorted(set(data.query_instructions.values()))
        digest = hashlib.sha256("\n".join(distinct).encode()).hexdigest()
        return ScoreReport(
            {"test": {"default": mean_scores(per_query)}},
            subset_sizes={"test": {"default": len(per_query)}},
            details={
                "mair_task": self.mair_task,
                "split": self.split or "queries",
                "distinct_instructions": len(distinct),
                "instructions_sha256": digest,
                "scoring": "pytrec_eval ndcg_cut_10 on the top 100, mean over labelled queries; an empty run "
                "scores 0 (MAIR's code drops it); no rounding (MAIR rounds to 5 decimals)",
            },
            per_query=select(per_query, HEADLINE),
        )


def from_argument(request: TaskRequest) -> MairTask:
    if not request.argument:
        raise BadInput("Expected a MAIR task name after 'mair:', e.g. --task mair:CliniDS_2016 (names as in MAIR).")
    return MairTask(request.argument, request.data_dir, request.options.get("split"))


@hookimpl
def register_tasks(register: Callable[..., None]) -> None:
    for label, mair_task in INF_IR_TASKS.items():
        register(
            task_name(mair_task),
            lambda request, t=mair_task: MairTask(t, request.data_dir, request.options.get("split")),
            description=f"MAIR {mair_task} ({label} in InF-IR), nDCG@10 (local dir: --data-dir or {ENV_VAR})",
        )
    register(
        "mair:",
        from_argument,
        description=f"Any MAIR task by name: mair:<Task> (e.g. mair:CliniDS_2016; local dir: --data-dir or {ENV_VAR})",
    )


def benchmark() -> Benchmark:
    """The five MAIR tasks the InF-IR paper reports, as its MAIR column averages them."""
    labels = ", ".join(INF_IR_TASKS)
    return Benchmark(
        name="MAIR",
        description="Instructed retrieval, each query with its own instruction: the five MAIR tasks the InF-IR paper "
        f"reports ({labels}: TREC Dynamic Domain 2015-2017, TREC Fair Ranking 2021-2022).",
        reference="https://aclanthology.org/2024.emnlp-main.778/",
        citation=CITATION,
        tasks=tuple(
            BenchmarkTask(task_name(task), "ndcg_at_10", "higher", f"{label} nDCG@10")
            for label, task in INF_IR_TASKS.items()
        ),
        aggregate_label="mean nDCG@10 over 5 tasks",
        formula=f"score = (1/5) Σ over {labels} of nDCG@10: InF-IR's MAIR column (its Tables 2, 5, 8), an "
        "unweighted mean of the tasks (MAIR's own script weights tasks by their number of queries).",
    )


@hookimpl
def register_benchmarks(register: Callable[..., None]) -> None:
    register(
        "MAIR", benchmark, description="mean nDCG@10 over DD-15, DD-16, DD-17, FR-21, FR-22 (InF-IR's MAIR column)"
    )
