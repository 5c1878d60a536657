"""The queue's keys, handled like SSH keys, and attestations bound to their whole path.

- a private key readable by group or others is refused, with the ``chmod 600 PATH`` to run;
- an attested result copied under another model's folder (or revision) does not verify there;
- the keyring: a rotation retires the current key, whose results then read "attested by retired key K
  (retired on DATE)" and still verify; only a revoked key makes its results invalid. On the stand-in hub a
  worker with the retired key refuses to start, one with the new key starts, and readers take the keyring
  from the requests dataset;
- docs/explanation/attestation.md's rotation, retirement and revocation run as written.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import HUB_TOKEN, REPO, run_cli
from queue_fixtures import REQUESTS, RESULTS, hub_env

from leaderboard.errors import BadInput
from leaderboard.queue.sandbox import bwrap_available


def new_key(path: Path, mode: int = 0o600):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

    private = Ed25519PrivateKey.generate()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(private.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    path.chmod(mode)
    return private


def attest(private, result: Path, where: str | None = None) -> None:
    """What the worker writes beside a result it published at ``where`` (default: the result's own place)."""
    from leaderboard.queue.attestation import sign
    from leaderboard.records.listing import attestation_path

    where = where or f"results/{result.parent.parent.name}/{result.parent.name}/{result.name}"
    signed = sign(private, where, result.read_bytes(), "r-1", "retrieval-leaderboard==0.2.0", "worker-1")
    Path(attestation_path(str(result))).write_bytes(signed)


def public_pem(private, path: Path) -> Path:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    path.write_bytes(private.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo))
    return path


# -- a private key others can read ----------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604])
def test_a_private_key_readable_by_others_is_refused_with_the_chmod_to_run(tmp_path, mode):
    from leaderboard.queue.attestation import load_private_key

    key = tmp_path / "queue-key.pem"
    new_key(key, mode)
    with pytest.raises(BadInput, match=rf"let others read it; .* Run: chmod 600 {key}$"):
        load_private_key(key)
    key.chmod(0o600)
    assert load_private_key(key) is not None
    key.chmod(0o400)
    assert load_private_key(key) is not None


@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here (.ci/run installs it)")
def test_a_worker_given_a_world_readable_key_refuses_to_start_saying_the_chmod(tmp_path):
    key = tmp_path / "keys" / "queue-key.pem"
    new_key(key, 0o644)
    ran = run_cli("worker", "--requests", REQUESTS, "--results", RESULTS, "--once", "--attestation-key", str(key),
                  "--work-dir", str(tmp_path / "work"), env=hub_env("http://127.0.0.1:9"))  # fmt: skip
    said = " ".join(ran.stderr.split())
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert f"Run: chmod 600 {key}" in said and "-rw-r--r--" in said and "Traceback" not in said
    assert key.read_text().splitlines()[1] not in ran.stdout + ran.stderr


# -- the whole path -------------------------------------------------------------------------------------------------
def test_an_attestation_does_not_verify_at_a_path_it_does_not_name(tmp_path, bm25_demo_template):
    results = Path(shutil.copytree(bm25_demo_template / "results", tmp_path / "results"))
    (result,) = results.rglob("demo.json")
    private = new_key(tmp_path / "keys" / "queue.pem")
    attest(private, result)
    key = public_pem(private, tmp_path / "queue-public-key.pem")
    honest = run_cli("verify", str(results), "--attestations", "--queue-key", str(key))
    assert honest.returncode == 0 and "1 of 1 result(s) evaluated by the queue" in honest.stderr, honest.stderr
    for model, revision in (("victim-model", result.parent.name), (result.parent.parent.name, "other-revision")):
        moved = results / model / revision
        moved.mkdir(parents=True)
        for path in result.parent.iterdir():  # the result and its attestation, byte for byte
            shutil.copy(path, moved / path.name)
        checked = run_cli("verify", str(results), "--attestations", "--queue-key", str(key))
        said = " ".join(checked.stderr.split())
        assert checked.returncode == 2, checked.stderr
        here = f"results/{model}/{revision}/demo.json"
        assert f"the attestation is for results/bm25/{result.parent.name}/demo.json, not for this file's place " in said
        assert here in said and "1 of 2 result(s) carry an attestation that does not hold" in said
        shutil.rmtree(moved)


