"""``--ray [ADDRESS]``: the same evaluation on a Ray cluster (extra ``ray``).

The run's owner stays ``engine.api.Session``: it loops over models and tasks, skips finished
pairs, shares models and first stages, and writes results; ``RayBackend`` only computes.

* Each (model, task) pair is a Ray task with a resource request (one CPU, or one GPU when the
  device is CUDA). The driver loads the task's data first (for the skip check and the data hash)
  and ships it with the task, with the first-stage runs the session has so far; the job sends back
  the first-stage runs it computed, so a later pipeline with the same first stage reuses them.
* A corpus with more than one shard is encoded by a pool of encoder actors (each loads the model
  once), one shard per call; shards go to ``--shard-dir``, which every node must see (a shared
  filesystem on a real cluster). The job's process then searches the shards with a running top-k.
* Only the driver validates and writes result files, atomically, so a result is exactly what a
  single process writes for the same settings. A killed actor is restarted and its call retried by
  Ray (shards are renamed into place only when complete: none is duplicated or half-written); a
  killed driver leaves no result, and a re-run resumes from the finished shards.
* Progress: job processes report their bars to one progress actor; the driver mirrors them.

Ray is imported only here, and only when ``--ray`` is given.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from leaderboard.contract.model import DenseModel, Model, Role
from leaderboard.engine.building import LoadedModel, build_model, object_model
from leaderboard.engine.cluster_watch import ClusterUnusable
from leaderboard.engine.corpus_store import ShardStore, discard
from leaderboard.engine.encoding import ShardJob, encode_shard
from leaderboard.engine.options import RunOptions
from leaderboard.engine.pipeline import FirstStageRuns
from leaderboard.engine.runner import Prepared, compute, embedding_memo, search_options
from leaderboard.errors import BadInput, LeaderboardError
from leaderboard.progress import use_progress

ModelRef = str | Model  # a registered name (built in the worker) or a model object (pickled)
RETRIES = 3  # per encoder actor (restarts) and per call or job (retries)


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise BadInput(
            "--ray needs Ray, which is not installed. Enable it with: pip install 'retrieval-leaderboard[ray]'"
        ) from None
    return ray


def connect(address: str, start_s: float | None = None, shards: str = "the shard folder") -> None:
    """Join the cluster at ``address`` ("auto": RAY_ADDRESS or a new local one). Kept if already joined.

    Joining an existing cluster is tried first by a separate process, within the start bound: Ray's own
    join waits, forever and holding the interpreter, when the cluster cannot register one more worker
    process (a ``--worker-port-list`` without a free port), so only a process of its own can be stopped."""
    ray = _ray()
    if ray.is_initialized():
        return
    target = os.environ.get("RAY_ADDRESS") if address == "auto" else address
    if target and target != "local":
        _probe(target, address, start_s, shards)
    try:
        ray.init(address=None if address == "auto" else address, include_dashboard=False, log_to_driver=False)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise BadInput(f"--ray {address}: could not connect to a Ray cluster: {exc}") from None


_PROBE = (
    "import sys, ray\n"
    "ray.init(address=sys.argv[1], include_dashboard=False, log_to_driver=False, logging_level='ERROR')\n"
    "ray.shutdown()\n"
)


def _probe(target: str, shown: str, start_s: float | None, shards: str) -> None:
    """A process that joins ``target`` and leaves; ``ClusterUnusable`` when it cannot within the start bound, and
    BadInput naming Ray's reason when the cluster refuses it."""
    import signal
    import subprocess
    import sys

    from leaderboard.engine.cluster_watch import START_ENV, _seconds, unusable_error

    seconds = start_s if start_s is not None else _seconds(START_ENV)
    option = "--ray-start-timeout" if start_s is not None else START_ENV
    probe = subprocess.Popen(
        [sys.executable, "-c", _PROBE, target],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group: stopped as one
    )
    try:
        _, said = probe.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(probe.pid, signal.SIGKILL)
        probe.communicate()
        why = (
            f"no worker registered in {seconds:g} s ({option}): the cluster accepts connections but registers no "
            "worker process for this run (its raylet has none to give, e.g. a --worker-port-list without a "
            "free port)"
        )
        raise unusable_error(shown, why, "the run never joined it", shards) from None
    if probe.returncode != 0:
        lines = [line.strip() for line in said.splitlines() if line.strip()]
        reason = next((line for line in reversed(lines) if "Error" in line or "Invalid" in line), None)
        reason = reason or (lines[-1] if lines else f"exit {probe.returncode}")
        reason = re.sub(r"^\[[^\]]*\]\s*(?:[\w.]+:\d+:\s*)?", "", " ".join(reason.split()))[:300]  # Ray's log prefix
        raise BadInput(f"--ray {shown}: could not join the Ray cluster at {target}: {reason}")


