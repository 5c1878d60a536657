"""Noticing that the Ray cluster under a run has gone, so the run ends with a clear error instead of waiting.

When the cluster dies (its nodes killed, ``ray stop``), the run must end, clearly, with nothing
half-written. Two signs are watched by the run's loop (``engine.distributed.RayBackend``):

* Ray reports a system failure (a node, an actor or a worker died beyond its retries: any
  ``RayError`` that is not a task's own exception): ``lost`` turns it into ``ClusterLost``;
* the cluster's control store (GCS) stops answering, which Ray itself would wait out forever:
  ``check``, called between waits, probes its address with a plain TCP connect and raises
  ``ClusterLost`` once it has refused connections for ``LEADERBOARD_RAY_LOST_S`` seconds (default 30).

A cluster can also be there and still never run the jobs (a fresh cluster whose worker nodes did not
join, a cluster that cannot start a worker process, a job stuck on a node that lost its raylet), which
Ray would wait out silently. Three bounds end it:

* when the run joins, a separate process joins first (``distributed.connect``) and then the run's first
  actor must answer (``worker_registered``), each within the start bound (``--ray-start-timeout``, else
  ``LEADERBOARD_RAY_START_S``, default 120 s): a cluster whose raylet cannot register a worker process (a
  ``--worker-port-list`` without a free port) leaves both waiting forever;
* before the jobs are sent, ``require`` waits as long for an alive node that offers what a job asks (a
  CPU, or a GPU), then raises ``ClusterUnusable``; while they run, ``check`` raises it once no such node
  has been alive for as long (a raylet killed);
* while they run, ``progressed`` is told of every finished job and every change in the progress
  bars; ``check`` raises ``ClusterUnusable`` after ``LEADERBOARD_RAY_STALL_S`` seconds (default 1800)
  without any, naming the cluster's alive nodes and what they offer.

``ClusterLost`` and ``ClusterUnusable`` are exit 2 naming the cluster. No result is written for
unfinished pairs (only the driver writes, after a pair is complete); finished corpus shards stay in
``--shard-dir`` (a Ray job never removes its shards: the driver does, once it has written the job's
result) and a re-run on a working cluster reuses them.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Any

from leaderboard.errors import BadInput

LOST_ENV = "LEADERBOARD_RAY_LOST_S"
START_ENV = "LEADERBOARD_RAY_START_S"
STALL_ENV = "LEADERBOARD_RAY_STALL_S"
DEFAULTS = {LOST_ENV: 30.0, START_ENV: 120.0, STALL_ENV: 1800.0}
NODE_CHECK_S = 2.0  # how often the run asks the cluster for its nodes (one GCS call)


class ClusterLost(BadInput):
    """The Ray cluster stopped answering during the run (exit 2)."""

    label = "Ray cluster lost"


class ClusterUnusable(BadInput):
    """The Ray cluster answers but does not run the jobs: no node for them, or no progress (exit 2)."""

    label = "Ray cluster unusable"


def _seconds(name: str) -> float:
    raw = os.environ.get(name, "")
    try:
        value = float(raw) if raw else DEFAULTS[name]
    except ValueError:
        value = -1.0
    if value <= 0:
        raise BadInput(f"{name}={raw[:40]!r}: expected a positive number of seconds.")
    return value


def _grace() -> float:
    return _seconds(LOST_ENV)


def _offers(node: dict[str, Any], needs: dict[str, float]) -> bool:
    resources = node.get("Resources") or {}
    names = {"num_cpus": "CPU", "num_gpus": "GPU"}
    return all(resources.get(names.get(k, k), 0) >= v for k, v in needs.items())


def _asked(needs: dict[str, float]) -> str:
    return ", ".join(f"{k.removeprefix('num_')} {v:g}" for k, v in needs.items())


def _described(nodes: list[dict[str, Any]]) -> str:
    alive = [n for n in nodes if n.get("Alive")]
    if not alive:
        return "no alive node"
    parts = []
    for node in alive[:5]:
        resources = node.get("Resources") or {}
        offered = ", ".join(f"{k} {resources[k]:g}" for k in ("CPU", "GPU") if k in resources) or "nothing"
        parts.append(f"{node.get('NodeManagerAddress', '?')} ({offered})")
    return f"{len(alive)} alive node(s): " + "; ".join(parts)


def unusable_error(shown: str, why: str, known: str, shards: str) -> ClusterUnusable:
    """The error that ends a run on a cluster that answers but does not run it (exit 2, shards kept)."""
    return ClusterUnusable(
        f"the Ray cluster at {shown} is unusable: {why}; {known}. No result was written for the unfinished "
        f"tasks; finished corpus shards are kept in {shards}: start worker nodes that offer what the jobs need "
        "(ray start --address ...) or use another cluster, and re-run with the same --shard-dir to resume from them."
    )


class ClusterWatch:
    def __init__(
        self,
        ray: Any,
        shown_address: str,
        shards: str = "the shard folder",
        every_s: float = 1.0,
        start_s: float | None = None,
    ):
        self.gcs = str(ray.get_runtime_context().gcs_address)
        self.shown, self.shards = shown_address, shards
        self.grace = _grace()
        self.every = every_s
        self.ray = ray
        self.stall = _seconds(STALL_ENV)
        self.start = start_s if start_s is not None else _seconds(START_ENV)
        self.start_option = "--ray-start-timeout" if start_s is not None else START_ENV
        self._progress_at = time.monotonic()
        self.lost = False
        self._unreachable_since: float | None = None
        self._checked = 0.0
        self.needs: dict[str, float] | None = None  # what a job asks of a node (``require``)
        self.what = "the run"
        self._nodes_checked = 0.0
        self._no_node_since: float | None = None

    def _reachable(self) -> bool:
        host, _, port = self.gcs.rpartition(":")
        try:
            with socket.create_connection((host.strip("[]"), int(port)), timeout=2):
                return True
        except (OSError, ValueError):
            return False

    def worker_registered(self, actor_call: Any) -> None:
        """Wait (up to the start bound) for ``actor_call`` (a call on the run's first actor) to answer: its actor's
        worker process registered with the cluster. ``ClusterUnusable`` when none did in time."""
        deadline = time.monotonic() + self.start
        while not self.ray.wait([actor_call], num_returns=1, timeout=0.5)[0]:
            if time.monotonic() >= deadline:
                why = (
                    f"no worker registered in {self.start:g} s ({self.start_option}): the cluster started no worker "
                    "process for the run (its raylet cannot start one, e.g. a --worker-port-list without a free port)"
                )
                raise self.unusable(why, self.ray.nodes())
            self.check()
        self.progressed()

    def require(self, needs: dict[str, float], what: str) -> None:
        """Wait (up to START_ENV) for an alive node that offers ``needs``; ``ClusterUnusable`` when none comes.
        From then on ``check`` watches that such a node stays (a node whose raylet died leaves the jobs waiting)."""
        deadline = time.monotonic() + self.start
        while True:
            nodes = self.ray.nodes()
            if any(n.get("Alive") and _offers(n, needs) for n in nodes):
                self.needs, self.what = needs, what  # watched by ``check`` from now on
                self.progressed()
                return
            if time.monotonic() >= deadline:
                why = (
                    f"no alive node offers what {what} needs ({_asked(needs)}) after {self.start:g} s "
                    f"({self.start_option})"
                )
                raise self.unusable(why, nodes)
            self.check()
            time.sleep(min(self.every, 1.0))

    def unusable(self, why: str, nodes: list[dict[str, Any]] | None) -> ClusterUnusable:
        known = _described(nodes) if nodes is not None else "nodes unknown"
        return unusable_error(self.shown, why, f"it has {known}", self.shards)

    def progressed(self) -> None:
        """A job finished or a progress bar moved: the run is alive."""
        self._progress_at = time.monotonic()

    def check(self) -> None:
        """Raise ``ClusterLost`` once the GCS has refused connections for the grace period; ``ClusterUnusable``
        once no alive node has offered what the jobs need for START_ENV seconds, or nothing has progressed for
        STALL_ENV seconds. The cluster's state is asked for only while its GCS answers (else Ray would wait)."""
        now = time.monotonic()
        if now - self._checked < self.every:
            return
        self._checked = now
        if not self._reachable():
            self._unreachable_since = self._unreachable_since or now
            if now - self._unreachable_since >= self.grace:
                raise self.gone(
                    f"its control store (GCS {self.gcs}) refused connections for {self.grace:g} s ({LOST_ENV})"
                )
            return
        self._unreachable_since = None
        if self.needs is not None and now - self._nodes_checked >= NODE_CHECK_S:
            self._nodes_checked = now
            nodes = self.ray.nodes()
            if any(n.get("Alive") and _offers(n, self.needs) for n in nodes):
                self._no_node_since = None
            else:
                self._no_node_since = self._no_node_since or now
                if now - self._no_node_since >= self.start:
                    why = (
                        f"no alive node has offered what {self.what} needs ({_asked(self.needs)}) for {self.start:g} s"
                    )
                    raise self.unusable(f"{why} ({self.start_option})", nodes)
        if now - self._progress_at >= self.stall:
            raise self.unusable(
                f"it made no progress for {self.stall:g} s ({STALL_ENV}): no job finished and no progress bar "
                "moved (a job stuck on a node that lost its raylet, or waiting for a shard folder that another "
                "run still holds)",
                self.ray.nodes(),
            )

    def gone(self, why: str) -> ClusterLost:
        """The error that ends the run; from now on nothing more is asked of the cluster."""
        self.lost = True
        return ClusterLost(
            f"the Ray cluster at {self.shown} went away during the run: {why}. No result was written for the "
            f"unfinished tasks; finished corpus shards are kept in {self.shards}: re-run on a working cluster "
            "with the same --shard-dir to resume from them."
        )

    def lost_error(self, exc: BaseException) -> ClusterLost:
        """A Ray system failure (node, actor or worker died beyond its retries) as the run's clear error."""
        first = " ".join(str(exc).split())[:200]
        return self.gone(f"{type(exc).__name__}: {first}")
