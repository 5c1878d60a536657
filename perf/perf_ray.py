"""--ray on a local two-node cluster vs one process, on the same data (a script, not a timed test).

all-MiniLM-L6-v2 on a generated SciFact-like corpus (``perf_encoding``'s generator), corpus shards
of ``--shard-rows`` texts: once in this process, once through ``leaderboard.evaluate(..., ray=...)``
on a cluster of a CPU-less head (the driver) and two worker nodes started here on 127.0.0.1. Prints
both wall times (cluster start-up reported apart), their ratio, and whether the results are equal
(main score to 1e-6, every per-query value to 1e-6). On a 2-core machine the ratio will not favour
Ray: the two encoder actors and the job share the same two cores.

    python perf/perf_ray.py [--passages 300] [--shard-rows 64]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import leaderboard
from leaderboard.records.result import decode_per_query

sys.path.insert(0, str(Path(__file__).resolve().parent))
from perf_encoding import write_corpus


def start_cluster(workers: int, cpus: int):
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # loopback only (Ray's single-machine switch)
    import ray
    import ray._private.ray_constants as ray_constants
    from ray.cluster_utils import Cluster

    ray_constants.ENABLE_RAY_CLUSTER = False
    node = {"object_store_memory": 100 * 2**20, "node_ip_address": "127.0.0.1"}
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False, **node})
    for _ in range(workers):
        cluster.add_node(num_cpus=cpus, **node)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False)
    return cluster


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passages", type=int, default=300)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--shard-rows", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    import ray

    os.environ["LEADERBOARD_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-cache-")
    with tempfile.TemporaryDirectory() as tmp:
        folder = str(write_corpus(Path(tmp) / "scifact-like", args.passages, args.queries))
        common = {"use_cache": False, "shard_rows": args.shard_rows, "overwrite": True}
        leaderboard.evaluate(["all-MiniLM-L6-v2"], ["demo"], output=f"{tmp}/warm", use_cache=False)  # warm-up
        start = time.perf_counter()
        (alone,) = leaderboard.evaluate(["all-MiniLM-L6-v2"], [folder], output=f"{tmp}/one", **common)
        one_s = time.perf_counter() - start
        start = time.perf_counter()
        cluster = start_cluster(args.workers, 2)
        startup_s = time.perf_counter() - start
        try:
            start = time.perf_counter()
            (spread,) = leaderboard.evaluate(
                ["all-MiniLM-L6-v2"], [folder], output=f"{tmp}/ray", ray=cluster.address, shard_dir=f"{tmp}/s", **common
            )
            ray_s = time.perf_counter() - start
        finally:
            ray.shutdown()
            cluster.shutdown()
    a, b = alone.result, spread.result
    left = decode_per_query(a.per_query) if a.per_query else {}
    right = decode_per_query(b.per_query) if b.per_query else {}
    worst = max((abs(left[q][m] - right[q][m]) for q in left for m in left[q]), default=0.0)
    equal = abs(a.main_score - b.main_score) <= 1e-6 and left.keys() == right.keys() and worst <= 1e-6
    texts = a.counts["texts_encoded"]
    print(f"corpus: {a.counts['documents']} passages, {a.counts['queries']} queries, {texts} texts encoded")
    print(f"one process: {one_s:.2f} s; ray ({args.workers} worker nodes, cluster already up): {ray_s:.2f} s")
    print(f"cluster start-up: {startup_s:.2f} s; wall-time ratio ray / one process = {ray_s / one_s:.2f}")
    print(
        f"main score {a.main_score:.6f} vs {b.main_score:.6f}; largest per-query difference {worst:.2e} "
        f"-> {'EQUAL' if equal else 'DIFFERENT'}"
    )


if __name__ == "__main__":
    main()