def _resources(options: RunOptions) -> dict[str, float]:
    cuda = bool(options.device and options.device.startswith("cuda"))
    return {"num_gpus": 1} if cuda else {"num_cpus": 1}


def _make_model(ref: ModelRef, options: RunOptions) -> LoadedModel:
    if isinstance(ref, Model):
        return object_model(ref)
    from leaderboard.registry import get_registry

    return build_model(get_registry(), ref, options, {})


# -- progress -------------------------------------------------------------------------------------


class ProgressBoard:
    """Bars reported by every worker: id -> [description, total, completed] (a Ray actor)."""

    def __init__(self) -> None:
        self.bars: dict[str, list[Any]] = {}

    def add(self, bar: str, description: str, total: float | None) -> None:
        self.bars[bar] = [description, total, 0.0]

    def advance(self, bar: str, amount: float) -> None:
        if bar in self.bars:
            self.bars[bar][2] += amount

    def update(self, bar: str, total: float | None, completed: float | None) -> None:
        if bar in self.bars:
            if total is not None:
                self.bars[bar][1] = total
            if completed is not None:
                self.bars[bar][2] = completed

    def snapshot(self) -> dict[str, list[Any]]:
        return self.bars


class RemoteProgress:
    """What ``leaderboard.progress.step`` needs of a rich Progress, sent to the ProgressBoard actor."""

    def __init__(self, board: Any, prefix: str):
        self.board, self.prefix, self.count = board, prefix, 0

    def add_task(self, description: str, total: float | None = None) -> str:
        self.count += 1
        bar = f"{self.prefix}#{self.count}"
        self.board.add.remote(bar, f"{self.prefix} · {description}", total)
        return bar

    def advance(self, bar: str, amount: float = 1) -> None:
        self.board.advance.remote(bar, amount)

    def update(
        self, bar: str, total: float | None = None, completed: float | None = None, visible: bool | None = None
    ) -> None:
        if visible is False:  # a phase that failed (leaderboard.progress.step): left as it was
            return
        self.board.update.remote(bar, total, completed)


def _mirror(board: Any, local: Any, shown: dict[str, Any]) -> dict[str, list[Any]]:
    """Copy the board's bars into the driver's rich Progress; the bars, to tell whether the run moved."""
    ray = _ray()
    try:  # bounded: a board that stopped answering never holds the run (the watch ends a run that is stuck)
        bars: dict[str, list[Any]] = ray.get(board.snapshot.remote(), timeout=30)
    except ray.exceptions.GetTimeoutError:
        return {}
    if local is None:
        return bars
    for bar, (description, total, completed) in bars.items():
        if bar not in shown:
            shown[bar] = local.add_task(description, total=total)
        local.update(shown[bar], total=total, completed=completed)
    return bars


def _wait(ref: Any, watch: Any) -> Any:
    """``ray.get(ref)``, watched: a cluster that is lost or makes no progress ends the wait (cluster_watch)."""
    ray = _ray()
    while not ray.wait([ref], num_returns=1, timeout=0.5)[0]:
        watch.check()
    return ray.get(ref)


# -- encoder actors -------------------------------------------------------------------------------


class Encoder:
    """One dense model, loaded once; encodes shard jobs into the shared shard folder, and small
    batches (queries, candidate sets) for the job that searches (a Ray actor)."""

    def __init__(self, ref: ModelRef, options: RunOptions):
        self.handle = _make_model(ref, options)
        self.handle.ensure_loaded()
        if not isinstance(self.handle.model, DenseModel):
            raise LeaderboardError(f"{self.handle.spec} cannot encode: not a dense model")
        self.model: DenseModel = self.handle.model
        self.batch_size = options.batch_size

    def describe(self) -> dict[str, Any]:
        """What a result records of the model, known once the weights are loaded."""
        model = self.model
        return {"metadata": model.metadata, "settings": model.settings()}

    def encode(self, store: ShardStore, job: ShardJob) -> int:
        return encode_shard(self.model, job, store, "document", self.batch_size)

    def encode_texts(self, texts: list[str], role: Role) -> np.ndarray:
        return np.asarray(self.model.encode(texts, role), dtype=np.float32)

    def pid(self) -> int:
        return os.getpid()


