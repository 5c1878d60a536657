"""One identity per model: ``BM25`` (or ``ｂｍ２５``, or ``org__model`` for ``org/model``) is the model already
published as ``bm25`` (``org/model``), never a second one beside it.

- the identity itself (NFKC, case folding, ``/`` and ``__`` alike) and the collision rule;
- ``submit`` refuses a request whose identity is published under another spelling, or by another plugin
  distribution, naming both; the same plugin's new revision is welcome;
- the worker refuses such a request again (a request file written by hand skips ``submit``), before the
  plugin is installed, in both isolation modes; nothing is published;
- ``push`` refuses a second spelling of a model the dataset holds;
- the board keeps one page per identity, flags a collision a dataset already holds, and a link in any
  spelling opens that page.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import HUB_TOKEN, run_cli
from hub_server import HubServer
from queue_fixtures import BENCHMARK, REQUESTS, RESULTS, build_wheel, hostile_plugin, hub_env
from test_queue_worker import world  # noqa: F401  (the queue's wheels and data, made once per module)

from leaderboard.errors import BadInput
from leaderboard.hub.store import HubStore, collect
from leaderboard.queue.dataset import RequestsDataset
from leaderboard.queue.requests import EvalRequest, Event, new_id, now
from leaderboard.queue.submit import Submission, submit

pytestmark = pytest.mark.usefixtures("hub_online")


def test_names_a_reader_cannot_tell_apart_are_one_identity():
    from leaderboard.records.identity import identity

    assert identity("BM25") == identity("bm25") == identity("ｂｍ２５") == identity(" Bm25 ")
    assert identity("org/Model") == identity("org__model") == identity("ORG__MODEL")
    assert identity("Straße") == identity("STRASSE")  # case folding, not lower-casing
    assert identity("bm25") != identity("bm25-okapi") and identity("a/b") != identity("a_b")


def test_a_collision_is_another_spelling_or_the_same_spelling_from_another_plugin():
    from leaderboard.records.identity import Claim, conflicts

    published = [Claim("bm25", plugin="bm25", where="results/bm25/model_card.json")]
    assert conflicts(Claim("BM25", plugin="bm25"), published) == published  # another spelling: always
    assert conflicts(Claim("bm25", plugin="impostor"), published) == published  # another plugin
    assert conflicts(Claim("bm25", plugin="bm25"), published) == []  # the same plugin's new revision
    assert conflicts(Claim("bm25", plugin="impostor"), published, spelling_only=True) == []
    by_queue = [Claim("bm25", distribution="retrieval_leaderboard", where="request r")]
    assert conflicts(Claim("bm25", distribution="Retrieval-Leaderboard"), by_queue) == []  # PEP 503 names
    assert conflicts(Claim("bm25", distribution="impostor-bm25"), by_queue) == by_queue


@pytest.fixture
def hub():
    with HubServer() as server:
        yield server


def _published_bm25(hub, demo: Path, tmp_path: Path) -> None:
    """bm25's demo result and card in the results dataset, and the finished request that published them."""
    store = HubStore(RESULTS, hub.endpoint, HUB_TOKEN)
    store.push(collect(demo), "bm25")
    requests = RequestsDataset(REQUESTS, hub.endpoint, HUB_TOKEN)
    requests.ensure_exists()
    at = now()
    lease = {"worker": "w", "attempt": 1, "claimed_at": at, "heartbeat": at}
    finished = EvalRequest.model_validate(
        dict(id=new_id("bm25", at), plugin="retrieval-leaderboard==0.2.0", model="bm25", benchmarks=[BENCHMARK],
             contact="maintainers", submitted_at=at, status="finished", attempts=1, lease=lease, results_repo=RESULTS,
             results=["results/bm25/x/demo.json"], history=[Event(at=at, status="pending", by="submit")])
    )  # fmt: skip
    requests.store.commit({finished.path: finished.to_bytes()}, "finished", requests.store.head())


@pytest.fixture
def wheels(tmp_path):
    folder = tmp_path / "wheels"
    build_wheel(tmp_path / "src", folder, "impostor-bm25", "impostor_bm25", hostile_plugin("BM25", "pass"), "1.0.0")
    build_wheel(tmp_path / "src", folder, "retrieval-leaderboard", "rl_next", hostile_plugin("bm25", "pass"), "9.0.0")
    return ("--no-index", f"--find-links={folder}")


def test_submit_refuses_another_spelling_or_plugin_of_a_published_model_naming_both(
    hub, bm25_demo_template, tmp_path, wheels
):
    _published_bm25(hub, bm25_demo_template / "results", tmp_path)
    dataset = RequestsDataset(REQUESTS, hub.endpoint, HUB_TOKEN)
    for model in ("BM25", "Bm25", "bm25"):  # two other spellings, and bm25's own spelling from another plugin
        with pytest.raises(BadInput) as refused:
            submit(dataset, Submission("impostor-bm25==1.0.0", model, (BENCHMARK,), "me@example.org"),
                   pip_index_args=wheels)  # fmt: skip
        said = str(refused.value)
        assert f"model '{model}' (impostor-bm25)" in said and "the published model 'bm25'" in said, said
        assert "one model" in said
    assert not [r for r in dataset.snapshot().requests.values() if r.status == "pending"]  # nothing written
    # the plugin that published bm25, at a new version: welcome
    welcome = submit(dataset, Submission("retrieval-leaderboard==9.0.0", "bm25", (BENCHMARK,), "me@example.org"),
                     pip_index_args=wheels)  # fmt: skip
    assert welcome.status == "pending"


