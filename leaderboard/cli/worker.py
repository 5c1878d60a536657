"""``leaderboard worker``: evaluate the queue's requests in a sandbox and publish their results."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from leaderboard.cli.console import err, escape, out

EXAMPLES = """Examples:
  leaderboard worker --requests my-org/requests --results my-org/results --data-dir negconstraint=DIR
  leaderboard worker --requests my-org/requests --results my-org/results --once --isolation process"""


@click.command(epilog=EXAMPLES)
@click.option("--requests", "requests_repo", required=True, help="The requests dataset, ORG/NAME.")
@click.option("--results", "results_repo", required=True, help="The results dataset, ORG/NAME.")
@click.option("--endpoint", default=None, help="Hub endpoint (default: huggingface_hub's).")
@click.option("--once", is_flag=True, help="Evaluate at most one request, then exit.")
@click.option(
    "--poll",
    "poll_seconds",
    type=click.FloatRange(min=0.1),
    default=60.0,
    show_default=True,
    help="Seconds between looks at an empty queue.",
)
@click.option(
    "--ray",
    "ray_address",
    default=None,
    metavar="ADDRESS",
    help="Run the evaluation on this Ray cluster (its workers run the model outside the sandbox).",
)
@click.option("--device", default=None, help="torch device for the evaluation, e.g. cuda:0.")
@click.option("--data-dir", "data_dirs", multiple=True, metavar="[TASK=]DIR", help="Local task data, as in `run`.")
@click.option("--create-pr", is_flag=True, help="Open a pull request on the results dataset instead of committing.")
@click.option(
    "--lease",
    "lease_seconds",
    type=click.FloatRange(min=1),
    default=1200.0,
    show_default=True,
    help="Seconds without a heartbeat after which a running request is retried by another worker.",
)
@click.option(
    "--max-attempts",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Attempts (claims) before a request whose worker keeps dying is failed.",
)
@click.option(
    "--time-limit",
    type=click.FloatRange(min=1),
    default=6 * 3600.0,
    show_default=True,
    help="Seconds an evaluation may run.",
)
@click.option(
    "--install-time-limit",
    type=click.FloatRange(min=1),
    default=1800.0,
    show_default=True,
    help="Seconds installing the plugin may take.",
)
@click.option(
    "--memory-gb",
    type=click.FloatRange(min=0),
    default=32.0,
    show_default=True,
    help="Address-space limit of the evaluation (0: none; GPU runs need a large one).",
)
@click.option(
    "--isolation",
    type=click.Choice(["bwrap", "process"]),
    default="bwrap",
    show_default=True,
    help="bwrap: bubblewrap sandbox (read-only file system, no /proc of the worker); process: limits only, "
    "refused while a credential is within reach: in its environment or its ancestors' (by name or by value), or "
    "a token file (see the threat model).",
)
@click.option("--no-network", is_flag=True, help="Run evaluations without network access (installs keep it).")
@click.option(
    "--pass-env",
    multiple=True,
    metavar="NAME",
    help="Pass this environment variable to evaluations (never a secret-looking name, nor a value shaped like a "
    "credential).",
)
@click.option(
    "--pass-secret",
    "pass_secrets",
    multiple=True,
    metavar="NAME",
    help="Pass this environment variable to evaluations although it holds a credential (a plugin that needs an API "
    "key): its value, base64, hex and reversed forms are cut out of everything published about the run.",
)
@click.option(
    "--pip-arg",
    "pip_args",
    multiple=True,
    metavar="ARG",
    help="Extra argument for pip when installing plugins, e.g. --pip-arg=--index-url=URL.",
)
@click.option(
    "--work-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the requests' sandboxes (default: a new temporary folder).",
)
@click.option("--keep", is_flag=True, help="Keep each request's folder (venv, results, log) after it is settled.")
@click.option("--worker-id", default=None, help="This worker's name in leases (default: host-pid).")
@click.option(
    "--token-stdin",
    is_flag=True,
    help="Read the hub token from standard input (one line) instead of HF_TOKEN or a token file; "
    "what --isolation process needs.",
)
@click.option(
    "--attestation-key",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="LEADERBOARD_QUEUE_KEY_FILE",
    default=None,
    help="The queue's ed25519 private key (a PEM file readable by its owner only; env LEADERBOARD_QUEUE_KEY_FILE): "
    "every published result gets a signed attestation, and the key must be the current one of the keyring "
    "published in the requests dataset (published there when there is none). Never printed.",
)
def worker(  # noqa: PLR0913 (a click command: one keyword per option)
    *,
    requests_repo: str,
    results_repo: str,
    endpoint: str | None,
    once: bool,
    poll_seconds: float,
    ray_address: str | None,
    device: str | None,
    data_dirs: tuple[str, ...],
    create_pr: bool,
    lease_seconds: float,
    max_attempts: int,
    time_limit: float,
    install_time_limit: float,
    memory_gb: float,
    isolation: str,
    no_network: bool,
    pass_env: tuple[str, ...],
    pass_secrets: tuple[str, ...],
    pip_args: tuple[str, ...],
    work_dir: Path | None,
    keep: bool,
    worker_id: str | None,
    token_stdin: bool,
    attestation_key: Path | None,
) -> None:
    """Claim the oldest pending request, evaluate it in a sandbox, push its results, repeat.

    The token (HF_TOKEN or `hf auth login`) writes to both datasets; the plugin's install and
    evaluation never see it, nor any other secret in this environment.
    """
    from leaderboard.errors import BadInput
    from leaderboard.queue.claim import LeaseSettings
    from leaderboard.queue.sandbox import choose_isolation
    from leaderboard.queue.worker import Worker, WorkerSettings

    token = None
    if token_stdin:
        token = sys.stdin.readline().strip()
        if not token:
            raise BadInput("--token-stdin: standard input held no token (expected one line).")
    settings = WorkerSettings(
        token=token,
        requests=requests_repo,
        results=results_repo,
        endpoint=endpoint,
        lease=LeaseSettings(lease_seconds, max_attempts),
        isolation=choose_isolation(isolation),
        network=not no_network,
        time_limit=time_limit,
        install_time_limit=install_time_limit,
        memory_gb=memory_gb,
        data_dirs=data_dirs,
        device=device,
        ray=ray_address,
        pip_args=pip_args,
        pass_env=pass_env,
        pass_secrets=pass_secrets,
        create_pr=create_pr,
        work_dir=work_dir,
        keep=keep,
        attestation_key=attestation_key,
    )
    if worker_id:
        settings.worker_id = worker_id

    def log(message: str) -> None:
        err().print(escape(message), highlight=False)

    runner = Worker(settings, log)
    log(f"worker {settings.worker_id}: {settings.isolation} isolation, queue {requests_repo}, results {results_repo}")
    for request in runner.run(once=once, poll_seconds=poll_seconds):
        detail = f": {request.failure}" if request.failure else f": {len(request.results)} result file(s)"
        out().print(f"{escape(request.id)} {request.status}{escape(detail)}", highlight=False)


COMMANDS = [worker]
