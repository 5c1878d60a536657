"""mteb's task registry as the importer needs it: each task's type, and for the imported types its scoring.

Shipped as ``mteb_tasks.json`` (generated from the installed mteb by ``python -m
leaderboard.mteb.tasks``; a test fails when it differs from a regeneration with the same
mteb version) rather than read from mteb at import time: ``import mteb`` takes seconds and loads
thousands of modules, and mteb is an optional extra (``[mteb]``), while importing result files is plain
JSON work that must run on the core install. Each task's type decides whether its files are read
at all: a file whose name is a task of another type is counted and never opened.

What is kept, per task: ``type`` (mteb's ``TaskMetadata.type``); for the imported types
(``IMPORTED_TYPES``, text only): ``main_score``, ``splits`` (``eval_splits``), ``subsets``
(``hf_subsets``), ``revision`` and ``dataset`` (the hub dataset mteb loads now). Also mteb's own
task renames (``mteb/results/task_result.py`` ``renamed_tasks``, ``mteb/get_tasks.py``
``_TASK_RENAMES``) with the 1.x names of tasks mteb 2 renamed (``HISTORIC_NAMES``), and the
similar-task graph (``mteb/get_tasks.py`` ``_create_similar_tasks``: ``adapted_from`` and
``superseded_by``) that mteb's zero-shot rule follows. And, for that rule's ``adapted_from`` step
(``ModelMeta.get_training_datasets`` adds the training data of the model a model was adapted from,
looked up in mteb's model registry only), each registered model's ``training_datasets`` and
``adapted_from`` (``models``, only those whose training data is known) with mteb's model renames.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REGISTRY_FILE = Path(__file__).with_name("mteb_tasks.json")
# The task types this harness runs: text retrieval and reranking (mteb's TaskMetadata.type values).
IMPORTED_TYPES = ("Retrieval", "Reranking", "InstructionRetrieval", "InstructionReranking")
# Task names mteb 1.x wrote that mteb 2 renamed without listing them in its own rename tables
# (mteb 1.x mteb/tasks/InstructionRetrieval/multilingual/mFollowIR.py: class mFollowIR named
# "mFollowIRInstructionRetrieval", class mFollowIRCrossLingual "mFollowIRCrossLingualInstructionRetrieval").
HISTORIC_NAMES = {
    "mFollowIRInstructionRetrieval": "mFollowIR",
    "mFollowIRCrossLingualInstructionRetrieval": "mFollowIRCrossLingual",
}


@dataclass(frozen=True)
class MtebTask:
    name: str  # mteb's current name
    type: str
    text: bool  # text-only modalities
    main_score: str | None = None
    splits: tuple[str, ...] = ()
    subsets: tuple[str, ...] = ()
    revision: str | None = None
    dataset: str | None = None

    @property
    def imported(self) -> bool:
        return self.type in IMPORTED_TYPES and self.text and self.main_score is not None and bool(self.splits)


class Registry:
    """The shipped registry: tasks by name, renames, similar tasks."""

    def __init__(self, data: dict[str, Any]):
        self.mteb_version = str(data.get("mteb_version", "?"))
        self.renames: dict[str, str] = dict(data.get("renames", {}))
        self.similar: dict[str, list[str]] = {k: list(v) for k, v in data.get("similar", {}).items()}
        self.tasks: dict[str, MtebTask] = {}
        for name, entry in data.get("tasks", {}).items():
            self.tasks[name] = MtebTask(
                name=name,
                type=entry["type"],
                text=entry.get("text", False),
                main_score=entry.get("main_score"),
                splits=tuple(entry.get("splits", ())),
                subsets=tuple(entry.get("subsets", ())),
                revision=entry.get("revision"),
                dataset=entry.get("dataset"),
            )
        self._lower = {name.lower(): name for name in self.tasks}
        self._parents: dict[str, list[str]] = {}
        for parent, children in self.similar.items():
            for child in children:
                self._parents.setdefault(child, []).append(parent)
        self._similar: dict[str, frozenset[str]] = {}
        self.model_renames: dict[str, str] = dict(data.get("model_renames", {}))
        self.models: dict[str, dict[str, Any]] = dict(data.get("models", {}))

    def find(self, name: str) -> MtebTask | None:
        """The task a file names: by name, an mteb rename, or case-insensitively (mteb's pre-1.11 loader does)."""
        name = self.renames.get(name, name)
        found = self.tasks.get(name)
        if found is None and name.lower() in self._lower:
            found = self.tasks[self._lower[name.lower()]]
        return found

    def similar_tasks(self, dataset: str) -> frozenset[str]:
        """mteb's ``_collect_similar_tasks`` (mteb/models/model_meta.py): parents and children, recursively."""
        found = self._similar.get(dataset)
        if found is None:
            seen: set[str] = set()
            todo = [dataset]
            while todo:
                current = todo.pop()
                if current not in seen:
                    seen.add(current)
                    todo += [*self.similar.get(current, ()), *self._parents.get(current, ())]
            found = self._similar[dataset] = frozenset(seen - {dataset})
        return found

    def adapted_training(self, adapted_from: str | None) -> set[str]:
        """The training datasets mteb adds for a model's ``adapted_from`` (``ModelMeta.get_training_datasets``):
        that model's, in mteb's model registry, with those of the model it was adapted from in turn; a model
        mteb does not know, or whose training data is unknown, adds none (mteb logs it and goes on)."""
        found: set[str] = set()
        seen: set[str] = set()
        while adapted_from and adapted_from not in seen:  # mteb recurses; a cycle would never end there
            seen.add(adapted_from)
            entry = self.models.get(self.model_renames.get(adapted_from, adapted_from))
            if entry is None:
                break
            found |= set(entry.get("training", ()))
            adapted_from = entry.get("adapted_from")
        return found


@functools.cache
def registry() -> Registry:
    return Registry(json.loads(REGISTRY_FILE.read_text("utf-8")))


def generate() -> dict[str, Any]:
    """The registry from the installed mteb (needs the [mteb] extra)."""
    import mteb
    from mteb.get_tasks import _SIMILAR_TASKS, _TASK_RENAMES, _TASKS_REGISTRY
    from mteb.models.get_model_meta import _MODEL_RENAMES, MODEL_REGISTRY
    from mteb.results.task_result import renamed_tasks

    tasks: dict[str, Any] = {}
    for name, task in sorted(_TASKS_REGISTRY.items()):
        meta = task.metadata
        entry: dict[str, Any] = {"type": str(meta.type), "text": list(meta.modalities) == ["text"]}
        if entry["type"] in IMPORTED_TYPES and entry["text"]:
            entry.update(
                main_score=meta.main_score,
                splits=list(meta.eval_splits),
                subsets=list(meta.hf_subsets),
                revision=meta.dataset.get("revision"),
                dataset=meta.dataset.get("path"),
            )
        tasks[name] = entry
    return {
        "mteb_version": mteb.__version__,
        "renames": dict(sorted({**HISTORIC_NAMES, **renamed_tasks, **_TASK_RENAMES}.items())),
        "similar": {k: sorted(v) for k, v in sorted(_SIMILAR_TASKS.items())},
        "tasks": tasks,
        "model_renames": dict(sorted(_MODEL_RENAMES.items())),
        "models": {
            name: {"training": sorted(meta.training_datasets), "adapted_from": meta.adapted_from}
            for name, meta in sorted(MODEL_REGISTRY.items())
            if meta.training_datasets is not None
        },
    }


def registry_text(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n"


if __name__ == "__main__":  # regenerate the shipped registry from the installed mteb
    REGISTRY_FILE.write_text(registry_text(generate()), "utf-8")
    print(f"wrote {REGISTRY_FILE}")
