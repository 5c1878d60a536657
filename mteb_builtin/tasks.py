"""Instruction-following benchmarks implemented in mteb, exposed as task plugins of this harness.

FollowIR (Robust04/News21/Core17 with p-MRR, mFollowIR), InstructIR, IFIR, NevIR and BRIGHT are
mteb tasks; we do not re-implement them. Each runs through ``mteb.evaluate`` with our model behind
mteb's protocols, and every metric mteb reports (p-MRR and the og/changed sub-scores included)
is converted into our result JSON together with mteb's version and the task/data revisions.

Local data: a folder laid out the way mteb 2.x reads a dataset repository (``datasets``'
README.md YAML ``configs``: corpus, queries, default (qrels), instruction, top_ranked, and for
FollowIR qrel_diff), chosen per task by --data-dir TASK=DIR, LEADERBOARD_MTEB_DATA_<TASK> or a
folder LEADERBOARD_MTEB_DATA holding <TaskName>/ subfolders. A bare such folder given as --task
is recognised too. Without local data, mteb downloads from the Hugging Face hub.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from leaderboard import BadInput, hookimpl
from leaderboard.contract.task import (
    DataSource,
    ExternalData,
    ExternalTask,
    Metric,
    ScoreReport,
    TaskMetadata,
    TaskRequest,
    View,
)
from leaderboard.toolkit import bounds, content_hash, slug

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
CURATED = {
    "followir": (
        "Robust04InstructionRetrieval",
        "News21InstructionRetrieval",
        "Core17InstructionRetrieval",
        "mFollowIR",
        "mFollowIRCrossLingual",  # the same paper's cross-lingual half (English queries, fas/rus/zho passages)
    ),
    "instructir": ("InstructIR",),
    "ifir": ("IFIRAila", "IFIRCds", "IFIRFiQA", "IFIRFire", "IFIRNFCorpus", "IFIRPm", "IFIRScifact"),
    "nevir": ("NevIR",),
    "bright": tuple(f"Bright{d}Retrieval" for d in BRIGHT_DOMAINS),
}
FAMILY = {name: family for family, names in CURATED.items() for name in names}
ROOT_ENV = "LEADERBOARD_MTEB_DATA"
REQUIRES = ("mteb", "datasets")
INSTALL = "pip install 'retrieval-leaderboard[mteb]'"
FOLLOWIR_TEMPLATE = "Core17InstructionRetrieval"  # whose p-MRR scoring serves a local FollowIR-style folder


FOLLOWIR_LABELS = {
    "p-MRR": "p-MRR",
    "og_map_at_1000": "MAP@1000 (original)",
    "changed_map_at_1000": "MAP@1000 (changed)",
    "og_ndcg_at_5": "nDCG@5 (original)",
    "changed_ndcg_at_5": "nDCG@5 (changed)",
}
RETRIEVAL_LABELS = {"ndcg_at_10": "nDCG@10", "recall_at_100": "Recall@100", "ndcg_at_20": "nDCG@20"}


def label(metric: str) -> str:
    """How tables name one of mteb's metrics (empty: by its name)."""
    return FOLLOWIR_LABELS.get(metric) or RETRIEVAL_LABELS.get(metric) or ""


def views(meta: TaskMetadata) -> list[View]:
    """What the app draws: the metrics mteb reports for this kind of task (FollowIR's og/changed pairs)."""
    split = meta.splits[0]
    main = meta.main_score
    if main == "p-MRR":
        out = [
            View(
                "table",
                "FollowIR: p-MRR with original and changed instructions",
                metrics=tuple(FOLLOWIR_LABELS),
                labels=dict(FOLLOWIR_LABELS),
                split=split,
                description="p-MRR (-1..1) rewards moving documents whose relevance the changed instruction "
                "removes; MAP@1000 and nDCG@5 are scored against the original (og) and changed qrels.",
            )
        ]
        languages = [s for s in meta.subsets if s != "default"]
        if languages:
            out.append(
                View(
                    "table",
                    "p-MRR per language",
                    subsets=tuple(languages),
                    metrics=("p-MRR",),
                    split=split,
                    description="The task's score (default) is the mean over these.",
                )
            )
        return out
    if main.startswith("ndcg_at_"):
        metrics = tuple(dict.fromkeys((main, "ndcg_at_10", "recall_at_100")))
        return [View("table", "Retrieval", metrics=metrics, labels=RETRIEVAL_LABELS, split=split)]
    return [View("table", meta.name, metrics=(main,), split=split, description="mteb's main score.")]


def task_env(name: str) -> str:
    return f"{ROOT_ENV}_{''.join(c if c.isalnum() else '_' for c in name).upper()}"


