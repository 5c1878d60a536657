"""Importing mteb's results repository (``embeddings-benchmark/results``, the hub dataset ``mteb/results``).

Each text retrieval or reranking result becomes a result of this harness marked as a run made by
mteb (``imported_from``): ``tasks`` (mteb's task registry, shipped), ``layouts`` (every TaskResult
layout mteb 1.x-2.x wrote, and model_meta.json), ``convert`` (one file -> one record),
``sources`` (a folder, a git checkout, the hub), ``importer`` (incremental, idempotent writes),
``report`` (the counts the CLI prints).
"""

from __future__ import annotations

from leaderboard.errors import LeaderboardError
from leaderboard.mteb_import.importer import TaskNaming, import_results
from leaderboard.mteb_import.report import ImportReport


class ImportIncomplete(LeaderboardError):
    """Some files were skipped (each counted with its reason); every other file was imported."""

    exit_code = 4
    label = "Import incomplete"


__all__ = ["ImportIncomplete", "ImportReport", "TaskNaming", "import_results"]
