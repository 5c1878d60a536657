"""The MultiConIR tasks (one per variant) and their offline demo twins on the project's fixture."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from leaderboard import hookimpl
from leaderboard.contract.task import CandidateData, CandidateSet, CandidateTask, DataSource, ScoreReport, TaskMetadata
from leaderboard.toolkit import cache_home, content_hash, local_dir

from . import declarations
from .loading import DOMAINS, ENV_VAR, HUB_REPO, VARIANTS, K, datasets_root, fetch_from_hub, read_domains
from .metrics import score_report


class MultiConIRTask(CandidateTask):
    def __init__(self, variant: str, data_dir: str | None = None, seed: int = 0, source: DataSource | None = None):
        self.variant = VARIANTS[variant]
        self.key = variant
        self.data_dir, self.seed, self.source = data_dir, seed, source
        self.metadata = self._metadata()

    def _metadata(self) -> TaskMetadata:
        metrics, main = declarations.metrics(self.key)
        return TaskMetadata(
            name=self.variant.name,
            family="multiconir",
            description=f"MultiConIR {self.variant.description}",
            reference=declarations.REFERENCE,
            citation=declarations.CITATION,
            metrics=metrics,
            main_score=main,
            subsets=["default"] + [f"domain={d}" for d in DOMAINS],
            instruction=declarations.INSTRUCTION,
            views=declarations.views(self.key),
        )

    def _locate(self) -> tuple[Path, DataSource]:
        folder = local_dir(self.data_dir, ENV_VAR)
        if folder is not None:
            return folder, self.source or DataSource(kind="local", uri=str(folder.resolve()))
        return fetch_from_hub()

    def load(self) -> CandidateData:
        root, source = self._locate()
        tables, files = read_domains(root, self.variant)
        source.content_hash = content_hash(files, datasets_root(root))
        return CandidateData(self._sets(tables), source, extra={"records": {d: len(t) for d, t in tables.items()}})

    def _sets(self, tables) -> list[CandidateSet]:
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

    def compute_scores(self, data: CandidateData, scores: dict[str, list[float]]) -> ScoreReport:
        names = [m.name for m in self.metadata.metrics]
        return score_report(self.metadata.name, self.key, names, data, scores, self.seed)


@hookimpl
def register_tasks(register: Callable[..., None]) -> None:
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
        from .fixture import write_fixture

        root = write_fixture(Path(self.data_dir) if self.data_dir else cache_home() / "multiconir-demo")
        return root, DataSource(kind="embedded", uri="leaderboard_tasks.multiconir.fixture")


@hookimpl(specname="register_tasks")
def register_demo_tasks(register: Callable[..., None]) -> None:
    for key, variant in VARIANTS.items():
        demo = variant.name.replace("multiconir-", "multiconir-demo-")
        register(
            demo,
            lambda request, key=key: DemoMultiConIRTask(key, request.data_dir, request.seed),
            description=f"MultiConIR {variant.description}, on the embedded synthetic fixture (offline demo)",
        )
