"""ComLQ: complex logical queries (14 first-order-logic types) over Wikipedia passages.

Paper: "Benchmarking Complex Logical Queries in Information Retrieval" (AAAI 2026).
Data: GitHub xgl-git/ComLQR-main, dataset.zip (2,909 queries, 11,251 passages), BEIR layout.

Breakdowns: each of the 14 types (suffix stripped), negation types vs the rest, the pooled
evidence count (``evidence=N``: the number of qrels), and per type x evidence as the paper's Fig. 5
(``type=3p&evidence=1``: from the type suffix ``3p_1``). In the released data every one of the
2,336 suffixed queries has exactly as many qrels as its suffix says; the 573 queries without a
suffix (176 of them 1p) appear only in the pooled subsets.

LSNC needs violation labels, which ComLQ does not release: a judge plugin supplies them
(``--task-option judge=<name>``, default ``lexical-v1``; see ``leaderboard judges``). Every LSNC
metric's name and description name the judge, and the description gives its coverage.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from leaderboard import hookimpl
from leaderboard.contract.benchmark import Benchmark, BenchmarkTask, BenchmarkView
from leaderboard.contract.judge import Judge, JudgeItem
from leaderboard.contract.model import Run
from leaderboard.contract.task import DataSource, Metric, RetrievalData, RetrievalTask, ScoreReport, View
from leaderboard.toolkit import (
    HEADLINE,
    JudgmentStore,
    build_judge,
    fetch_zip,
    judge_slug,
    labels_sha256,
    load_beir,
    local_dir,
    lsnc_per_query,
    per_query_scores,
    select,
    subset_means,
    subset_members,
    top_k_ids,
)

from .beir import beir_metadata

ENV_VAR = "LEADERBOARD_COMLQ_DIR"
URL = "https://github.com/xgl-git/ComLQR-main/raw/main/dataset.zip"
PINNED = {  # sha256 of the released files; a download must match them exactly
    "corpus.jsonl": "4966bf90eca02cc9c2faff4c043a1b1e595a1f57607df6d7e8c5f7082e8e1c4c",
    "queries.jsonl": "dd8ae29cd458bc2a85e9da550b2f60139921ffb82fe39e2c2c63b48a10cd2c97",
    "qrels/test.tsv": "222fcd64b4fe7a7688bda61285f63466338797b1c6b3ce6835cc8cb65ed24b26",
}
QUERY_TYPES = ("1p", "2p", "3p", "2i", "3i", "pi", "ip", "2u", "up", "2in", "3in", "inp", "pin", "pni")
NEGATION_TYPES = ("2in", "3in", "inp", "pin", "pni")
# The suffixes each type carries in the released data: two-hop/two-branch types _1/_2, three-part types _1/_2/_3.
EVIDENCE_LEVELS = {t: (1, 2, 3) if t in ("3p", "3i", "3in", "inp", "pin", "pni") else (1, 2) for t in QUERY_TYPES[1:]}
FIG5_TYPES = ("3p", "3i", "3in", "pin")  # the types the paper breaks down by evidence count (Fig. 5)
LSNC_K = (10, 100)
DEFAULT_JUDGE = "lexical-v1"  # asked for by name through the registry, like any judge plugin
CITATION = (
    "Benchmarking Complex Logical Queries in Information Retrieval. AAAI 2026. https://github.com/xgl-git/ComLQR-main"
)
_SUFFIX = re.compile(r"^(?P<base>[^_]+)_(?P<evidence>[0-9]+)$")
_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def split_type(query_type: str) -> tuple[str, int | None]:
    """'3in_2' -> ('3in', 2); '1p' -> ('1p', None). The suffix is the query's evidence count."""
    match = _SUFFIX.match(query_type)
    if match is None:
        return query_type, None
    return match["base"], int(match["evidence"])


def base_type(query_type: str) -> str:
    return split_type(query_type)[0]


def type_label(query_type: str) -> str:
    return f"¬{query_type}" if query_type in NEGATION_TYPES else query_type


