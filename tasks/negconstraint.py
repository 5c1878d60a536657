"""NegConstraint: 366 queries with a negative constraint, each paired with a constraint-satisfying
and a constraint-violating passage (GitHub troyyxk/NS-IR-main, NegConstraint/)."""

from __future__ import annotations

from pathlib import Path

from leaderboard import hookimpl
from leaderboard.contract.model import Run
from leaderboard.contract.task import DataSource, Metric, RetrievalData, RetrievalTask, ScoreReport
from leaderboard.data.hashing import content_hash
from leaderboard.data.jsonl import read_jsonl
from leaderboard.data.remote import fetch_files, local_dir
from leaderboard.errors import BadInput
from leaderboard.metrics.breakdown import subset_means
from leaderboard.metrics.negation import lsnc_per_query, paired_wins
from leaderboard.metrics.retrieval import per_query_scores

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


def load_negconstraint(root: Path, source: DataSource | None = None) -> RetrievalData:
    corpus_path, queries_path = root / "corpus.jsonl", root / "queries.jsonl"
    corpus = {
        str(r["doc_id"]): str(r["text"])
        for _, r in read_jsonl(corpus_path, ("doc_id", "text"), "a NegConstraint passage")
    }
    queries, qrels, records = {}, {}, {}
    for line_no, r in read_jsonl(queries_path, QUERY_FIELDS[:3], "a NegConstraint query"):
        where = f"{queries_path}, line {line_no}"
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
        queries[qid] = str(r["query"])
        qrels[qid] = {
            str(d): int(g) for d, g in r["graded_relevance"].items()
        }  # covers all queries; qrels/test.tsv does not
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
        meta.metrics = (
            meta.metrics
            + [
                Metric(f"lsnc_at_{k}", "higher", f"Log-Scaled Negation Consistency at {k} (released violating ids)")
                for k in LSNC_K
            ]
            + [
                Metric(
                    "paired_win_rate",
                    "higher",
                    "fraction of queries whose satisfying passage ranks strictly above the violating one (tie = loss)",
                )
            ]
        )
        meta.subsets = ["default"] + [f"category={c}" for c in CATEGORIES]
        self.metadata = meta

    def load(self) -> RetrievalData:
        folder = local_dir(self.data_dir, ENV_VAR)
        if folder is not None:
            return load_negconstraint(folder)
        root = fetch_files("negconstraint", BASE_URL, PINNED)
        return load_negconstraint(
            root, DataSource(kind="url", uri=BASE_URL, revision="content pinned by sha256 (see PINNED)")
        )

    def compute_scores(self, data: RetrievalData, run: Run) -> ScoreReport:
        records = data.extra["query_records"]
        per_query = per_query_scores(data.qrels, run)
        violating = {q: {str(d) for d in records[q]["constraint_violating_doc_ids"]} for q in data.queries}
        for k in LSNC_K:
            for qid, value in lsnc_per_query(run, violating, k).items():
                per_query[qid][f"lsnc_at_{k}"] = value
        pairs = {
            q: ([str(d) for d in records[q]["constraint_satisfying_doc_ids"]], list(violating[q])) for q in data.queries
        }
        for qid, win in paired_wins(run, pairs).items():
            per_query[qid]["paired_win_rate"] = win
        groups = {q: ["default", f"category={records[q]['category']}"] for q in data.queries}
        means, sizes = subset_means(per_query, groups)
        return ScoreReport({"test": means}, subset_sizes={"test": sizes})


@hookimpl
def register_tasks(register):
    register(
        "negconstraint",
        lambda request: NegConstraintTask(request.data_dir),
        description=f"NegConstraint negative-constraint queries (local dir: --data-dir or {ENV_VAR})",
    )