# -- rotation, retirement, revocation -------------------------------------------------------------------------------
def test_a_rotation_retires_a_key_whose_results_still_verify_and_only_a_revocation_invalidates_them(
    tmp_path, bm25_demo_template
):
    from leaderboard.security.attestation import key_id

    results = Path(shutil.copytree(bm25_demo_template / "results", tmp_path / "results"))
    (result,) = results.rglob("demo.json")
    first = new_key(tmp_path / "keys" / "first.pem")
    attest(first, result)
    ring = tmp_path / "keyring.json"
    made = run_cli("queue-key", "rotate", "--keyring", str(ring), "--new-key", str(tmp_path / "keys" / "first.pem"))
    assert made.returncode == 0, made.stderr
    old = key_id(first.public_key())

    second = tmp_path / "keys" / "second.pem"
    made = run_cli("queue-key", "new", str(second))
    assert made.returncode == 0 and oct(second.stat().st_mode & 0o777) == "0o600", made.stderr
    rotated = run_cli("queue-key", "rotate", "--keyring", str(ring), "--new-key", str(second), "--format", "json")
    assert rotated.returncode == 0, rotated.stderr
    listed = {row["key"]: row for row in json.loads(rotated.stdout)}
    assert listed[old]["status"] == "retired" and listed[old]["retired"]
    retired_on = listed[old]["retired"]

    verified = run_cli("verify", str(results), "--attestations", "--queue-key", str(ring), "--format", "json")
    assert verified.returncode == 0, verified.stderr  # a routine rotation is not tampering
    (row,) = json.loads(verified.stdout)
    assert row["provenance"] == f"attested by retired key {old} (retired on {retired_on})"
    shown = run_cli("show", str(results), "--format", "json", "--queue-key", str(ring))
    assert json.loads(shown.stdout)[0]["provenance"] == f"attested by retired key {old} (retired on {retired_on})"

    revoked = run_cli("queue-key", "revoke", old, "--keyring", str(ring), "--reason", "it leaked")
    assert revoked.returncode == 0, revoked.stderr
    failed = run_cli("verify", str(results), "--attestations", "--queue-key", str(ring))
    said = " ".join(failed.stderr.split())
    assert failed.returncode == 2 and f"attested by revoked key {old} (revoked on " in said and "it leaked" in said
    again = run_cli("queue-key", "rotate", "--keyring", str(ring), "--new-key", str(tmp_path / "keys" / "first.pem"))
    assert again.returncode == 2 and "a key never becomes current again" in again.stderr


@pytest.mark.usefixtures("hub_online")
def test_on_the_hub_a_rotation_is_published_and_a_worker_with_the_retired_key_refuses_to_start(tmp_path):
    from hub_server import HubServer

    from leaderboard.hub.queue_keys import read_queue_key
    from leaderboard.queue.attestation import load_private_key, publish_key
    from leaderboard.queue.dataset import RequestsDataset
    from leaderboard.security.attestation import KEYRING_FILE, PUBLIC_KEY_FILE, key_id, public_pem

    first, second = new_key(tmp_path / "first.pem"), new_key(tmp_path / "second.pem")
    with HubServer() as hub:
        dataset = RequestsDataset(REQUESTS, hub.endpoint, HUB_TOKEN)
        dataset.ensure_exists()
        assert "published" in publish_key(dataset, load_private_key(tmp_path / "first.pem"))
        env = hub_env(hub.endpoint)
        rotated = run_cli("queue-key", "rotate", "--requests", REQUESTS, "--new-key", str(tmp_path / "second.pem"),
                          env=env)  # fmt: skip
        assert rotated.returncode == 0, rotated.stderr
        files = hub.state.repos[REQUESTS].files
        assert files[PUBLIC_KEY_FILE] == public_pem(second.public_key())  # readers of earlier versions: the new key
        assert json.loads(files[KEYRING_FILE])["keys"][0]["retired"]
        keyring = read_queue_key(f"hf://{REQUESTS}", hub.endpoint)
        assert keyring.key_id == key_id(second.public_key())
        assert keyring.get(key_id(first.public_key())).status == "retired"
        with pytest.raises(BadInput, match=rf"this worker's key {key_id(first.public_key())} is retired key"):
            publish_key(dataset, load_private_key(tmp_path / "first.pem"))
        assert "current in" in publish_key(dataset, load_private_key(tmp_path / "second.pem"))
        shown = run_cli("queue-key", "show", "--requests", REQUESTS, "--format", "json", env=env)
        assert [row["status"] for row in json.loads(shown.stdout)] == ["retired", "current"], shown.stderr


