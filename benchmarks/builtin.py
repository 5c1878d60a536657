"""The built-in benchmarks: each paper's tasks, the metric it reports for each, and how they combine.

Registered through ``register_benchmarks`` like any plugin's. Each aggregate is the mean of the
columns marked ``in_aggregate`` (all of one direction); every other column is shown beside it and
never averaged in. ``demo`` and ``multiconir-demo`` are not public: demo data and ad-hoc
``beir:<folder>`` tasks belong to no public benchmark.

A benchmark names its tasks, metrics and subsets by name and imports no task module: it is a plugin
of its own, as a third party's benchmark of these tasks would be. The few facts it repeats from the
tasks (ComLQ's query types, BRIGHT's domains, MAIR's task names, the citations) are checked against
the tasks' own declarations by ``tests/test_builtin_benchmarks.py``.
"""

from __future__ import annotations

from leaderboard import hookimpl
from leaderboard.contract.benchmark import Benchmark, BenchmarkTask, BenchmarkView, SideAggregate

# ComLQ's 14 query types, the negation ones marked ¬ in their labels (the task's QUERY_TYPES, NEGATION_TYPES).
COMLQ_QUERY_TYPES = ("1p", "2p", "3p", "2i", "3i", "pi", "ip", "2u", "up", "2in", "3in", "inp", "pin", "pni")
COMLQ_NEGATION_TYPES = ("2in", "3in", "inp", "pin", "pni")
COMLQ_CITATION = (
    "Benchmarking Complex Logical Queries in Information Retrieval. AAAI 2026. https://github.com/xgl-git/ComLQR-main"
)
NEGCONSTRAINT_VIOLATION_K = (1, 5, 10)  # the task's violation_at_k columns
MULTICONIR_CITATION = "Lu et al. MultiConIR: Towards Multi-Conditional Information Retrieval. arXiv:2503.08046 (2025)."
MULTICONIR_BIBTEX = """@article{lu2025multiconir,
  title = {MultiConIR: Towards Multi-Conditional Information Retrieval},
  author = {Lu and others},
  journal = {arXiv preprint arXiv:2503.08046},
  year = {2025},
  url = {https://arxiv.org/abs/2503.08046}
}"""
MAIR_CITATION = """@inproceedings{Sun2024MAIR,
  title={MAIR: A Massive Benchmark for Evaluating Instructed Information Retrieval},
  author={Weiwei Sun and Zhengliang Shi and Jiulong Wu and Lingyong Yan and Xinyu Ma and Yiding Liu
          and Min Cao and Dawei Yin and Zhaochun Ren},
  booktitle={EMNLP},
  year={2024}
}"""
# The five MAIR tasks InF-IR reports: its column labels -> the harness's task names, in the paper's order.
MAIR_TASKS = {
    "DD-15": "mair-dd-2015",
    "DD-16": "mair-dd-2016",
    "DD-17": "mair-dd-2017",
    "FR-21": "mair-fairranking-2021",
    "FR-22": "mair-fairranking-2022",
}
BRIGHT_DOMAINS = (
    "Biology",
    "EarthScience",
    "Economics",
    "Psychology",
    "Robotics",
    "Stackoverflow",
    "SustainableLiving",
    "Leetcode",
    "Pony",
    "Aops",
    "TheoremQAQuestions",
    "TheoremQATheorems",
)
IFIR_TASKS = ("IFIRAila", "IFIRCds", "IFIRFiQA", "IFIRFire", "IFIRNFCorpus", "IFIRPm", "IFIRScifact")
FOLLOWIR = (  # (task, the metric the FollowIR paper reports for it, its label)
    ("Robust04InstructionRetrieval", "og_map_at_1000", "Robust04 MAP@1000"),
    ("News21InstructionRetrieval", "og_ndcg_at_5", "News21 nDCG@5"),
    ("Core17InstructionRetrieval", "og_map_at_1000", "Core17 MAP@1000"),
)