def is_mteb_folder(path: Path) -> bool:
    readme = path / "README.md"
    return readme.is_file() and "config_name: corpus" in readme.read_text("utf-8", errors="replace")


def local_folder(name: str, data_dir: str | None) -> Path | None:
    for candidate, origin in (
        (data_dir, "--data-dir"),
        (os.environ.get(task_env(name)), task_env(name)),
        (os.path.join(os.environ[ROOT_ENV], name) if os.environ.get(ROOT_ENV) else None, ROOT_ENV),
    ):
        if not candidate:
            continue
        path = Path(candidate).expanduser()
        if not is_mteb_folder(path):
            raise BadInput(
                f"{origin} points to {path}, which is not an mteb dataset folder: expected a README.md whose YAML "
                "'configs' declare corpus, queries, default (qrels) and optionally instruction, top_ranked, qrel_diff."
            )
        return path
    return None


def _finite_flat(entry: dict[str, Any], dropped: list[str]) -> dict[str, float]:
    """mteb's per-subset score dict, nested og/changed flattened as og_<metric>; NaN/inf dropped (JSON has none)."""
    out: dict[str, float] = {}
    for key, value in entry.items():
        if key in ("hf_subset", "languages", "main_score", "mteb_version"):
            continue
        items = [(f"{key}_{k}", v) for k, v in value.items()] if isinstance(value, dict) else [(key, value)]
        for name, v in items:
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                if math.isfinite(float(v)):
                    out[name] = float(v)
                else:
                    dropped.append(name)
    return out


def loaded_content_hash(task: Any) -> str:
    """sha256 over what mteb actually loaded (for hub data, which we do not see as files)."""
    digest = hashlib.sha256()
    for _subset, splits in sorted(task.dataset.items()):
        for _split, data in sorted(splits.items()):
            for part in ("corpus", "queries"):
                for row in data[part]:
                    digest.update(json.dumps(row, sort_keys=True, default=str).encode())
            digest.update(
                json.dumps(
                    {"qrels": data["relevant_docs"], "top": data.get("top_ranked")}, sort_keys=True, default=str
                ).encode()
            )
    return "sha256:" + digest.hexdigest()


