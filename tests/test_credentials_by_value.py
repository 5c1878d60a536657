"""Credentials found by value, not only by name, wherever a plugin of this user could read them.

- a shell the worker descends from holds ``HUBVALUE=hf_...`` or ``HF_PAT=hf_...``: isolation "process"
  refuses to start, naming the process and the variable; under bubblewrap the run sees no such process;
- the default token file (``~/.cache/huggingface/token``) exists while ``HF_HOME`` points elsewhere: "process"
  refuses, naming the file; under bubblewrap the run cannot read it;
- ``HF_CREDS``, ``HUB_PAT`` and ``HFX`` hold ``hf_...`` values: "process" refuses, naming each; under bubblewrap
  the run never sees them;
- ``--pass-env`` of a token-shaped value is refused unless the operator marks it ``--pass-secret``; then the
  run gets it, and its base64, hex and reversed forms are cut from everything published, in both modes. A
  value printed in pieces is published in pieces: the limit the threat model states.

No refusal ever prints the value.
"""

from __future__ import annotations

import base64
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import HUB_TOKEN
from queue_fixtures import REQUESTS, RESULTS, build_wheel, hostile_plugin, hub_env
from test_queue_worker import world  # noqa: F401  (the queue's wheels and data, made once per module)

from leaderboard.queue.sandbox import Limits, Sandbox, bwrap_available

HUB_VALUE = "hf_" + "ValueNotName" * 3  # a Hugging Face token under a name that says nothing
needs_bwrap = pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here (.ci/run installs it)")


def process_worker(tmp_path: Path, unset: str = "", **env: str) -> subprocess.CompletedProcess:
    """`leaderboard worker --isolation process --token-stdin` started by `sh`, whose environment holds ``env``,
    with ``unset`` removed from the worker's (``env -u``); the hub is unreachable: a worker that starts fails there."""
    base = {k: v for k, v in hub_env("http://127.0.0.1:9").items() if k != "HF_TOKEN"}
    base |= {"HF_HOME": str(tmp_path / "hf"), "HOME": str(tmp_path / "home"), **env}
    worker = f"{sys.executable} -m leaderboard worker --requests {REQUESTS} --results {RESULTS} --once "
    worker += f"--isolation process --token-stdin --work-dir {tmp_path / 'work'}"
    removed = " ".join(f"-u {name}" for name in unset.split())
    script = f"env {removed} {worker}; echo exit=$?"
    return subprocess.run(["sh", "-c", script], env=base, input=HUB_TOKEN + "\n", capture_output=True, text=True,
                          timeout=300)  # fmt: skip


# -- a shell the worker descends from -----------------------------------------------------------------------------
def test_process_mode_refuses_a_token_valued_variable_in_a_shell_it_descends_from(tmp_path):
    ran = process_worker(tmp_path, unset="HUBVALUE HF_PAT", HUBVALUE=HUB_VALUE, HF_PAT=HUB_VALUE)
    said = " ".join(ran.stderr.split())
    assert "exit=2" in ran.stdout, ran.stdout + ran.stderr
    for name in ("HUBVALUE", "HF_PAT"):
        assert f"which it descends from, has the variable {name} (holds a value shaped like a Hugging Face token)" in (
            said
        ), said
    assert HUB_VALUE not in ran.stdout + ran.stderr and "Traceback" not in ran.stderr


SPY_ANCESTORS = """
import os, sys
found = []
pid = os.getppid()
for pid in range(1, 1 << 16):  # every process this run can see, the worker's ancestors included
    try:
        if {value!r}.encode() in open(f"/proc/{{pid}}/environ", "rb").read():
            found.append(pid)
    except OSError:
        pass
print("processes holding it:", found)
"""

DRIVER = """
import sys
from pathlib import Path
from leaderboard.queue.sandbox import Limits, Sandbox
ran = Sandbox(Path(sys.argv[1]), "bwrap").run([sys.executable, "-c", sys.argv[2]], Limits(120))
print(ran.log)
"""


@needs_bwrap
def test_under_bubblewrap_a_run_sees_no_process_that_holds_a_token(tmp_path):
    """The worker stand-in runs a spy in the sandbox from a shell whose environment holds the token: the run's own PID
    namespace holds no process outside the run, so none with the token."""
    spy = SPY_ANCESTORS.format(value=HUB_VALUE)
    script = f"env -u HUBVALUE {sys.executable} -c '{DRIVER}' {tmp_path / 'box'} \"$SPY\""
    environ = {**hub_env("http://127.0.0.1:9"), "SPY": spy, "HUBVALUE": HUB_VALUE}
    ran = subprocess.run(["sh", "-c", script], env=environ, capture_output=True, text=True, timeout=300)
    assert "processes holding it: []" in ran.stdout, ran.stdout + ran.stderr


# -- token files ----------------------------------------------------------------------------------------------------
def _default_token_file(tmp_path: Path) -> Path:
    token = tmp_path / "home" / ".cache" / "huggingface" / "token"
    token.parent.mkdir(parents=True)
    token.write_text(HUB_TOKEN)
    return token


def test_process_mode_refuses_the_default_token_file_while_hf_home_points_elsewhere(tmp_path):
    token = _default_token_file(tmp_path)
    ran = process_worker(tmp_path, HF_HOME=str(tmp_path / "elsewhere"))
    said = " ".join(ran.stderr.split())
    assert "exit=2" in ran.stdout and f"token file {token} (exists)" in said, said
    assert HUB_TOKEN not in ran.stdout + ran.stderr


@needs_bwrap
def test_under_bubblewrap_a_run_cannot_read_the_default_token_file(tmp_path, monkeypatch):
    token = _default_token_file(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "elsewhere"))
    ran = Sandbox(tmp_path / "box", "bwrap").run(["cat", str(token)], Limits(120))
    assert not ran.ok and HUB_TOKEN not in ran.log, ran.log