def side(task: str, metric: str, label: str, direction: str = "higher", **kw) -> BenchmarkTask:
    """A column shown beside the aggregate, not part of it."""
    return BenchmarkTask(task, metric, direction, label, in_aggregate=False, **kw)  # type: ignore[arg-type]


def multiconir() -> Benchmark:
    return Benchmark(
        name="MultiConIR",
        description="Multi-condition retrieval in five domains: robustness as conditions are added (Task 1), "
        "relevance monotonicity (Task 2), format invariance (Task 3) and document length (Task 4). Ranked by "
        "Task 1's mean win rate; the other tasks are shown beside it, each in its own direction, never averaged.",
        reference="https://arxiv.org/abs/2503.08046",
        citation=MULTICONIR_CITATION,
        bibtex=MULTICONIR_BIBTEX,
        tasks=(
            BenchmarkTask("multiconir-task1", "mean_win_rate", "higher", "Task 1 mean WR"),
            side("multiconir-task1", "decline", "Task 1 Decline (WR_1 - WR_10) ↓", "lower"),
            side("multiconir-task2", "mean_adjacent_win_rate", "Task 2 mean adjacent WR"),
            side("multiconir-task3", "flip_rate", "Task 3 Flip Rate ↓", "lower"),
            side("multiconir-task4-512", "mean_adjacent_win_rate", "Task 4 mean adjacent WR, 512 words"),
            side("multiconir-task4-1024", "mean_adjacent_win_rate", "Task 4 mean adjacent WR, 1024 words"),
        ),
        aggregate_label="Task 1 mean win rate",
        formula="score = (1/10) Σ_{k=1..10} WR_k, WR_k = P[s(Query_k, d⁺) > s(Query_k, HN_k)] (a tie is a loss), "
        "macro-averaged over the five domains. Decline, Task 2, Task 3 and the two Task 4 lengths are reported "
        "beside it and not averaged (Task 4 at 512 and 1024 words is shown separately from Task 2).",
        views=(
            BenchmarkView("multiconir-task1", "Win rate vs number of conditions (WR_k)"),
            BenchmarkView("multiconir-task2", "Adjacent win rates (relevance monotonicity)"),
            BenchmarkView("multiconir-task3", "Flip rate per domain (lower is better)"),
            BenchmarkView("multiconir-task4-512", "Adjacent win rates on 512-word documents"),
            BenchmarkView("multiconir-task4-1024", "Adjacent win rates on 1024-word documents"),
        ),
    )


# Authors and title as the paper prints them (../shared/papers/004_3c5dcdfc67fe6c3c.txt).
COMLQ_BIBTEX = """@inproceedings{xu2026comlq,
  title = {ComLQ: Benchmarking Complex Logical Queries in Information Retrieval},
  author = {Xu, Ganlin and Yin, Zhitao and Zhang, Linghao and Liang, Jiaqing and Lu, Weijia and Zhang, Xiaodong
            and Yang, Zhifei and Jiang, Sihang and Yang, Deqing},
  booktitle = {Proceedings of the AAAI Conference on Artificial Intelligence},
  year = {2026},
  url = {https://arxiv.org/abs/2511.12004}
}"""


