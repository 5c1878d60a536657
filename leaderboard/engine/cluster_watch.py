"""Noticing that the Ray cluster under a run has gone, so the run ends with a clear error instead of waiting.

When the cluster dies (its nodes killed, ``ray stop``), the run must end, clearly, with nothing
half-written. Two signs are watched by the run's loop (``engine.distributed.RayBackend``):

* Ray reports a system failure (a node, an actor or a worker died beyond its retries: any
  ``RayError`` that is not a task's own exception): ``lost`` turns it into ``ClusterLost``;
* the cluster's control store (GCS) stops answering, which Ray itself would wait out forever:
  ``check``, called between waits, probes its address with a plain TCP connect and raises
  ``ClusterLost`` once it has refused connections for ``LEADERBOARD_RAY_LOST_S`` seconds (default 30).

``ClusterLost`` is exit 2 naming the cluster. No result is written for unfinished pairs (only the
driver writes, after a pair is complete); finished corpus shards stay in ``--shard-dir`` (a Ray job
never removes its shards: the driver does, once it has written the job's result) and a re-run on
a working cluster reuses them.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Any

from leaderboard.errors import BadInput

LOST_ENV = "LEADERBOARD_RAY_LOST_S"


class ClusterLost(BadInput):
    """The Ray cluster stopped answering during the run (exit 2)."""

    label = "Ray cluster lost"


def _grace() -> float:
    raw = os.environ.get(LOST_ENV, "")
    try:
        value = float(raw) if raw else 30.0
    except ValueError:
        value = -1.0
    if value <= 0:
        raise BadInput(f"{LOST_ENV}={raw[:40]!r}: expected a positive number of seconds.")
    return value


class ClusterWatch:
    def __init__(self, ray: Any, shown_address: str, shards: str = "the shard folder", every_s: float = 1.0):
        self.gcs = str(ray.get_runtime_context().gcs_address)
        self.shown, self.shards = shown_address, shards
        self.grace = _grace()
        self.every = every_s
        self.lost = False
        self._unreachable_since: float | None = None
        self._checked = 0.0

    def _reachable(self) -> bool:
        host, _, port = self.gcs.rpartition(":")
        try:
            with socket.create_connection((host.strip("[]"), int(port)), timeout=2):
                return True
        except (OSError, ValueError):
            return False

    def check(self) -> None:
        """Raise ``ClusterLost`` once the GCS has refused connections for the grace period."""
        now = time.monotonic()
        if now - self._checked < self.every:
            return
        self._checked = now
        if self._reachable():
            self._unreachable_since = None
            return
        self._unreachable_since = self._unreachable_since or now
        if now - self._unreachable_since >= self.grace:
            raise self.gone(f"its control store (GCS {self.gcs}) refused connections for {self.grace:g} s ({LOST_ENV})")

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
