"""MultiConIR's benchmark (and the demo's, on the synthetic fixture): Task 1's mean win rate, the others beside it."""

from __future__ import annotations

from collections.abc import Callable

from leaderboard import hookimpl
from leaderboard.contract.benchmark import Benchmark, BenchmarkTask, BenchmarkView

from .declarations import BIBTEX, CITATION

ADJACENT = "mean_adjacent_win_rate"


def multiconir() -> Benchmark:
    return Benchmark(
        name="MultiConIR",
        description="Multi-condition retrieval in five domains: robustness as conditions are added (Task 1), "
        "relevance monotonicity (Task 2), format invariance (Task 3) and document length (Task 4). Ranked by "
        "Task 1's mean win rate; the other tasks are shown beside it, each in its own direction, never averaged.",
        reference="https://arxiv.org/abs/2503.08046",
        citation=CITATION,
        bibtex=BIBTEX,
        tasks=(
            BenchmarkTask("multiconir-task1", "mean_win_rate", "higher", "Task 1 mean WR"),
            BenchmarkTask(
                "multiconir-task1", "decline", "lower", "Task 1 Decline (WR_1 - WR_10) ↓", in_aggregate=False
            ),
            BenchmarkTask("multiconir-task2", ADJACENT, "higher", "Task 2 mean adjacent WR", in_aggregate=False),
            BenchmarkTask("multiconir-task3", "flip_rate", "lower", "Task 3 Flip Rate ↓", in_aggregate=False),
            *(
                BenchmarkTask(
                    f"multiconir-task4-{words}",
                    ADJACENT,
                    "higher",
                    f"Task 4 mean adjacent WR, {words} words",
                    in_aggregate=False,
                )  # fmt: skip
                for words in (512, 1024)
            ),
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


def multiconir_demo() -> Benchmark:
    return Benchmark(
        name="multiconir-demo",
        description="MultiConIR's tasks on the project's synthetic fixture (offline); the scores mean nothing.",
        reference="https://arxiv.org/abs/2503.08046",
        tasks=(
            BenchmarkTask("multiconir-demo-task1", "mean_win_rate", "higher", "Task 1 mean WR"),
            BenchmarkTask("multiconir-demo-task3", "flip_rate", "lower", "Task 3 Flip Rate ↓", in_aggregate=False),
        ),
        aggregate_label="Task 1 mean win rate",
        formula="as MultiConIR, on the synthetic fixture",
        public=False,
    )


@hookimpl
def register_benchmarks(register: Callable[..., None]) -> None:
    register("MultiConIR", multiconir, description="Task 1 mean win rate; Decline, Tasks 2, 3, 4 (512, 1024) beside it")
    register("multiconir-demo", multiconir_demo, description="Task 1 mean WR on the synthetic fixture (not public)")
