"""The results dataset as one flat table people can query, and the dataset card that describes it.

The nested result files stay the source of truth; ``push`` regenerates this table and the card from
every result in the dataset after the push (never edited by hand), as the Open LLM Leaderboard
publishes its flat "contents" table beside the per-run details. One row per
(model, revision, task, split, subset, metric). Written as Parquet (pyarrow through pandas) so the
hub's dataset viewer, ``datasets.load_dataset`` and ``pandas.read_parquet`` all read it; the card's
YAML ``configs`` point at it (https://huggingface.co/docs/hub/datasets-manual-configuration).

Bytes are deterministic (sorted rows, no timestamps in the card): an unchanged dataset gives an
identical table and card, so a push with nothing new sends nothing.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from typing import Any

from leaderboard.analysis.cell_intervals import every_cell, intervals
from leaderboard.records.result import Result

TABLE_PATH = "data/results.parquet"
CARD_PATH = "README.md"
DEFAULT_LICENSE = "cc-by-4.0"

# (name, pandas dtype, what it holds): the card's column list is generated from this, so they cannot drift apart.
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("model", "string", "model name as recorded in the result"),
    ("revision", "string", "model revision (null when the model has none)"),
    ("kind", "string", "sparse, dense or reranker"),
    ("task", "string", "task name"),
    ("split", "string", "data split"),
    ("subset", "string", '"default" (the whole split) or a breakdown such as "type=3in" or "cw=5-12"'),
    ("metric", "string", "metric name, e.g. ndcg_at_10"),
    ("value", "float64", "the metric's value over the subset's queries"),
    (
        "ci_low",
        "float64",
        "lower end of the 95% interval the board shows: stored in the result, else the percentile bootstrap of "
        "the per-query values behind the score (main split; null where there are none)",
    ),
    ("ci_high", "float64", "upper end of that interval (null where there is none)"),
    ("ci_source", "string", '"result" (stored by the task), "bootstrap" (of the per-query values) or null'),
    ("is_main_score", "bool", "true for the task's main score on its main split, subset default"),
    (
        "queries",
        "Int64",
        "queries behind the value and its interval: those with this metric's per-query value in the subset (LSNC: "
        "the judged queries only), as `show --subsets` counts them; else the subset's size; null when unknown",
    ),
    ("subset_queries", "Int64", "queries in the subset (the split's, for default); null when the result does not say"),
    ("complete", "bool", "the result covers the whole task (only complete runs are published)"),
    ("data_hash", "string", "sha256 of the task data the run read (null for imported results)"),
    ("harness_version", "string", "retrieval-leaderboard version that produced the result"),
    ("created_at", "string", "when the result was made (ISO 8601, UTC); empty for an imported file without a date"),
    ("result_path", "string", "path of the full result file in this dataset"),
    ("result_sha256", "string", "sha256 of that file's bytes (a push reuses the intervals of an unchanged file)"),
)
COLUMN_NAMES = tuple(name for name, _, _ in COLUMNS)


# (result_path, sha256, subset, metric) -> (ci_low, ci_high, ci_source, queries) of a previous push's table
Reused = Mapping[tuple[str, str, str, str], tuple[float | None, float | None, str | None, int | None]]


def rows_of(
    result: Result, result_path: str, result_sha256: str | None = None, reused: Reused | None = None
) -> list[dict[str, Any]]:
    """One row per score in the result: scores[split][subset][metric], with its interval and query count.

    The interval is the one the board shows (``analysis.cell_intervals``): stored in the result, else the
    bootstrap of the score's own per-query values (main split). ``reused``: (result_path, sha256, subset,
    metric) -> interval from the table a previous push wrote, for a file whose bytes are unchanged (the
    bootstrap of a 2,909-query result costs seconds; a push regenerates the table over the whole dataset).
    """
    main_split = result.task.main_split
    sizes = result.subset_sizes
    coverage_queries = result.coverage.queries if result.coverage else None
    cells = every_cell(result)
    known = (
        {}
        if reused is None or result_sha256 is None
        else {
            (s, m): reused[(result_path, result_sha256, s, m)]
            for s, m in cells
            if (result_path, result_sha256, s, m) in reused
        }
    )
    computed = intervals(result, [cell for cell in cells if cell not in known]) if len(known) < len(cells) else {}
    rows = []
    for split, subsets in result.scores.items():
        for subset, values in subsets.items():
            subset_queries = sizes.get(split, {}).get(subset)
            if subset_queries is None and split == main_split and subset == "default":
                subset_queries = coverage_queries
            stored = result.confidence_intervals.get(split, {}).get(subset, {})
            for metric, value in values.items():
                low, high = stored.get(metric, (None, None))
                source = "result" if metric in stored else None
                behind: int | None = None  # the queries the per-query values say are behind this value
                if split == main_split:
                    if (subset, metric) in known:
                        low, high, source, behind = known[(subset, metric)]
                    elif (subset, metric) in computed:
                        found = computed[(subset, metric)]
                        low, high, source, behind = found.low, found.high, found.source, found.queries
                rows.append(
                    {
                        "model": result.model.name,
                        "revision": result.model.revision,
                        "kind": str(getattr(result.model.kind, "value", result.model.kind)),  # "sparse", not the enum
                        "task": result.task.name,
                        "split": split,
                        "subset": subset,
                        "metric": metric,
                        "value": float(value),
                        "ci_low": low,
                        "ci_high": high,
                        "ci_source": source,
                        "is_main_score": metric == result.task.main_score
                        and split == main_split
                        and subset == "default",
                        "queries": behind if behind is not None else subset_queries,
                        "subset_queries": subset_queries,
                        "complete": result.is_complete,
                        "data_hash": result.task.source.content_hash,
                        "harness_version": result.harness.version,
                        "created_at": result.created_at.isoformat() if result.created_at else None,
                        "result_path": result_path,
                        "result_sha256": result_sha256,
                    }
                )
    return rows


def reusable_intervals(
    table: bytes | None,
) -> dict[tuple[str, str, str, str], tuple[float | None, float | None, str | None, int | None]]:
    """The bootstrap intervals (and the queries behind them) of a table a previous push wrote, by (result_path,
    result_sha256, subset, metric); {} when there is none or it is not readable as this version's table (then
    every interval is computed)."""
    if not table:
        return {}
    import pandas as pd

    try:
        frame = pd.read_parquet(io.BytesIO(table))
    except Exception:  # an unreadable table is regenerated, never trusted
        return {}
    if tuple(frame.columns) != COLUMN_NAMES:
        return {}
    kept = frame[(frame["ci_source"] == "bootstrap") & frame["result_sha256"].notna()]
    return {
        (str(r.result_path), str(r.result_sha256), str(r.subset), str(r.metric)): (
            float(r.ci_low),
            float(r.ci_high),
            "bootstrap",
            None if pd.isna(r.queries) else int(r.queries),
        )
        for r in kept.itertuples(index=False)
    }


def sort_key(row: dict[str, Any]) -> tuple[str, ...]:
    return tuple("" if row[k] is None else str(row[k]) for k in ("model", "revision", "task", "split", "subset"))


def table_bytes(rows: Iterable[dict[str, Any]]) -> bytes:
    """The rows as Parquet, sorted by (model, revision, task, split, subset, metric), with fixed column types."""
    import pandas as pd  # only push writes the table: the core's other commands never import pandas for it

    ordered = sorted(rows, key=lambda r: (*sort_key(r), r["metric"], r["result_path"]))
    frame = pd.DataFrame(ordered, columns=list(COLUMN_NAMES))
    frame = frame.astype({name: dtype for name, dtype, _ in COLUMNS})
    buffer = io.BytesIO()
    frame.to_parquet(buffer, engine="pyarrow", index=False, compression="zstd")
    return buffer.getvalue()


def dataset_card(repo_id: str, rows: list[dict[str, Any]], license_id: str, harness_version: str) -> str:
    """README.md of the results dataset: YAML front matter (license, configs -> the table) and what it holds.

    The front matter is written by huggingface_hub's ``DatasetCardData`` (YAML through its own
    dumper), never by string formatting: no value can add keys of its own; the license must be one
    of the Hub's ids (``hub_licenses``), or the Hub would refuse the whole commit.
    """
    from huggingface_hub import DatasetCardData

    from leaderboard.hub.licenses import license_id as checked_license

    license_id = checked_license(license_id)
    models = len({(r["model"], r["revision"]) for r in rows})
    tasks = sorted({r["task"] for r in rows})
    results = len({r["result_path"] for r in rows})
    columns = "\n".join(f"| `{name}` | {dtype.lower()} | {text} |" for name, dtype, text in COLUMNS)
    task_list = ", ".join(f"`{t}`" for t in tasks) or "none yet"
    key = "retrieval_leaderboard_results"
    front_matter = DatasetCardData(
        license=license_id,
        pretty_name=f"Retrieval leaderboard results ({repo_id})",
        tags=["leaderboard", "information-retrieval", "evaluation"],
        configs=[{"config_name": "default", "data_files": [{"split": "train", "path": TABLE_PATH}]}],
    ).to_yaml()
    return f"""---
{front_matter}
---