@pytest.mark.slow
@pytest.mark.parametrize("isolation", ["bwrap", "process"])
def test_the_worker_refuses_a_hand_written_request_for_another_spelling_before_installing_it(
    hub,
    world,  # noqa: F811  (the fixture imported above)
    bm25_demo_template,
    tmp_path,
    monkeypatch,
    isolation,
):
    from test_queue_worker import dataset_files, mode_worker

    from leaderboard.queue.sandbox import bwrap_available

    if isolation == "bwrap" and not bwrap_available():
        pytest.skip("bubblewrap cannot run here (.ci/run installs it)")
    _published_bm25(hub, bm25_demo_template / "results", tmp_path)
    build_wheel(tmp_path / "src", world / "wheels", f"impostor-{isolation}", f"impostor_{isolation}",
                hostile_plugin("BM25", "pass"), "1.0.0")  # fmt: skip
    at = now()
    hand_written = EvalRequest(id=new_id("BM25", at), plugin=f"impostor-{isolation}==1.0.0", model="BM25",
                               benchmarks=[BENCHMARK], contact="me@example.org", submitted_at=at,
                               history=[Event(at=at, status="pending", by="someone with write access")])  # fmt: skip
    store = RequestsDataset(REQUESTS, hub.endpoint, HUB_TOKEN).store
    store.commit({hand_written.path: hand_written.to_bytes()}, "by hand", store.head())
    before = dict(dataset_files(hub, RESULTS))
    (final,) = mode_worker(hub, world, tmp_path, isolation, monkeypatch).run(once=True)
    assert final.id == hand_written.id and final.status == "failed", final.failure
    assert "model 'BM25' (impostor-" in final.failure and "the published model 'bm25' (bm25)" in final.failure
    assert dataset_files(hub, RESULTS) == before  # nothing published: no result, no card
    log = dataset_files(hub, REQUESTS)[final.log].decode()
    assert "installing" not in log  # refused before its code was installed or run


def _respelled(demo_results: Path, root: Path, name: str) -> Path:
    """A copy of bm25's demo result under another spelling of its name (and another plugin)."""
    (source,) = demo_results.rglob("demo.json")
    data = json.loads(source.read_text())
    data["model"].update(name=name, plugin="impostor")
    data["model"]["metadata"]["name"] = name
    target = root / name / source.parent.name / "demo.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(data))
    return root


def test_push_refuses_another_spelling_of_a_model_the_dataset_holds(hub, bm25_demo_template, tmp_path):
    HubStore(RESULTS, hub.endpoint, HUB_TOKEN).push(collect(bm25_demo_template / "results"), "bm25")
    mine = _respelled(bm25_demo_template / "results", tmp_path / "mine", "BM25")
    pushed = run_cli("push", str(mine), "--repo", RESULTS, env=hub_env(hub.endpoint))
    said = " ".join(pushed.stderr.split())
    assert pushed.returncode == 2, pushed.stdout + pushed.stderr
    assert "'BM25' (impostor), results/BM25/model_card.json and 'bm25' (bm25), results/bm25/model_card.json" in said
    assert "are one model name up to case" in said and "Traceback" not in said
    assert not [p for p in hub.state.repos[RESULTS].files if p.startswith("results/BM25/")]


def test_the_board_keeps_one_page_per_identity_and_flags_a_collision_the_dataset_holds(bm25_demo_template, tmp_path):
    from leaderboard.app.data.model_index import model_index
    from leaderboard.app.server.loading import load
    from leaderboard.app.views.model import model_page_html

    identity = str.casefold  # enough to find bm25's page here (the identity itself is tested above)

    results = Path(shutil.copytree(bm25_demo_template / "results", tmp_path / "results"))
    _respelled(bm25_demo_template / "results", results, "BM25")
    board = load(results, public=False, persist=False)
    index = model_index(board)
    (page,) = [name for name in index.names if identity(name) == "bm25"]  # one page, not two
    assert index.resolve("BM25") == index.resolve("bm25") == index.resolve("ｂｍ２５") == page
    other = "BM25" if page == "bm25" else "bm25"
    assert index.collisions == {page: [other]}
    assert {entry.line.name for entry in index.of("bm25")} == {"bm25", "BM25"}
    html = model_page_html(board, "BM25")
    assert 'id="model-collision"' in html and "Name collision" in html
    assert f"as <b>{other}</b>" in html  # the other spelling's rows say whose they are
