"""Attestations: a result the queue evaluated carries the queue's ed25519 signature over its
sha256, request, plugin and worker; readers tell it apart from a pushed one, and a changed file, another key or
a bad signature is named. The "flattened per-query values" attack: compare still runs, but says that no
attestation vouches for its per-query values, and `verify --attestations` fails on the attested file."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import run_cli
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from test_compare import DEMO_A, DEMO_B, inject

import leaderboard
from leaderboard.errors import BadInput
from leaderboard.hub.queue_keys import read_queue_key
from leaderboard.queue import attestation as signing
from leaderboard.records.per_query import encode_per_query
from leaderboard.records.per_query_codec import decode_per_query
from leaderboard.security import attestation


@pytest.fixture
def key(tmp_path):
    private = Ed25519PrivateKey.generate()
    (tmp_path / "queue-key.pem").write_bytes(private.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    (tmp_path / "queue-key.pem").chmod(0o600)
    (tmp_path / "queue-public-key.pem").write_bytes(attestation.public_pem(private.public_key()))
    return private, tmp_path / "queue-public-key.pem"


def attest(private, path, request="r-1"):
    """What the worker writes beside a result it published."""
    repo_path = f"results/{path.parent.parent.name}/{path.parent.name}/{path.name}"
    signed = signing.sign(private, repo_path, path.read_bytes(), request, "pkg==1.0", "worker-1")
    (path.parent / attestation.attestation_path(path.name)).write_bytes(signed)


def test_a_signed_result_verifies_and_every_tampering_is_named(tmp_path, key):
    private, public_file = key
    queue = read_queue_key(str(public_file))
    result = tmp_path / "results" / "m" / "1.0" / "t.json"
    result.parent.mkdir(parents=True)
    result.write_text('{"scores": 1}')
    assert attestation.check(result, queue).status == "not attested"
    attest(private, result)
    verdict = attestation.check(result, queue)
    assert verdict.attested and verdict.detail == "evaluated by the queue: request r-1, worker worker-1"
    assert attestation.check(result, None).status == "unchecked"  # present, but nothing to check it with
    other = attestation.parse_keyring(attestation.public_pem(Ed25519PrivateKey.generate().public_key()), "other.pem")
    assert "attested with another key" in attestation.check(result, other).detail
    sidecar = result.parent / "t.attestation.json"
    forged = json.loads(sidecar.read_text()) | {"request": "r-2"}  # a field changed, the signature kept
    sidecar.write_text(json.dumps(forged))
    assert "signature does not verify" in attestation.check(result, queue).detail
    attest(private, result)
    result.write_text('{"scores": 2}')  # the file changed after it was attested
    assert "the file changed since the queue attested it" in attestation.check(result, queue).detail
    for hostile in (b"{", b"[]", b"x" * 100_000, json.dumps({"format": "other"}).encode()):
        sidecar.write_bytes(hostile)
        verdict = attestation.check(result, queue)
        assert verdict.status == "invalid" and "cannot be read" in verdict.detail


def test_keys_are_checked_and_never_printed(tmp_path, key):
    private, public_file = key
    assert signing.load_private_key(tmp_path / "queue-key.pem").public_key() is not None
    (tmp_path / "bad.pem").write_text("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n")
    (tmp_path / "bad.pem").chmod(0o600)
    with pytest.raises(BadInput, match="expected an unencrypted ed25519 private key") as info:
        signing.load_private_key(tmp_path / "bad.pem")
    assert "not a key" not in str(info.value)
    with pytest.raises(BadInput, match="cannot be read"):
        signing.load_private_key(tmp_path / "missing.pem")
    with pytest.raises(BadInput, match="expected the queue's ed25519 public key"):
        read_queue_key(str(tmp_path / "queue-key.pem"))  # a private key is not a public one


def _flatten(path):
    """The attack: each query's value becomes its subset's mean (here the whole task), the means, counts and
    per-query checksum recomputed with the harness's own code, so every reader's own checks still pass."""
    data = json.loads(path.read_text())
    values = decode_per_query(data["per_query"])
    mean = float(np.mean([v["ndcg_at_10"] for v in values.values()]))
    data["per_query"] = encode_per_query({q: {"ndcg_at_10": mean} for q in values}).model_dump()
    data["scores"]["test"]["default"]["ndcg_at_10"] = data["main_score"] = mean
    path.write_text(json.dumps(data))


def test_flattened_per_query_values_are_not_vouched_for(tmp_path, key):
    private, public_file = key
    out = tmp_path / "results"
    outcomes = leaderboard.evaluate(["bm25", "bm25-okapi"], ["demo"], output=out)
    paths = {o.model: o.path for o in outcomes}
    inject(paths["bm25"], DEMO_A)
    inject(paths["bm25-okapi"], DEMO_B)
    for path in paths.values():
        attest(private, path)
    compare = ("compare", "bm25", "bm25-okapi", "-t", "demo", "--results", str(out), "--resamples", "2000")
    keyed = ("--queue-key", str(public_file))
    honest = run_cli(*compare, *keyed, "--format", "json")
    assert honest.returncode == 0, honest.stderr
    (row,) = json.loads(honest.stdout)["tasks"]
    assert {side: v["provenance"] for side, v in row["per_query_values"].items()} == {"a": "attested", "b": "attested"}
    assert "no attestation vouches" not in honest.stderr
    verified = run_cli("verify", str(out), "--attestations", *keyed)
    assert verified.returncode == 0, verified.stderr
    assert "2 of 2 result(s) evaluated by the queue" in verified.stderr

    for path in paths.values():
        _flatten(path)
    shown = run_cli("show", str(out), "--format", "json", *keyed)
    assert shown.returncode == 0, shown.stderr  # the flattened files are valid results: nothing else objects
    assert {r["provenance"] for r in json.loads(shown.stdout)} == {"attestation INVALID"}
    flattened = run_cli(*compare, *keyed, "--format", "json")
    assert flattened.returncode == 0, flattened.stderr  # compare still runs ...
    (after,) = json.loads(flattened.stdout)["tasks"]
    assert after["p_value"] < row["p_value"]  # ... with a smaller p from flattened values ...
    assert "demo: the interval and p rest on per-query values that no attestation vouches for (A and B" in (
        " ".join(flattened.stderr.split())
    )  # ... and says so
    assert {v["provenance"] for v in after["per_query_values"].values()} == {"invalid"}
    failed = run_cli("verify", str(out), "--attestations", *keyed)
    assert failed.returncode == 2 and "Traceback" not in failed.stderr
    assert "2 of 2 result(s) carry an attestation that does not hold" in " ".join(failed.stderr.split())
    assert "the file changed since the queue attested it" in " ".join(failed.stderr.split())
    unkeyed = run_cli(*compare)  # no key: every comparison says its values are not vouched for
    assert unkeyed.returncode == 0 and "no queue key given" in " ".join(unkeyed.stderr.split())


def test_verify_attestations_needs_a_key(tmp_path, monkeypatch):
    monkeypatch.delenv("LEADERBOARD_QUEUE_PUBLIC_KEY", raising=False)
    ran = run_cli("verify", str(tmp_path), "--attestations", env={"LEADERBOARD_QUEUE_PUBLIC_KEY": ""})
    assert ran.returncode == 2 and "needs the queue's public key" in ran.stderr and "Traceback" not in ran.stderr


@pytest.mark.skipif(not __import__("leaderboard.queue.sandbox").queue.sandbox.bwrap_available(), reason="no bwrap")
def test_a_sandboxed_run_cannot_read_the_queue_key(tmp_path):
    from leaderboard.queue.sandbox import Limits, Sandbox

    keys = tmp_path / "keys"
    keys.mkdir()
    key_file = keys / "queue-key.pem"
    _, pem = _write_private(key_file)
    sandbox = Sandbox(tmp_path / "run", "bwrap", hidden=signing.hidden_from_runs(key_file))
    ran = sandbox.run(["cat", str(key_file)], Limits(60))
    assert not ran.ok and pem.splitlines()[1] not in ran.log
    assert "No such file" in ran.log or "Permission denied" in ran.log  # masked: an empty folder, /dev/null


@pytest.mark.skipif(not __import__("leaderboard.queue.sandbox").queue.sandbox.bwrap_available(), reason="no bwrap")
def test_the_queue_key_stays_hidden_inside_a_folder_the_run_reads(tmp_path):
    """A key kept in the checkout, the venv or a data folder: that folder is bound back for the run, the key is not."""
    from leaderboard.queue.sandbox import Limits, Sandbox

    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "README").write_text("readable\n")
    key_file = checkout / "queue-key.pem"
    _, pem = _write_private(key_file)
    sandbox = Sandbox(tmp_path / "run", "bwrap", readable=[checkout], hidden=signing.hidden_from_runs(key_file))
    ran = sandbox.run(["sh", "-c", f"cat {checkout}/README; cat {key_file}"], Limits(60))
    assert "readable" in ran.log  # the folder is there
    assert pem.splitlines()[1] not in ran.log and "PRIVATE KEY" not in ran.log


def test_a_worker_without_bubblewrap_refuses_to_hold_the_key(tmp_path):
    key_file = tmp_path / "queue-key.pem"
    _write_private(key_file)
    ran = run_cli(
        "worker", "--requests", "lb/requests", "--results", "lb/results", "--once", "--isolation", "process",
        "--attestation-key", str(key_file), env={"HF_TOKEN": "hf_test_token_0123456789", "HF_ENDPOINT": "http://127.0.0.1:9"},
    )  # fmt: skip
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert "--attestation-key with --isolation process" in " ".join(ran.stderr.split())
    assert "Traceback" not in ran.stderr


def _write_private(path):
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    path.write_bytes(pem)
    path.chmod(0o600)
    return private, pem.decode()


def test_verify_names_another_key(tmp_path, key):
    private, _ = key
    result = tmp_path / "results" / "m" / "1.0" / "t.json"
    result.parent.mkdir(parents=True)
    result.write_text("{}")
    attest(private, result)
    other = tmp_path / "other-public.pem"
    other.write_bytes(attestation.public_pem(Ed25519PrivateKey.generate().public_key()))
    ran = run_cli("verify", str(tmp_path / "results"), "--attestations", "--queue-key", str(other))
    said = " ".join(ran.stderr.split())
    assert ran.returncode == 2 and "attested with another key" in said and "Traceback" not in said


def test_the_board_marks_attested_rows_and_its_compare_names_pushed_ones(tmp_path, key):
    from leaderboard.app.data import task_views as views
    from leaderboard.app.server import loading
    from leaderboard.app.tabs.compare import _unvouched
    from leaderboard.app.views import board as board_table

    private, public_file = key
    out = tmp_path / "results"
    outcomes = leaderboard.evaluate(["bm25", "bm25-okapi"], ["demo"], output=out)
    attest(private, next(o.path for o in outcomes if o.model == "bm25"))  # bm25-okapi is pushed
    queue = read_queue_key(str(public_file))
    board = loading.load(out, public=True, persist=False, queue_key=queue)
    (name,) = board.benchmark_names
    ranking = board.ranking(name, with_stats=False)
    marks = {line.name: line.attested for line in ranking.lines}
    assert marks == {"bm25": "evaluated by the queue", "bm25-okapi": None}
    html = board_table.board_html(ranking, board_table.TableRequest())
    assert html.count('class="src attested"') == 1
    keys = {line.name: line.key for line in ranking.lines}
    labels = views.model_labels(list(keys.values()))
    (note,) = _unvouched(board, name, keys["bm25"], keys["bm25-okapi"], labels)
    assert note.endswith(f"{labels[keys['bm25-okapi']]} not evaluated by the queue.")
    keyless = loading.load(out, public=True, persist=False)  # a board without the queue's key claims nothing
    assert not any(line.attested for line in keyless.ranking(name, with_stats=False).lines)
    assert _unvouched(keyless, name, keys["bm25"], keys["bm25-okapi"], labels) == []
