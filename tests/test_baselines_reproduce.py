"""The committed baselines are what today's code produces: bm25 re-run on ComLQ and NegConstraint gives every
score of every subset, every interval, subset size, per-query value and task detail of its file in
submissions/. A task whose output changes without a version bump fails here (the rule in
leaderboard/contract/task.py: TaskMetadata.version changes whenever the task's output for the same data does)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from conftest import COMLQ, NEGCONSTRAINT, REPO, needs_comlq, needs_negconstraint, run_cli

from leaderboard.records.files import read_result
from leaderboard.records.result import decode_per_query

BM25 = REPO / "submissions" / "bm25" / "results" / "bm25"
# What may differ between two runs of the same code on the same data: when, where, how long, with which
# library builds. Everything else in the record is the task's output and is compared.
RUN_CIRCUMSTANCES = {"harness", "timings", "created_at", "hardware", "settings", "model", "per_query"}


def differences(old: Any, new: Any, path: str = "") -> list[str]:
    """Every place where two JSON values differ (numbers within 1e-9: the same arithmetic, summed alike)."""
    if isinstance(old, dict) and isinstance(new, dict):
        found = [f"{path}/{k}: only in the committed file" for k in old.keys() - new.keys()]
        found += [f"{path}/{k}: only in today's output" for k in new.keys() - old.keys()]
        for key in sorted(old.keys() & new.keys()):
            found += differences(old[key], new[key], f"{path}/{key}")
        return found
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [d for i, (a, b) in enumerate(zip(old, new)) for d in differences(a, b, f"{path}[{i}]")]
    numbers = (int, float)
    if isinstance(old, numbers) and isinstance(new, numbers) and not isinstance(old, bool):
        same = math.isclose(old, new, rel_tol=0, abs_tol=1e-9) or (math.isnan(old) and math.isnan(new))
        return [] if same else [f"{path}: {old!r} committed, {new!r} today"]
    return [] if old == new else [f"{path}: {str(old)[:80]!r} committed, {str(new)[:80]!r} today"]


def simd_off() -> dict[str, str]:
    """NumPy's environment switch that turns its dispatch to this CPU's widest vector instructions off (their
    sorts and partitions resolve ties otherwise): a run as on a machine without them."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    wide = [f for f in ("AVX512_SPR", "AVX512_ICL", "AVX512_SKX", "X86_V4") if __cpu_features__.get(f)]
    wide = [f for f in wide if f in __cpu_dispatch__]
    return {"NPY_DISABLE_CPU_FEATURES": " ".join(wide)} if wide else {}


@pytest.mark.parametrize(
    "task, folder, env",
    [
        pytest.param("comlq", COMLQ, {}, marks=needs_comlq),
        pytest.param("negconstraint", NEGCONSTRAINT, {}, marks=needs_negconstraint),
        pytest.param("comlq", COMLQ, "simd-off", marks=needs_comlq, id="comlq-as-on-a-cpu-without-wide-vectors"),
    ],
)
def test_bm25_reproduces_its_committed_baseline(task, folder, env, tmp_path):
    """The committed file, from a fresh run on an empty cache (the autouse fixture's); also on a CPU whose
    NumPy sorts resolve ties another way (bm25's top 100 has ties at its cut on ComLQ: which passages the
    judge labels must not depend on the machine)."""
    committed_files = list(BM25.glob(f"*/{task}.json"))
    assert len(committed_files) == 1, committed_files
    committed = committed_files[0]
    env = simd_off() if env == "simd-off" else env
    args = ("run", "-m", "bm25", "-t", task, "--data-dir", f"{task}={folder}", "--output", str(tmp_path))
    ran = run_cli(*args, env=env)
    assert ran.returncode == 0, ran.stderr
    today = tmp_path / committed.relative_to(BM25.parent)
    assert today.is_file(), sorted(str(p) for p in tmp_path.rglob("*.json"))

    old, new = read_result(committed), read_result(today)
    old_json, new_json = old.model_dump(mode="json"), new.model_dump(mode="json")
    for record in (old_json, new_json):
        source = record["task"]["source"]
        # A local folder's path is where this machine keeps the data; its content hash is what is compared.
        if source["kind"] == "local":
            source.pop("uri")
    assert old_json["task"]["version"] == new_json["task"]["version"], (
        f"task {task} is at version {new_json['task']['version']}, {committed} at {old_json['task']['version']}: "
        "regenerate the baselines (bash submissions/run_baselines.sh with LEADERBOARD_RUN_ARGS=--overwrite)"
    )
    found = differences(
        {k: v for k, v in old_json.items() if k not in RUN_CIRCUMSTANCES},
        {k: v for k, v in new_json.items() if k not in RUN_CIRCUMSTANCES},
    )
    found += differences(decode_per_query(old.per_query), decode_per_query(new.per_query), "/per_query")
    assert not found, (
        f"bm25 on {task} no longer gives {committed.relative_to(REPO)} at the same task version "
        f"{new_json['task']['version']}: bump the task's TaskMetadata.version, then regenerate the baselines "
        f"(bash submissions/run_baselines.sh). {len(found)} difference(s):\n" + "\n".join(found[:40])
    )


def test_bm25_breaks_ties_at_its_cut_as_trec_eval_orders():
    """Twenty passages score the same for the query: bm25's top 5 are the five of them trec_eval ranks first (ids
    descending), whatever order bm25s' partition leaves them in; a query with fewer hits than k keeps them all."""
    from leaderboard_plugins.bm25 import BM25

    corpus = {f"d{i:02d}": "apple orchard" for i in range(20)} | {"x": "apple apple pie", "y": "pear"}
    run = BM25().search(corpus, {"tied": "orchard", "pie": "pie"}, 5)
    assert list(run["tied"]) == ["d19", "d18", "d17", "d16", "d15"]
    assert len(set(run["tied"].values())) == 1
    assert list(run["pie"]) == ["x"]
