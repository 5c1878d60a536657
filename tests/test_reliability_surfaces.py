"""Reliability of the surfaces added since issue 16 (issue 23): per-query values, the results index and
its SQLite damage policy, submissions with placeholders, a pull that keeps what it can, and shards
that are proven before they are reused."""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading

import numpy as np
import pytest
from click.testing import CliRunner

import leaderboard
from leaderboard.cli import cli
from leaderboard.errors import BadInput
from leaderboard.records.files import read_result
from leaderboard.records.result import PerQuery, decode_per_query, encode_per_query


@pytest.fixture(scope="module")
def demo_result(tmp_path_factory):
    """One real bm25 result on demo (per-query values included), written once for the module."""
    out = tmp_path_factory.mktemp("demo-results")
    (outcome,) = leaderboard.evaluate(["bm25"], ["demo"], output=out)
    return out, outcome.path


def _copy(demo_result, tmp_path):
    out, path = demo_result
    target = tmp_path / "results"
    shutil.copytree(out, target)
    return target, target / path.relative_to(out)


def _resealed(path, change):
    """Edit the per-query values and seal them again with a matching sha256 (what a cheater would do)."""
    data = json.loads(path.read_text())
    values = decode_per_query(PerQuery.model_validate(data["per_query"]))
    change(values)
    data["per_query"] = encode_per_query(values).model_dump()
    path.write_text(json.dumps(data))
    return data


def _show(root):
    return CliRunner().invoke(cli, ["show", str(root)])


# -- per-query values --------------------------------------------------------------------------------


def test_a_real_result_passes_the_per_query_checks(demo_result):
    result = read_result(demo_result[1])
    values = decode_per_query(result.per_query)
    assert len(values) == result.subset_sizes["test"]["default"]
    mean = sum(v["ndcg_at_10"] for v in values.values()) / len(values)
    assert mean == pytest.approx(result.main_score, abs=1e-9)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda v: [row.update(ndcg_at_10=5.0) for row in v.values()], "is outside the metric's range"),
        (lambda v: v[next(iter(v))].update(ndcg_at_10="high"), "'high' is not a number"),
        (lambda v: v.pop(next(iter(v))), "(one row per counted query)"),
        (lambda v: _shift(v, 0.01), "the mean of"),
        (lambda v: _shift(v, 2e-9), "the mean of"),
    ],
    ids=["all-5.0", "a-string", "one-query-missing", "mean-off-by-0.01", "mean-off-by-2e-9"],
)
def test_resealed_per_query_values_that_do_not_match_the_scores_are_refused(demo_result, tmp_path, change, reason):
    root, path = _copy(demo_result, tmp_path)
    _resealed(path, change)
    with pytest.raises(BadInput, match="per_query") as info:
        read_result(path)
    assert str(path) in str(info.value) and reason in str(info.value)
    shown = _show(root)  # show (and the app, through the same index) skips the file with the reason
    assert shown.exit_code == 0, shown.output
    assert "skipped" in shown.output and reason in shown.output.replace("\n", "")


def _shift(values, delta):
    first = next(iter(values))
    value = values[first]["ndcg_at_10"]
    step = delta * len(values)  # moves the mean by delta
    values[first]["ndcg_at_10"] = value + step if value + step <= 1 else value - step


@pytest.mark.parametrize("bad", ["NaN", "Infinity"])
def test_non_finite_per_query_values_are_refused(demo_result, tmp_path, bad):
    import base64
    import gzip
    import hashlib

    root, path = _copy(demo_result, tmp_path)
    data = json.loads(path.read_text())
    values = decode_per_query(PerQuery.model_validate(data["per_query"]))
    text = json.dumps(values, sort_keys=True, separators=(",", ":"))
    first = next(iter(sorted(values)))
    old = json.dumps({first: values[first]}, sort_keys=True, separators=(",", ":"))[1:-1]
    payload = text.replace(old, old.replace(str(values[first]["ndcg_at_10"]), bad), 1).encode()
    assert bad.encode() in payload
    data["per_query"]["data"] = base64.b64encode(gzip.compress(payload, mtime=0)).decode()
    data["per_query"]["sha256"] = hashlib.sha256(payload).hexdigest()
    path.write_text(json.dumps(data))
    with pytest.raises(BadInput, match="is not finite"):
        read_result(path)


