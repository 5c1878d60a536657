"""The benchmarks of the mteb tasks this package registers: FollowIR, mFollowIR, InstructIR, IFIR, NevIR, BRIGHT.

Each names its tasks from ``tasks.CURATED`` (the names registered), so nothing is written twice. Each
aggregate is the mean of the columns marked ``in_aggregate`` (all one direction); every other column
is shown beside it and never averaged in.
"""

from __future__ import annotations

from collections.abc import Callable

from leaderboard.contract.benchmark import Benchmark, BenchmarkTask, SideAggregate

from .tasks import BRIGHT_DOMAINS, CURATED

# (task, the metric the FollowIR paper reports for it, its label), in the paper's order.
FOLLOWIR = tuple(
    zip(
        CURATED["followir"][:3],
        ("og_map_at_1000", "og_ndcg_at_5", "og_map_at_1000"),
        ("Robust04 MAP@1000", "News21 nDCG@5", "Core17 MAP@1000"),
        strict=True,
    )
)
IFIR_TASKS = CURATED["ifir"]


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
            *(BenchmarkTask(task, metric, "higher", label, in_aggregate=False) for task, metric, label in FOLLOWIR),
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
    languages, pairs = ("fas", "rus", "zho"), ("eng-fas", "eng-rus", "eng-zho")
    return Benchmark(
        name="mFollowIR",
        description="Multilingual instruction following (Persian, Russian, Chinese), mteb's mFollowIR.",
        reference="https://arxiv.org/abs/2501.19264",
        citation="Weller et al. mFollowIR: a Multilingual Benchmark for Instruction Following in Retrieval. "
        "arXiv:2501.19264 (2025).",
        tasks=(
            BenchmarkTask("mFollowIR", "p-MRR", "higher", "p-MRR (mean over languages)"),
            *(
                BenchmarkTask("mFollowIR", "p-MRR", "higher", f"p-MRR {lang}", subset=lang, in_aggregate=False)
                for lang in languages
            ),
            BenchmarkTask("mFollowIRCrossLingual", "p-MRR", "higher", "cross-lingual p-MRR (mean)", in_aggregate=False),
            *(
                BenchmarkTask(
                    "mFollowIRCrossLingual",
                    "p-MRR",
                    "higher",
                    f"cross-lingual p-MRR {pair}",
                    subset=pair,
                    in_aggregate=False,
                )  # fmt: skip
                for pair in pairs
            ),
        ),
        aggregate_label="p-MRR",
        formula="score = mteb's mFollowIR p-MRR: the mean of the fas, rus and zho p-MRR (-1..1). The cross-lingual "
        "task (English queries and instructions, fas/rus/zho passages: mteb's mFollowIRCrossLingual) is shown "
        "beside it and not averaged in.",
    )


def single(name: str, metric: str, label: str, *, description: str, reference: str, citation: str) -> Benchmark:
    """A benchmark of one task, registered under the benchmark's own name."""
    return Benchmark(
        name=name,
        description=description,
        reference=reference,
        citation=citation,
        tasks=(BenchmarkTask(name, metric, "higher", label),),
        aggregate_label=label,
        formula=f"score = mteb's {metric} on {name}.",
    )


def instructir() -> Benchmark:
    return single(
        "InstructIR",
        "robustness_at_10",
        "robustness@10",
        description="Instruction following with user-aligned instructions (robustness over instructions per query).",
        reference="https://arxiv.org/abs/2402.14334",
        citation="Oh et al. INSTRUCTIR: A Benchmark for Instruction Following of Information Retrieval Models. "
        "arXiv:2402.14334 (2024).",
    )


def nevir() -> Benchmark:
    return single(
        "NevIR",
        "paired_accuracy",
        "paired accuracy",
        description="Negation: rank each of two documents differing only by negation above the other for its own "
        "query.",
        reference="https://arxiv.org/abs/2305.07614",
        citation="Weller, Lawrie, Van Durme. NevIR: Negation in Neural Information Retrieval. EACL 2024.",
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
        aggregate_label=f"mean nDCG@20 over {len(IFIR_TASKS)} tasks",
        formula=f"score = (1/{len(IFIR_TASKS)}) Σ over {', '.join(IFIR_TASKS)} of nDCG@20 (mteb's main score).",
    )


def bright() -> Benchmark:
    return Benchmark(
        name="BRIGHT",
        description=f"Reasoning-intensive retrieval in {len(BRIGHT_DOMAINS)} domains.",
        reference="https://arxiv.org/abs/2407.12883",
        citation="Su et al. BRIGHT: A Realistic and Challenging Benchmark for Reasoning-Intensive Retrieval. "
        "arXiv:2407.12883 (2024).",
        tasks=tuple(
            BenchmarkTask(f"Bright{d}Retrieval", "ndcg_at_10", "higher", f"{d} nDCG@10", split="standard")
            for d in BRIGHT_DOMAINS
        ),
        aggregate_label=f"mean nDCG@10 over {len(BRIGHT_DOMAINS)} domains",
        formula=f"score = (1/{len(BRIGHT_DOMAINS)}) Σ over the {len(BRIGHT_DOMAINS)} BRIGHT domains of nDCG@10 "
        "(split 'standard').",
    )


# name -> (factory, the one line ``leaderboard benchmarks`` shows)
BENCHMARKS: dict[str, tuple[Callable[[], Benchmark], str]] = {
    "FollowIR": (
        followir,
        "mean p-MRR over Robust04, News21, Core17 (mteb's main score); the paper's FollowIR score beside it",
    ),
    "mFollowIR": (mfollowir, "p-MRR (mean over fas, rus, zho); cross-lingual p-MRR beside it"),
    "InstructIR": (instructir, "robustness@10"),
    "IFIR": (ifir, "mean nDCG@20 over 7 tasks"),
    "NevIR": (nevir, "paired accuracy"),
    "BRIGHT": (bright, "mean nDCG@10 over 12 domains"),
}