# Retrieval leaderboard results: {repo_id}

Evaluation results of retrievers and rerankers, produced with the retrieval-leaderboard harness
(each row's `harness_version` names its release) and published with `leaderboard push`. This card
and `{TABLE_PATH}` are regenerated from every result file in this dataset on each push: do not edit
them by hand (an edit is overwritten by the next push).

It holds {results} result file(s) of {models} model revision(s) on {len(tasks)} task(s): {task_list}.

## Files

- `results/<model>/<revision>/<task>.json`: one complete result per (model, revision, task), the
  full record (settings, provenance, data hash, per-query values); schema version 2 of the harness.
- `results/<model>/model_card.json`: the model's metadata, from its newest result.
- `benchmarks.json`: every benchmark's declaration (tasks, aggregate, papers).
- `{TABLE_PATH}`: the flat table below, one row per (model, revision, task, split, subset, metric);
  the `default` config of this dataset.

## Query it

```python
from datasets import load_dataset
table = load_dataset("{repo_id}", split="train")   # or pandas.read_parquet("hf://datasets/{repo_id}/{TABLE_PATH}")
main = table.filter(lambda r: r["is_main_score"])
```

| column | type | meaning |
|---|---|---|
{columns}

Scores are as computed by the harness. A row's interval is the 95% interval the board shows for that
score: the one stored in its result file (`ci_source` "result"), else the percentile bootstrap
(10,000 resamples, seed 0) of the per-query values behind it in `result_path` (`ci_source`
"bootstrap": a subset's own queries, a metric's own queries such as LSNC's judged ones); null where
the result has no per-query values for it (splits other than the main one, metrics stored only as
means). `queries` counts the queries behind the value and its interval (LSNC on ComLQ: the 874
judged queries); `subset_queries` is the subset's size (2,909 for ComLQ's whole split).

## License

The results are released under `{license_id}`. The benchmark data they were computed on keeps its
own license (see each benchmark's paper in `benchmarks.json`).

## Citation

Cite the benchmarks' papers (BibTeX in `benchmarks.json`) and the harness:

```bibtex
@software{{{key},
  title   = {{retrieval-leaderboard: results dataset {repo_id}}},
  note    = {{Produced with retrieval-leaderboard {harness_version}}},
  url     = {{https://huggingface.co/datasets/{repo_id}}},
}}
```
"""


def harness_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("retrieval-leaderboard")
    except PackageNotFoundError:
        return "unknown"