def type_evidence_subsets() -> list[str]:
    return [f"type={t}&evidence={n}" for t, levels in EVIDENCE_LEVELS.items() for n in levels]


class ComLQTask(RetrievalTask):
    def __init__(self, data_dir: str | None = None, judge: Judge | str = DEFAULT_JUDGE):
        self.data_dir = data_dir
        self.judge = build_judge(judge) if isinstance(judge, str) else judge
        self.lsnc_names = [f"lsnc_{judge_slug(self.judge.name)}_at_{k}" for k in LSNC_K]
        meta = beir_metadata(
            "comlq",
            "Complex logical queries (14 FOL types: projection, intersection, union, negation) over 11,251 "
            "Wikipedia passages; retrieval metrics overall, per type, negation vs rest, per evidence count, per "
            "type x evidence, and LSNC for negation queries (violations judged by a named judge)",
            family="comlq",
            reference="https://github.com/xgl-git/ComLQR-main",
        )
        meta.citation = CITATION
        meta.metrics = meta.metrics + self.lsnc_metrics("coverage: see task_details.judge_coverage")
        meta.subsets = (
            ["default"]
            + [f"type={t}" for t in QUERY_TYPES]
            + ["group=negation", "group=non_negation"]
            + [f"evidence={n}" for n in (1, 2, 3)]
            + type_evidence_subsets()
        )
        meta.options = {"judge": f"the violation judge for LSNC (default {DEFAULT_JUDGE}; see `leaderboard judges`)"}
        meta.views = self.views()
        # 2: the complexity strata (cw=... subsets and task_details.complexity) follow the paper's CW now.
        meta.version = "2"
        self.metadata = meta

    def lsnc_metrics(self, coverage: str) -> list[Metric]:
        return [
            Metric(
                name,
                "higher",
                f"LSNC@{k} = -log((V+1)/(K+1))/log(K+1), V = passages in the top {k} that violate the query's "
                f"negation as judged by {self.judge.name} (relevant passages never count); mean over the negation "
                f"queries the judge labelled; {coverage}",
                label=f"LSNC@{k} ({self.judge.name})",
            )
            for name, k in zip(self.lsnc_names, LSNC_K)
        ]

    def views(self) -> list[View]:
        judge = self.judge.name
        lsnc_labels = {name: f"LSNC@{k} ({judge})" for name, k in zip(self.lsnc_names, LSNC_K)}
        fig5 = [f"type={t}&evidence={n}" for t in FIG5_TYPES for n in EVIDENCE_LEVELS[t]]
        return [
            View(
                "bars",
                "nDCG@10 per query type",
                subsets=tuple(f"type={t}" for t in QUERY_TYPES),
                metrics=("ndcg_at_10",),
                labels={f"type={t}": type_label(t) for t in QUERY_TYPES},
                description="¬ marks the negation types.",
                y_range=(0.0, 1.0),
            ),
            View(
                "table",
                "nDCG@10 by query type and evidence count (paper Fig. 5)",
                subsets=tuple(fig5),
                metrics=("ndcg_at_10",),
                labels={s: f"{type_label(s[5:].split('&')[0])} #{s[-1]}" for s in fig5},
                description="#n: the query's answer needs n evidence passages (its type suffix _n). Every other "
                "type's breakdown is in the results as type=<t>&evidence=<n>.",
            ),
            View(
                "table",
                "nDCG@10 by evidence count (all types pooled)",
                subsets=("evidence=1", "evidence=2", "evidence=3"),
                metrics=("ndcg_at_10",),
                labels={f"evidence={n}": f"#{n}" for n in (1, 2, 3)},
                description="#n: the query has n qrels (for suffixed queries, the suffix).",
            ),
            View(
                "table",
                f"LSNC, violations judged by {judge}",
                subsets=("group=negation",),
                metrics=tuple(self.lsnc_names),
                labels=lsnc_labels,
                description=f"Violation labels from the judge {judge}, not from the dataset; the metric descriptions "
                "give the judge's coverage (negation queries it could label).",
            ),
            View(
                "table",
                f"LSNC@10 per negation type ({judge})",
                subsets=tuple(f"type={t}" for t in NEGATION_TYPES),
                metrics=(self.lsnc_names[0],),
                labels={f"type={t}": type_label(t) for t in NEGATION_TYPES},
            ),
        ]

    def load(self) -> RetrievalData:
        folder = local_dir(self.data_dir, ENV_VAR)
        if folder is not None:
            return load_beir(folder)
        root = fetch_zip("comlq", URL, PINNED, ENV_VAR)
        return load_beir(root, source=DataSource(kind="url", uri=URL, revision="content pinned by sha256 (see PINNED)"))

    def groups(self, data: RetrievalData) -> dict[str, list[str]]:
        records = data.extra["query_records"]
        groups = {}
        for qid in data.queries:
            qtype, evidence = split_type(str(records[qid].get("type", "")))
            groups[qid] = [
                "default",
                f"type={qtype}",
                "group=negation" if qtype in NEGATION_TYPES else "group=non_negation",
                f"evidence={len(data.qrels[qid])}",  # pooled: the number of qrels (= the suffix where there is one)
            ]
            if evidence is not None:
                groups[qid].append(f"type={qtype}&evidence={evidence}")  # as the paper's Fig. 5: the suffix
        return groups

    def negation_queries(self, data: RetrievalData) -> list[str]:
        records = data.extra["query_records"]
        return [q for q in data.queries if base_type(str(records[q].get("type", ""))) in NEGATION_TYPES]

    def violations(
        self, data: RetrievalData, run: Run, queries: list[str]
    ) -> tuple[dict[str, set[str]], dict[str, Any]]:
        """Violating passages in each labelled query's top max(K), and how the labels were obtained.

        The judge sees each negation query's non-relevant passages in the run's top max(LSNC_K). A query
        counts as judged when every one of them got a label (a query with none has nothing to violate).
        """
        depth = max(LSNC_K)
        items = [
            JudgeItem(qid, data.queries[qid], doc, data.corpus[doc])
            for qid in queries
            for doc in top_k_ids(run.get(qid, {}), depth)
            if data.qrels.get(qid, {}).get(doc, 0) <= 0 and doc in data.corpus
        ]
        store = JudgmentStore(self.judge, data.source.content_hash)
        found = store.lookup(items)
        violating = {}
        for qid in queries:
            labels = found.labels.get(qid, {})
            if all(label is not None for label in labels.values()):
                violating[qid] = {doc for doc, label in labels.items() if label}
        info = {
            "file": store.path.name,  # in $LEADERBOARD_JUDGMENTS_DIR (default <cache>/judgments); publish with results
            "key": store.key,
            "items": len(items),
            "from_cache": found.cached,
            "judged_now": found.computed,
            "labels_sha256": labels_sha256(found.labels),
        }
        if found.stopped:
            info["stopped"] = found.stopped  # the judge's own message: the endpoint, never a secret
        return violating, info

    def compute_scores(self, data: RetrievalData, run: Run) -> ScoreReport:
        per_query = per_query_scores(data.qrels, run)
        negation = self.negation_queries(data)
        violating, judgments = self.violations(data, run, negation)
        for name, k in zip(self.lsnc_names, LSNC_K):
            for qid, value in lsnc_per_query(run, violating, k).items():
                per_query[qid][name] = value
        groups = self.groups(data)
        means, sizes = subset_means(per_query, groups)
        rate = len(violating) / len(negation) if negation else 0.0
        coverage = {"judged": len(violating), "negation_queries": len(negation), "rate": rate}
        # The descriptions carry the coverage wherever the metric is shown (the runner re-reads them).
        judged_text = f"coverage: {len(violating)} of {len(negation)} negation queries judged ({rate:.1%})"
        self.metadata.metrics = [m for m in self.metadata.metrics if m.name not in self.lsnc_names]
        self.metadata.metrics += self.lsnc_metrics(judged_text)
        details = {
            "violation_judge": self.judge.name,
            "judge": self.judge.describe(),
            "judge_coverage": coverage,
            "judgments": judgments,
            "evidence": "evidence=N counts qrels; type=T&evidence=N uses the type suffix (paper Fig. 5)",
        }
        return ScoreReport(
            {"test": means},
            subset_sizes={"test": sizes},
            details=details,
            per_query=select(per_query, (*HEADLINE, *self.lsnc_names)),
            subset_queries=subset_members(groups, per_query),
            # LSNC@K (ComLQ paper eq. 2; Table 4 reports it over the queries with negation) exists for the
            # negation queries the judge labelled: its cells' intervals and comparisons resample exactly those
            metric_queries={name: sorted(violating) for name in self.lsnc_names},
            incomplete=judgments.get("stopped"),
        )