# -- names the pattern misses ---------------------------------------------------------------------------------------
ODD_NAMES = ("HF_CREDS", "HUB_PAT", "HFX")


def test_process_mode_refuses_token_values_under_names_that_say_nothing(tmp_path):
    ran = process_worker(tmp_path, **dict.fromkeys(ODD_NAMES, HUB_VALUE))
    said = " ".join(ran.stderr.split())
    assert "exit=2" in ran.stdout, ran.stdout + ran.stderr
    for name in ODD_NAMES:
        assert f"its environment variable {name} (holds a value shaped like a Hugging Face token)" in said, said
    assert HUB_VALUE not in ran.stdout + ran.stderr


@needs_bwrap
def test_under_bubblewrap_a_run_never_gets_token_values_under_any_name(tmp_path, monkeypatch):
    for name in ODD_NAMES:
        monkeypatch.setenv(name, HUB_VALUE)
    show = [sys.executable, "-c", "import os; print(sorted(k for k, v in os.environ.items() if 'hf_' in v))"]
    ran = Sandbox(tmp_path / "box", "bwrap").run(show, Limits(120))
    assert ran.ok and ran.log.strip().endswith("[]"), ran.log


# -- --pass-env and --pass-secret -------------------------------------------------------------------------------------
def forms(value: str) -> dict[str, str]:
    data = value.encode()
    return {
        "plain": value,
        "base64": base64.b64encode(data).decode(),
        "base64, URL-safe": base64.urlsafe_b64encode(data).decode(),
        "base64 inside a longer text": base64.b64encode(b"x" + data + b"yz").decode(),
        "hex": data.hex(),
        "HEX": data.hex().upper(),
        "reversed": value[::-1],
    }


PRINTER = """
import base64, os
value = os.environ["HUBVALUE"]
data = value.encode()
for label, text in (("plain", value), ("base64", base64.b64encode(data).decode()),
                    ("base64, URL-safe", base64.urlsafe_b64encode(data).decode()),
                    ("base64 inside a longer text", base64.b64encode(b"x" + data + b"yz").decode()),
                    ("hex", data.hex()), ("HEX", data.hex().upper()), ("reversed", value[::-1])):
    print("printed", label, text)
half = len(value) // 2
print("halves", value[:half], "and", value[half:])
raise RuntimeError("printed the secret in every form: " + base64.b64encode(data).decode())
"""


@pytest.mark.slow
@pytest.mark.usefixtures("hub_online")
@pytest.mark.parametrize("isolation", [pytest.param("bwrap", marks=needs_bwrap), "process"])
def test_a_passed_secret_is_refused_unless_marked_and_then_no_form_of_it_is_published(
    tmp_path,
    monkeypatch,
    world,  # noqa: F811  (the fixture imported above)
    isolation,
):
    from hub_server import HubServer
    from test_queue_worker import dataset_files, mode_worker, request

    from leaderboard.errors import BadInput

    monkeypatch.setenv("HUBVALUE", HUB_VALUE)
    with HubServer() as hub:
        with pytest.raises(BadInput) as refused:  # a token-shaped value under --pass-env: refused, the value unsaid
            mode_worker(hub, world, tmp_path, isolation, monkeypatch, pass_env=("HUBVALUE",))
        said = str(refused.value)
        assert "--pass-env HUBVALUE (a Hugging Face token): its value has the shape of a credential" in said
        assert "--pass-secret" in said and HUB_VALUE not in said
        body = PRINTER.strip()
        build_wheel(tmp_path / "src", world / "wheels", f"printer-{isolation}", f"printer_{isolation}",
                    hostile_plugin("printer", body), "1.0.0")  # fmt: skip
        submitted = request(hub, world, f"printer-{isolation}==1.0.0", "printer")
        runner = mode_worker(hub, world, tmp_path, isolation, monkeypatch, pass_secrets=("HUBVALUE",))
        (final,) = runner.run(once=True)
        published = dataset_files(hub, REQUESTS)
    assert final.id == submitted.id and final.status == "failed", final.failure
    log = published[final.log].decode()
    assert "printed base64" in log and "printed reversed" in log  # the run had the value and printed it
    texts = [data.decode("utf-8", "replace") for data in published.values()] + [final.failure]
    for label, text in forms(HUB_VALUE).items():
        assert not [t for t in texts if text in t], f"the {label} form was published"
    assert "printed the secret in every form: ***" in final.failure
    # The limit the threat model states: a value printed in pieces is published in pieces (the first half still
    # has a token's shape and is cut; the second half is only letters).
    assert HUB_VALUE[len(HUB_VALUE) // 2 :] in log


@pytest.mark.parametrize("offset", [0, 1, 2, 5])
def test_every_encoded_form_of_a_known_secret_is_cut_wherever_it_starts(offset):
    from leaderboard.security.redaction import Redactor

    redact = Redactor("Pl4inSecret-value", environ={})
    data = b"\x00" * offset + b"Pl4inSecret-value" + b"tail"
    printed = [base64.b64encode(data).decode(), base64.urlsafe_b64encode(data).decode(), data.hex(), data.hex().upper(),
               "Pl4inSecret-value"[::-1]]  # fmt: skip
    for text in printed:
        cleaned = redact(f"the run printed {text} here")
        assert "***" in cleaned and cleaned.startswith("the run printed"), (text, cleaned)
        core = text[len(text) // 3 : 2 * len(text) // 3]  # a middle piece of the encoded secret is gone too
        assert core not in cleaned, (text, cleaned)
    assert redact("nDCG@10 0.4321 installed x-1.0") == "nDCG@10 0.4321 installed x-1.0"
