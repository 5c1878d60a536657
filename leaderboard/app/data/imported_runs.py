"""What the board does with imported runs (results made by mteb, ``leaderboard import``), by one stated rule each.

* **A run, not a claim.** An imported result is a run made by mteb: it ranks with this harness's
  runs when its data matches, marked "run by mteb X.Y, imported" with a link to its file, and †:
  mteb's files hold no per-query values, so it has no interval and no significance test.
* **Comparable data.** Results of an mteb task (imported, or run here from the hub) are compared by
  the dataset revision they ran on; other results by the sha256 of the data they loaded
  (``records.index.data_key``). A task ranks the results on the data most of its complete results
  share; the others are listed, unranked, with the revision they ran on. An imported file that
  names no dataset revision cannot be compared and is never ranked.
* **`external` results** (mteb's ``external`` folders: numbers the model's authors reported, copied
  in by mteb's maintainers, not runs of mteb) are shown, marked as such, and never ranked, as
  reported numbers never are; a model's `external` revision is shown only when it has no other.
* **Revisions.** One row per model, its newest revision: the one whose newest result on the
  benchmark was made last; a revision this harness ran comes before an imported one; a result
  without a date (mteb wrote none before 1.14) counts as older than any dated one, and among
  undated ones the newest mteb version wins (mteb's own ``join_revisions`` prefers the newest mteb
  version).
* **One model, two runs.** Where this harness has its own run of a model and task that an import
  also has (the same name, or the name the model plugin gives as ``mteb_name``), the model is one
  row: this harness's run, with mteb's value and the difference under it.
* **Zero-shot**, as MTEB's leaderboard computes it (``ModelMeta.is_zero_shot_on``): a model whose
  training datasets (with those of the model it was adapted from, in mteb's model registry, and their
  similar tasks) include a task of the benchmark is not zero-shot;
  one whose model_meta.json names none is unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from leaderboard.app.data.values import ModelKey, model_key
from leaderboard.mteb.imported import aliases, imported_from, is_external, source_label, version_key

EXTERNAL_REASON = "an `external` result: the model's authors' own number (mteb's results repository), never ranked"


def data_key(row: dict[str, Any]) -> str | None:
    """The data a result was computed on, as the index states it (``records.index.data_key``)."""
    task = row["task"]
    key: str | None = task["data_key"] if "data_key" in task else task.get("content_hash")
    return key


def preference(row: dict[str, Any], revision: str) -> tuple[Any, ...]:
    """How a model's revisions are ordered (the first is shown): not `external`; run by this harness (it has
    per-query values; mteb's run of the same cells is then shown beside it); the date of the revision's
    newest result (undated is oldest); the mteb version of an imported one; the revision's name."""
    found = imported_from(row)
    mteb = version_key(found.get("mteb_version")) if found else ()
    return (not is_external(row), found is None, row["created_at"] or "", mteb, revision)


def key_function(rows: Iterable[dict[str, Any]]) -> Callable[[dict[str, Any]], ModelKey]:
    """The board's model key: an imported run of a model this harness names otherwise joins that model."""
    names = aliases(rows)
    if not names:
        return model_key

    def key(row: dict[str, Any]) -> ModelKey:
        name, revision = model_key(row)
        if imported_from(row) is not None:
            name = names.get(name.casefold(), name)
        return name, revision

    return key


@dataclass(frozen=True)
class MtebCell:
    """mteb's own run of a cell this harness also ran: its value, this harness's minus it, where it is from."""

    value: float
    difference: float
    label: str  # "run by mteb 1.20, imported"
    url: str | None


def add_comparisons(
    lines: Iterable[Any],  # ranking.Line (not imported here: ranking imports this module)
    columns: Iterable[Any],  # ranking.Column
    per_task: dict[str, list[dict[str, Any]]],
    key: Callable[[dict[str, Any]], ModelKey],
    value_of: Callable[[dict[str, Any], Any], float | None],
) -> None:
    """Each line of this harness's runs gets mteb's value of the same cell, when an import has one on the same data."""
    by_name: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for task, rows in per_task.items():
        for row in rows:
            if imported_from(row) is not None and row["complete"] and not is_external(row):
                by_name.setdefault(key(row)[0].casefold(), {}).setdefault(task, []).append(row)
    if not by_name:
        return
    for line in lines:
        if line.imported is not None or line.name.casefold() not in by_name:
            continue
        theirs = by_name[line.name.casefold()]
        for column in columns:
            ours, chosen = line.values.get(column.key), line.chosen.get(column.key)
            if ours is None or chosen is None:
                continue
            same = [r for r in theirs.get(column.spec.task, []) if data_key(r) == data_key(chosen)]
            found = [(v, r) for r in same if (v := value_of(r, column.spec)) is not None]
            if found:
                value, row = max(found, key=lambda pair: preference(pair[1], model_key(pair[1])[1]))
                url = (imported_from(row) or {}).get("url")
                line.mteb[column.key] = MtebCell(value, ours - value, source_label(row), url)
        aggregated = [c for c in columns if c.spec.in_aggregate]
        cells = [line.mteb.get(c.key) for c in aggregated]
        if aggregated and all(cells) and line.aggregate is not None:  # mteb's score by the same formula
            value = sum(c.value for c in cells if c) / len(cells)
            labels = sorted({c.label for c in cells if c})
            line.mteb["agg"] = MtebCell(value, line.aggregate - value, "; ".join(labels), None)