def comlq() -> Benchmark:
    types = tuple(
        side("comlq", "ndcg_at_10", f"{'¬' if t in COMLQ_NEGATION_TYPES else ''}{t} nDCG@10", subset=f"type={t}")
        for t in COMLQ_QUERY_TYPES
    )
    lsnc = tuple(
        side("comlq", f"lsnc_lexical_v1_at_{k}", f"LSNC@{k} (judge lexical-v1)", subset="group=negation")
        for k in (10, 100)
    )
    return Benchmark(
        name="ComLQ",
        description="Complex logical queries (14 first-order-logic types) over Wikipedia passages. Ranked by "
        "nDCG@10 over all 2,909 queries; the 14 per-type scores and LSNC are shown beside it.",
        reference="https://arxiv.org/abs/2511.12004",
        citation=COMLQ_CITATION,
        bibtex=COMLQ_BIBTEX,
        tasks=(BenchmarkTask("comlq", "ndcg_at_10", "higher", "nDCG@10 (all queries)"), *types, *lsnc),
        aggregate_label="nDCG@10 over all queries",
        formula="score = mean over the 2,909 queries of nDCG@10 (pytrec_eval). LSNC needs violation labels that "
        "ComLQ does not release: its columns name the judge that supplied them (lexical-v1, a keyword proxy, "
        "by default) and each result states the judge's coverage (judged / negation queries).",
        views=(
            BenchmarkView("comlq", "nDCG@10 per query type"),
            BenchmarkView("comlq", "nDCG@10 by query type and evidence count (paper Fig. 5)"),
        ),
        extra={"judge": "lexical-v1", "coverage": "task_details.judge_coverage of each result"},
    )


def negconstraint() -> Benchmark:
    return Benchmark(
        name="NegConstraint",
        description="366 negative-constraint queries, each with a constraint-satisfying and a constraint-violating "
        "passage. Ranked by nDCG@10; the paired win rate and the violation metrics are shown beside it.",
        reference="https://arxiv.org/abs/2505.22299",
        citation="Xu et al. Logical Consistency is Vital: Neural-Symbolic Information Retrieval for "
        "Negative-Constraint Queries. arXiv:2505.22299 (2025). https://github.com/troyyxk/NS-IR-main",
        tasks=(
            BenchmarkTask("negconstraint", "ndcg_at_10", "higher", "nDCG@10"),
            side("negconstraint", "paired_win_rate", "paired win rate"),
            *(
                side("negconstraint", f"violation_at_{k}", f"violator in top {k} ↓", "lower")
                for k in NEGCONSTRAINT_VIOLATION_K
            ),
            side("negconstraint", "violator_relative_rank", "violator rank - satisfying rank"),
            side("negconstraint", "lsnc_at_10", "LSNC@10 (released violating passages)"),
        ),
        aggregate_label="nDCG@10",
        formula="score = mean over the 366 queries of nDCG@10 (pytrec_eval, graded relevance).",
        views=(BenchmarkView("negconstraint", "Constraint violations"),),
    )


def followir() -> Benchmark:
    # Ranked as mteb ranks it: by the mean of each task's main score (p-MRR, the benchmark's point); the
    # paper's retrieval score is the other aggregate a reader may rank by.
    paper_score = "(Robust04 MAP@1000 + News21 nDCG@5 + Core17 MAP@1000) / 3"
    return Benchmark(
        name="FollowIR",
        description="Instruction following on TREC Robust04, News21 and Core17 (FollowIR). Ranked by the mean "
        "p-MRR over the three, mteb's main score; the paper's FollowIR score (retrieval with the original "
        "instructions) is shown beside it. mFollowIR is a separate benchmark.",
        reference="https://arxiv.org/abs/2403.15246",
        citation="Weller et al. FollowIR: Evaluating and Teaching Information Retrieval Models to Follow "
        "Instructions. arXiv:2403.15246 (2024).",
        tasks=(
            *(BenchmarkTask(task, "p-MRR", "higher", f"{label.split()[0]} p-MRR") for task, _, label in FOLLOWIR),
            *(side(task, metric, label) for task, metric, label in FOLLOWIR),
        ),
        aggregate_label="mean p-MRR",
        formula="score = (p-MRR Robust04 + p-MRR News21 + p-MRR Core17) / 3 (-1..1), each task's main score in "
        f"mteb; FollowIR score = {paper_score}, each on the original instructions (mteb's og_map_at_1000 / "
        "og_ndcg_at_5), shown beside it (the board ranks by it when the reader picks it under Rank by).",
        also=(
            SideAggregate(
                "FollowIR score",
                paper_score,
                tuple(BenchmarkTask(task, metric, "higher", label) for task, metric, label in FOLLOWIR),
            ),
        ),
    )


