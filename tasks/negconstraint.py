"""NegConstraint: 366 queries with a negative constraint, each paired with a constraint-satisfying
and a constraint-violating passage (GitHub troyyxk/NS-IR-main, NegConstraint/)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from leaderboard import BadInput, hookimpl
from leaderboard.contract.benchmark import Benchmark, BenchmarkTask, BenchmarkView
from leaderboard.contract.model import Run
from leaderboard.contract.task import DataSource, Metric, RetrievalData, RetrievalTask, ScoreReport, View
from leaderboard.toolkit import (
    HEADLINE,
    content_hash,
    fetch_files,
    grade_value,
    local_dir,
    lsnc_per_query,
    paired_wins,
    per_query_scores,
    read_jsonl,
    select,
    subset_means,
    subset_members,
    violations_per_query,
    violator_relative_rank,
)

from .beir import beir_metadata

ENV_VAR = "LEADERBOARD_NEGCONSTRAINT_DIR"
BASE_URL = "https://raw.githubusercontent.com/troyyxk/NS-IR-main/main/NegConstraint"
PINNED = {
    "corpus.jsonl": "7b7bc2bd11ab8418359e540e0caff2107be60c9ce5afc3664f17bd88ec7fdabe",
    "queries.jsonl": "fa676f585efd8bae2250ae068b490f601e031da013f4d2c36f878a56b98b5197",
}
CATEGORIES = ("A - a", "(A - a) ∪ B", "(A - a) ∪ (B - b)")
QUERY_FIELDS = (
    "query_id",
    "query",
    "category",
    "constraint_satisfying_doc_ids",
    "constraint_violating_doc_ids",
    "graded_relevance",
)
LSNC_K = (10, 100)
VIOLATION_K = (1, 5, 10)
PER_QUERY_METRICS = (
    *HEADLINE,
    "paired_win_rate",
    "lsnc_at_10",
    *(f"violation_at_{k}" for k in VIOLATION_K),
    "violator_relative_rank",
)


def load_negconstraint(root: Path, source: DataSource | None = None) -> RetrievalData:
    corpus_path, queries_path = root / "corpus.jsonl", root / "queries.jsonl"
    corpus: dict[str, str] = {}
    for line_no, r in read_jsonl(corpus_path, ("doc_id", "text"), "a NegConstraint passage"):
        doc_id = str(r["doc_id"])
        if doc_id in corpus:  # a later line would silently replace the passage the qrels judged
            raise BadInput(f"{corpus_path}, line {line_no}: duplicate 'doc_id' {doc_id!r}.")
        corpus[doc_id] = str(r["text"])
    queries, qrels, records = {}, {}, {}
    for line_no, r in read_jsonl(queries_path, QUERY_FIELDS[:3], "a NegConstraint query"):
        where = f"{queries_path}, line {line_no}"
        if str(r["query_id"]) in queries:
            raise BadInput(f"{where}: duplicate 'query_id' {str(r['query_id'])!r}.")
        for key in QUERY_FIELDS[3:5]:
            if not isinstance(r.get(key), list) or not r[key]:
                raise BadInput(f"{where}: field {key!r} must be a non-empty list of passage ids.")
        if not isinstance(r.get("graded_relevance"), dict) or not r["graded_relevance"]:
            raise BadInput(f"{where}: field 'graded_relevance' must be an object mapping passage id to grade.")
        if r["category"] not in CATEGORIES:
            raise BadInput(f"{where}: field 'category' is {r['category']!r}; expected one of {', '.join(CATEGORIES)}.")
        qid = str(r["query_id"])
        ids = [str(d) for d in r["graded_relevance"]] + [str(d) for k in QUERY_FIELDS[3:5] for d in r[k]]
        missing = [d for d in ids if d not in corpus]
        if missing:
            raise BadInput(f"{where}: passage id {missing[0]!r} is not in {corpus_path}.")
        grades = {}
        for doc_id, grade in r["graded_relevance"].items():  # covers all queries; qrels/test.tsv does not
            try:
                grades[str(doc_id)] = grade_value(grade)
            except ValueError:
                raise BadInput(
                    f"{where}: field 'graded_relevance' gives passage {doc_id!r} the grade {str(grade)[:40]!r}; "
                    "expected an integer grade."
                ) from None
        queries[qid] = str(r["query"])
        qrels[qid] = grades
        records[qid] = r
    source = source or DataSource(kind="local", uri=str(root.resolve()))
    source.content_hash = content_hash([corpus_path, queries_path], root)
    return RetrievalData(corpus, queries, qrels, source, extra={"query_records": records})


class NegConstraintTask(RetrievalTask):
    def __init__(self, data_dir: str | None = None):
        self.data_dir = data_dir
        meta = beir_metadata(
            "negconstraint",
            "Queries with negative constraints; retrieval metrics overall and per category, LSNC with the released "
            "violating passages, and the paired win rate of the satisfying over the violating passage",
            family="negconstraint",
            reference="https://github.com/troyyxk/NS-IR-main",
        )
        top_k = meta.top_k
        meta.metrics = (
            meta.metrics
            + [
                Metric(
                    f"lsnc_at_{k}",
                    "higher",
                    f"Log-Scaled Negation Consistency at {k} (released violating ids)",
                    label=f"LSNC@{k}",
                )
                for k in LSNC_K
            ]
            + [
                Metric(
                    "paired_win_rate",
                    "higher",
                    "fraction of queries whose satisfying passage ranks strictly above the violating one (tie = loss)",
                    label="paired win rate",
                )
            ]
            + [
                Metric(
                    f"violation_at_{k}",
                    "lower",
                    f"fraction of queries with a constraint-violating passage among the top {k} (released ids)",
                )
                for k in VIOLATION_K
            ]
            + [
                Metric(
                    "violator_relative_rank",
                    "higher",
                    "mean of rank(best violating passage) - rank(best satisfying passage) in the top-"
                    f"{top_k} run; a passage not retrieved ranks (number retrieved + 1); positive: the "
                    "satisfying passage ranks above the violator",
                    -float(top_k),
                    float(top_k),
                )
            ]
        )
        meta.subsets = ["default"] + [f"category={c}" for c in CATEGORIES]
        meta.views = views()
        # 2: the complexity strata (cw=... subsets and task_details.complexity) follow the paper's CW now.
        meta.version = "2"
        self.metadata = meta

    def load(self) -> RetrievalData:
        folder = local_dir(self.data_dir, ENV_VAR)
        if folder is not None:
            return load_negconstraint(folder)
        root = fetch_files("negconstraint", BASE_URL, PINNED, ENV_VAR)
        return load_negconstraint(
            root, DataSource(kind="url", uri=BASE_URL, revision="content pinned by sha256 (see PINNED)")
        )

    def compute_scores(self, data: RetrievalData, run: Run) -> ScoreReport:
        records = data.extra["query_records"]
        per_query = per_query_scores(data.qrels, run)
        violating = {q: {str(d) for d in records[q]["constraint_violating_doc_ids"]} for q in data.queries}
        satisfying = {q: [str(d) for d in records[q]["constraint_satisfying_doc_ids"]] for q in data.queries}
        for k in LSNC_K:
            for qid, value in lsnc_per_query(run, violating, k).items():
                per_query[qid][f"lsnc_at_{k}"] = value
        pairs: dict[str, tuple[Iterable[str], Iterable[str]]] = {
            q: (satisfying[q], list(violating[q])) for q in data.queries
        }
        for qid, win in paired_wins(run, pairs).items():
            per_query[qid]["paired_win_rate"] = win
        for qid, values in violations_per_query(run, violating, VIOLATION_K).items():
            per_query[qid].update(values)
        ordered = {q: sorted(v) for q, v in violating.items()}
        for qid, gap in violator_relative_rank(run, satisfying, ordered).items():
            per_query[qid]["violator_relative_rank"] = gap
        groups = {q: ["default", f"category={records[q]['category']}"] for q in data.queries}
        means, sizes = subset_means(per_query, groups)
        return ScoreReport(
            {"test": means},
            subset_sizes={"test": sizes},
            per_query=select(per_query, PER_QUERY_METRICS),
            subset_queries=subset_members(groups, per_query),
        )


def views() -> list[View]:
    categories = tuple(f"category={c}" for c in CATEGORIES)
    by_category = {"default": "all"} | {f"category={c}": c for c in CATEGORIES}
    return [
        View(
            "table",
            "nDCG@10 per constraint category",
            subsets=("default", *categories),
            metrics=("ndcg_at_10",),
            labels=by_category,
            description="A - a: one negated condition; (A - a) ∪ B and (A - a) ∪ (B - b) add a second clause.",
        ),
        View(
            "table",
            "Paired win rate per constraint category",
            subsets=("default", *categories),
            metrics=("paired_win_rate",),
            labels=by_category,
            description="The satisfying passage strictly above the violating one (a tie, both unretrieved, is a loss).",
        ),
        View(
            "table",
            "Constraint violations",
            metrics=tuple(f"violation_at_{k}" for k in VIOLATION_K) + ("violator_relative_rank",),
            labels={f"violation_at_{k}": f"violator in top {k} ↓" for k in VIOLATION_K}
            | {"violator_relative_rank": "violator rank - satisfying rank"},
            description="Released violating passages: how often one reaches the top K (lower is better) and how far "
            "below the satisfying passage it ranks on average (higher is better).",
        ),
        View(
            "table",
            "LSNC (released violating passages)",
            metrics=tuple(f"lsnc_at_{k}" for k in LSNC_K),
            labels={f"lsnc_at_{k}": f"LSNC@{k}" for k in LSNC_K},
            description="Each query has exactly one violating passage, so LSNC varies little between queries.",
        ),
    ]


@hookimpl
def register_tasks(register: Callable[..., None]) -> None:
    register(
        "negconstraint",
        lambda request: NegConstraintTask(request.data_dir),
        description=f"NegConstraint negative-constraint queries (local dir: --data-dir or {ENV_VAR})",
    )


def benchmark() -> Benchmark:
    return Benchmark(
        name="NegConstraint",
        description="366 negative-constraint queries, each with a constraint-satisfying and a constraint-violating "
        "passage. Ranked by nDCG@10; the paired win rate and the violation metrics are shown beside it.",
        reference="https://arxiv.org/abs/2505.22299",
        citation="Xu et al. Logical Consistency is Vital: Neural-Symbolic Information Retrieval for "
        "Negative-Constraint Queries. arXiv:2505.22299 (2025). https://github.com/troyyxk/NS-IR-main",
        tasks=(
            BenchmarkTask("negconstraint", "ndcg_at_10", "higher", "nDCG@10"),
            BenchmarkTask("negconstraint", "paired_win_rate", "higher", "paired win rate", in_aggregate=False),
            *(
                BenchmarkTask(
                    "negconstraint", f"violation_at_{k}", "lower", f"violator in top {k} ↓", in_aggregate=False
                )
                for k in VIOLATION_K
            ),
            BenchmarkTask(
                "negconstraint",
                "violator_relative_rank",
                "higher",
                "violator rank - satisfying rank",
                in_aggregate=False,
            ),
            BenchmarkTask(
                "negconstraint", "lsnc_at_10", "higher", "LSNC@10 (released violating passages)", in_aggregate=False
            ),
        ),
        aggregate_label="nDCG@10",
        formula="score = mean over the 366 queries of nDCG@10 (pytrec_eval, graded relevance).",
        views=(BenchmarkView("negconstraint", "Constraint violations"),),
    )


@hookimpl
def register_benchmarks(register: Callable[..., None]) -> None:
    register(
        "NegConstraint",
        benchmark,
        description="nDCG@10; paired win rate, violations in top 1/5/10, violator rank beside it",
    )
