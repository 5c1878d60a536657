"""What the results index stores of one result: the records a reader loads instead of the file.

Per file the index keeps four records, so a reader loads only what it needs:

* ``summary``: small, loaded for every file (``show``, the board's listing): model, task, main
  score and its interval, coverage, dates, and the main split's "default" scores.
* ``detail``: every score, interval and subset size, for the app's per-task views.
* ``per_query``: the result's per-query values, decoded and checked against their sha256 once, in
  the columns of ``records.per_query_columns`` (for intervals and significance tests; absent when the
  result has none or they are damaged; "subsets" lists only subsets whose membership the result stores),
  stored compactly (``records.index_columns``: values as float64 bytes, the ids and subsets that every
  result of a task shares kept once in a ``shared`` table).
* ``task``: the task's declaration (metrics with their descriptions, views, paper, citation).

Each is extracted here from a result's plain record (``records.result_checks``) as plain JSON, so
readers of the index never need the result model (pydantic) to use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from leaderboard.records.result_checks import Record, direction, is_complete, main_split


@dataclass
class Entry:
    """One file's row as readers hold it: its stat and sha256 with its summary, or why it was skipped."""

    path: str  # relative to the indexed folder
    stat: list[int]  # size, mtime_ns, inode, ctime_ns
    summary: dict[str, Any] | None = None
    reason: str | None = None  # why the file was skipped
    sha256: str | None = None  # of the file's bytes
    indexed_ns: int = 0  # when the row was written (wall clock, as mtime)
    parts: dict[str, str] = field(default_factory=dict)  # larger column -> sha256 of its text (sealed with the row)


@dataclass
class Row:
    """What validating one file produced: a summary and its larger parts, or the reason it was skipped."""

    entry: Entry
    task: str | None = None
    detail: str | None = None  # JSON text
    per_query: str | None = None  # index_columns' text
    task_meta: str | None = None
    shared: dict[str, str] = field(default_factory=dict)  # the shared parts per_query names: key -> text


def summary(record: Record) -> dict[str, Any]:
    """What listings need of a result (its plain record, ``records.result_checks``), in plain JSON."""
    model, task, settings = record["model"], record["task"], record["settings"]
    meta = model["metadata"]
    split = main_split(record)
    intervals = record["confidence_intervals"].get(split, {}).get("default", {})
    coverage = record["coverage"]
    complete = is_complete(record)
    reason = coverage["reason"] if coverage is not None else None
    if not complete and not reason and settings["limit"] is not None:
        reason = f"--limit {settings['limit']}"
    counts = record["counts"]
    return {
        "model": {
            "name": model["name"],
            "revision": model["revision"],
            "kind": str(getattr(model["kind"], "value", model["kind"])),  # an enum from the model, text from plain
            "n_parameters": meta.get("n_parameters"),
            "max_length": meta.get("max_length"),  # the board's Max tokens and Dimension columns
            "embedding_dim": meta.get("embedding_dim"),
            "takes_instructions": bool(meta.get("takes_instructions")),
            "reference": meta.get("reference"),
            "plugin": model["plugin"],
            "plugin_version": model["plugin_version"],
            # model columns an imported mteb result fills from model_meta.json, and the name
            # mteb lists this harness's model under (its imported runs are shown beside it)
            "license": meta.get("license"),
            "open_weights": meta.get("open_weights"),
            "release_date": meta.get("release_date"),
            "mteb_name": meta.get("mteb_name"),
            # a named variant of another model: the protocol it follows, how it differs, on which benchmarks
            **protocol_of(meta.get("variant") or settings.get("model_settings")),
        },
        "task": {
            "name": task["name"],
            "family": task["family"],
            "version": task["version"],
            "main_score": task["main_score"],
            "direction": direction(record),
            "content_hash": task["source"]["content_hash"],
            "data_revision": task["source"]["revision"],
            "data_key": data_key(record),
            "mteb_task": record["task_details"].get("mteb_task"),
            "split": split,
        },
        "main_score": record["main_score"],
        "main_ci": intervals.get(task["main_score"]),
        "default_ci": dict(intervals),
        "complete": complete,
        "coverage_reason": reason,
        "queries": counts.get("queries", counts.get("candidate_sets")),
        "total_queries": coverage["total_queries"] if coverage is not None else None,
        # "" for an imported result whose file has no date: sorts before every dated result, shows as none
        "created_at": record["created_at"].isoformat() if record["created_at"] is not None else "",
        "harness": record["harness"]["version"],
        "harness_commit": record["harness"]["git_commit"],
        "imported": record["imported_from"] is not None,
        "imported_from": _imported(record["imported_from"]),
        "task_options": dict(settings.get("task_options") or {}),
        "has_per_query": record["per_query"] is not None,
        "default": dict(record["scores"].get(split, {}).get("default", {})),
    }


def protocol_of(declared: Any) -> dict[str, Any]:
    """A variant's ``variant_of``, ``protocol``, ``differences`` and ``benchmarks`` (plain text only); {} else.

    From the model's declaration (``ModelMetadata.variant``: ``of``, ``protocol``, ``differences``,
    ``benchmarks``), or, in results of earlier versions, from its settings (``variant_of``, ``protocol``,
    ``differences``; no benchmarks: the board then shows it as a variant nowhere)."""
    if not isinstance(declared, dict):
        return {}
    default = declared.get("of", declared.get("variant_of"))
    if not isinstance(default, str) or not default:
        return {}

    def texts(key: str) -> list[str]:
        value = declared.get(key)
        return [str(v) for v in value] if isinstance(value, list) else []

    return {
        "variant_of": default,
        "protocol": str(declared.get("protocol") or ""),
        "differences": texts("differences"),
        "variant_benchmarks": texts("benchmarks"),
    }


def data_key(record: Record) -> str | None:
    """What a result's data is compared by: an mteb task's dataset revision (mteb's runs, imported or run here
    from the hub, name the revision they loaded), else the sha256 of the data loaded (None: unknown)."""
    source = record["task"]["source"]
    mteb = record["imported_from"] is not None or record["task_details"].get("framework") == "mteb"
    if mteb and source["kind"] == "hub":
        return f"revision:{source['revision']}" if source["revision"] else None
    return source["content_hash"]  # type: ignore[no-any-return]


def _imported(found: Any) -> dict[str, Any] | None:
    """What the board says of an imported result: which mteb ran it, where its file is (and its git blob: two
    models' byte-identical files are flagged), whether it is `external`."""
    if found is None:
        return None
    return {k: found.get(k) for k in ("format", "mteb_version", "file", "url", "blob", "external")}


def detail(record: Record) -> dict[str, Any]:
    """Every score, interval and subset size (for per-task views), and the task's mean CW when recorded."""
    complexity = record["task_details"].get("complexity")
    return {
        "scores": record["scores"],
        "confidence_intervals": record["confidence_intervals"],
        "subset_sizes": record["subset_sizes"],
        # an imported mteb model's training tasks with their similar ones (its zero-shot status), None: unknown
        "training_tasks": record["model"]["metadata"].get("training_tasks"),
        # the paper's mean CW of the evaluated queries (engine/strata.py), shown on the board's About page
        "complexity": {k: complexity[k] for k in ("mean_cw", "queries", "definition") if k in complexity}
        if isinstance(complexity, dict)
        else None,
    }


def task_declaration(record: Record) -> dict[str, Any]:
    """The task as the result declares it, without its data source (the same for every model).

    Written with ``json.dumps``, which writes its tuples as lists and its str enums as their values."""
    return {k: v for k, v in record["task"].items() if k != "source"}
