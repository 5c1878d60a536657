"""`leaderboard worker`: claim a request, evaluate it in a sandbox, publish its results, say how it went.

For each claimed request, in a fresh folder ``<work dir>/<request id>/``:

1. the plugin spec is parsed again (the file is input, never trusted) and the benchmarks are
   resolved to tasks with this worker's benchmark plugins;
2. a virtual environment on top of this one (``verify``'s ``make_child_venv``) gets the plugin by
   ``pip install`` (in the sandbox: installing may build the package, which runs its code);
3. ``leaderboard run`` evaluates the model on every task, complete, in the sandbox;
4. the results are checked (``results_check``) and pushed to the results dataset in one commit (or
   a pull request) with the request's receipt (``receipts``), refusing to replace any other run's
   result file;
5. the request is settled: finished with the result paths, or failed with the reason; the
   redacted tail of the log goes to ``logs/<id>.txt`` in the same commit.

A retry (attempt 2 or later) first looks for the receipt of an earlier attempt that pushed and
died before step 5: it finishes the request with those results, running and pushing nothing.

The lease is renewed while steps 2-4 run; if it is lost (it expired and another worker took the
request, or the request was cancelled) the sandbox is stopped and nothing is written.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import socket
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leaderboard.errors import BadInput, LeaderboardError
from leaderboard.hub.store import HubStore, PushConflict, Upload
from leaderboard.queue import attestation, plugin_spec
from leaderboard.queue.claim import LeaseKeeper, LeaseLost, LeaseSettings, claim, release, settle
from leaderboard.queue.dataset import RequestsDataset, repo_id
from leaderboard.queue.names import card_claims, collision_problems, distribution, queue_claims, request_claims
from leaderboard.queue.receipts import published, receipt_path, receipt_upload
from leaderboard.queue.requests import EvalRequest, Status, log_path
from leaderboard.queue.results_check import RequestFailed, WorkerTrouble, check_results, replaced_results
from leaderboard.queue.sandbox import (
    Isolation,
    Limits,
    Outcome,
    Sandbox,
    check_process_isolation,
    checked_pass_env,
    protect_memory,
    secret_values,
)
from leaderboard.queue.validation import task_data_dirs
from leaderboard.records.identity import Claim
from leaderboard.security.attestation import is_attestation
from leaderboard.security.redaction import Redactor

GIB = 2**30
DEFAULT_TIME_LIMIT = 6 * 3600.0
DEFAULT_INSTALL_TIME_LIMIT = 1800.0
DEFAULT_MEMORY_GB = 32.0
DEFAULT_FILE_GB = 16.0
# A worker gives each plugin at least this long to load (`run`'s default is 30 s): on a busy machine a
# large plugin's import is slow, and that must not fail a request as "Unknown model".
WORKER_PLUGIN_TIMEOUT = 300.0
PUSH_TRIES = 5


@dataclass
class WorkerSettings:
    requests: str
    results: str
    endpoint: str | None = None
    token: str | None = None
    worker_id: str = field(default_factory=lambda: f"{socket.gethostname()}-{os.getpid()}")
    lease: LeaseSettings = field(default_factory=LeaseSettings)
    isolation: Isolation = "bwrap"
    network: bool = True
    time_limit: float = DEFAULT_TIME_LIMIT
    install_time_limit: float = DEFAULT_INSTALL_TIME_LIMIT
    memory_gb: float = DEFAULT_MEMORY_GB
    file_gb: float = DEFAULT_FILE_GB
    data_dirs: tuple[str, ...] = ()
    device: str | None = None
    ray: str | None = None
    pip_args: tuple[str, ...] = ()
    pass_env: tuple[str, ...] = ()
    pass_secrets: tuple[str, ...] = ()  # passed to runs on purpose: their values and encoded forms are redacted
    create_pr: bool = False
    work_dir: Path | None = None
    keep: bool = False  # keep each request's folder (venv, results, log) after it is settled
    plugin_timeout: float = field(default_factory=lambda: _plugin_timeout())
    attestation_key: Path | None = None  # the queue's ed25519 private key (PEM): results are attested (attestation.py)

    def __post_init__(self) -> None:
        # Runs start in their own folder: relative paths are taken from the worker's folder, now.
        self.data_dirs = tuple(_absolute_data_dir(value) for value in self.data_dirs)
        self.pip_args = tuple(_absolute_pip_arg(value) for value in self.pip_args)

    def limits(self, seconds: float) -> Limits:
        return Limits(seconds, int(self.memory_gb * GIB), int(self.file_gb * GIB))


def _plugin_timeout() -> float:
    """The plugin-load limit a worker's runs get: LEADERBOARD_PLUGIN_TIMEOUT (or --plugin-timeout), raised to
    at least WORKER_PLUGIN_TIMEOUT."""
    from leaderboard.registry import plugin_timeout

    return max(WORKER_PLUGIN_TIMEOUT, plugin_timeout())


def _absolute_data_dir(value: str) -> str:
    """TASK=DIR or DIR with DIR made absolute (as `run` tells them apart: an existing path is a DIR)."""
    task, sep, folder = value.partition("=")
    if sep and task and not Path(value).exists():
        return f"{task}={Path(folder).absolute()}"
    return str(Path(value).absolute())


def _absolute_pip_arg(value: str) -> str:
    """A pip argument naming a local path (``--find-links=wheels``, ``./pkg``) with the path made absolute."""
    option, sep, rest = value.partition("=")
    if sep and option.startswith("-") and Path(rest).exists():
        return f"{option}={Path(rest).absolute()}"
    return str(Path(value).absolute()) if not value.startswith("-") and Path(value).exists() else value


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Worker:
    def __init__(self, settings: WorkerSettings, log: Callable[[str], None] = _say):
        self.settings, self.log = settings, log
        self.requests = RequestsDataset(settings.requests, settings.endpoint, settings.token)
        self.results = HubStore(repo_id(settings.results, "--results"), settings.endpoint, settings.token)
        if not self.results.token:
            raise BadInput(
                "No Hugging Face token: the worker writes to the requests and results datasets; set HF_TOKEN "
                "or pass --token-stdin (it is never passed to the plugin's run, and never printed)."
            )
        # The queue key first: no way of giving it makes process isolation safe, unlike the token.
        attestation.refuse_unisolated_key(settings.attestation_key, settings.isolation)
        checked_pass_env(settings.pass_env, settings.pass_secrets)
        passed = secret_values(settings.pass_secrets)
        if settings.isolation == "process":
            check_process_isolation(settings.network, passed)
            protect_memory()
        # Everything published about a run (log, failure, history) goes through this: the token, the secrets
        # passed to runs and their encoded forms, every secret-named or token-valued variable's value and
        # common token formats are cut out.
        self.redact = Redactor(self.results.token, settings.token, *passed)
        self.work_root = Path(settings.work_dir or tempfile.mkdtemp(prefix="leaderboard-worker-"))
        # Read once, here: the key lives in this process's memory only, never in a run's reach or a log.
        self.signer = attestation.load_private_key(settings.attestation_key) if settings.attestation_key else None

    # -- the loop ---------------------------------------------------------------------------------
    def run(self, once: bool = False, poll_seconds: float = 60.0) -> list[EvalRequest]:
        """Claim and evaluate requests until interrupted (``once``: at most one, then return)."""
        self.requests.ensure_exists()
        self.results.create()
        if self.signer is not None:
            self.log(attestation.publish_key(self.requests, self.signer))
        else:
            self.log("no queue key (--attestation-key): published results carry no attestation")
        while True:
            try:
                request = claim(self.requests, self.settings.worker_id, self.settings.lease)
                if request is not None:
                    what = f"{request.model} ({request.plugin}) on {', '.join(request.benchmarks)}"
                    self.log(f"claimed {request.id}: {what}")
                    final = self.process(request)
            except LeaderboardError as exc:  # the hub is down or refusing: a long-running worker waits and retries
                if once:
                    raise
                self.log(f"{self.redact(exc)}; trying again in {poll_seconds:g} s")
                time.sleep(poll_seconds)
                continue
            if request is None:
                if once:
                    self.log("no pending request")
                    return []
                time.sleep(poll_seconds)
                continue
            if final is not None:
                self.log(f"{final.id}: {final.status}" + (f" ({final.failure})" if final.failure else ""))
            if once:
                return [final] if final is not None else []

    def process(self, request: EvalRequest) -> EvalRequest | None:
        """Evaluate a claimed request and settle it; None when the lease was lost (nothing written)."""
        assert request.lease is not None
        folder = self.work_root / request.id
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        journal: list[str] = []
        status: Status
        try:
            with LeaseKeeper(self.requests, request, self.settings.lease, self.log) as keeper:
                try:
                    outcome: dict[str, Any] = self.evaluate(request, folder, keeper, journal)
                    status, note = "finished", outcome.pop("note")
                except RequestFailed as failed:
                    journal.append(failed.log)
                    status, note, outcome = "failed", failed.reason, {"failure": failed.reason}
                except (WorkerTrouble, LeaderboardError) as exc:  # a slow load, the hub refused the push, ...
                    status, note, outcome = "pending", str(exc), {}  # the worker's, not the plugin's: retried
                except Exception as exc:  # a bug in the worker must not stop the queue
                    reason = f"internal error in the worker: {type(exc).__name__}: {exc}"
                    status, note, outcome = "failed", reason, {"failure": reason}
                if keeper.lost.is_set():
                    self.log(f"{request.id}: lease lost; nothing written")
                    return None
            log = self.redact("\n".join(part for part in journal if part)) + "\n"
            if status == "pending":
                return release(self.requests, request.id, request.lease, self.settings.lease, self.redact(note),
                               extra_files={log_path(request.id): log.encode()}, log=log_path(request.id))  # fmt: skip
            return settle(
                self.requests,
                request.id,
                request.lease,
                status,
                self.redact(note),
                extra_files={log_path(request.id): log.encode()},
                log=log_path(request.id),
                **{k: self.redact(v) if isinstance(v, str) else v for k, v in outcome.items()},
            )
        except LeaseLost as exc:
            self.log(f"{request.id}: {exc}; nothing written")
            return None
        finally:
            if not self.settings.keep:
                shutil.rmtree(folder, ignore_errors=True)

    # -- one evaluation ---------------------------------------------------------------------------
    def evaluate(self, request: EvalRequest, folder: Path, keeper: LeaseKeeper, journal: list[str]) -> dict[str, Any]:
        """Install, run, check, push; the request's new fields. RequestFailed when any step fails."""
        from leaderboard.queue.verification import make_child_venv

        settings = self.settings
        step = _Journal(journal, self.log, request.id)
        if request.attempts > 1:
            earlier = self.published_before(request, step)
            if earlier is not None:
                return earlier
        try:
            spec = plugin_spec.parse(request.plugin)
        except BadInput as exc:
            raise RequestFailed(str(exc)) from None
        benchmarks, tasks = self.resolve(request.benchmarks)
        self.refuse_collisions(request, request_claims(request))  # before its code is installed or run
        data = [Path(where) for where in task_data_dirs(settings.data_dirs).values()]
        sandbox = Sandbox(
            folder,
            settings.isolation,
            settings.network,
            pass_env=settings.pass_env,
            pass_secrets=settings.pass_secrets,
            readable=data,
            watched=[*data, *_harness_paths()],
            settings={"LEADERBOARD_PLUGIN_TIMEOUT": f"{settings.plugin_timeout:g}"},  # registry.TIMEOUT_ENV
            hidden=attestation.hidden_from_runs(settings.attestation_key),
        )
        step(f"isolation: {settings.isolation}; limits: {settings.limits(settings.time_limit).described()}")

        python = make_child_venv(folder / "venv")
        step(f"installing {spec.requirement} into a fresh virtual environment")
        installed = install_plugin(
            sandbox,
            python,
            [*settings.pip_args, spec.requirement],
            settings.limits(settings.install_time_limit),
            keeper.lost,
        )
        journal.append(installed.log)
        if not installed.ok and installed.reason and installed.reason.startswith("time limit exceeded"):
            raise WorkerTrouble(f"installing {spec.requirement} took too long on this worker: {installed.reason}")
        if not installed.ok:
            raise RequestFailed(f"could not install {spec.requirement}: {installed.reason}")

        output = folder / "out" / "results"
        command = [str(python), "-m", "leaderboard", "run", f"--model={request.model}", f"--output={output}"]
        command += [f"--task={task}" for task in tasks]
        for value in settings.data_dirs:  # `run` refuses TASK=DIR for a task it is not running
            task, sep, _ = value.partition("=")
            if not sep or task in tasks or Path(value).exists():
                command.append(f"--data-dir={value}")
        command += [f"--device={settings.device}"] if settings.device else []
        command += [f"--ray={settings.ray}"] if settings.ray else []
        step(f"running {request.model} on {', '.join(tasks)}")
        ran = sandbox.run(command, settings.limits(settings.time_limit), stop=keeper.lost)
        journal.append(ran.log)
        slow = _slow_load(ran.log)
        if not ran.ok and slow:
            raise WorkerTrouble(f"{slow} on this worker")
        if not ran.ok:
            raise RequestFailed(f"the evaluation failed: {ran.reason}")

        from leaderboard.registry import get_registry

        uploads = check_results(output, request, spec, tasks, benchmarks, get_registry(), data_dirs=settings.data_dirs)
        step(f"checked {len(uploads)} file(s); pushing to {self.results.repo_id}")
        return self.push(request, uploads, keeper, step)

    def resolve(self, names: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
        """(the benchmarks' declarations, their tasks in order), from this worker's benchmark plugins."""
        from leaderboard.queue.submit import requestable
        from leaderboard.registry import installed_benchmarks

        declared = {benchmark.name: benchmark for benchmark in installed_benchmarks()}  # a broken one is skipped
        # Public ones only, as submit checks: a request file written by hand must not put demo data on the board.
        public = requestable(declared.values())
        refused = [name for name in names if name not in public]
        if refused:
            raise RequestFailed(
                f"no public benchmark named {', '.join(refused)} on this worker (public: {', '.join(public) or 'none'})"
            )
        declarations, tasks = [], []
        for name in names:
            benchmark = declared[name]
            declarations.append(benchmark.to_json())
            for row in [*benchmark.tasks, *(row for side in benchmark.also for row in side.tasks)]:
                if row.task not in tasks:
                    tasks.append(row.task)
        return declarations, tasks

    def refuse_collisions(
        self, request: EvalRequest, claims: list[Claim], listing: dict[str, str | None] | None = None,
        head: str | None = None,
    ) -> None:  # fmt: skip
        """RequestFailed naming both when the request's model would share its identity with a published model
        spelled otherwise or from another plugin (``queue.names``); ``listing``: the results dataset at ``head``."""
        if listing is None:
            head = self.results.head()
            listing = self.results.files(head)
        published = card_claims(self.results, listing, head, [c.name for c in claims])
        published += queue_claims(self.requests.snapshot().ordered(), self.results.repo_id, but=request.id)
        problems = collision_problems(claims, published)
        if problems:
            raise RequestFailed("; ".join(problems))

    def published_before(self, request: EvalRequest, step: _Journal) -> dict[str, Any] | None:
        """The outcome of an attempt that already pushed this request's results (its receipt); None when none did."""
        head = self.results.head()
        return self._pushed(request, self.results.files(head), head, step)

    def _pushed(
        self, request: EvalRequest, listing: dict[str, str | None], head: str | None, step: _Journal
    ) -> dict[str, Any] | None:
        receipt = published(self.results, request, listing, head)
        if receipt is None:
            return None
        by = f"attempt {receipt.attempt} ({receipt.worker})"
        where = f"{self.results.repo_id}/{receipt_path(request.id)}"
        step(f"{by} already pushed this request's results ({where}); nothing is run or pushed again")
        note = f"{len(receipt.files)} result file(s) pushed by {by}: receipt {where}"
        return {"results": sorted(receipt.files), "results_repo": self.results.repo_id, "note": note}

    def push(self, request: EvalRequest, uploads: list[Upload], keeper: LeaseKeeper, step: _Journal) -> dict[str, Any]:
        """Push on the commit whose listing was checked, so no other run's file can be replaced in between.

        The request's receipt goes in the same commit. Results of this request already there (an
        earlier attempt's, whose worker lost its lease after pushing) finish it as they are. When the
        hub's answer to the push is lost, the receipt at the new head says whether the commit landed.
        """
        assert request.lease is not None
        uploads = [u for u in uploads if not is_attestation(u.path_in_repo)]  # only the worker attests
        results = [u for u in uploads if _is_result(u.path_in_repo)]
        receipt = receipt_upload(request, request.lease, self.requests.repo_id, results)
        if self.signer is not None:
            worker = request.lease.worker
            signed = attestation.sidecars(self.signer, results, request.id, request.plugin, worker)
        else:
            signed = []
        message = (
            f"Evaluation request {request.id} (attempt {request.lease.attempt}): "
            f"{request.model} on {', '.join(request.benchmarks)}"
        )
        for _ in range(PUSH_TRIES):
            if keeper.lost.is_set():
                raise RequestFailed("the lease was lost before the push")
            head = self.results.head()
            listing = self.results.files(head)
            earlier = self._pushed(request, listing, head, step)
            if earlier is not None:
                return earlier
            self.refuse_collisions(request, _result_claims(uploads, request), listing, head)
            replaced = replaced_results(uploads, listing, functools.partial(self._read_at, head))
            if replaced:
                raise RequestFailed(
                    f"the results would replace {len(replaced)} existing file(s) of another run or model "
                    f"({', '.join(replaced[:3])}); a model name and revision are evaluated once"
                )
            try:
                report = self.results.push(
                    [*uploads, *signed, receipt],
                    message,
                    create_pr=self.settings.create_pr,
                    parent_commit=head,
                    flat_table=True,
                )
            except PushConflict:
                continue
            except LeaderboardError:
                landed = None if self.settings.create_pr else self._landed(request, step)
                if landed is None:
                    raise
                return landed
            pull_request = report.url if self.settings.create_pr else None
            return {
                "results": sorted(u.path_in_repo for u in results),
                "results_repo": self.results.repo_id,
                "pull_request": pull_request,
                "note": f"{len(results)} result file(s) pushed: {report.url or 'unchanged'}",
            }
        raise RequestFailed(f"{self.results.repo_id} kept changing during {PUSH_TRIES} push attempts")

    def _read_at(self, head: str | None, path: str) -> bytes:
        return self.results.read(path, head)

    def _landed(self, request: EvalRequest, step: _Journal) -> dict[str, Any] | None:
        """After a push whose answer was lost: the outcome when its commit landed (our receipt is there), else None."""
        try:
            return self.published_before(request, step)
        except (LeaderboardError, RequestFailed):  # the hub is still unreachable: the push is taken as failed
            return None


class _Journal:
    """The worker's own lines about a request: printed, and kept for its uploaded log."""

    def __init__(self, lines: list[str], log: Callable[[str], None], request_id: str):
        self.lines, self.log, self.request_id = lines, log, request_id

    def __call__(self, message: str) -> None:
        self.lines.append(f"[worker] {message}")
        self.log(f"{self.request_id}: {message}")


def _slow_load(log: str) -> str | None:
    """What `run` said about a plugin that did not finish loading in time ("plugin X did not finish loading
    within N s"), from its log; None when none was slow."""
    found = re.search(r"plugin '[^'\n]{1,200}' did not finish loading within [0-9.e+]+ s", log)
    return found.group(0) if found else None


def _result_claims(uploads: list[Upload], request: EvalRequest) -> list[Claim]:
    """The names the run's results publish, with their plugin (their model card's) and the request's distribution."""
    found = []
    for upload in uploads:
        if upload.path_in_repo.endswith("/model_card.json"):
            card = json.loads(upload.data)
            found.append(Claim(card["name"], card.get("plugin"), distribution(request.plugin), f"request {request.id}"))
    return found


def _is_result(path_in_repo: str) -> bool:
    """results/<model>/<revision>/<task>.json, not a model card or benchmarks.json."""
    parts = path_in_repo.split("/")
    return len(parts) == 4 and parts[0] == "results" and parts[-1].endswith(".json")


def _harness_paths() -> list[Path]:
    """Where the harness and its libraries live: a run must not change them (isolation "process" checks)."""
    return [Path(__file__).resolve().parents[1], Path(sysconfig.get_paths()["purelib"])]  # leaderboard/


def install_plugin(
    sandbox: Sandbox, python: Path, requirement: list[str], limits: Limits, stop: threading.Event | None = None
) -> Outcome:
    """Install the submitted plugin into the run's venv, then the submitted distribution itself once more.

    The venv sees this environment's packages (``make_child_venv``), so pip takes a plugin of the same name
    and version installed beside the worker (an editable checkout, an older build) as already satisfied,
    and the run would evaluate that copy instead of the release submitted. The second pass
    (``--force-reinstall --no-deps``) puts the requested distribution into the venv itself, ahead of
    this environment on its path; its dependencies are those the first pass resolved.
    """
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-input"]
    first = sandbox.run([*pip, *requirement], limits, network=True, stop=stop)
    if not first.ok:
        return first
    second = sandbox.run([*pip, "--force-reinstall", "--no-deps", *requirement], limits, network=True, stop=stop)
    return Outcome(second.returncode, second.reason, first.log + second.log, [*first.changed, *second.changed])
