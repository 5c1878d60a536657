"""Result stores: one file layout, two places (a local folder, a Hugging Face dataset).

Layout (shared by both, and by `leaderboard run --output`):
    results/<org>__<model>/<revision>/<task>.json     one validated, complete result per (model, revision, task)
    results/<org>__<model>/model_card.json            the model's metadata, from its newest result
    benchmarks.json                                   every benchmark declaration (the app ranks without plugins)

Push sends only files that differ from the dataset (by the hub's own file listing), in one
atomic commit; pull writes only those files (no hub cache folder) into the destination.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leaderboard.errors import BadInput, LeaderboardError
from leaderboard.fileio import write_bytes_atomic
from leaderboard.progress import step
from leaderboard.records.files import read_result
from leaderboard.records.listing import result_files
from leaderboard.security.redaction import redact

PREFIX = "results"
BENCHMARKS_FILE = "benchmarks.json"
REPORTED_PREFIX = "reported"  # reported/<paper>.json: scores copied from papers (records/reported.py)


class PushConflict(LeaderboardError):
    """The dataset changed since we read it (another writer): nothing was written; push again."""

    exit_code = 3
    label = "Push conflict"


class HubUnreachable(BadInput):
    """No answer from the hub endpoint (closed port, wrong --endpoint, no network): exit 2, endpoint named."""

    label = "Network error"


class HubError(LeaderboardError):
    """The hub answered with a server error (5xx): not the user's input, not our bug either."""

    label = "Hub error"


def git_blob_sha1(data: bytes) -> str:
    """The id git (and the hub's file listing) gives a regular file's content: huggingface_hub's own git hash."""
    from huggingface_hub.utils.sha import git_hash

    return git_hash(data)


@dataclass
class Upload:
    path_in_repo: str
    data: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def same_as(self, remote_oid: str | None) -> bool:
        """remote_oid: the hub's sha256 for an LFS file, the git blob sha1 for a regular one."""
        return remote_oid is not None and remote_oid in (self.sha256, git_blob_sha1(self.data))


@dataclass
class PushReport:
    url: str | None  # None when nothing was sent
    pushed: list[Upload]
    unchanged: list[Upload]
    parent: str | None
    pr_number: int | None = None
    derived: list[Upload] = field(default_factory=list)  # the flat table and dataset card, when regenerated


@dataclass
class PullReport:
    path: Path
    revision: str | None
    files: list[str] = field(default_factory=list)  # written
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (name in the dataset, why it was not written)


class PullIncomplete(LeaderboardError):
    """Some of the dataset's files could not be written (an unsafe name, a file/folder clash); the rest were."""

    exit_code = 4
    label = "Pull incomplete"


def unsafe_name(path_in_repo: str) -> str | None:
    """Why a dataset file name cannot be written under the destination (None: it can)."""
    parts = path_in_repo.split("/")
    if path_in_repo.startswith("/") or "\\" in path_in_repo or any(p in ("", ".", "..") for p in parts):
        return "not a plain relative path (an absolute path, '..', '.' or an empty part)"
    if any(ord(c) < 32 for c in path_in_repo):
        return "a control character in the name"
    return None


def _clash(dest: Path, path_in_repo: str) -> str | None:
    """A folder where the file goes, or a file where one of its folders goes (locally)."""
    target = dest / path_in_repo
    if target.is_dir():
        return f"{target} is a folder"
    for parent in target.parents:
        if parent == dest or dest not in parent.parents:
            break
        if parent.exists() and not parent.is_dir():
            return f"{parent} is a file, not a folder"
    return None


def benchmarks_upload(benchmarks: list[dict[str, Any]]) -> Upload:
    """benchmarks.json: the declarations sorted by name, serialised deterministically (so unchanged = identical)."""
    ordered = sorted(benchmarks, key=lambda b: str(b.get("name")))
    return Upload(BENCHMARKS_FILE, (json.dumps(ordered, indent=2, sort_keys=True) + "\n").encode())


