"""Where the app's results come from: a local folder, or hf://ORG/NAME (pulled into a cache).

A ``Source`` knows the revision it shows and whether a newer one exists: the dataset's head commit
for hf://, a fingerprint of the folder's files for a local folder. ``live.LiveBoard`` polls it.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from leaderboard.errors import BadInput
from leaderboard.fileio import cache_home

if TYPE_CHECKING:
    from leaderboard.hub.store import HubStore


@dataclass
class Source:
    spec: str
    endpoint: str | None = None
    folder: Path | None = None
    revision: str | None = None  # the dataset commit shown (hf://), None for a local folder

    @property
    def repo(self) -> str | None:
        """ORG/NAME of an hf:// spec (checked as the hub checks names), None for a local folder."""
        if not self.spec.startswith("hf://"):
            return None
        from leaderboard.hub.repo_names import repo_id

        return repo_id(self.spec, "--results", "the results dataset", prefixed=True)

    def _store(self) -> HubStore:
        from leaderboard.hub.store import HubStore

        return HubStore(self.repo or "", self.endpoint, option="--results")

    def latest(self) -> str | None:
        """The newest revision available: the dataset's head commit, or the local folder's fingerprint."""
        if self.repo:
            return self._store().head()
        return folder_fingerprint(Path(self.spec).expanduser())

    def fetch(self, revision: str | None = None) -> Path:
        """Bring the data to a local folder (a pull for hf://) and remember the revision shown."""
        if self.repo:
            base = cache_home() / "hub-results" / self.repo.replace("/", "__")
            report = self._store().pull_report(base, revision)
            self.folder, self.revision = Path(report.path), report.revision or revision
            return self.folder
        path = Path(self.spec).expanduser()
        if not path.is_dir():
            raise BadInput(f"--results {self.spec!r}: not a folder; expected a results folder or hf://ORG/NAME.")
        self.folder = path
        return path


def folder_fingerprint(root: Path) -> str:
    """Changes when any *.json under root is added, removed, or rewritten (name, size, mtime)."""
    digest = hashlib.sha256()
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(n for n in names if n.endswith(".json")):
            try:
                st = os.stat(os.path.join(folder, name))
            except OSError:
                continue
            digest.update(f"{folder}/{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def resolve_results(spec: str, endpoint: str | None = None) -> Path:
    return Source(spec, endpoint).fetch()