def mfollowir() -> Benchmark:
    return Benchmark(
        name="mFollowIR",
        description="Multilingual instruction following (Persian, Russian, Chinese), mteb's mFollowIR.",
        reference="https://arxiv.org/abs/2501.19264",
        citation="Weller et al. mFollowIR: a Multilingual Benchmark for Instruction Following in Retrieval. "
        "arXiv:2501.19264 (2025).",
        tasks=(
            BenchmarkTask("mFollowIR", "p-MRR", "higher", "p-MRR (mean over languages)"),
            *(side("mFollowIR", "p-MRR", f"p-MRR {lang}", subset=lang) for lang in ("fas", "rus", "zho")),
            side("mFollowIRCrossLingual", "p-MRR", "cross-lingual p-MRR (mean)"),
            *(
                side("mFollowIRCrossLingual", "p-MRR", f"cross-lingual p-MRR {pair}", subset=pair)
                for pair in ("eng-fas", "eng-rus", "eng-zho")
            ),
        ),
        aggregate_label="p-MRR",
        formula="score = mteb's mFollowIR p-MRR: the mean of the fas, rus and zho p-MRR (-1..1). The cross-lingual "
        "task (English queries and instructions, fas/rus/zho passages: mteb's mFollowIRCrossLingual) is shown "
        "beside it and not averaged in.",
    )


def single(name: str, task: str, metric: str, label: str, description: str, reference: str, citation: str):
    return Benchmark(
        name=name,
        description=description,
        reference=reference,
        citation=citation,
        tasks=(BenchmarkTask(task, metric, "higher", label),),
        aggregate_label=label,
        formula=f"score = mteb's {metric} on {task}.",
    )


def ifir() -> Benchmark:
    return Benchmark(
        name="IFIR",
        description="Instruction following in expert-domain retrieval (law, medicine, finance, science): seven mteb "
        "IFIR tasks.",
        reference="https://arxiv.org/abs/2503.04644",
        citation="Song et al. IFIR: A Comprehensive Benchmark for Evaluating Instruction-Following in Expert-Domain "
        "Information Retrieval. NAACL 2025.",
        tasks=tuple(BenchmarkTask(t, "ndcg_at_20", "higher", f"{t[4:]} nDCG@20") for t in IFIR_TASKS),
        aggregate_label="mean nDCG@20 over 7 tasks",
        formula="score = (1/7) Σ over IFIRAila, IFIRCds, IFIRFiQA, IFIRFire, IFIRNFCorpus, IFIRPm, IFIRScifact of "
        "nDCG@20 (mteb's main score).",
    )


def bright() -> Benchmark:
    return Benchmark(
        name="BRIGHT",
        description="Reasoning-intensive retrieval in 12 domains.",
        reference="https://arxiv.org/abs/2407.12883",
        citation="Su et al. BRIGHT: A Realistic and Challenging Benchmark for Reasoning-Intensive Retrieval. "
        "arXiv:2407.12883 (2024).",
        tasks=tuple(
            BenchmarkTask(f"Bright{d}Retrieval", "ndcg_at_10", "higher", f"{d} nDCG@10", split="standard")
            for d in BRIGHT_DOMAINS
        ),
        aggregate_label="mean nDCG@10 over 12 domains",
        formula="score = (1/12) Σ over the 12 BRIGHT domains of nDCG@10 (split 'standard').",
    )


def mair() -> Benchmark:
    labels = ", ".join(MAIR_TASKS)
    return Benchmark(
        name="MAIR",
        description="Instructed retrieval, each query with its own instruction: the five MAIR tasks the InF-IR paper "
        f"reports ({labels}: TREC Dynamic Domain 2015-2017, TREC Fair Ranking 2021-2022).",
        reference="https://aclanthology.org/2024.emnlp-main.778/",
        citation=MAIR_CITATION,
        tasks=tuple(
            BenchmarkTask(task, "ndcg_at_10", "higher", f"{label} nDCG@10") for label, task in MAIR_TASKS.items()
        ),
        aggregate_label="mean nDCG@10 over 5 tasks",
        formula=f"score = (1/5) Σ over {labels} of nDCG@10: InF-IR's MAIR column (its Tables 2, 5, 8), an "
        "unweighted mean of the tasks (MAIR's own script weights tasks by their number of queries).",
    )