@hookimpl
def register_tasks(register: Callable[..., None]) -> None:
    register(
        "comlq",
        lambda request: ComLQTask(request.data_dir, request.options.get("judge", DEFAULT_JUDGE)),
        description=f"ComLQ complex logical queries (local dir: --data-dir or {ENV_VAR}; "
        "--task-option judge=<name> picks LSNC's violation judge)",
    )


# Authors and title as the paper prints them (../shared/papers/004_3c5dcdfc67fe6c3c.txt).
BIBTEX = """@inproceedings{xu2026comlq,
  title = {ComLQ: Benchmarking Complex Logical Queries in Information Retrieval},
  author = {Xu, Ganlin and Yin, Zhitao and Zhang, Linghao and Liang, Jiaqing and Lu, Weijia and Zhang, Xiaodong
            and Yang, Zhifei and Jiang, Sihang and Yang, Deqing},
  booktitle = {Proceedings of the AAAI Conference on Artificial Intelligence},
  year = {2026},
  url = {https://arxiv.org/abs/2511.12004}
}"""


def benchmark() -> Benchmark:
    types = tuple(
        BenchmarkTask(
            "comlq",
            "ndcg_at_10",
            "higher",
            f"{'¬' if t in NEGATION_TYPES else ''}{t} nDCG@10",
            subset=f"type={t}",
            in_aggregate=False,
        )  # fmt: skip
        for t in QUERY_TYPES
    )
    lsnc = tuple(
        BenchmarkTask(
            "comlq",
            f"lsnc_lexical_v1_at_{k}",
            "higher",
            f"LSNC@{k} (judge lexical-v1)",
            subset="group=negation",
            in_aggregate=False,
        )  # fmt: skip
        for k in LSNC_K
    )
    return Benchmark(
        name="ComLQ",
        description="Complex logical queries (14 first-order-logic types) over Wikipedia passages. Ranked by "
        "nDCG@10 over all 2,909 queries; the 14 per-type scores and LSNC are shown beside it.",
        reference="https://arxiv.org/abs/2511.12004",
        citation=CITATION,
        bibtex=BIBTEX,
        tasks=(BenchmarkTask("comlq", "ndcg_at_10", "higher", "nDCG@10 (all queries)"), *types, *lsnc),
        aggregate_label="nDCG@10 over all queries",
        formula="score = mean over the 2,909 queries of nDCG@10 (pytrec_eval). LSNC needs violation labels that "
        "ComLQ does not release: its columns name the judge that supplied them (lexical-v1, a keyword proxy, "
        "by default) and each result states the judge's coverage (judged / negation queries).",
        views=(
            BenchmarkView("comlq", "nDCG@10 per query type"),
            BenchmarkView("comlq", "nDCG@10 by query type and evidence count (paper Fig. 5)"),
        ),
        extra={"judge": DEFAULT_JUDGE, "coverage": "task_details.judge_coverage of each result"},
    )


@hookimpl
def register_benchmarks(register: Callable[..., None]) -> None:
    register(
        "ComLQ",
        benchmark,
        description="nDCG@10 over all queries; 14 per-type nDCG@10 and LSNC (named judge) beside it",
    )
