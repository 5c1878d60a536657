"""Local Ray clusters for the tests: on 127.0.0.1 only, and always gone within a bound.

Ray's ``Cluster.shutdown()`` waits for each process it kills (``Popen.wait``). A process that does not end
(a raylet stuck in a system call) held a whole run in that wait, which SIGTERM did not end either (Ray's
exit hook shut the cluster down again). ``stop`` runs the shutdown in a thread for at most ``STOP_SECONDS``,
then kills what is left of the cluster (every node's processes and their descendants, by process group where
they have one of their own) and says so; the cluster is made with ``shutdown_at_exit=False``, so no exit hook
waits on it again.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

STOP_SECONDS = 60.0  # a bound on a shutdown that hangs; a healthy one takes a few seconds
NODE = {"object_store_memory": 80 * 2**20, "node_ip_address": "127.0.0.1"}


def loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loopback only: Ray otherwise rewrites 127.0.0.1 to this machine's network address (Ray's own switch for
    single-machine clusters; its processes read the variable, this one the constant)."""
    import ray._private.ray_constants as ray_constants

    monkeypatch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    monkeypatch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", False)


def new_cluster(worker_cpus: int = 0, workers: int = 1, dashboard: bool = False, **head: Any) -> Any:
    """A head with no CPUs (the driver) and ``workers`` worker nodes of ``worker_cpus`` CPUs (none if 0);
    ``head``: other arguments of the head node (``num_cpus``, ``worker_port_list``, ...)."""
    from ray.cluster_utils import Cluster

    made = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 0, "include_dashboard": dashboard, **NODE, **head},
        shutdown_at_exit=False,  # ``stop`` ends it, within a bound; an exit hook would wait unbounded
    )
    try:
        for _ in range(workers if worker_cpus else 0):
            made.add_node(num_cpus=worker_cpus, **NODE)
        made.wait_for_nodes()
    except BaseException:
        stop(made)
        raise
    return made


@contextlib.contextmanager
def local_cluster(worker_cpus: int = 0, workers: int = 1) -> Iterator[Any]:
    """``new_cluster``, stopped (``stop``) when the block ends, however it ends."""
    made = new_cluster(worker_cpus, workers)
    try:
        yield made
    finally:
        stop(made)


def cluster_processes(cluster: Any) -> list[Any]:
    """Every process a cluster runs (its nodes' processes and their descendants), as psutil handles."""
    import psutil

    nodes = [node for node in (cluster.head_node, *cluster.worker_nodes) if node is not None]
    roots = [info.process.pid for node in nodes for infos in node.all_processes.values() for info in infos]
    found = []
    for pid in roots:
        with contextlib.suppress(psutil.Error):
            process = psutil.Process(pid)
            found += [process, *process.children(recursive=True)]
    return found


def kill(processes: list[Any]) -> list[int]:
    """SIGKILL each process still running (its whole process group where it leads one of its own, never ours);
    the pids that were still running."""
    import psutil

    alive = [p for p in processes if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    ours = os.getpgrp()
    for process in alive:
        with contextlib.suppress(OSError, psutil.Error):
            group = os.getpgid(process.pid)
            if group == process.pid and group != ours:
                os.killpg(group, signal.SIGKILL)
            else:
                process.kill()
    psutil.wait_procs(alive, timeout=10)
    return [p.pid for p in alive]


def stop(cluster: Any, seconds: float = STOP_SECONDS) -> None:
    """``cluster.shutdown()`` within ``seconds``, then nothing of the cluster left running; raises if the
    shutdown did not return in time (after killing what was left)."""
    processes = cluster_processes(cluster)
    failed: list[BaseException] = []

    def shutdown() -> None:
        try:
            cluster.shutdown()
        except BaseException as exc:  # reported below, in the test thread
            failed.append(exc)

    thread = threading.Thread(target=shutdown, name="ray-cluster-shutdown", daemon=True)
    thread.start()
    thread.join(seconds)
    left = kill(processes)
    if thread.is_alive():
        raise RuntimeError(f"Ray's Cluster.shutdown() did not return within {seconds:.0f} s; killed pids {left}")
    if failed and left:
        warnings.warn(f"Ray's Cluster.shutdown() failed ({failed[0]!r}); killed pids {left}", stacklevel=2)


def bounded(call: Any, seconds: float = STOP_SECONDS) -> None:
    """Run ``call()`` (e.g. ``ray.shutdown``) for at most ``seconds``; raise if it has not returned by then."""
    thread = threading.Thread(target=call, name="ray-bounded", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise RuntimeError(f"{getattr(call, '__qualname__', call)} did not return within {seconds:.0f} s")