def demo() -> Benchmark:
    return Benchmark(
        name="demo",
        description="The embedded offline demo (12 hand-written queries). Not a benchmark of record.",
        reference="https://github.com/beir-cellar/beir",
        tasks=(BenchmarkTask("demo", "ndcg_at_10", "higher", "nDCG@10"),),
        aggregate_label="nDCG@10",
        formula="score = nDCG@10 on the demo task.",
        public=False,
    )


def multiconir_demo() -> Benchmark:
    return Benchmark(
        name="multiconir-demo",
        description="MultiConIR's tasks on the project's synthetic fixture (offline); the scores mean nothing.",
        reference="https://arxiv.org/abs/2503.08046",
        tasks=(
            BenchmarkTask("multiconir-demo-task1", "mean_win_rate", "higher", "Task 1 mean WR"),
            side("multiconir-demo-task3", "flip_rate", "Task 3 Flip Rate ↓", "lower"),
        ),
        aggregate_label="Task 1 mean win rate",
        formula="as MultiConIR, on the synthetic fixture",
        public=False,
    )


BENCHMARKS = {
    "MultiConIR": multiconir,
    "ComLQ": comlq,
    "NegConstraint": negconstraint,
    "FollowIR": followir,
    "mFollowIR": mfollowir,
    "InstructIR": lambda: single(
        "InstructIR",
        "InstructIR",
        "robustness_at_10",
        "robustness@10",
        "Instruction following with user-aligned instructions (robustness over instructions per query).",
        "https://arxiv.org/abs/2402.14334",
        "Oh et al. INSTRUCTIR: A Benchmark for Instruction Following of Information Retrieval Models. "
        "arXiv:2402.14334 (2024).",
    ),
    "IFIR": ifir,
    "NevIR": lambda: single(
        "NevIR",
        "NevIR",
        "paired_accuracy",
        "paired accuracy",
        "Negation: rank each of two documents differing only by negation above the other for its own query.",
        "https://arxiv.org/abs/2305.07614",
        "Weller, Lawrie, Van Durme. NevIR: Negation in Neural Information Retrieval. EACL 2024.",
    ),
    "BRIGHT": bright,
    "MAIR": mair,
    "demo": demo,
    "multiconir-demo": multiconir_demo,
}
DESCRIPTIONS = {
    "MultiConIR": "Task 1 mean win rate; Decline, Tasks 2, 3, 4 (512, 1024) beside it",
    "ComLQ": "nDCG@10 over all queries; 14 per-type nDCG@10 and LSNC (named judge) beside it",
    "NegConstraint": "nDCG@10; paired win rate, violations in top 1/5/10, violator rank beside it",
    "FollowIR": "mean p-MRR over Robust04, News21, Core17 (mteb's main score); the paper's FollowIR score beside it",
    "mFollowIR": "p-MRR (mean over fas, rus, zho); cross-lingual p-MRR beside it",
    "InstructIR": "robustness@10",
    "IFIR": "mean nDCG@20 over 7 tasks",
    "NevIR": "paired accuracy",
    "BRIGHT": "mean nDCG@10 over 12 domains",
    "MAIR": "mean nDCG@10 over DD-15, DD-16, DD-17, FR-21, FR-22 (InF-IR's MAIR column)",
    "demo": "nDCG@10 on the embedded demo (not public)",
    "multiconir-demo": "Task 1 mean WR on the synthetic fixture (not public)",
}


@hookimpl
def register_benchmarks(register):
    for name, factory in BENCHMARKS.items():
        register(name, factory, description=DESCRIPTIONS[name])