def merge_benchmarks(remote: list[dict[str, Any]], local: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ours replace same-named ones; the dataset's others are kept (a pusher without a task plugin removes nothing)."""
    merged = {str(b.get("name")): b for b in remote if isinstance(b, dict)}
    merged.update({str(b.get("name")): b for b in local})
    return list(merged.values())


def collect(results_dir: Path, benchmarks: list[dict[str, Any]] | None = None) -> list[Upload]:
    """Every result under results_dir, validated and complete; any bad or partial file stops the whole push."""
    results_dir = Path(results_dir)
    if not results_dir.is_dir():
        raise BadInput(f"{results_dir} is not a directory of result files.")
    files = list(result_files(results_dir))
    if not files:
        raise BadInput(f"{results_dir}: no result files (*.json) found.")
    problems: list[str] = []
    partial: list[str] = []
    uploads: list[Upload] = []
    cards: dict[str, dict[str, Any]] = {}
    for path in files:
        try:
            typed = read_result(path)
        except BadInput as exc:
            problems.append(str(exc))
            continue
        except Exception as exc:  # a reader must never crash a push: the file is named and refused
            problems.append(f"{path}: unreadable ({type(exc).__name__}: {exc})")
            continue
        if not typed.is_complete:
            reason = (typed.coverage.reason if typed.coverage else None) or f"--limit {typed.settings.limit}"
            partial.append(f"{path} ({reason})")
            continue
        result = typed.to_json()
        rel = path.relative_to(results_dir).as_posix()
        if len(rel.split("/")) != 3:
            problems.append(f"{path}: expected the layout <model>/<revision>/<task>.json under {results_dir}")
            continue
        uploads.append(Upload(f"{PREFIX}/{rel}", path.read_bytes()))
        model_dir = rel.split("/")[0]
        # an imported result may have no date (its file had none): it never counts as the newest
        if model_dir not in cards or (result["created_at"] or "") > (cards[model_dir]["updated_at"] or ""):
            cards[model_dir] = {
                "name": result["model"]["name"],
                "kind": result["model"]["kind"],
                "revision": result["model"]["revision"],
                "plugin": result["model"]["plugin"],
                "plugin_version": result["model"]["plugin_version"],
                "metadata": result["model"]["metadata"],
                "updated_at": result["created_at"],
            }
    if partial:
        problems.append(
            f"{len(partial)} partial result(s); only complete runs are published, re-run without --limit: "
            + " | ".join(partial)
        )
    if problems:
        raise BadInput(f"Refusing to push: {len(problems)} problem(s): " + " | ".join(problems))
    for model_dir, card in sorted(cards.items()):
        card_bytes = (json.dumps(card, indent=2, sort_keys=True) + "\n").encode()
        uploads.append(Upload(f"{PREFIX}/{model_dir}/model_card.json", card_bytes))
    if benchmarks:
        uploads.append(benchmarks_upload(benchmarks))
    return uploads


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _json_object(data: bytes) -> dict[str, Any]:
    """A model card; an unreadable one counts as empty."""
    try:
        value = json.loads(data)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _json_list(data: bytes) -> list[Any]:
    """An existing benchmarks.json; an unreadable one counts as empty (ours replaces it)."""
    try:
        value = json.loads(data)
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def _is_result_file(path_in_repo: str) -> bool:
    """results/<model>/<revision>/<task>.json (not a model card, nor a queue attestation beside a result)."""
    from leaderboard.records.listing import ATTESTATION_SUFFIX

    parts = path_in_repo.split("/")
    return (
        len(parts) == 4
        and parts[0] == PREFIX
        and parts[-1].endswith(".json")
        and not parts[-1].endswith(ATTESTATION_SUFFIX)
    )


def _is_pulled(path_in_repo: str) -> bool:
    """What pull brings back: the results, the benchmark declarations and the scores reported in papers."""
    return path_in_repo.startswith((f"{PREFIX}/", f"{REPORTED_PREFIX}/")) or path_in_repo == BENCHMARKS_FILE


def _is_network_error(exc: BaseException) -> bool:
    # huggingface_hub has moved from requests to httpx to a vendored httpx2; matching the
    # transport-error base classes by name keeps this independent of which one is installed.
    names = {cls.__name__ for cls in type(exc).__mro__}
    return isinstance(exc, (ConnectionError, TimeoutError)) or bool(
        names & {"TransportError", "RequestError", "ConnectionError", "Timeout"}
    )


class HubStore:
    """A Hugging Face dataset, through huggingface_hub's client (token from HF_TOKEN or the token file).

    Every call to the hub goes through ``_hub_errors``: whatever fails, the message names the
    endpoint and the dataset and passes through ``redact``, so no token is ever printed.
    """

    def __init__(self, repo_id: str, endpoint: str | None = None, token: str | None = None, option: str = "--repo"):
        from huggingface_hub import HfApi, constants, get_token

        from leaderboard.hub.repo_names import repo_id as checked

        self.repo_id, self.endpoint = checked(repo_id, option), endpoint
        self.option = option  # the option that named this repository, for the messages
        self.endpoint_shown = endpoint or constants.ENDPOINT
        self.token = token or get_token()
        self.api = HfApi(endpoint=endpoint, token=self.token)

    # -- errors --------------------------------------------------------------------------
    @contextlib.contextmanager
    def _hub_errors(self, action: str, committing: bool = False) -> Iterator[None]:
        try:
            yield
        except LeaderboardError:
            raise
        except Exception as exc:
            raise self._translate(exc, action, committing) from None

    def _translate(self, exc: Exception, action: str, committing: bool) -> LeaderboardError:
        from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

        where = f"{self.repo_id} at {self.endpoint_shown}"
        detail = redact(" ".join(f"{type(exc).__name__}: {exc}".split()), self.token)
        if isinstance(exc, OfflineModeIsEnabled):
            return BadInput(f"HF_HUB_OFFLINE is set: unset it to {action} the Hub.")
        if isinstance(exc, HfHubHTTPError):
            status = getattr(exc.response, "status_code", None)
            if committing and status in (409, 412):
                return PushConflict(
                    f"{self.repo_id} changed since it was read; nothing was written. Pull the latest results "
                    "and push again."
                )
            if status in (401, 403):
                return BadInput(
                    f"Not allowed to {action} {where} (HTTP {status}): check HF_TOKEN or `hf auth login` "
                    "(the token is never printed)."
                )
            if status == 404:
                revision = " and --revision" if self.option == "--repo" else ""
                return BadInput(f"Cannot {action} {where}: not found (HTTP 404); check {self.option}{revision}.")
            return HubError(f"Cannot {action} {where}: the hub answered HTTP {status} ({detail}).")
        if _is_network_error(exc):
            return HubUnreachable(
                f"Cannot reach the hub at {self.endpoint_shown} to {action} {self.repo_id} ({detail}); "
                "check --endpoint (or HF_ENDPOINT) and the network."
            )
        return HubError(f"Cannot {action} {where}: {detail}")

    # -- reading -------------------------------------------------------------------------
    def head(self, revision: str | None = None) -> str | None:
        with self._hub_errors("read"):
            return self._head(revision)

    def _head(self, revision: str | None = None) -> str | None:
        return self.api.repo_info(self.repo_id, repo_type="dataset", revision=revision).sha

    def _remote_oids(self, revision: str | None) -> dict[str, str | None]:
        """path -> the hub's content id (sha256 for LFS files, git blob sha1 otherwise), at ``revision``."""
        from huggingface_hub.hf_api import RepoFile

        entries = self.api.list_repo_tree(self.repo_id, recursive=True, repo_type="dataset", revision=revision)
        return {
            e.path: (getattr(e.lfs, "sha256", None) if e.lfs else e.blob_id) for e in entries if isinstance(e, RepoFile)
        }

    def _download(self, path_in_repo: str, revision: str | None, folder: Path) -> Path:
        from huggingface_hub import hf_hub_download

        return Path(
            hf_hub_download(
                self.repo_id,
                path_in_repo,
                repo_type="dataset",
                revision=revision,
                local_dir=folder,
                endpoint=self.endpoint,
                token=self.token,
            )
        )

    # -- writing -------------------------------------------------------------------------
    def push(
        self,
        uploads: list[Upload],
        message: str,
        create_pr: bool = False,
        parent_commit: str | None = None,
        flat_table: bool = False,
        license_id: str | None = None,
    ) -> PushReport:
        """One atomic commit of the uploads that differ from the dataset at the parent commit.

        ``flat_table``: also regenerate data/results.parquet and README.md from every result in the
        dataset after this push (``flat_table.py``), in the same commit.
        """
        from huggingface_hub import CommitOperationAdd

        if not self.token:
            raise BadInput(
                "No Hugging Face token: set HF_TOKEN or log in with `hf auth login` (the token is never printed)."
            )
        with self._hub_errors("push to", committing=True):
            self.api.create_repo(self.repo_id, repo_type="dataset", exist_ok=True)
            parent = parent_commit or self._head()
            remote = self._remote_oids(parent)
            self._refuse_other_spellings(uploads, parent, remote)
            uploads = [self._merged_benchmarks(u, parent, remote) for u in uploads]
            changed: list[Upload] = []
            unchanged: list[Upload] = []
            for upload in uploads:
                (unchanged if upload.same_as(remote.get(upload.path_in_repo)) else changed).append(upload)
            derived = self._flat_table(uploads, parent, remote, license_id) if flat_table else []
            derived = [u for u in derived if not u.same_as(remote.get(u.path_in_repo))]
            if not changed and not derived:
                return PushReport(None, [], unchanged, parent)
            info = self.api.create_commit(
                self.repo_id,
                [CommitOperationAdd(u.path_in_repo, u.data) for u in changed + derived],
                commit_message=message,
                repo_type="dataset",
                create_pr=create_pr,
                parent_commit=parent,
            )
        url = info.pr_url if create_pr and info.pr_url else info.commit_url
        return PushReport(url, changed, unchanged, parent, info.pr_num if create_pr else None, derived)

    def _refuse_other_spellings(
        self, uploads: list[Upload], revision: str | None, remote: dict[str, str | None]
    ) -> None:
        """BadInput naming both when a pushed model shares its identity (``records.identity``) with a model the
        dataset holds under another spelling (``BM25`` beside ``bm25``): one identity, one page, one folder."""
        from leaderboard.records.identity import Claim, conflicts, folder_identity

        ours = {}
        for upload in uploads:
            parts = upload.path_in_repo.split("/")
            if len(parts) == 3 and parts[0] == PREFIX and parts[2] == "model_card.json":
                card = _json_object(upload.data)
                ours[parts[1]] = Claim(
                    str(card.get("name") or parts[1]), _text(card.get("plugin")), where=upload.path_in_repo
                )
        if not ours:
            return
        wanted = {folder_identity(folder) for folder in ours}
        theirs = []
        with tempfile.TemporaryDirectory(prefix="leaderboard-cards-") as tmp:
            for path in sorted(remote):
                parts = path.split("/")
                if len(parts) != 3 or parts[0] != PREFIX or parts[2] != "model_card.json" or parts[1] in ours:
                    continue
                if folder_identity(parts[1]) in wanted:
                    card = _json_object(self._download(path, revision, Path(tmp)).read_bytes())
                    name = card.get("name")
                    theirs.append(
                        Claim(name if isinstance(name, str) else parts[1], _text(card.get("plugin")), where=path)
                    )
        problems = [
            f"{claim.described()} and {other.described()} are one model name up to case, Unicode width or / for __"
            for claim in ours.values()
            for other in conflicts(claim, theirs, spelling_only=True)
        ]
        if problems:
            raise BadInput(
                f"Refusing to push to {self.repo_id}: "
                + "; ".join(problems)
                + ". A model keeps the spelling it was first published under: rename yours, or push under that name."
            )

    def _flat_table(
        self, uploads: list[Upload], revision: str | None, remote: dict[str, str | None], license_id: str | None
    ) -> list[Upload]:
        """The flat table and card over the dataset as it will be: its results at ``revision``, ours replacing them.

        Every result file is read back with ``read_result``; one in the dataset that no longer reads
        (damaged, hand-edited) is left out of the table rather than stopping the push.
        """
        from concurrent.futures import ThreadPoolExecutor

        from leaderboard.hub import flat_table

        ours = {u.path_in_repo: u.data for u in uploads if _is_result_file(u.path_in_repo)}
        theirs = sorted(p for p in remote if _is_result_file(p) and p not in ours)
        rows: list[dict[str, Any]] = []
        with tempfile.TemporaryDirectory(prefix="leaderboard-table-") as tmp:
            folder = Path(tmp)
            with ThreadPoolExecutor(max_workers=8) as pool:
                fetched = list(pool.map(lambda p: self._download(p, revision, folder / "dataset"), theirs))
            files = dict(zip(theirs, fetched))
            for path_in_repo, data in ours.items():
                files[path_in_repo] = folder / "ours" / path_in_repo
                write_bytes_atomic(files[path_in_repo], data)
            reused = {}  # the intervals of unchanged files, from the table the last push wrote (flat_table)
            if flat_table.TABLE_PATH in remote:
                previous = self._download(flat_table.TABLE_PATH, revision, folder / "table")
                reused = flat_table.reusable_intervals(previous.read_bytes())
            for path_in_repo, local in sorted(files.items()):
                try:
                    result = read_result(local)
                except Exception:  # a damaged file in the dataset is the dataset's problem, not this push's
                    continue
                if result.is_complete:
                    sha256 = hashlib.sha256(local.read_bytes()).hexdigest()
                    rows.extend(flat_table.rows_of(result, path_in_repo, sha256, reused))
        card = flat_table.dataset_card(
            self.repo_id, rows, license_id or flat_table.DEFAULT_LICENSE, flat_table.harness_version()
        )
        return [
            Upload(flat_table.TABLE_PATH, flat_table.table_bytes(rows)),
            Upload(flat_table.CARD_PATH, card.encode()),
        ]

    def _merged_benchmarks(self, upload: Upload, revision: str | None, remote: dict[str, str | None]) -> Upload:
        if (
            upload.path_in_repo != BENCHMARKS_FILE
            or BENCHMARKS_FILE not in remote
            or upload.same_as(remote[BENCHMARKS_FILE])
        ):
            return upload
        with tempfile.TemporaryDirectory(prefix="leaderboard-benchmarks-") as tmp:
            existing = _json_list(self._download(BENCHMARKS_FILE, revision, Path(tmp)).read_bytes())
        return benchmarks_upload(merge_benchmarks(existing, json.loads(upload.data)))

    # -- single files (the evaluation queue's requests dataset) ------------------------------------
    def exists(self) -> bool:
        with self._hub_errors("read"):
            return self.api.repo_exists(self.repo_id, repo_type="dataset")

    def create(self) -> None:
        """Create the dataset when it does not exist yet."""
        with self._hub_errors("create"):
            self.api.create_repo(self.repo_id, repo_type="dataset", exist_ok=True)

    def files(self, revision: str | None = None) -> dict[str, str | None]:
        """path -> content id of every file at ``revision`` (the hub's listing, as push compares with it)."""
        with self._hub_errors("read"):
            return self._remote_oids(revision)

    def read(self, path_in_repo: str, revision: str | None = None) -> bytes:
        with self._hub_errors("read"), tempfile.TemporaryDirectory(prefix="leaderboard-read-") as tmp:
            return self._download(path_in_repo, revision, Path(tmp)).read_bytes()

    def commit(self, files: dict[str, bytes], message: str, parent_commit: str | None) -> str:
        """One commit of ``files`` on ``parent_commit`` (PushConflict when the dataset moved since); its id."""
        from huggingface_hub import CommitOperationAdd

        with self._hub_errors("write to", committing=True):
            info = self.api.create_commit(
                self.repo_id,
                [CommitOperationAdd(path, data) for path, data in files.items()],
                commit_message=message,
                repo_type="dataset",
                parent_commit=parent_commit,
            )
        return info.oid

    def pull(self, dest: Path, revision: str | None = None) -> Path:
        return self.pull_report(dest, revision).path

    def pull_report(self, dest: Path, revision: str | None = None) -> PullReport:
        """Copy the dataset's results/ and benchmarks.json at ``revision`` into ``dest``; nothing else.

        Files download into a temporary folder (where huggingface_hub keeps its .cache bookkeeping)
        and are then written atomically into ``dest``; a rich bar counts them when progress is on.
        A file that cannot be written (an unsafe name, a file/folder clash, in the dataset or here)
        is skipped and named in ``skipped``; every other file is written.
        """
        from concurrent.futures import ThreadPoolExecutor

        from huggingface_hub.utils import are_progress_bars_disabled, disable_progress_bars, enable_progress_bars

        dest = Path(dest)
        with self._hub_errors("pull from"):
            sha = self._head(revision)
            names = sorted(p for p in self._remote_oids(sha) if _is_pulled(p))
            skipped = [(n, why) for n in names if (why := unsafe_name(n))]
            names = [n for n in names if not unsafe_name(n)]
            for name in names:  # the dataset itself holds "a" and "a/b": the file "a" cannot be a folder too
                if any(other.startswith(name + "/") for other in names):
                    skipped.append((name, "the dataset also has files under this name, as a folder"))
            names = [n for n in names if n not in {s for s, _ in skipped}]
            was_disabled = are_progress_bars_disabled()
            disable_progress_bars()  # our own bar, not one tqdm bar per file
            try:
                with (
                    tempfile.TemporaryDirectory(prefix="leaderboard-pull-") as tmp,
                    step(f"pulling {self.repo_id}", total=len(names)) as bar,
                    ThreadPoolExecutor(max_workers=8) as pool,
                ):
                    written = []
                    for name, local in zip(names, pool.map(lambda n: self._fetch(n, sha, Path(tmp)), names)):
                        bar.advance()
                        why = local if isinstance(local, str) else _clash(dest, name)
                        if why is None:
                            try:
                                write_bytes_atomic(dest / name, local.read_bytes())  # type: ignore[union-attr]
                            except (IsADirectoryError, NotADirectoryError, FileExistsError) as exc:
                                why = f"cannot be written here ({exc.strerror or exc})"
                        if why is None:
                            written.append(name)
                        else:
                            skipped.append((name, why))
            finally:
                if not was_disabled:
                    enable_progress_bars()
        dest.mkdir(parents=True, exist_ok=True)
        return PullReport(dest, sha, written, sorted(skipped))

    def _fetch(self, name: str, revision: str | None, folder: Path) -> Path | str:
        """The downloaded file, or why the hub client refused its name (ValueError: e.g. '..' parts)."""
        try:
            return self._download(name, revision, folder)
        except ValueError as exc:
            return f"refused by the hub client ({redact(exc, self.token)[:200]})"
        except (IsADirectoryError, NotADirectoryError, FileExistsError) as exc:  # a clash in the download folder
            return f"cannot be downloaded ({exc.strerror or exc})"
