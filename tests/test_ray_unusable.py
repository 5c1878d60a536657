"""Ray resumes or says why: a run on a cluster that answers but never runs its jobs ends with
exit 2 within a bounded time, naming the cluster and what it lacks, and writes nothing; the same run on a
working cluster then progresses and writes its result.

- a fresh cluster with no node that offers a CPU (its worker nodes never joined): LEADERBOARD_RAY_START_S;
- a job that makes no progress (stuck, as on a node that lost its raylet): LEADERBOARD_RAY_STALL_S;
- the raylet of the only node with CPUs killed mid-run: the run ends with exit 2 (an actor of the run died
  with the node, or no node for its jobs after LEADERBOARD_RAY_START_S), and the re-run on a fresh cluster
  progresses, reusing the finished corpus shards;
- a cluster that cannot register a worker process for the run (a ``--worker-port-list`` whose one port the
  raylet's own workers hold): the run ends within ``--ray-start-timeout`` with exit 2, "no worker registered
  in N s", the shard folder kept.

Select with ``-m ray``; skipped without the ``ray`` extra.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import ray_fixtures
from conftest import make_plugin_dist
from queue_fixtures import hostile_plugin
from ray_fixtures import local_cluster, new_cluster, stop

ray = pytest.importorskip("ray")
pytestmark = [pytest.mark.ray, pytest.mark.xdist_group("ray")]  # one cluster at a time: the tests share its ports
TESTS = Path(__file__).resolve().parent
HELD = hostile_plugin(
    "held-overlap",
    """
    import os, time
    while os.path.exists(os.environ["HELD_FILE"]):  # held by the test: no progress until it is removed
        time.sleep(0.05)
    """,
)


@pytest.fixture
def loopback(monkeypatch):
    ray_fixtures.loopback(monkeypatch)  # as test_ray's clusters


def run(address, out, env, model="bm25"):
    command = [sys.executable, "-m", "leaderboard", "run", "-m", model, "-t", "demo", "-o", str(out), "--ray", address]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)


def test_a_cluster_without_a_node_for_the_jobs_is_unusable(tmp_path, loopback):
    # the bound also covers the run's first join (a fresh process importing Ray): 3 s was too short beside a
    # CPU hog, and the run then said "no worker registered" instead of naming the missing node
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "COLUMNS": "250", "LEADERBOARD_RAY_START_S": "15"}
    with local_cluster(worker_cpus=0) as cluster:  # the head only, with no CPU: a job can never be placed
        address = cluster.address
        ran = run(address, tmp_path / "out", env)
    said = " ".join(ran.stderr.split())
    assert ran.returncode == 2, ran.stderr[-3000:]
    assert f"the Ray cluster at {address} is unusable: no alive node offers what a job of bm25 needs" in said
    assert "(cpus 1) after 15 s (LEADERBOARD_RAY_START_S)" in said and "1 alive node(s)" in said
    assert "Traceback" not in ran.stderr and not list((tmp_path / "out").rglob("*.json"))


def test_a_run_without_progress_ends_and_a_rerun_progresses(tmp_path, loopback, monkeypatch):
    site = make_plugin_dist(tmp_path / "site", "held-overlap", "held_overlap", HELD, {"held-overlap": "held_overlap"})
    held = tmp_path / "held"
    held.touch()
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("HELD_FILE", str(held))  # the cluster's processes inherit both
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "COLUMNS": "250", "LEADERBOARD_RAY_STALL_S": "5"}
    with local_cluster(worker_cpus=2) as cluster:
        stuck = run(cluster.address, tmp_path / "out", env, "held-overlap")
        said = " ".join(stuck.stderr.split())
        assert stuck.returncode == 2, stuck.stderr[-3000:]
        assert (
            f"the Ray cluster at {cluster.address} is unusable: it made no progress for 5 s (LEADERBOARD_RAY_STALL_S)"
            in said
        )
        assert "Traceback" not in stuck.stderr and not list((tmp_path / "out").rglob("*.json"))
        held.unlink()  # the cause is gone: the same run now progresses
        # (a stall limit that only bounds a failure: on a busy machine a job's first step may take over 5 s)
        resumed = run(cluster.address, tmp_path / "out", {**env, "LEADERBOARD_RAY_STALL_S": "300"}, "held-overlap")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert list((tmp_path / "out").rglob("demo.json"))


def test_a_raylet_killed_mid_run_ends_the_run_and_a_fresh_cluster_resumes(tmp_path, loopback, monkeypatch):
    import signal

    from scale_fixtures import write_beir
    from test_ray import KILL_PLUGIN

    from leaderboard.records.files import read_result

    corpus = {f"d{i}": f"text number {i} " + "fig " * (i % 4) for i in range(40)}
    root = write_beir(
        tmp_path / "data", corpus, {"q0": "fig", "q1": "text number 7"}, {"q0": {"d3": 1}, "q1": {"d7": 1}}
    )
    out, shards, hold = tmp_path / "out", tmp_path / "shards", tmp_path / "hold"
    hold.touch()  # encoding waits once two shards are finished, until the raylet is killed and this removed
    plugin = KILL_PLUGIN.format(root=str(root), shards=str(shards), hold=str(hold))
    site = make_plugin_dist(tmp_path / "site", "kill-plugin", "kill_plugin", plugin, {"kill-plugin": "kill_plugin"})
    python_path = os.pathsep.join(filter(None, [str(site), str(TESTS), os.environ.get("PYTHONPATH")]))
    monkeypatch.setenv("PYTHONPATH", python_path)  # the cluster's processes inherit it
    # 15 s: the start bound also covers the run's first join, a fresh process importing Ray
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "LEADERBOARD_SHARD_ROWS": "4", "COLUMNS": "250",
           "LEADERBOARD_RAY_START_S": "15", "LEADERBOARD_RAY_LOST_S": "5"}  # fmt: skip
    command = [sys.executable, "-m", "leaderboard", "run", "-m", "slow-hash", "-t", "tiny-kill", "-o", str(out),
               "--shard-dir", str(shards), "--no-cache", "--batch-size", "1"]  # fmt: skip
    doomed = new_cluster(worker_cpus=2)
    address = doomed.address
    run = subprocess.Popen([*command, "--ray", address], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)  # fmt: skip
    try:
        while len(list(shards.rglob("shard-*.json"))) < 2 and run.poll() is None:  # a state, not a delay
            time.sleep(0.05)
        assert run.poll() is None, run.communicate()
        (raylet,) = next(iter(doomed.worker_nodes)).all_processes["raylet"]
        os.kill(raylet.process.pid, signal.SIGKILL)
        try:
            _, stderr = run.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            run.kill()
            pytest.fail(
                f"the run did not end after its only worker node lost its raylet:\n{run.communicate()[1][-3000:]}"
            )
    finally:
        stop(doomed)
    said = " ".join(stderr.split())
    assert run.returncode == 2, stderr[-3000:]
    assert f"the Ray cluster at {address}" in said and "Traceback" not in stderr, stderr[-3000:]
    assert f"finished corpus shards are kept in {shards}" in said
    assert not list(out.rglob("*.json")), "no result, not even a partial one"
    finished = len(list(shards.rglob("shard-*.json")))

    hold.unlink()
    # the re-run waits for the fresh cluster's workers as long as a user's run would (the default bound): a
    # busy machine can take more than the first run's 15 s to start them
    resumed = {name: value for name, value in env.items() if name != "LEADERBOARD_RAY_START_S"}
    with local_cluster(worker_cpus=2) as fresh:
        again = subprocess.run([*command, "--ray", fresh.address], env=resumed, capture_output=True, text=True,
                               timeout=600)  # fmt: skip
    assert again.returncode == 0, again.stderr[-3000:]
    (path,) = out.rglob("tiny-kill.json")
    assert read_result(path).counts["texts_encoded"] <= 40 - 4 * finished + 2  # the finished shards were reused


def test_a_cluster_that_registers_no_worker_for_the_run_fails_within_the_bound(tmp_path, loopback):
    import socket

    with socket.socket() as probe:  # a port free now: the cluster's only worker port, which its own workers take
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cluster = new_cluster(worker_cpus=0, num_cpus=2, worker_port_list=str(port))
    address = cluster.address
    shards = tmp_path / "shards"
    (shards / "kept").mkdir(parents=True)
    (shards / "kept" / "shard-00000.json").write_text("{}")  # a finished shard of an earlier run
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "COLUMNS": "250"}
    command = [sys.executable, "-m", "leaderboard", "run", "-m", "bm25", "-t", "demo", "-o", str(tmp_path / "out"),
               "--ray", address, "--ray-start-timeout", "10", "--shard-dir", str(shards)]  # fmt: skip
    try:  # the guard only stops a run that never ends: the bound under test is --ray-start-timeout
        ran = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    finally:
        stop(cluster)
    said = " ".join(ran.stderr.split())
    assert ran.returncode == 2, ran.stderr[-3000:]
    assert f"the Ray cluster at {address} is unusable: no worker registered in 10 s (--ray-start-timeout)" in said
    assert f"finished corpus shards are kept in {shards}" in said and "Traceback" not in ran.stderr
    assert (shards / "kept" / "shard-00000.json").is_file() and not list((tmp_path / "out").rglob("*.json"))