class EncoderPool:
    """Encoder actors for one model, owned by the driver and shared by all of the model's jobs."""

    def __init__(self, ref: ModelRef, options: RunOptions, size: int, watch: Any):
        ray = _ray()
        # Restarted when killed, and the interrupted call retried (a shard is rewritten whole); a bounded
        # number of times, so an actor that cannot start (a missing module on a node) fails the run.
        actor = ray.remote(Encoder).options(max_restarts=RETRIES, max_task_retries=RETRIES, **_resources(options))
        self.actors = [actor.remote(ref, options) for _ in range(max(size, 1))]
        self.info = _wait(self.actors[0].describe.remote(), watch)

    def close(self) -> None:
        ray = _ray()
        for actor in self.actors:
            ray.kill(actor)


class RemoteDense(DenseModel):
    """The job's view of a pooled model: metadata and settings from an actor, ``encode`` on the actors."""

    def __init__(self, actors: list[Any], info: dict[str, Any]):
        self.actors, self.metadata = actors, info["metadata"]
        self._settings: dict[str, Any] = info["settings"]
        self._turn = 0

    def settings(self) -> dict[str, Any]:
        return self._settings

    def encode(self, texts: Sequence[str], role: Role) -> np.ndarray:
        ray = _ray()
        self._turn = (self._turn + 1) % len(self.actors)
        vectors: np.ndarray = ray.get(self.actors[self._turn].encode_texts.remote(list(texts), role))
        return vectors


class RayShardPool:
    """Shard jobs spread over the encoder actors: one call in flight per actor (bounded memory)."""

    def __init__(self, actors: list[Any]):
        self.actors = actors

    def run(self, store: ShardStore, jobs: Iterator[ShardJob], done: Callable[[ShardJob, int], None]) -> None:
        ray = _ray()
        if store.folder is None:
            raise LeaderboardError("a Ray shard pool needs shards on disk (a shared --shard-dir)")
        in_flight: dict[Any, tuple[Any, ShardJob]] = {}

        def submit(actor: Any) -> None:
            job = next(jobs, None)
            if job is not None:
                in_flight[actor.encode.remote(store, job)] = (actor, job)

        for actor in self.actors:
            submit(actor)
        while in_flight:
            (ready,), _ = ray.wait(list(in_flight), num_returns=1)
            actor, job = in_flight.pop(ready)
            done(job, ray.get(ready))
            submit(actor)


def _pool_size(options: RunOptions) -> int:
    if options.ray_encoders:
        return options.ray_encoders
    ray = _ray()
    if options.device and options.device.startswith("cuda"):
        return max(int(ray.cluster_resources().get("GPU", 1)), 1)
    nodes = [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= 1]
    return max(len(nodes), 1)


# -- jobs ------------------------------------------------------------------------------------------


def _job(
    ref: ModelRef,
    prepared: Prepared,
    options: RunOptions,
    board: Any,
    label: str,
    pool: Any,
    *,
    first_stage: FirstStageRuns,
) -> tuple[dict[str, Any], FirstStageRuns, list[str]]:
    """One (model, task) pair in a Ray worker: the completed record (the driver validates and writes),
    the first-stage runs as they are after it (with what it computed), and the shard folders it kept.

    With an encoder pool the job holds no weights: it encodes through the actors and searches here.
    The job never removes its shards: the driver does once the result is written (``RayBackend``).
    """
    search = search_options(options)
    search.keep_shards = True
    if pool is not None:
        actors, info = pool
        handle = LoadedModel(RemoteDense(actors, info), label, "ray", None, loaded=True)
        search.pool, search.always_on_disk = RayShardPool(actors), True
    else:
        handle = _make_model(ref, options)
    with use_progress(RemoteProgress(board, label)):
        record = compute(prepared, handle, options, embedding_memo(handle.model, options), first_stage, search)
    return record, first_stage, search.kept