def test_compare_on_a_cheating_result_exits_2_naming_file_and_field(demo_result, tmp_path):
    root, path = _copy(demo_result, tmp_path)
    _resealed(path, lambda v: [row.update(ndcg_at_10=5.0) for row in v.values()])
    ran = CliRunner().invoke(cli, ["compare", "bm25", "bm25-okapi", "-t", "demo", "--results", str(root)])
    assert ran.exit_code == 2, ran.output
    assert str(path) in ran.output.replace("\n", "") and "per_query" in ran.output
    assert "Internal error" not in ran.output


def test_push_refuses_a_cheating_result_naming_file_and_field(demo_result, tmp_path):
    root, path = _copy(demo_result, tmp_path)
    _resealed(path, lambda v: [row.update(ndcg_at_10=5.0) for row in v.values()])
    ran = CliRunner().invoke(cli, ["push", str(root), "--repo", "org/results", "--dry-run"])
    assert ran.exit_code == 2, ran.output
    assert "Refusing to push" in ran.output and "per_query" in ran.output and "Internal error" not in ran.output


def test_subset_means_are_checked_when_membership_is_stored():
    from leaderboard.records.per_query_checks import mean_problems

    clean = {"a": {"m": 1.0}, "b": {"m": 0.0}, "c": {"m": 0.5}}
    assert mean_problems(clean, {"m": 0.5}) == []
    assert mean_problems(clean, {"m": 0.5}, queries=["a", "b"], where="per_query (type=x)") == []
    (problem,) = mean_problems(clean, {"m": 0.9}, queries=["a", "c"], where="per_query (type=x)")
    assert problem.startswith("per_query (type=x): the mean of 2 per-query m values is 0.75")


# -- the results index -------------------------------------------------------------------------------


def _index_db(root):
    from leaderboard.records.index import index_file

    return index_file(root)


def test_an_index_row_of_the_wrong_shape_is_revalidated(demo_result, tmp_path):
    root, path = _copy(demo_result, tmp_path)
    assert _show(root).exit_code == 0
    with sqlite3.connect(_index_db(root)) as db:
        db.execute("UPDATE entries SET summary = ?", (json.dumps({"model": [], "task": 3}),))
    shown = _show(root)
    assert shown.exit_code == 0, shown.output
    assert f"{read_result(path).main_score:.4f}" in shown.output


def test_an_index_row_edited_to_another_score_is_not_shown(demo_result, tmp_path):
    from leaderboard.records.index import build_index

    root, path = _copy(demo_result, tmp_path)
    truth = read_result(path).main_score
    build_index(root)
    with sqlite3.connect(_index_db(root)) as db:
        (text,) = db.execute("SELECT summary FROM entries").fetchone()
        forged = json.loads(text)
        forged["main_score"] = forged["default"]["ndcg_at_10"] = 0.9999
        db.execute("UPDATE entries SET summary = ?", (json.dumps(forged),))
    ((_, summary),) = build_index(root).summaries()
    assert summary["main_score"] == truth
    assert "0.9999" not in _show(root).output


def test_an_edited_detail_record_is_not_served(demo_result, tmp_path):
    from leaderboard.records.index import build_index

    root, _ = _copy(demo_result, tmp_path)
    index = build_index(root)
    (rel,) = index.entries
    assert index.details([rel])
    with sqlite3.connect(_index_db(root)) as db:
        db.execute("UPDATE entries SET detail = ?", (json.dumps({"scores": {"test": {"default": {"x": 2}}}}),))
    assert build_index(root).details([rel]) == {}