class MtebTask(ExternalTask):
    def __init__(
        self, mteb_name: str, data_dir: str | None = None, name: str | None = None, folder: Path | None = None
    ):
        import mteb

        try:
            self.mteb_task = mteb.get_task(mteb_name)
        except Exception as exc:
            raise BadInput(
                f"mteb has no task {mteb_name!r} ({exc}). See `leaderboard tasks` for the curated list."
            ) from None
        self.mteb_name = mteb_name
        meta = self.mteb_task.metadata
        self.folder = folder or local_folder(name or mteb_name, data_dir)
        self._cache: tempfile.TemporaryDirectory[str] | None = None  # see datasets_cache()
        self.metadata = TaskMetadata(
            name=name or mteb_name,
            family=FAMILY.get(mteb_name, "mteb"),
            description=str(meta.description),
            reference=str(meta.reference or ""),
            citation=meta.bibtex_citation or None,
            metrics=[
                Metric(
                    meta.main_score,
                    "higher",
                    "mteb's main score",
                    *bounds(meta.main_score),
                    label=label(meta.main_score),
                )
            ],
            main_score=meta.main_score,
            splits=list(meta.eval_splits),
            subsets=["default"] + [s for s in (meta.hf_subsets or []) if s != "default"],
            supports_limit=False,  # mteb evaluates the whole task
        )
        self.metadata.views = views(self.metadata)

    @contextlib.contextmanager
    def datasets_cache(self) -> Iterator[None]:
        """For a local folder, a cache of ``datasets`` of its own, made fresh for each task object.

        ``datasets`` caches a local folder's files under a key that does not follow their content: a
        folder rewritten in place was read back from the old cache, under the new content hash. mteb
        calls ``load_dataset`` itself (and again for FollowIR's qrel_diff while scoring), so the cache
        root is swapped around those calls; hub data keeps the shared cache.
        """
        if self.folder is None:
            yield
            return
        import datasets.config

        if self._cache is None:
            self._cache = tempfile.TemporaryDirectory(prefix="leaderboard-mteb-datasets-")
        previous = datasets.config.HF_DATASETS_CACHE
        datasets.config.HF_DATASETS_CACHE = Path(self._cache.name)
        try:
            yield
        finally:
            datasets.config.HF_DATASETS_CACHE = previous

    def load(self) -> ExternalData:
        task = self.mteb_task
        meta = task.metadata
        if self.folder is not None:
            task.metadata = meta.model_copy(deep=True)
            task.metadata.dataset["path"] = str(self.folder)  # mteb's loader accepts a local dataset folder
            source = DataSource(kind="local", uri=str(self.folder.resolve()))
        else:
            source = DataSource(
                kind="hub", uri=f"hf://datasets/{meta.dataset['path']}", revision=meta.dataset.get("revision")
            )
        from datasets.utils.logging import disable_progress_bar

        disable_progress_bar()  # the runner draws its own progress
        try:
            with self.datasets_cache():
                task.load_data()
        except Exception as exc:
            raise BadInput(
                f"mteb task {self.metadata.name}: could not load its data from {source.uri} "
                f"({type(exc).__name__}: {exc}). Offline, point it at a local copy with "
                f"--data-dir {self.metadata.name}=DIR or {task_env(self.metadata.name)}."
            ) from None
        if self.folder is not None:
            source.content_hash = content_hash([p for p in self.folder.rglob("*") if p.is_file()], self.folder)
        else:
            source.content_hash = loaded_content_hash(task)
        return ExternalData(source, task)

    def evaluate_model(self, model: Any, data: ExternalData, batch_size: int) -> ScoreReport:
        import mteb

        from .bridge import mteb_adapter
        from .per_query import read_predictions

        with tempfile.TemporaryDirectory(prefix="leaderboard-mteb-") as predictions_dir, self.datasets_cache():
            try:
                outcome = mteb.evaluate(
                    mteb_adapter(model, batch_size),
                    data.handle,
                    cache=None,
                    overwrite_strategy="always",
                    show_progress_bar=False,
                    encode_kwargs={"batch_size": batch_size},
                    prediction_folder=predictions_dir,  # keeps each query's ranking: per-query values below
                )
                result = outcome.task_results[0]
                predictions = read_predictions(Path(predictions_dir), data.handle)
            except BadInput:
                raise
            except Exception as exc:
                raise BadInput(
                    f"mteb task {self.metadata.name} failed with model {model.metadata.name}: "
                    f"{type(exc).__name__}: {exc}"
                ) from None
        scores: dict[str, dict[str, dict[str, float]]] = {}
        dropped: list[str] = []
        mteb_subsets: dict[str, list[str]] = {}  # split -> the subsets mteb itself scored
        for split, entries in result.scores.items():
            subsets = {str(e.get("hf_subset", "default")): _finite_flat(dict(e), dropped) for e in entries}
            mteb_subsets[split] = list(subsets)
            if "default" not in subsets:  # mteb's aggregate over subsets is their mean
                shared = set.intersection(*(set(v) for v in subsets.values()))
                subsets["default"] = {n: sum(v[n] for v in subsets.values()) / len(subsets) for n in sorted(shared)}
            scores[split] = subsets
        names = sorted({n for subsets in scores.values() for values in subsets.values() for n in values})
        self.metadata.metrics = [Metric(n, "higher", "reported by mteb", *bounds(n), label=label(n)) for n in names]
        details: dict[str, Any] = {
            "framework": "mteb",
            "mteb_version": result.mteb_version,
            "mteb_task": self.mteb_name,
            # the name an mteb results file uses: a local folder is not the mteb task it borrows scoring from
            "export_names": {
                "mteb": self.mteb_name
                if self.folder is None or self.metadata.name in (self.mteb_name, f"mteb:{self.mteb_name}")
                else self.metadata.name
            },
            "mteb_dataset_revision": result.dataset_revision,
            "mteb_task_type": str(data.handle.metadata.type),
        }
        if dropped:
            details["non_finite_metrics_dropped"] = sorted(set(dropped))
        report = ScoreReport(scores, details=details)
        self.add_per_query(report, data, predictions, mteb_subsets.get(self.metadata.splits[0], []))
        return report

    def add_per_query(
        self, report: ScoreReport, data: ExternalData, predictions: dict[str, Any], subsets: list[str]
    ) -> None:
        """Per-query values of the main score on the main split, each subset's mean checked against mteb's.

        The stored score becomes the mean of the stored values (readers check that to 1e-9); mteb's own
        value, which differs by at most the checked tolerance, is kept in task_details["mteb_reported"].
        """
        from .per_query import PerQueryMismatch, check_mean, subset_values, supported, unit_of

        main, split = self.metadata.main_score, self.metadata.splits[0]
        details = report.details
        if not supported(main):
            details["per_query"] = f"not computed: {main} has no per-query definition in this harness"
            return
        many = len(subsets) > 1
        per_unit: dict[str, dict[str, float]] = {}
        members: dict[str, list[str]] = {}
        texts: dict[str, str] = {}
        reported: dict[str, float] = {}
        for subset in subsets:
            try:
                found = subset_values(data.handle, main, subset, split, predictions[subset][split])
            except Exception as exc:  # missing predictions, a qrel_diff that does not load, ...
                raise BadInput(
                    f"mteb task {self.metadata.name}, subset {subset}: could not recompute per-query {main} "
                    f"from mteb's saved rankings ({type(exc).__name__}: {exc}); no result was written"
                ) from None
            entry = report.scores[split][subset]
            reported[subset] = entry[main]
            try:
                entry[main] = check_mean(self.metadata.name, subset, main, found.values, entry[main])
            except PerQueryMismatch as exc:
                raise BadInput(str(exc)) from None
            key = (lambda unit, subset=subset: f"{subset}/{unit}") if many else (lambda unit: unit)
            per_unit.update({key(u): {main: v} for u, v in found.values.items()})
            texts.update({key(u): t for u, t in found.texts.items()})
            if subset != "default":
                members[subset] = [key(u) for u in found.values]
        details["mteb_reported"] = {split: {s: {main: v} for s, v in reported.items()}}
        if many:
            sizes = {len(m) for m in members.values()}
            if len(sizes) > 1:  # mteb's score is the mean over subsets; a mean over queries would not equal it
                means = [report.scores[split][s][main] for s in subsets]
                report.scores[split]["default"][main] = sum(means) / len(means)  # of the checked subset means
                details["per_query"] = (
                    f"not stored: the {main} of 'default' is mteb's mean over the subsets {subsets}, which have "
                    f"{sorted(len(m) for m in members.values())} units, so no mean over units equals it"
                )
                return
            # equal sizes: the mean over subsets equals the mean over all units (stored as such, to 1e-9)
            report.scores[split]["default"][main] = sum(v[main] for v in per_unit.values()) / len(per_unit)
        elif subsets and subsets[0] != "default":  # one named subset: "default" is the same queries
            report.scores[split]["default"][main] = report.scores[split][subsets[0]][main]
        report.per_query = per_unit
        report.subset_queries = members
        details["per_query_unit"] = unit_of(main)
        data.query_texts = texts


