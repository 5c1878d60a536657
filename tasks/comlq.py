"""ComLQ: complex logical queries (14 first-order-logic types) over Wikipedia passages.

Paper: "Benchmarking Complex Logical Queries in Information Retrieval" (AAAI 2026).
Data: GitHub xgl-git/ComLQR-main, dataset.zip (2,909 queries, 11,251 passages), BEIR layout.
"""

from __future__ import annotations

from leaderboard import hookimpl
from leaderboard.contract.model import Run
from leaderboard.contract.task import DataSource, Metric, RetrievalData, RetrievalTask, ScoreReport
from leaderboard.data.beir import load_beir
from leaderboard.data.remote import fetch_zip, local_dir
from leaderboard.metrics.breakdown import subset_means
from leaderboard.metrics.negation import lsnc_per_query
from leaderboard.metrics.retrieval import per_query_scores

from .beir import beir_metadata
from .comlq_violations import NEGATION_TYPES, base_type, compute_judgments, judgments_path, read_judgments
from .negation_judge import LexicalJudge

ENV_VAR = "LEADERBOARD_COMLQ_DIR"
URL = "https://github.com/xgl-git/ComLQR-main/raw/main/dataset.zip"
PINNED = {  # sha256 of the released files; a download must match them exactly
    "corpus.jsonl": "4966bf90eca02cc9c2faff4c043a1b1e595a1f57607df6d7e8c5f7082e8e1c4c",
    "queries.jsonl": "dd8ae29cd458bc2a85e9da550b2f60139921ffb82fe39e2c2c63b48a10cd2c97",
    "qrels/test.tsv": "222fcd64b4fe7a7688bda61285f63466338797b1c6b3ce6835cc8cb65ed24b26",
}
QUERY_TYPES = ("1p", "2p", "3p", "2i", "3i", "pi", "ip", "2u", "up", "2in", "3in", "inp", "pin", "pni")
LSNC_K = (10, 100)
CITATION = (
    "Benchmarking Complex Logical Queries in Information Retrieval. AAAI 2026. https://github.com/xgl-git/ComLQR-main"
)


class ComLQTask(RetrievalTask):
    def __init__(self, data_dir: str | None = None, judge=None):
        self.data_dir = data_dir
        self.judge = judge or LexicalJudge()
        self.lsnc_names = [f"lsnc_{self.judge.name.replace('-', '_')}_at_{k}" for k in LSNC_K]
        meta = beir_metadata(
            "comlq",
            "Complex logical queries (14 FOL types: projection, intersection, union, negation) over 11,251 Wikipedia passages; "
            "retrieval metrics overall, per type, negation vs rest, per evidence count, and LSNC for negation queries",
            family="comlq",
            reference="https://github.com/xgl-git/ComLQR-main",
        )
        meta.citation = CITATION
        meta.metrics = meta.metrics + [
            Metric(name, "higher", f"Log-Scaled Negation Consistency at {k}, violations judged by {self.judge.name}")
            for name, k in zip(self.lsnc_names, LSNC_K)
        ]
        meta.subsets = (
            ["default"]
            + [f"type={t}" for t in QUERY_TYPES]
            + ["group=negation", "group=non_negation"]
            + [f"evidence={n}" for n in (1, 2, 3)]
        )
        self.metadata = meta

    def load(self) -> RetrievalData:
        folder = local_dir(self.data_dir, ENV_VAR)
        if folder is not None:
            return load_beir(folder)
        root = fetch_zip("comlq", URL, PINNED)
        return load_beir(root, source=DataSource(kind="url", uri=URL, revision="content pinned by sha256 (see PINNED)"))

    def violations(self, data: RetrievalData) -> tuple[dict[str, set[str]], str]:
        """Violating passages per judged negation query, from the materialised file when it matches."""
        stored = read_judgments(judgments_path(self.judge.name))
        origin = "materialised file " + judgments_path(self.judge.name).name
        if (
            stored is None
            or stored["data_content_hash"] != data.source.content_hash
            or stored["judge_version"] != self.judge.version
        ):
            stored, origin = (
                compute_judgments(data, self.judge),
                "computed at run time (no materialised file for this data hash)",
            )
        queries = {
            q: set(j["violating"])
            for q, j in stored["queries"].items()
            if j["violating"] is not None and q in data.queries
        }
        return queries, origin

    def groups(self, data: RetrievalData) -> dict[str, list[str]]:
        records = data.extra["query_records"]
        groups = {}
        for qid in data.queries:
            qtype = base_type(str(records[qid].get("type", "")))
            negation = qtype in NEGATION_TYPES
            groups[qid] = [
                "default",
                f"type={qtype}",
                "group=negation" if negation else "group=non_negation",
                f"evidence={len(data.qrels[qid])}",
            ]  # evidence count = number of qrels, not the suffix
        return groups

    def compute_scores(self, data: RetrievalData, run: Run) -> ScoreReport:
        per_query = per_query_scores(data.qrels, run)
        violating, origin = self.violations(data)
        for name, k in zip(self.lsnc_names, LSNC_K):
            for qid, value in lsnc_per_query(run, violating, k).items():
                per_query[qid][name] = value
        means, sizes = subset_means(per_query, self.groups(data))
        details = {
            "violation_judge": self.judge.name,
            "judge_version": self.judge.version,
            "judgments": origin,
            "negation_queries_judged": len(violating),
        }
        return ScoreReport({"test": means}, subset_sizes={"test": sizes}, details=details)


@hookimpl
def register_tasks(register):
    register(
        "comlq",
        lambda request: ComLQTask(request.data_dir),
        description=f"ComLQ complex logical queries (local dir: --data-dir or {ENV_VAR})",
    )