def test_a_file_rewritten_in_the_same_clock_tick_is_compared_by_sha256(demo_result, tmp_path, monkeypatch):
    """A filesystem with coarse timestamps: the rewrite leaves size, mtime, inode and ctime as they were,
    and the row was written in the same tick, so the bytes decide."""
    from leaderboard.records import index as index_module

    root, path = _copy(demo_result, tmp_path)
    index_module.build_index(root)
    (old,) = index_module.build_index(root).entries.values()
    text = path.read_text()
    score = repr(json.loads(text)["main_score"])
    other = text.replace(score, score[:2] + ("9" if score[2] != "9" else "8") + score[3:])  # main and scores alike
    assert len(other) == len(text) and other != text
    path.write_text(other)
    real_stat = index_module._stat
    monkeypatch.setattr(index_module, "_stat", lambda p: (list(old.stat), real_stat(p)[1]))
    monkeypatch.setattr(index_module, "RACY_NS", 2**62)  # the row was written in the file's clock tick, however slow
    (entry,) = index_module.build_index(root).entries.values()
    assert entry.summary is None and "per_query" in entry.reason  # re-validated: the values no longer average to it
    monkeypatch.setattr(index_module, "RACY_NS", -(2**62))  # the same stat long after the row: trusted as is
    with sqlite3.connect(_index_db(root)) as db:
        db.execute("DELETE FROM entries")
    path.write_text(text)
    index_module.build_index(root)
    path.write_text(other)
    (trusted,) = index_module.build_index(root).entries.values()
    assert trusted.summary is not None  # (why ambiguity matters: a stat match alone is believed)


def test_a_damaged_index_is_moved_aside_and_named_like_the_cache(demo_result, tmp_path, capsys):
    from leaderboard.records.index import build_index

    root, _ = _copy(demo_result, tmp_path)
    build_index(root)
    db_path = _index_db(root)
    db_path.write_bytes(b"this is not an SQLite database" * 100)
    index = build_index(root)
    assert len(index.summaries()) == 1
    err = capsys.readouterr().err.replace("\n", "")
    assert "the results index" in err and "is damaged" in err and "moved it to" in err
    assert list(db_path.parent.glob(db_path.name + ".corrupt-*"))


def test_one_damage_policy_for_cache_and_index():
    from leaderboard.engine import cache
    from leaderboard.records import index_store as index
    from leaderboard.sqlite_damage import is_damage, move_aside

    assert cache.is_damage is is_damage and index.is_damage is is_damage and index.move_aside is move_aside
    assert cache.move_aside is move_aside
    assert not is_damage(sqlite3.OperationalError("database is locked"))


# -- submissions --------------------------------------------------------------------------------------


SPEC = {
    "spec_version": "1",
    "plugin": {"package": "leaderboard-example-plugin", "version": "0.1.0"},
    "model": {
        "id": "m",
        "revision": "1",
        "kind": "dense",
        "n_parameters": None,
        "license": "apache-2.0",
        "training_data": "MS MARCO",
    },
    "contact": "someone@example.org",
}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (("model", "license"), "TODO: your license", "model.license is still a placeholder ('TODO: your license')"),
        (("model", "license"), "   ", "model.license is empty"),
        (("contact",), "TODO: an email address or a GitHub handle", "contact is still a placeholder"),
        (("plugin", "install"), "TODO: how to pip install it", "plugin.install is still a placeholder"),
        (("plugin", "install"), "", "plugin.install is empty"),
        (("model", "training_data"), "tbd", "model.training_data is still a placeholder"),
    ],
)
def test_validate_refuses_placeholders_naming_the_field(tmp_path, field, value, message):
    from leaderboard.queue.placeholders import placeholder_problems
    from leaderboard.queue.verification import read_spec

    spec = json.loads(json.dumps(SPEC))
    target = spec
    for key in field[:-1]:
        target = target[key]
    target[field[-1]] = value
    assert any(p.startswith(message) for p in placeholder_problems(spec))
    folder = tmp_path / "submissions" / "m"
    folder.mkdir(parents=True)
    (folder / "model.json").write_text(json.dumps(spec))
    ran = CliRunner().invoke(cli, ["validate", str(folder)])
    assert ran.exit_code == 2 and message in ran.output.replace("\n", " "), ran.output
    with pytest.raises(BadInput, match="placeholder|empty"):
        read_spec(folder)  # verify refuses it too, before installing anything


def test_the_scaffold_placeholders_are_recognisable(tmp_path):
    from string import Template

    from leaderboard.queue.placeholders import placeholder_problems

    text = (
        __import__("importlib.resources").resources.files("leaderboard.cli")
        / "templates"
        / "plugin"
        / "model.json.tmpl"
    ).read_text()
    spec = json.loads(Template(text).safe_substitute(distribution="x", name="x", kind="dense"))
    problems = placeholder_problems(spec)
    assert {p.split(" ")[0] for p in problems} == {"model.license", "model.training_data", "contact", "plugin.install"}
    assert placeholder_problems(SPEC) == []


