"""The text of each query a task's results name, read from the task's data (``compare --queries --data-dir``).

The per-query values of a result are keyed by query id: for a retrieval task the id of
``RetrievalData.queries``; for a candidate task (MultiConIR) the record a set belongs to, the
set's key up to its last "/" (``Books/17/k3`` -> ``Books/17``), whose text is the record's last
set's query (Task 1: Query10, all ten conditions); for an external task (mteb) the texts its
``evaluate_model`` gave (``ExternalData.query_texts``, empty until it has run: no text then).
"""

from __future__ import annotations

from typing import Any

from leaderboard.contract.task import CandidateData, ExternalData, RetrievalData


def texts_of(data: Any) -> dict[str, str]:
    """query id (as per-query values name it) -> its text, from a task's loaded data."""
    if isinstance(data, RetrievalData):
        return dict(data.queries)
    if isinstance(data, CandidateData):
        found: dict[str, str] = {}
        for candidate_set in data.sets:
            found[candidate_set.key] = candidate_set.query
            record = candidate_set.key.rpartition("/")[0]
            if record:
                found[record] = candidate_set.query  # the record's last set wins: its fullest query
        return found
    if isinstance(data, ExternalData):
        return dict(data.query_texts)
    return {}


def load_texts(task_spec: str, data_dir: str | None, task_options: dict[str, str]) -> tuple[dict[str, str], str | None]:
    """(query id -> text, the loaded data's content hash) of a task, as ``run`` would load it."""
    from leaderboard.engine.building import make_task, plugin_call
    from leaderboard.engine.options import RunOptions
    from leaderboard.registry import get_registry

    options = RunOptions(data_dirs={task_spec: data_dir} if data_dir else {}, task_options=dict(task_options))
    task, _ = make_task(get_registry(), task_spec, options)
    data = plugin_call(task.load, f"task {task.metadata.name!r}: load()")
    return texts_of(data), getattr(getattr(data, "source", None), "content_hash", None)