def from_argument(request: TaskRequest) -> MtebTask:
    argument = request.argument or ""
    folder = Path(argument).expanduser()
    if folder.is_dir():
        if not is_mteb_folder(folder):
            raise BadInput(
                f"{folder} is not an mteb dataset folder (README.md with YAML configs for corpus, queries, qrels)."
            )
        followir = (folder / "qrel_diff.jsonl").exists() or "config_name: qrel_diff" in (
            folder / "README.md"
        ).read_text("utf-8")
        template = (
            FOLLOWIR_TEMPLATE
            if followir
            else "InstructIR"
            if "config_name: instruction" in (folder / "README.md").read_text("utf-8")
            else None
        )
        if template is None:
            raise BadInput(
                f"{folder}: a local mteb folder needs 'instruction' (InstructIR-style) or 'qrel_diff' "
                "(FollowIR-style) configs; plain retrieval data belongs in a BEIR folder."
            )
        return MtebTask(template, name=f"mteb-local-{slug(folder.resolve().name)}", folder=folder)
    if not argument:
        raise BadInput("Expected an mteb task name or folder after 'mteb:', e.g. mteb:Core17InstructionRetrieval.")
    if argument in FAMILY:  # a curated task keeps its registered name
        return MtebTask(argument, request.data_dir)
    # Any other mteb task is named as the user wrote it, mteb:<Task>: the name `leaderboard import` gives
    # mteb's own results of that task, so this harness's run and mteb's are on one board. Its local data
    # is still looked up under mteb's name.
    return MtebTask(argument, name=f"mteb:{argument}", folder=local_folder(argument, request.data_dir))


@hookimpl
def register_tasks(register: Callable[..., None]) -> None:
    for family, names in CURATED.items():
        for name in names:
            register(
                name,
                lambda request, name=name: MtebTask(name, request.data_dir),
                description=f"{family} via mteb (local data: --data-dir {name}=DIR or {task_env(name)}; else the hub)",
                requires=REQUIRES,
                install=INSTALL,
            )
    register(
        "mteb:",
        from_argument,
        description="Any mteb task by name (mteb:<TaskName>), or a local FollowIR/InstructIR-style mteb folder",
        claims_directory=is_mteb_folder,
        directory_priority=10,
        requires=REQUIRES,
        install=INSTALL,
    )


@hookimpl
def register_benchmarks(register: Callable[..., None]) -> None:
    from .benchmarks import BENCHMARKS

    for name, (factory, description) in BENCHMARKS.items():
        register(name, factory, description=description)
