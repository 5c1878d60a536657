"""What a worker checks before it publishes a sandboxed run's results.

The files were written by submitted code, so they are read as hostile input. The checks are
``validate``'s (``submission.validation.Validator.check_result``: the result schema, complete runs,
no duplicates, the plugin version and model revision the request names, a registered task at its
current version, run on this worker's data by content hash) plus the queue's own:

- only plain files and folders (a link could make the worker read a file outside the sandbox);
- one model (name and revision), with a result for each requested task and nothing else;
- nothing that would replace another model's results in the results dataset.

Then ``records.store.collect`` (push's own reader) turns them into the uploads.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from leaderboard.queue.plugin_spec import PluginSpec
from leaderboard.queue.requests import EvalRequest
from leaderboard.records.files import read_result
from leaderboard.records.listing import result_files
from leaderboard.records.store import PREFIX, Upload, collect
from leaderboard.registry import Registry
from leaderboard.submission.validation import Validator, task_data_dirs


class RequestFailed(Exception):
    """The request cannot be completed; ``reason`` goes into the request, ``log`` into logs/<id>.txt."""

    def __init__(self, reason: str, log: str = ""):
        super().__init__(reason)
        self.reason, self.log = reason, log


def plain_tree(root: Path) -> None:
    """RequestFailed naming the first link, device, socket or FIFO under ``root``."""
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in [*dirs, *files]:
            path = Path(folder) / name
            mode = os.lstat(path).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise RequestFailed(f"the run left {path.relative_to(root)} in its results, which is not a plain file")


def check_results(
    results_dir: Path,
    request: EvalRequest,
    spec: PluginSpec,
    tasks: list[str],
    benchmarks: list[dict[str, Any]],
    registry: Registry,
    data_dirs: tuple[str, ...],
) -> list[Upload]:
    """The uploads for ``push``, or RequestFailed saying what is wrong with the results."""
    if not results_dir.is_dir():
        raise RequestFailed("the run wrote no results")
    plain_tree(results_dir)
    paths = list(result_files(results_dir))
    validator = Validator(registry, task_data_dirs(data_dirs))
    claimed = {"plugin": {"package": spec.name, "version": spec.version}, "model": {"revision": request.revision}}
    for path in paths:
        validator.check_result(path, claimed, installed=False, expected_name=None)
    if validator.problems:
        shown = [p.replace(f"{results_dir}/", "") for p in validator.problems[:5]]
        raise RequestFailed(f"the results do not validate: {' | '.join(shown)}")
    results = [read_result(path) for path in paths]
    models = sorted({(r.model.name, r.model.revision) for r in results})
    if len(models) > 1:
        named = ", ".join(f"{name}@{revision}" for name, revision in models)
        raise RequestFailed(f"the run wrote results for {len(models)} models ({named}); a request evaluates one")
    found = sorted(r.task.name for r in results)
    missing, extra = sorted(set(tasks) - set(found)), sorted(set(found) - set(tasks))
    if missing or extra:
        parts = ([f"no result for {', '.join(missing)}"] if missing else []) + (
            [f"results for tasks not requested: {', '.join(extra)}"] if extra else []
        )
        raise RequestFailed("the run's results do not match the request: " + "; ".join(parts))
    return collect(results_dir, benchmarks)


def replaced_results(uploads: list[Upload], remote: dict[str, str | None]) -> list[str]:
    """Result files already in the results dataset with other content: another run's, never replaced."""
    return sorted(
        u.path_in_repo
        for u in uploads
        if u.path_in_repo.startswith(f"{PREFIX}/")
        and not u.path_in_repo.endswith("/model_card.json")
        and u.path_in_repo in remote
        and not u.same_as(remote[u.path_in_repo])
    )
