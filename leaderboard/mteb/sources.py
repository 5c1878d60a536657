"""Where mteb result files come from: a folder (a git checkout or not) or the hub dataset, read only as needed.

Every source lists the files in the results repository's layout, ``results/<model>/<revision>/<Task>.json``
(as mteb's ``ResultCache.get_cache_paths`` globs ``*/*/*.json``), by path, before reading any:
the importer decides from the path alone (the task's name) whether a file is read at all, and from
its git blob id (known before reading for the hub and a git checkout) whether it changed since the
last import. A source then reads the chosen files in bounded batches (the hub: downloaded in
parallel, only those).

Provenance: each file's path in the results repository (relative to the folder given, whatever
checkout encloses it), the repository (a GitHub URL from the origin remote of a checkout of the
results repository itself, ``--repository`` otherwise, the hub dataset), the commit, and a link to
the file at that commit. A checkout's file whose bytes differ from the commit's (an uncommitted
change) gets no commit and no link: the link would show other bytes.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from leaderboard.errors import BadInput
from leaderboard.hub.store import git_blob_sha1

RESULTS = "results"
META = "model_meta.json"
EXPERIMENTS = "experiments"  # mteb's <model>/<revision>/experiments/<name>/ folders (non-default settings)
BATCH = 64  # files read (downloaded) at a time: memory stays bounded whatever the repository's size


@dataclass(frozen=True)
class Listed:
    """A file of the results layout, known by its path (and, where the source says it, its blob id)."""

    path: str  # in the repository: results/<model>/<revision>/<name>.json
    model: str  # the folder names
    revision: str
    name: str  # the file name without .json (mteb reads the task from it first)
    oid: str | None = None  # git blob sha1, when known before reading


@dataclass(frozen=True)
class Unlisted:
    """A JSON file outside the layout (too deep, too shallow, an experiment): never read, counted."""

    path: str
    reason: str


class ResultSource:
    repository: str | None = None
    commit: str | None = None
    label = ""

    def listing(self) -> Iterator[Listed | Unlisted]:
        raise NotImplementedError

    def read_many(self, paths: list[str]) -> Iterator[tuple[str, bytes | str]]:
        """(path, bytes) for each path, in order; (path, reason) for one that cannot be read."""
        raise NotImplementedError

    def meta_oid(self, model: str, revision: str) -> str | None:
        """The blob id of a folder's model_meta.json when known without reading it ("" when absent)."""
        return None

    def read_meta(self, model: str, revision: str) -> bytes | None | str:
        """A folder's model_meta.json: its bytes, None when it has none, or why it cannot be read."""
        raise NotImplementedError

    def url(self, path: str, blob: str) -> tuple[str | None, str | None]:
        """(commit, link) for the file with these bytes."""
        if self.repository is None or self.commit is None:
            return None, None
        return self.commit, f"{self.repository}/blob/{self.commit}/{path}"


def _classify(parts: list[str], path: str) -> Listed | Unlisted | None:
    """A path (split, under the results root) as a listed result file, an unlisted one, or None (bookkeeping)."""
    name = parts[-1]
    if not name.endswith(".json") or name.startswith("."):
        return None
    if name == META:
        return None
    if len(parts) == 3:
        return Listed(path, parts[0], parts[1], name[: -len(".json")])
    if len(parts) > 3 and parts[2] == EXPERIMENTS:
        return Unlisted(path, "an mteb experiment (the model under non-default settings), not its default run")
    return Unlisted(path, "not in the results layout <model>/<revision>/<Task>.json")


class FolderSource(ResultSource):
    """A folder: the repository root (holding results/), results/ itself, or a folder laid out like it."""

    def __init__(self, folder: Path, repository: str | None = None, commit: str | None = None):
        folder = Path(folder)
        if not folder.is_dir():
            raise BadInput(f"{folder}: not a folder; expected mteb's results repository or its results/ folder.")
        self.root = folder / RESULTS if (folder / RESULTS).is_dir() else folder
        self.prefix = f"{RESULTS}/" if self.root.name == RESULTS else ""
        self.label = str(folder)
        self.committed: dict[str, str] = {}
        # Paths are the results repository's: relative to the folder given (its parent when it is results/).
        # A git checkout gives the commit, remote and committed blobs only when it is that repository; one
        # that merely encloses the folder (a project holding a copy of the results) names other paths.
        top_folder = self.root.parent if self.prefix else self.root
        git = _git_checkout(self.root)
        if git is not None and git[0] == top_folder.resolve():
            _, head, remote, committed = git
            self.repository, self.commit, self.committed = remote, head, committed
        self.repository = repository or self.repository
        self.commit = commit or self.commit

    def listing(self) -> Iterator[Listed | Unlisted]:
        root = str(self.root)
        cut = len(root.rstrip(os.sep)) + 1
        for folder, dirs, names in os.walk(root, followlinks=False):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(names):
                rel = (folder[cut:] + os.sep + name if len(folder) >= cut else name).replace(os.sep, "/")
                found = _classify(rel.split("/"), self.prefix + rel)
                if found is not None:
                    yield found

    def _local(self, path: str) -> Path:
        return self.root / path[len(self.prefix) :]

    def read_many(self, paths: list[str]) -> Iterator[tuple[str, bytes | str]]:
        for path in paths:
            yield path, _read(self._local(path))

    def read_meta(self, model: str, revision: str) -> bytes | None | str:
        local = self.root / model / revision / META
        if not local.exists():
            return None
        return _read(local)

    def url(self, path: str, blob: str) -> tuple[str | None, str | None]:
        committed = self.committed.get(path)
        if self.committed and committed != blob:
            return None, None  # changed since the commit (or not committed): a link would show other bytes
        return super().url(path, blob)


