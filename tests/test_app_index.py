"""The index the board and `show` read: validate once, notice changes by stat or bytes, never trust a
damaged index, never block on a file that is not one; and the live board following a hub dataset."""

import json
import os
import shutil

import pytest
from hub_server import HubServer

import leaderboard
from leaderboard.records import index_checks as index_module
from leaderboard.records.index import build_index, index_file

TOKEN = "hf_TestTokenThatMustNeverBePrinted123"


@pytest.fixture(scope="module")
def seed(tmp_path_factory):
    out = tmp_path_factory.mktemp("seed")
    leaderboard.evaluate(["bm25"], ["demo", "multiconir-demo-task1"], output=out)
    return out


@pytest.fixture
def results(seed, tmp_path):
    target = tmp_path / "results"
    shutil.copytree(seed, target)
    return target


@pytest.fixture
def validations(monkeypatch):
    calls = []
    real = index_module._validate

    def counted(path, rel, key):
        calls.append(rel)
        return real(path, rel, key)

    monkeypatch.setattr(index_module, "_validate", counted)
    return calls


def test_each_file_is_validated_once_and_changes_are_noticed(results, validations):
    first = build_index(results)
    assert len(first.rows) == 2 and len(validations) == 2
    summary = first.rows[0][1]
    for key in ("main_score", "queries", "complete", "created_at"):
        assert key in summary  # what `leaderboard show` reads
    assert {"name", "revision"} <= set(summary["model"]) and {"name", "main_score"} <= set(summary["task"])

    build_index(results)
    assert len(validations) == 2  # unchanged: read back from the index

    demo = next(results.rglob("demo.json"))
    demo.write_bytes(demo.read_bytes())  # same bytes, new mtime (a pull rewrites every file)
    build_index(results)
    assert len(validations) == 2

    data = json.loads(demo.read_text())
    data["main_score"] = 0.5
    data["scores"]["test"]["default"]["ndcg_at_10"] = 0.5
    data["per_query"] = None  # its values would no longer average to the score (refused since issue 23) ...
    data["coverage"]["complete"] = False  # ... and only a partial result may lack them (issue 31)
    demo.write_text(json.dumps(data))
    changed = build_index(results)
    assert len(validations) == 3
    assert next(s for _, s in changed.rows if s["task"]["name"] == "demo")["main_score"] == 0.5

    demo.unlink()
    assert len(build_index(results).rows) == 1


def test_details_per_query_and_task_declarations_come_on_demand(results):
    index = build_index(results)
    (demo_path,) = [p.relative_to(results).as_posix() for p, s in index.rows if s["task"]["name"] == "demo"]
    detail = index.details([demo_path])[demo_path]
    assert "ndcg_at_10" in detail["scores"]["test"]["default"]
    tasks = index.tasks()
    assert set(tasks) == {"demo", "multiconir-demo-task1"}
    assert tasks["demo"]["main_score"] == "ndcg_at_10" and "source" not in tasks["demo"]
    assert index.details(["not/indexed.json"]) == {}


def test_a_damaged_index_is_rebuilt_from_the_files(results, validations):
    build_index(results)
    index_file(results).write_bytes(b"this is not an sqlite database" * 100)
    rebuilt = build_index(results)
    assert len(rebuilt.rows) == 2 and len(validations) == 4
    assert build_index(results).database is not None and len(validations) == 4


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_things_named_json_that_are_not_files_are_skipped_without_blocking(results):
    os.mkfifo(results / "pipe.json")
    (results / "folder.json").mkdir()
    (results / "dangling.json").symlink_to(results / "nowhere")
    skipped = {path.name: reason for path, reason in build_index(results).skipped}
    assert "not a regular file" in skipped["pipe.json"] and "not a regular file" in skipped["folder.json"]
    assert "broken symbolic link" in skipped["dangling.json"]


def test_the_live_board_follows_new_commits_to_the_results_dataset(seed, tmp_path, monkeypatch):
    """A new commit appears on the next poll, without a restart; the revision shown changes with it."""
    import huggingface_hub.constants

    from leaderboard.app.server import loading
    from leaderboard.app.server.live import LiveBoard
    from leaderboard.app.server.sources import Source
    from leaderboard.hub.store import HubStore, collect

    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    other = tmp_path / "other"
    shutil.copytree(seed, other)
    for path in other.rglob("*.json"):
        record = json.loads(path.read_text())
        record["model"]["name"] = record["model"]["metadata"]["name"] = "second-model"
        path.write_text(json.dumps(record))
    os.rename(next(other.iterdir()), other / "second-model")
    with HubServer() as hub:
        store = HubStore("lb/results", endpoint=hub.endpoint, token=TOKEN)
        store.push(collect(seed), "first")
        live = LiveBoard(
            Source("hf://lb/results", hub.endpoint),
            lambda folder, revision: loading.load(folder, public=False, revision=revision),
            poll_seconds=None,
        )
        first_revision = live.board.revision
        assert first_revision == store.head()
        assert {r["model"]["name"] for r in live.board.rows} == {"bm25"}
        assert live.check() is False  # nothing new
        store.push(collect(other), "second")
        assert live.check() is True and live.generation == 1
        assert {r["model"]["name"] for r in live.board.rows} == {"bm25", "second-model"}
        assert live.board.revision == store.head() != first_revision
        assert live.board.revision[:12] in data_status(live.board)


def data_status(board):
    from leaderboard.app.views.status import status_line

    return status_line(board)


def test_a_board_is_kept_out_of_full_collections_and_the_board_it_replaces_is_collected(tmp_path):
    """At 100,000 imported results a full collection walked 580,000 objects (0.38 s, in the middle of a click):
    a loaded board is frozen out of them (``memory.keep_out_of_collections``). A new board unfreezes and
    collects first, so the one it replaced goes, cycles included."""
    import gc
    import weakref

    from leaderboard.app.server.live import LiveBoard
    from leaderboard.app.server.sources import Source

    class Made:  # a board as LiveBoard sees it, holding a reference cycle (which only a collection frees)
        benchmarks: tuple = ()

        def __init__(self) -> None:
            self.cycle = self

    made = []

    def make(folder, revision):
        made.append(Made())
        return made[-1]

    (tmp_path / "a.json").write_text("{}")
    live = LiveBoard(Source(str(tmp_path)), make, poll_seconds=60)  # polling: the folder's fingerprint is kept
    first = weakref.ref(made.pop())
    assert gc.get_freeze_count() > 0
    assert not any(obj is live.board for obj in gc.get_objects(generation=2))  # no full pass walks it
    (tmp_path / "b.json").write_text("{}")
    assert live.check() is True
    assert first() is None  # the replaced board, a cycle, was collected
    assert not any(obj is live.board for obj in gc.get_objects(generation=2))
