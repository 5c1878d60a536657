"""What a result imported from mteb says about itself, for the readers of a board (the app).

``leaderboard import`` writes each imported result with an ``imported_from`` block (``convert``): the mteb version
that ran it and whether it comes from an `external` folder of mteb's results repository (numbers the model's
authors reported, copied in by mteb's maintainers, not runs of mteb). A model plugin may name the model as mteb
names it (``mteb_name``), and a task the mteb task it runs (``mteb_task``). Zero-shot is decided as MTEB's
leaderboard decides it (``ModelMeta.is_zero_shot_on``). Each function reads a result's summary row, as the
results index gives it (``records.index_rows``), and never raises on a damaged one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

TASK_PREFIX = "mteb:"  # the name a task run through mteb has in this harness, before its mteb name


def imported_from(row: dict[str, Any]) -> dict[str, Any] | None:
    """The result's ``imported_from`` block (None: a run of this harness)."""
    found = row.get("imported_from")
    return found if isinstance(found, dict) else None


def is_external(row: dict[str, Any]) -> bool:
    """An `external` result: the model's authors' own number, copied into mteb's results repository."""
    return bool((imported_from(row) or {}).get("external"))


def version_key(text: Any) -> tuple[int, ...]:
    """A version as numbers ("2.18.6" -> (2, 18, 6); the first of a range); () when none."""
    found = re.match(r"\d+(?:\.\d+)*", str(text or ""))
    return tuple(int(p) for p in found.group(0).split(".")) if found else ()


def source_label(row: dict[str, Any]) -> str:
    """ "run by mteb 2.18, imported" (or the `external` wording); "" for a run of this harness."""
    found = imported_from(row)
    if found is None:
        return ""
    if found.get("external"):
        return "reported by the model's authors (mteb's `external`), imported"
    version = ".".join(str(v) for v in version_key(found.get("mteb_version"))[:2])
    return f"run by mteb {version}, imported" if version else "run by mteb (version not recorded), imported"


def aliases(rows: Iterable[dict[str, Any]]) -> dict[str, str]:
    """mteb's name of a model (casefolded) -> this harness's name, from the ``mteb_name`` its plugin declares."""
    found: dict[str, str] = {}
    for row in rows:
        mteb_name = row["model"].get("mteb_name")
        if isinstance(mteb_name, str) and mteb_name and not imported_from(row):
            found.setdefault(mteb_name.casefold(), str(row["model"]["name"]))
    return found


def task_names(tasks: Iterable[str], per_task: dict[str, list[dict[str, Any]]]) -> set[str]:
    """The mteb names of ``tasks`` (what a model's training datasets are matched against): the ``mteb_task`` their
    results record, else the name without its ``mteb:`` prefix."""
    names = set()
    for task in tasks:
        recorded = next(
            (r["task"].get("mteb_task") for r in per_task.get(task, []) if r["task"].get("mteb_task")), None
        )
        names.add(recorded or task.removeprefix(TASK_PREFIX))
    return names


def training_of(detail: dict[str, Any] | None) -> Any:
    """The training tasks an imported model's detail records (with those of the model it was adapted from, and
    their similar tasks: ``convert.training_tasks``); None when unknown."""
    return (detail or {}).get("training_tasks")


def zero_shot(training: Any, tasks: set[str]) -> bool | None:
    """MTEB's rule: None when the training data is unknown, else whether it misses every task of the benchmark."""
    if not isinstance(training, list):
        return None
    return not (set(map(str, training)) & tasks)