# -- pull ---------------------------------------------------------------------------------------------


def test_pull_writes_what_it_can_and_names_what_it_skipped(tmp_path, monkeypatch):
    import huggingface_hub.constants
    from hub_server import HubServer, Repo

    from leaderboard.hub.store import HubStore

    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    good = {"results/m/r/a.json": b"{}", "results/m/r/b.json": b"[]", "benchmarks.json": b"[]"}
    hostile = {
        "results/../../escaped.json": b"x",  # a name that climbs out of the destination
        "results/m/clash": b"file",  # ... and the same name as a folder, in the dataset itself
        "results/m/clash/inner.json": b"{}",
        "results/here/taken.json": b"{}",  # a folder already stands at this path locally
    }
    dest = tmp_path / "pulled"
    (dest / "results" / "here" / "taken.json").mkdir(parents=True)
    with HubServer() as hub:
        hub.state.repos["lb/results"] = Repo(files=good | hostile)
        report = HubStore("lb/results", endpoint=hub.endpoint, token="hf_x").pull_report(dest)
        ran = CliRunner().invoke(
            cli, ["pull", str(tmp_path / "cli"), "--repo", "lb/results", "--endpoint", hub.endpoint]
        )
    assert sorted(report.files) == sorted([*good, "results/m/clash/inner.json"])
    for name, data in good.items():
        assert (dest / name).read_bytes() == data
    skipped = dict(report.skipped)
    assert set(skipped) == {"results/../../escaped.json", "results/m/clash", "results/here/taken.json"}
    assert "'..'" in skipped["results/../../escaped.json"] and "is a folder" in skipped["results/here/taken.json"]
    assert not (tmp_path / "escaped.json").exists()
    assert ran.exit_code == 4, ran.output  # the exit code says something was skipped
    assert "Pull incomplete" in ran.output and "results/m/clash" in ran.output
    assert (tmp_path / "cli" / "results" / "m" / "r" / "a.json").is_file()


# -- shards -------------------------------------------------------------------------------------------


class Counting:
    """A tiny dense model that counts the texts it encodes."""

    def __new__(cls, *args, **kwargs):
        from leaderboard.contract.model import DenseModel, ModelKind, ModelMetadata

        class _Model(DenseModel):
            metadata = ModelMetadata("counting", ModelKind.DENSE, revision="1", similarity="cosine")

            def __init__(self):
                self.encoded = 0

            def encode(self, texts, role):
                self.encoded += len(texts)
                out = np.zeros((len(texts), 8), dtype=np.float32)
                for i, text in enumerate(texts):
                    for ch in text:
                        out[i, ord(ch) % 8] += 1
                return out + 0.01

        return _Model()


CORPUS = {f"d{i}": f"passage {i} " + "word " * (i % 5) for i in range(30)}
QUERIES = {"q": "passage word", "r": "7"}


def _search(model, shard_dir, corpus=CORPUS, **options):
    from leaderboard.engine.dense import SearchOptions, dense_search

    options = SearchOptions(shard_rows=8, shard_dir=shard_dir, keep_shards=True, **options)
    return dense_search(model, corpus, QUERIES, 5, batch_size=4, options=options)


def test_a_damaged_shard_of_the_right_size_is_encoded_again(tmp_path):
    first_model = Counting()
    first = _search(first_model, tmp_path)
    assert first_model.encoded == 30 + 2
    (shard,) = [p for p in tmp_path.rglob("shard-000001.npy")]
    raw = bytearray(shard.read_bytes())
    raw[-16:] = b"\x7f" * 16  # same size, other numbers
    shard.write_bytes(bytes(raw))
    again_model = Counting()
    again = _search(again_model, tmp_path)
    assert again_model.encoded == 8 + 2  # only the damaged shard, and the queries
    assert again == first