class RayBackend:
    """Computes a model's prepared pairs as concurrent Ray jobs, for the session that owns the run."""

    def __init__(self, options: RunOptions, local_progress: Any = None):
        from dataclasses import replace

        from leaderboard.engine.corpus_store import shard_root

        # One shard folder for the driver and every worker, named absolutely here: a worker's cwd and cache
        # folder are not the driver's, and the driver must know where finished shards are kept.
        shards = Path(options.shard_dir).expanduser() if options.shard_dir else shard_root()
        self.options, self.local_progress = replace(options, shard_dir=str(shards.resolve())), local_progress
        self.board: Any = None
        self.shown: dict[str, Any] = {}

    def __enter__(self) -> RayBackend:
        ray = _ray()
        connect(self.options.ray or "auto", self.options.ray_start_timeout, str(self.options.shard_dir))
        from leaderboard.engine.cluster_watch import ClusterWatch

        # a cluster that dies ends the run clearly, naming where the finished shards are
        self.watch = ClusterWatch(
            ray, self.options.ray or "auto", str(self.options.shard_dir), start_s=self.options.ray_start_timeout
        )
        self.board = ray.remote(ProgressBoard).options(num_cpus=0).remote()
        try:  # the run's first actor: a cluster that cannot start a worker process is said so, within the bound
            self.watch.worker_registered(self.board.snapshot.remote())
        except ClusterUnusable:
            with contextlib.suppress(Exception):
                ray.kill(self.board)
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.board is not None and not self.watch.lost:  # a lost cluster cannot be asked anything
            _ray().kill(self.board)

    def compute(
        self,
        ref: ModelRef,
        handle: LoadedModel,
        todo: list[Prepared],
        first_stage: FirstStageRuns,
        done: Callable[[int, dict[str, Any]], None],
    ) -> None:
        """Compute each of ``todo`` on the cluster; ``done(i, record)`` as each finishes (the caller writes).

        Every job gets a copy of ``first_stage``; the runs they compute are taken back into it.
        """
        if not todo:
            return
        ray, options = _ray(), self.options
        pool = None
        if isinstance(handle.model, DenseModel) and options.ray_encoders != 0:
            self.watch.require(_resources(options), f"an encoder of {handle.spec}")
            pool = EncoderPool(ref, options, _pool_size(options), self.watch)
        # A pooled job needs a CPU for search; an unpooled one its model's device.
        needs: dict[str, float] = {"num_cpus": 1} if pool is not None else _resources(options)
        self.watch.require(needs, f"a job of {handle.spec}")
        shared = (pool.actors, pool.info) if pool is not None else None
        known = set(first_stage.runs)
        shipped = FirstStageRuns(dict(first_stage.runs))
        job = ray.remote(_job)
        waiting = {
            job.options(max_retries=RETRIES, **needs).remote(
                ref, p, options, self.board, f"{handle.spec} / {p.task.metadata.name}", shared, first_stage=shipped
            ): i
            for i, p in enumerate(todo)
        }
        bars: Any = None
        try:
            while waiting:
                ready, _ = ray.wait(list(waiting), num_returns=1, timeout=0.5)
                now = _mirror(self.board, self.local_progress, self.shown)
                if ready or now != bars:  # a job finished or a bar moved: not stalled
                    self.watch.progressed()
                bars = now
                self.watch.check()
                for future in ready:
                    i = waiting.pop(future)
                    record, runs, kept = ray.get(future)
                    first_stage.absorb(runs, known)
                    known |= set(runs.runs)
                    done(i, record)
                    if not options.keep_shards:  # written: the shards are work files now
                        for folder in kept:
                            discard(Path(folder))
        except ray.exceptions.RayTaskError as exc:
            cause = exc.cause if isinstance(getattr(exc, "cause", None), BaseException) else None
            if isinstance(cause, LeaderboardError):
                raise cause from None
            raise LeaderboardError(f"a Ray job failed: {exc}") from None
        except ray.exceptions.RayError as exc:  # a node, actor or worker died beyond its retries
            raise self.watch.lost_error(exc) from None
        except ClusterUnusable:
            for future in waiting:  # stop what is stuck: nothing more is written for this run
                with contextlib.suppress(Exception):
                    ray.cancel(future, force=True)
            raise
        finally:
            if pool is not None and not self.watch.lost:
                pool.close()
