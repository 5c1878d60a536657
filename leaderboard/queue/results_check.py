"""What a worker checks before it publishes a sandboxed run's results.

The files were written by submitted code, so they are read as hostile input. The checks are
``validate``'s (``queue.validation.Validator.check_result``: the result schema, complete runs,
no duplicates, the plugin version and model revision the request names, a registered task at its
current version, run on this worker's data by content hash) plus the queue's own:

- only plain files and folders (a link could make the worker read a file outside the sandbox);
- one model, the request's: its name is the request's model (or, for a prefix plugin's model such as
  ``st:org/name``, what follows the prefix), its revision the request's when it names one, each file at
  the path that name, revision and task give it, with a result for each requested task and nothing else;
- uploads for that model only: its results, its model card and the benchmark declarations;
- nothing that would replace another run's result file, nor another model's or plugin's model card.

Then ``hub.store.collect`` (push's own reader) turns them into the uploads.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from leaderboard.hub.store import BENCHMARKS_FILE, PREFIX, Upload, collect
from leaderboard.queue.names import model_names
from leaderboard.queue.plugin_spec import PluginSpec
from leaderboard.queue.requests import EvalRequest
from leaderboard.queue.validation import Validator, task_data_dirs
from leaderboard.records.files import read_result, result_path
from leaderboard.records.listing import result_files
from leaderboard.registry import Registry


class RequestFailed(Exception):
    """The request cannot be completed; ``reason`` goes into the request, ``log`` into logs/<id>.txt."""

    def __init__(self, reason: str, log: str = ""):
        super().__init__(reason)
        self.reason, self.log = reason, log


class WorkerTrouble(Exception):
    """The worker's own failure, not the plugin's (an install past its time limit, a plugin load past its
    limit on a busy machine, a hub error): the request is retried, and its history says whose failure it was."""


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
    *,
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
    if models:
        requested_model(request, *models[0])
    for path, result in zip(paths, results):
        where = result_path(results_dir, result.model.name, result.model.revision, result.task.name)
        if path != where:
            raise RequestFailed(
                f"the run wrote the result of {result.model.name}@{result.model.revision} on {result.task.name} at "
                f"{path.relative_to(results_dir)}; its place is {where.relative_to(results_dir)}"
            )
    found = sorted(r.task.name for r in results)
    missing, extra = sorted(set(tasks) - set(found)), sorted(set(found) - set(tasks))
    if missing or extra:
        parts = ([f"no result for {', '.join(missing)}"] if missing else []) + (
            [f"results for tasks not requested: {', '.join(extra)}"] if extra else []
        )
        raise RequestFailed("the run's results do not match the request: " + "; ".join(parts))
    uploads = collect(results_dir, benchmarks)
    only_this_model(uploads, [path.relative_to(results_dir).as_posix() for path in paths])
    return uploads


def requested_model(request: EvalRequest, name: str, revision: str | None) -> None:
    """RequestFailed unless the results are of the model (and revision) the request asked for.

    A plugin names its model itself (``ModelMetadata``): without this check a request for one model
    could publish results under another's name, e.g. a request for "impostor" as bm25.
    """
    wanted = model_names(request)
    if name not in wanted:
        raise RequestFailed(
            f"the run's results are of model {name!r} at revision {revision!r}, but the request is for "
            f"{request.model!r}"
            + (f" (model name {wanted[1]!r})" if len(wanted) > 1 else "")
            + "; a request publishes only the model it names"
        )
    if request.revision is not None and revision != request.revision:
        raise RequestFailed(
            f"the run's results are of {name} at revision {revision!r}, but the request is for revision "
            f"{request.revision!r}"
        )


def only_this_model(uploads: list[Upload], results: list[str]) -> None:
    """RequestFailed naming any upload other than these results, their model's card and the benchmarks file."""
    folders = {f"{PREFIX}/{rel.split('/')[0]}" for rel in results}
    allowed = {f"{PREFIX}/{rel}" for rel in results} | {f"{folder}/model_card.json" for folder in folders}
    allowed.add(BENCHMARKS_FILE)
    extra = sorted(u.path_in_repo for u in uploads if u.path_in_repo not in allowed)
    if extra:
        raise RequestFailed(f"the run would publish files of no requested result: {', '.join(extra[:5])}")


def replaced_results(
    uploads: list[Upload], remote: dict[str, str | None], read: Callable[[str], bytes] | None = None
) -> list[str]:
    """Files already in the results dataset that these uploads may not replace.

    A result file with other content: always (a model name and revision are evaluated once). A model
    card with other content (``read`` gives the dataset's copy): when it describes another model or
    comes from another plugin, so a request never rewrites the card of a model it did not run; a
    newer run of the same model by the same plugin updates its card, as ``push`` does.
    """
    replaced = []
    for upload in uploads:
        path = upload.path_in_repo
        if not path.startswith(f"{PREFIX}/") or path not in remote or upload.same_as(remote[path]):
            continue
        if not path.endswith("/model_card.json") or read is None or not _same_model(upload.data, read(path)):
            replaced.append(path)
    return sorted(replaced)


def _same_model(ours: bytes, theirs: bytes) -> bool:
    """Two model cards of one model (name) from one plugin; an unreadable card counts as another model's."""
    try:
        mine, other = json.loads(ours), json.loads(theirs)
    except ValueError:
        return False
    if not isinstance(mine, dict) or not isinstance(other, dict):
        return False
    return all(mine.get(key) == other.get(key) for key in ("name", "plugin"))
