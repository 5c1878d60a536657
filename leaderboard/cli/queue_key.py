"""``leaderboard queue-key``: the evaluation queue's keys, handled like SSH keys (make, rotate, revoke, show)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from leaderboard.cli.console import err, escape, out
from leaderboard.cli.formats import emit, format_option

EXAMPLES = """Examples:
  leaderboard queue-key new keys/queue-2025.pem
  leaderboard queue-key rotate --requests my-org/requests --new-key keys/queue-2025.pem
  leaderboard queue-key revoke 3f2a9c0d1e7b4a55 --requests my-org/requests --reason "the key leaked"
  leaderboard queue-key show --requests my-org/requests"""


def _where(function: Any) -> Any:
    function = click.option("--endpoint", default=None, help="Hub endpoint (default: huggingface_hub's).")(function)
    function = click.option(
        "--requests", "requests_repo", default=None, metavar="ORG/NAME",
        help="The requests dataset whose published keyring to use (writing needs a token: HF_TOKEN).",
    )(function)  # fmt: skip
    return click.option(
        "--keyring", "keyring_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
        help="A local keyring file (JSON), instead of --requests.",
    )(function)  # fmt: skip


@click.group("queue-key", epilog=EXAMPLES)
def queue_key() -> None:
    """The queue's signing keys: a new private key, the keyring's rotation and revocation, its listing.

    Readers check attestations against the keyring: a retired key still vouches for what it signed
    ("attested by retired key K (retired on DATE)"); a revoked key's results read as invalid.
    """


@queue_key.command("new")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
def new(path: Path) -> None:
    """Write a new ed25519 private key to PATH, readable by its owner only (never overwrites a file)."""
    from leaderboard.queue.attestation import as_queue_key, new_private_key

    key = as_queue_key(new_private_key(path))
    out().print(f"New queue key {key.key_id} written to {escape(path)} (mode 600).", highlight=False)


@queue_key.command("rotate")
@_where
@click.option(
    "--new-key", "new_key", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The key to make current: its private key PEM (readable by its owner only) or its public key PEM.",
)  # fmt: skip
@format_option
def rotate(keyring_file: Path | None, requests_repo: str | None, endpoint: str | None, new_key: Path, fmt: str) -> None:
    """Retire the current key (it still vouches for what it signed) and make --new-key the current one.

    On an empty keyring, --new-key becomes its first key. Workers then need the new private key
    (--attestation-key); one started with the retired key refuses to start.
    """
    from leaderboard.queue.attestation import today
    from leaderboard.security.attestation import rotated

    key = _public_key(new_key)
    keyring = _update(
        keyring_file, requests_repo, endpoint, lambda found, where: rotated(found, key, today(), where),
        f"Rotate the evaluation queue's key to {key.key_id}",
    )  # fmt: skip
    _show(keyring, fmt)


@queue_key.command("revoke")
@click.argument("key")
@_where
@click.option("--reason", required=True, help="Why (e.g. the key leaked): shown with every result it attested.")
@format_option
def revoke(
    key: str, keyring_file: Path | None, requests_repo: str | None, endpoint: str | None, reason: str, fmt: str
) -> None:
    """Revoke KEY (its id, or a PEM file of it): every result it attested reads "attestation INVALID" from now on.

    Revoke a key that leaked; retire one in a routine change (rotate). Revoking the current key leaves
    the queue without one until the next rotate.
    """
    from leaderboard.errors import BadInput
    from leaderboard.queue.attestation import today
    from leaderboard.security.attestation import revoked

    if Path(key).is_file():  # the key's own file (a leaked private key: its permissions no longer matter)
        key = _public_key(Path(key), check_permissions=False).key_id

    def change(found: Any, where: str) -> Any:
        if found is None:
            raise BadInput(f"{where}: no keyring to revoke {key} in.")
        return revoked(found, key, today(), " ".join(reason.split())[:500])

    _show(_update(keyring_file, requests_repo, endpoint, change, f"Revoke the evaluation queue's key {key}"), fmt)


@queue_key.command("show")
@_where
@format_option
def show(keyring_file: Path | None, requests_repo: str | None, endpoint: str | None, fmt: str) -> None:
    """List the keyring's keys: id, status (current, retired, revoked), dates and the reason of a revocation."""
    from leaderboard.hub.queue_keys import read_queue_key
    from leaderboard.security.attestation import read_keyring_file

    _one_place(keyring_file, requests_repo)
    if keyring_file is not None:
        keyring = read_keyring_file(keyring_file, "--keyring")
    else:
        keyring = read_queue_key(f"hf://{requests_repo}", endpoint, "--requests")
    _show(keyring, fmt)


def _one_place(keyring_file: Path | None, requests_repo: str | None) -> None:
    from leaderboard.errors import BadInput

    if (keyring_file is None) == (requests_repo is None):
        raise BadInput("give the keyring with one of --keyring FILE or --requests ORG/NAME.")


def _public_key(path: Path, check_permissions: bool = True) -> Any:
    """The key a file holds (private: its public half, the file's permissions checked; or public)."""
    from leaderboard.queue.attestation import as_queue_key, load_private_key
    from leaderboard.security.attestation import MAX_KEY_BYTES, load_public_key

    data = path.read_bytes()[: MAX_KEY_BYTES + 1]
    if b"PRIVATE KEY" in data:
        return as_queue_key(load_private_key(path, check_permissions))
    return load_public_key(data, str(path))


def _update(keyring_file: Path | None, requests_repo: str | None, endpoint: str | None, change: Any, message: str):
    """Apply ``change(keyring or None, where)`` to the local keyring file or the dataset's; the new keyring."""
    from leaderboard.errors import BadInput

    _one_place(keyring_file, requests_repo)
    if keyring_file is not None:
        from leaderboard.fileio import write_bytes_atomic
        from leaderboard.security.attestation import read_keyring_file

        found = read_keyring_file(keyring_file, "--keyring") if keyring_file.exists() else None
        updated = change(found, str(keyring_file))
        write_bytes_atomic(keyring_file, updated.to_bytes())
        err().print(f"wrote {escape(keyring_file)}", highlight=False)
        return updated
    from leaderboard.hub.store import HubStore
    from leaderboard.queue.attestation import publish_keyring
    from leaderboard.queue.dataset import repo_id

    store = HubStore(repo_id(str(requests_repo), "--requests"), endpoint, option="--requests")
    if not store.token:
        raise BadInput(
            "No Hugging Face token: set HF_TOKEN or log in with `hf auth login` (the token is never printed)."
        )
    where = f"hf://{store.repo_id}"
    updated = publish_keyring(store, lambda found: change(found, where), message)
    err().print(f"published the keyring in {escape(where)}", highlight=False)
    return updated


def _show(keyring: Any, fmt: str) -> None:
    rows = [
        {
            "key": key.key_id,
            "status": key.status,
            "created": str(key.created or ""),
            "retired": str(key.retired or ""),
            "revoked": str(key.revoked or ""),
            "reason": key.reason,
        }
        for key in keyring.keys
    ]
    emit(rows, fmt, f"Queue keyring ({keyring.source})", ["key", "status", "created", "retired", "revoked", "reason"])


COMMANDS = [queue_key]
