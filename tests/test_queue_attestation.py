"""The whole path of an attestation, against the stand-in hub: a worker holding the queue's key
evaluates a request, publishes its public key in the requests dataset and an attestation beside the result;
pulled, the result is "evaluated by the queue" for `show` and on the board; a worker with another key refuses
to start. The key is never printed."""

import json
import subprocess
import sys

import pytest
from conftest import HUB_TOKEN, run_cli
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from queue_fixtures import REQUESTS, RESULTS, hub_env
from test_queue_worker import dataset_files, hub, request, state, worker_args, world  # noqa: F401  (fixtures)

from leaderboard.queue.sandbox import bwrap_available
from leaderboard.security import attestation

pytestmark = [
    pytest.mark.venv,  # the queue installs each plugin into a fresh venv in its sandbox
    pytest.mark.usefixtures("hub_online"),
    pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here (.ci/run installs it)"),
]
RESULT = "results/word-overlap/0.3.0/negconstraint.json"


def write_key(path):
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    path.write_bytes(pem)
    path.chmod(0o600)  # a private key readable by others is refused, as ssh refuses one
    return private, pem.decode()


def test_the_worker_attests_what_it_publishes_and_readers_mark_it(hub, world, tmp_path, capsys):  # noqa: F811
    private, pem = write_key(tmp_path / "queue-key.pem")
    submitted = request(hub, world, "leaderboard-word-overlap==0.3.0", "word-overlap")
    env = hub_env(hub.endpoint, LEADERBOARD_QUEUE_KEY_FILE=str(tmp_path / "queue-key.pem"))
    ran = run_cli(*worker_args(world, "--once", "--work-dir", str(tmp_path / "work")), env=env)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert state(hub, submitted.id).status == "finished"
    key_line = pem.splitlines()[1]
    assert key_line not in ran.stdout + ran.stderr
    public = dataset_files(hub, REQUESTS)[attestation.PUBLIC_KEY_FILE]
    assert public == attestation.public_pem(private.public_key())
    keyring = attestation.parse_keyring(dataset_files(hub, REQUESTS)[attestation.KEYRING_FILE], "keyring")
    assert [(k.key_id, k.status) for k in keyring.keys] == [(attestation.key_id(private.public_key()), "current")]
    published = dataset_files(hub, RESULTS)
    sidecar = json.loads(published[attestation.attestation_path(RESULT)])
    assert (sidecar["request"], sidecar["plugin"], sidecar["result"]) == (
        submitted.id,
        "leaderboard-word-overlap==0.3.0",
        RESULT,
    )
    log = dataset_files(hub, REQUESTS)[state(hub, submitted.id).log].decode()
    assert key_line not in log

    pulled = run_cli("pull", str(tmp_path / "pulled"), "--repo", RESULTS, env=hub_env(hub.endpoint))
    assert pulled.returncode == 0, pulled.stderr
    folder = tmp_path / "pulled"
    shown = run_cli("show", str(folder), "--format", "json", "--queue-key", f"hf://{REQUESTS}", env=env)
    assert shown.returncode == 0, shown.stderr
    (row,) = json.loads(shown.stdout)  # the sidecar is bookkeeping, never listed as a result
    assert row["provenance"] == "evaluated by the queue"
    unkeyed = run_cli("show", str(folder), "--format", "json", env=env)
    assert json.loads(unkeyed.stdout)[0]["provenance"] == "attested, not checked (no queue key)"

    from leaderboard.app.server import loading
    from leaderboard.app.server.queue_keyring import LiveKeyring
    from leaderboard.app.views import board as board_table

    key = LiveKeyring(REQUESTS, hub.endpoint).keyring  # what `serve --requests` and the Space read
    assert key.key_id == attestation.key_id(private.public_key()) and key.source.endswith(attestation.KEYRING_FILE)
    capsys.readouterr()
    assert LiveKeyring("lb/no-such-requests", hub.endpoint).keyring is None  # no key: the board loads, marks nothing
    said = " ".join(capsys.readouterr().err.split())
    assert "not found (HTTP 404); check --requests." in said, said  # the option serve has, not push's --repo
    board = loading.load(folder, public=True, persist=False, queue_key=key)
    name = board.benchmark_names[0]
    ranking = board.ranking(name, with_stats=False)
    (line,) = ranking.lines
    assert line.attested == "evaluated by the queue"
    assert "evaluated by the queue" in board_table.board_html(ranking, board_table.TableRequest())
    plain = loading.load(folder, public=True, persist=False)  # no key: nothing is claimed
    assert plain.ranking(name, with_stats=False).lines[0].attested is None

    # a second worker with another key refuses to start: readers would find its attestations unverifiable
    write_key(tmp_path / "other-key.pem")
    other = hub_env(hub.endpoint, LEADERBOARD_QUEUE_KEY_FILE=str(tmp_path / "other-key.pem"))
    refused = subprocess.run(
        [sys.executable, "-m", "leaderboard", *worker_args(world, "--once", "--work-dir", str(tmp_path / "w2"))],
        capture_output=True, text=True, env=other, timeout=300,
    )  # fmt: skip
    assert refused.returncode == 2, refused.stderr
    said = " ".join(refused.stderr.split())
    assert f"{REQUESTS}/{attestation.KEYRING_FILE}: this worker's key" in said and "is not in it" in said
    assert "Traceback" not in refused.stderr and HUB_TOKEN not in refused.stderr
    assert dataset_files(hub, REQUESTS)[attestation.PUBLIC_KEY_FILE] == public  # unchanged