@pytest.mark.usefixtures("hub_online")
def test_a_board_started_before_the_key_is_published_marks_the_queue_results_at_its_next_poll(tmp_path, capsys):
    """`serve --requests` started before the first worker run finds no key; the worker then publishes the key and
    its signed results: the board's next poll reads the keyring and marks them, without a restart."""
    from hub_server import HubServer

    import leaderboard
    from leaderboard.app.ui import build_app
    from leaderboard.hub.store import HubStore
    from leaderboard.queue.attestation import load_private_key, publish_key
    from leaderboard.queue.dataset import RequestsDataset
    from leaderboard.security.attestation import attestation_path, key_id

    private = new_key(tmp_path / "keys" / "queue.pem")
    out = tmp_path / "made" / "results"
    made = {o.model: o.path for o in leaderboard.evaluate(["bm25", "bm25-okapi"], ["demo"], output=out)}
    attest(private, made["bm25"])  # what the worker writes beside a result it publishes

    def files(*paths: Path) -> dict[str, bytes]:
        return {str(p.relative_to(out.parent)): p.read_bytes() for p in paths}

    def marks(app) -> dict[str, str | None]:
        board = app.live_board.board
        (name,) = board.benchmark_names
        return {line.name: line.attested for line in board.ranking(name, with_stats=False).lines}

    with HubServer() as hub:
        results = HubStore(RESULTS, hub.endpoint, HUB_TOKEN)
        results.create()
        results.commit(files(made["bm25-okapi"]), "a pushed baseline", results.head())
        app = build_app(f"hf://{RESULTS}", endpoint=hub.endpoint, requests=REQUESTS)  # no poll thread: checked below
        said = " ".join(capsys.readouterr().err.split())
        assert "queue key not read, no result is marked as evaluated by the queue" in said, said
        assert "not found (HTTP 404); check --requests." in said
        assert app.live_board.check() is False  # nothing changed: nothing rebuilt, nothing said again
        assert capsys.readouterr().err == ""

        dataset = RequestsDataset(REQUESTS, hub.endpoint, HUB_TOKEN)
        dataset.ensure_exists()
        publish_key(dataset, load_private_key(tmp_path / "keys" / "queue.pem"))  # the worker's first run
        assert app.live_board.check() is True  # the keyring changed: rebuilt from the revision shown
        said = " ".join(capsys.readouterr().err.split())
        assert f"read queue key {key_id(private.public_key())}, from hf://{REQUESTS}/" in said, said
        assert app.live_board.check() is False  # read once per commit of the requests dataset

        signed = [made["bm25"], Path(attestation_path(str(made["bm25"])))]
        results.commit(files(*signed), "the worker's results", results.head())
        assert app.live_board.check() is True
        assert marks(app) == {"bm25": "evaluated by the queue", "bm25-okapi": None}


# -- the attestation page, as written ---------------------------------------------------------------------------------
PAGE = REPO / "docs" / "explanation" / "attestation.md"


def test_the_attestation_page_rotates_retires_and_revokes_a_key_as_written(tmp_path, bm25_demo_template):
    """Its runnable blocks run in order (as tests/test_docs.py runs the tutorials), in a folder holding what the
    page says it holds: results the queue signed with keys/queue-1.pem, and a keyring with that key current."""
    import subprocess

    from test_docs import RUNNERS, _environment, code_blocks

    blocks = code_blocks(PAGE)
    for block in blocks:  # every block runs or says why not, as on the tutorials
        assert block.marker == "not-run" or block.lang in RUNNERS, f"{PAGE.name}:{block.line}"
    runnable = [b for b in blocks if b.marker is None]
    assert len(runnable) >= 3
    work = tmp_path / "work"
    results = Path(shutil.copytree(bm25_demo_template / "results", work / "results"))
    first = new_key(work / "keys" / "queue-1.pem")
    for result in results.rglob("*.json"):
        attest(first, result)
    env = _environment(work)
    made = subprocess.run(["leaderboard", "queue-key", "rotate", "--keyring", "keyring.json", "--new-key",
                           "keys/queue-1.pem"], cwd=work, env=env, capture_output=True, text=True)  # fmt: skip
    assert made.returncode == 0, made.stderr
    said = []
    for block in runnable:
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block.code], cwd=work, env=env,
                              capture_output=True, text=True, timeout=600)  # fmt: skip
        where = f"{PAGE.relative_to(REPO)}:{block.line}"
        assert done.returncode == 0, f"{where} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
        assert "Traceback" not in done.stderr, where
        said.append(" ".join((done.stdout + done.stderr).split()))
    checked, rotation, revocation = said[0], said[1], said[2]
    from leaderboard.security.attestation import key_id

    old = key_id(first.public_key())
    assert "evaluated by the queue" in checked and "attested by retired key" not in checked
    assert f"attested by retired key {old} (retired on " in rotation
    assert "verify exited with 2" in revocation and "attestation INVALID" in revocation
    assert f"attested by revoked key {old}" in revocation and "the key leaked" in revocation
