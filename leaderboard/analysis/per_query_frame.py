"""Per-query values as a pandas DataFrame: ``leaderboard.per_query_frame(results)``.

One row per (result, query, metric): the model and its revision, the task, the result file, the
query id, the subsets the result puts the query in (a tuple of names, "default" left out), the
metric and its value. A metric computed on some queries only (ComLQ's LSNC: the queries its judge
labelled) has rows for those queries only. Values come from each result's ``per_query`` field,
decoded and checked against its sha256 (``records.per_query_columns``, the form the board and
``compare`` read).

``results``: a ``Result``, a path to a result file or to a folder of them (read as ``show`` reads
it: files that are not valid results are skipped, with the reason in ``frame.attrs["skipped"]``),
or an iterable of these. ``metrics`` keeps only those metrics. A result without per-query values
contributes no rows and is named in ``frame.attrs["without_per_query"]``.

    >>> frame = leaderboard.per_query_frame("results/")
    >>> lsnc = frame[frame.metric == "lsnc_lexical_v1_at_10"]
    >>> lsnc[lsnc.subsets.map(lambda s: "type=2in" in s)].groupby("model").value.mean()
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from leaderboard.errors import BadInput

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ("model", "revision", "task", "result_path", "query_id", "subsets", "metric", "value")

Source = Any  # a Result, a str or Path (file or folder), or an iterable of these


Entry = tuple[str, str | None, str, str | None, dict[str, Any] | None]  # model, revision, task, path, columns


def _entries(source: Source, skipped: list[tuple[str, str]]) -> Iterable[Entry]:
    from leaderboard.records.files import read_result
    from leaderboard.records.per_query_columns import of_result
    from leaderboard.records.result import Result

    if isinstance(source, Result):
        yield source.model.name, source.model.revision, source.task.name, None, of_result(source)
        return
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.is_dir():  # the results index: each file validated once, its per-query columns stored
            from leaderboard.records.index import build_index

            index = build_index(path)
            skipped.extend((str(p), reason) for p, reason in index.skipped)
            rows = index.summaries()
            stored = index.per_query([rel for rel, _ in rows])
            for rel, row in rows:
                where = str(path / rel)
                yield row["model"]["name"], row["model"]["revision"], row["task"]["name"], where, stored.get(rel)
            return
        if not path.exists():
            raise BadInput(f"{path}: no such result file or folder.")
        result = read_result(path)
        yield result.model.name, result.model.revision, result.task.name, str(path), of_result(result)
        return
    if isinstance(source, Iterable):
        for item in source:
            yield from _entries(item, skipped)
        return
    raise BadInput(f"per_query_frame: expected a Result, a path or a list of them, got {type(source).__name__}.")


def per_query_frame(results: Source, metrics: Iterable[str] | None = None) -> pd.DataFrame:
    """Per-query values of one result or many as a DataFrame, one row per (result, query, metric).

    Args:
        results: A ``Result``, a result file, a folder (read as ``leaderboard show`` reads it), or a
            list of these.
        metrics: Keep only these metrics (default: every metric with per-query values).

    Returns:
        Columns ``model``, ``revision``, ``task``, ``result_path``, ``query_id``, ``subsets``,
        ``metric`` and ``value``. A metric computed on some queries only (LSNC) has rows for those
        only. ``frame.attrs["skipped"]`` lists the files skipped, with why, and
        ``frame.attrs["without_per_query"]`` the results that hold no per-query values.
    """
    import pandas as pd

    from leaderboard.analysis.query_differences import memberships

    wanted = None if metrics is None else set(metrics)
    skipped: list[tuple[str, str]] = []
    without: list[str] = []
    columns: dict[str, list[Any]] = {name: [] for name in COLUMNS}
    for model, revision, task, where, stored in _entries(results, skipped):
        if not stored:
            without.append(where or f"{model} on {task}")
            continue
        ids, members = stored["ids"], memberships(stored)
        for metric, values in stored["values"].items():
            if wanted is not None and metric not in wanted:
                continue
            for qid, value in zip(ids, values):
                if value is None:
                    continue
                columns["model"].append(model)
                columns["revision"].append(revision)
                columns["task"].append(task)
                columns["result_path"].append(where)
                columns["query_id"].append(qid)
                columns["subsets"].append(tuple(members.get(qid, ())))
                columns["metric"].append(metric)
                columns["value"].append(value)
    frame = pd.DataFrame(columns, columns=list(COLUMNS))
    frame = frame.astype({"value": "float64"})
    frame.attrs["skipped"] = skipped
    frame.attrs["without_per_query"] = without
    return frame