def test_a_changed_corpus_never_reuses_shards(tmp_path):
    _search(Counting(), tmp_path)
    changed = dict(CORPUS) | {"d3": "an entirely different passage"}
    model = Counting()
    run = _search(model, tmp_path, corpus=changed)
    assert model.encoded == 30 + 2
    fresh = _search(Counting(), tmp_path / "other", corpus=changed)
    assert run == fresh


def test_a_folder_claiming_another_store_is_cleared(tmp_path):
    _search(Counting(), tmp_path)
    (identity,) = tmp_path.rglob("store.json")
    data = json.loads(identity.read_text())
    data["key"]["model"] = "someone-else"
    identity.write_text(json.dumps(data))
    model = Counting()
    _search(model, tmp_path)
    assert model.encoded == 30 + 2  # nothing reused from a folder that is not provably this store's


def test_two_runs_cannot_write_one_shard_folder(tmp_path, monkeypatch):
    from leaderboard.engine.corpus_store import DocumentTexts, ShardStore, make_plan

    plan = make_plan(DocumentTexts(CORPUS))
    key = {"model": "counting", "revision": "1", "settings": {}}
    holder = ShardStore.open(key, plan, 8, "float32", tmp_path, memory=False)
    monkeypatch.setenv("LEADERBOARD_SHARD_LOCK_TIMEOUT", "0.2")
    with pytest.raises(BadInput, match=r"is being written by another run .*LEADERBOARD_SHARD_LOCK_TIMEOUT=0.2 s"):
        ShardStore.open(key, plan, 8, "float32", tmp_path, memory=False)
    monkeypatch.setenv("LEADERBOARD_SHARD_LOCK_TIMEOUT", "30")
    opened = []
    waiter = threading.Thread(target=lambda: opened.append(ShardStore.open(key, plan, 8, "float32", tmp_path, False)))
    waiter.start()
    waiter.join(0.5)
    assert waiter.is_alive()  # waits for the holder ...
    holder.close()
    waiter.join(10)
    assert opened and opened[0].folder == holder.folder  # ... then has the folder to itself
    opened[0].close()


def test_a_second_run_on_a_held_shard_folder_learns_it_before_its_model_loads(tmp_path, monkeypatch):
    """Issue 31: the second of two runs on one --shard-dir learned it must wait only after loading its model
    and hashing the corpus. The writer lock is now taken before the model loads."""
    import time

    from scale_fixtures import HashEncoder, PerQueryBeirTask, registry_with, write_beir

    corpus = {f"d{i}": f"passage {i} about " + " ".join(["fig", "plum", "kiwi"][: 1 + i % 3]) for i in range(40)}
    queries = {"q0": "fig", "q1": "plum kiwi"}
    root = write_beir(tmp_path / "data", corpus, queries, {q: {"d1": 1} for q in queries})
    registry = registry_with("tiny-lock", lambda request: PerQueryBeirTask(root, name="tiny-lock"))
    shards = tmp_path / "shards"
    common = {"use_cache": False, "shard_rows": 4, "batch_size": 1, "registry": registry, "shard_dir": str(shards)}
    finished: list = []
    first = threading.Thread(
        target=lambda: finished.extend(
            leaderboard.evaluate([HashEncoder(delay=0.3)], ["tiny-lock"], output=tmp_path / "a", **common)
        )
    )
    first.start()
    deadline = time.monotonic() + 120
    while not list(shards.rglob("shard-*.json")) and first.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)  # until the first run is writing shards (it holds the folder)
    assert first.is_alive(), "the first run ended before the second could start"

    loaded: list[int] = []

    class Loading(HashEncoder):
        def load(self) -> None:
            loaded.append(1)

    from leaderboard.errors import Note

    monkeypatch.setenv("LEADERBOARD_SHARD_LOCK_TIMEOUT", "0.2")
    with (
        pytest.warns(Note, match="another run is writing shards for hash-encoder on this data"),
        pytest.raises(BadInput, match=r"being written by another run .*LEADERBOARD_SHARD_LOCK_TIMEOUT=0\.2 s"),
    ):
        leaderboard.evaluate([Loading()], ["tiny-lock"], output=tmp_path / "b", **common)
    assert loaded == []  # refused before the model loaded
    first.join(300)
    assert finished and finished[0].status == "written"
