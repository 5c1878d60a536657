"""Result stores: one file layout, two places (a local folder, a Hugging Face dataset).

Layout (shared by both, and by `leaderboard run --output`):
    results/<org>__<model>/<revision>/<task>.json     one validated result per (model, revision, task)
    results/<org>__<model>/model_card.json            the model's metadata, from its newest result
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from leaderboard.errors import BadInput, LeaderboardError
from leaderboard.fileio import write_bytes_atomic
from leaderboard.records.files import read_result
from leaderboard.records.listing import result_files

PREFIX = "results"


class PushConflict(LeaderboardError):
    """The dataset changed since we read it (another writer): nothing was written; push again."""

    exit_code = 3


@dataclass
class Upload:
    path_in_repo: str
    data: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def collect(results_dir: Path) -> list[Upload]:
    """Every result under results_dir, validated first; any invalid file stops the whole push."""
    results_dir = Path(results_dir)
    if not results_dir.is_dir():
        raise BadInput(f"{results_dir} is not a directory of result files.")
    files = list(result_files(results_dir))
    if not files:
        raise BadInput(f"{results_dir}: no result files (*.json) found.")
    problems, uploads, cards = [], [], {}
    for path in files:
        try:
            result = read_result(path).to_json()
        except BadInput as exc:
            problems.append(str(exc))
            continue
        rel = path.relative_to(results_dir).as_posix()
        if len(rel.split("/")) != 3:
            problems.append(f"{path}: expected the layout <model>/<revision>/<task>.json under {results_dir}")
            continue
        uploads.append(Upload(f"{PREFIX}/{rel}", path.read_bytes()))
        model_dir = rel.split("/")[0]
        if model_dir not in cards or result["created_at"] > cards[model_dir]["updated_at"]:
            cards[model_dir] = {
                "name": result["model"]["name"],
                "kind": result["model"]["kind"],
                "revision": result["model"]["revision"],
                "plugin": result["model"]["plugin"],
                "plugin_version": result["model"]["plugin_version"],
                "metadata": result["model"]["metadata"],
                "updated_at": result["created_at"],
            }
    if problems:
        raise BadInput(f"Refusing to push: {len(problems)} invalid file(s): " + " | ".join(problems))
    for model_dir, card in sorted(cards.items()):
        uploads.append(
            Upload(
                f"{PREFIX}/{model_dir}/model_card.json", (json.dumps(card, indent=2, sort_keys=True) + "\n").encode()
            )
        )
    return uploads


class LocalStore:
    def __init__(self, root: Path):
        self.root = Path(root)

    def push(self, uploads: list[Upload]) -> list[Path]:
        written = []
        for upload in uploads:
            target = self.root / upload.path_in_repo
            write_bytes_atomic(target, upload.data)  # each file appears whole or not at all
            written.append(target)
        return written

    def pull(self, dest: Path) -> Path:
        source = self.root / PREFIX
        if not source.is_dir():
            raise BadInput(f"{self.root} holds no {PREFIX}/ folder.")
        shutil.copytree(source, Path(dest) / PREFIX, dirs_exist_ok=True)
        return Path(dest)


class HubStore:
    """A Hugging Face dataset, through huggingface_hub's client (token from HF_TOKEN or the token file)."""

    def __init__(self, repo_id: str, endpoint: str | None = None, token: str | None = None):
        from huggingface_hub import HfApi, get_token

        if repo_id.count("/") != 1:
            raise BadInput(f"--repo {repo_id!r}: expected ORG/NAME.")
        self.repo_id, self.endpoint = repo_id, endpoint
        self.token = token or get_token()
        self.api = HfApi(endpoint=endpoint, token=self.token)

    def head(self) -> str | None:
        return self.api.repo_info(self.repo_id, repo_type="dataset").sha

    def push(
        self, uploads: list[Upload], message: str, create_pr: bool = False, parent_commit: str | None = None
    ) -> str:
        """One atomic commit of every upload; returns the commit or pull-request URL."""
        from huggingface_hub import CommitOperationAdd
        from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

        if not self.token:
            raise BadInput(
                "No Hugging Face token: set HF_TOKEN or log in with `hf auth login` (the token is never printed)."
            )
        try:
            self.api.create_repo(self.repo_id, repo_type="dataset", exist_ok=True)
            parent = parent_commit or self.head()
            info = self.api.create_commit(
                self.repo_id,
                [CommitOperationAdd(u.path_in_repo, u.data) for u in uploads],
                commit_message=message,
                repo_type="dataset",
                create_pr=create_pr,
                parent_commit=parent,
            )
        except OfflineModeIsEnabled:
            raise BadInput("HF_HUB_OFFLINE is set: unset it to push to the Hub.") from None
        except HfHubHTTPError as exc:
            status = getattr(exc.response, "status_code", None)
            if status in (409, 412):
                raise PushConflict(
                    f"{self.repo_id} changed since it was read (parent {parent}); nothing was written. "
                    "Pull the latest results and push again."
                ) from None
            raise LeaderboardError(
                f"Hub request for {self.repo_id} failed with HTTP {status}: {_without_token(str(exc), self.token)}"
            ) from None
        return info.pr_url if create_pr and info.pr_url else info.commit_url

    def pull(self, dest: Path, revision: str | None = None) -> Path:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

        try:
            return Path(
                snapshot_download(
                    self.repo_id,
                    repo_type="dataset",
                    revision=revision,
                    local_dir=dest,
                    endpoint=self.endpoint,
                    token=self.token,
                )
            )
        except OfflineModeIsEnabled:
            raise BadInput("HF_HUB_OFFLINE is set: unset it to pull from the Hub.") from None
        except HfHubHTTPError as exc:
            raise BadInput(
                f"Could not pull {self.repo_id}: HTTP {getattr(exc.response, 'status_code', None)} "
                f"({_without_token(str(exc), self.token)})"
            ) from None


def _without_token(text: str, token: str | None) -> str:
    return text.replace(token, "***") if token else text
