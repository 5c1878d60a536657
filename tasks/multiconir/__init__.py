"""MultiConIR: multi-condition queries across five domains (EIT-NLP; arXiv 2503.08046).

Tasks (each scores every query against its own small candidate set):
* task1  complexity robustness: WR_k = P[s(Query_k, Positive) > s(Query_k, HN_k)], k = 1..10
* task2  relevance monotonicity: WR_{k,k-1} = P[s(Query10, d_k) > s(Query10, d_{k-1})], k = 1..10, where d_k
         satisfies k conditions (d_10 = Positive, d_k = HN_{10-k}; see notation)
* task3  format invariance: flip rate of the ten adjacent outcomes between Query10 and Natural_Query10
* task4  document length: task2's metrics on the 512- and 1024-word files (two tasks)
Comparisons are strict: a tie counts as a loss. Cross-domain numbers are macro averages over the
five domains; every rate has a 95% bootstrap interval over records (stratified by domain).

Modules: loading (files and checks), notation (the pairs' names), metrics (per record and per
subset), declarations (metrics, views and citation of each task), task (the tasks and their hooks), benchmark
(the benchmarks of these tasks),
fixture (the synthetic offline dataset).
"""

from .benchmark import register_benchmarks
from .declarations import BIBTEX, CITATION, INSTRUCTION, REFERENCE
from .loading import DOMAINS, ENV_VAR, HUB_REPO, TASK1_COLUMNS, TASK2_COLUMNS, TASK4_COLUMNS, VARIANTS, K
from .notation import MAPPING, PAIR_LABELS, PAIR_NAMES, PAIRS
from .task import DemoMultiConIRTask, MultiConIRTask, register_demo_tasks, register_tasks

__all__ = [
    "BIBTEX",
    "CITATION",
    "DOMAINS",
    "ENV_VAR",
    "HUB_REPO",
    "INSTRUCTION",
    "PAIRS",
    "PAIR_LABELS",
    "PAIR_NAMES",
    "REFERENCE",
    "TASK1_COLUMNS",
    "TASK2_COLUMNS",
    "TASK4_COLUMNS",
    "VARIANTS",
    "DemoMultiConIRTask",
    "K",
    "MAPPING",
    "MultiConIRTask",
    "register_benchmarks",
    "register_demo_tasks",
    "register_tasks",
]