_MAX_BYTES = 64 * 2**20  # a result file is kilobytes; a far larger one is refused unread


def _read(path: Path) -> bytes | str:
    try:
        found = path.stat()
        if not stat.S_ISREG(found.st_mode):  # a FIFO would block the import, a folder cannot be read
            return "not a regular file"
        if found.st_size > _MAX_BYTES:
            return f"larger than {_MAX_BYTES // 2**20} MiB; not read"
        return path.read_bytes()
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"


def _git(folder: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=120, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _git_checkout(folder: Path) -> tuple[Path, str, str | None, dict[str, str]] | None:
    """(top folder, HEAD commit, https URL of origin, {path: committed blob}) of the checkout holding folder."""
    top = _git(folder, "rev-parse", "--show-toplevel")
    head = _git(folder, "rev-parse", "HEAD")
    if not top or not head:
        return None
    remote = _git(folder, "config", "--get", "remote.origin.url")
    listed = _git(Path(top.strip()), "ls-tree", "-r", "--full-tree", "HEAD") or ""
    committed = {}
    for line in listed.splitlines():
        meta, _, path = line.partition("\t")
        fields = meta.split()
        if len(fields) == 3 and fields[1] == "blob":
            committed[path] = fields[2]
    return Path(top.strip()).resolve(), head.strip(), _https(remote.strip()) if remote else None, committed


def _https(remote: str) -> str | None:
    """A GitHub remote as its web address (git@github.com:o/r.git, https://github.com/o/r.git -> https://github.com/o/r)."""
    found = re.fullmatch(r"(?:git@|ssh://git@|https?://)(github\.com)[:/]([^/\s]+)/([^/\s]+?)(?:\.git)?/?", remote)
    return f"https://github.com/{found.group(2)}/{found.group(3)}" if found else None


class HubSource(ResultSource):
    """The hub dataset (``mteb/results``): listed once with blob ids, then only the needed files downloaded."""

    def __init__(self, repo_id: str, endpoint: str | None = None, revision: str | None = None):
        from leaderboard.hub.store import HubStore

        self.store = HubStore(repo_id, endpoint)
        self.label = f"{repo_id} at {self.store.endpoint_shown}"
        self.commit = self.store.head(revision)  # every file is read at this one commit
        self.oids = self.store.files(self.commit)
        self.repository = f"{self.store.endpoint_shown.rstrip('/')}/datasets/{repo_id}"
        self._pool = ThreadPoolExecutor(max_workers=8)  # one for the whole import: downloads overlap

    def listing(self) -> Iterator[Listed | Unlisted]:
        for path in sorted(self.oids):
            parts = path.split("/")
            if parts[0] != RESULTS or len(parts) < 2:
                continue
            found = _classify(parts[1:], path)
            if isinstance(found, Listed):
                found = Listed(found.path, found.model, found.revision, found.name, self.oids[path])
            if found is not None:
                yield found

    def meta_oid(self, model: str, revision: str) -> str | None:
        return self.oids.get(f"{RESULTS}/{model}/{revision}/{META}", "")

    def _fetch(self, path: str) -> bytes | str:
        try:
            return self.store.read(path, self.commit)  # into a temporary folder, removed at once: disk stays bounded
        except BadInput as exc:
            if "404" in str(exc) or "EntryNotFound" in str(exc):
                return "listed by the hub but not downloadable"
            raise

    def read_many(self, paths: list[str]) -> Iterator[tuple[str, bytes | str]]:
        for start in range(0, len(paths), BATCH):
            batch = paths[start : start + BATCH]
            yield from zip(batch, self._pool.map(self._fetch, batch))

    def read_meta(self, model: str, revision: str) -> bytes | None | str:
        path = f"{RESULTS}/{model}/{revision}/{META}"
        return self._fetch(path) if path in self.oids else None

    def url(self, path: str, blob: str) -> tuple[str | None, str | None]:
        return self.commit, f"{self.repository}/blob/{self.commit}/{path}"

    def close(self) -> None:
        self._pool.shutdown(cancel_futures=True)


def blob_of(data: bytes) -> str:
    return git_blob_sha1(data)
