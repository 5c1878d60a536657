"""Where the app's results come from: a local folder, or hf://ORG/NAME (pulled into a cache)."""

from __future__ import annotations

from pathlib import Path

from leaderboard.errors import BadInput
from leaderboard.fileio import cache_home


def resolve_results(spec: str, endpoint: str | None = None) -> Path:
    if spec.startswith("hf://"):
        from leaderboard.records.store import HubStore

        repo = spec.removeprefix("hf://").removeprefix("datasets/")
        base = cache_home() / "hub-results" / repo.replace("/", "__")
        return HubStore(repo, endpoint).pull(base)
    path = Path(spec).expanduser()
    if not path.is_dir():
        raise BadInput(f"--results {spec!r}: not a folder; expected a results folder or hf://ORG/NAME.")
    return path
