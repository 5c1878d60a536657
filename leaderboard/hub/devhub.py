"""A small stand-in for the Hugging Face Hub: just the endpoints our HubStore drives through the
real huggingface_hub client (repo create, preupload, commit, repo info, tree, file download).
``leaderboard dev-hub`` serves it on a port for trying push, pull, the Space and the queue without an
account; the tests start it in-process (``tests/hub_server.py``). Everything lives in memory.

Dataset and Space repos (``state.repos`` and ``state.spaces``); a Space keeps its SDK and its
variables (``/api/spaces/ID/variables``, set at creation or later, as on the Hub). A README.md in a
commit is checked by ``/api/validate-yaml`` first, as huggingface_hub does against the Hub: front
matter that is not a YAML mapping, a non-string license, a malformed ``configs`` list or a Space's
unknown ``sdk`` gets HTTP 400 with the Hub's error shape.

Commits are content-addressed and a stale ``parentCommit`` gets HTTP 412, like the Hub. File ids
in listings are git blob sha1s, as on the Hub. ``HubServer(fail_status=500)`` answers every request
with that status and echoes the request's Authorization header in the body (a hostile or broken
hub: what a client prints must never contain the token). Every URL handed back is on this server.
Loopback only by default; it accepts any token (it checks none).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlparse


@dataclass
class Repo:
    files: dict[str, bytes] = field(default_factory=dict)  # main
    head: str = "0" * 40
    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)  # sha -> files snapshot
    prs: list[dict[str, bytes]] = field(default_factory=list)
    history: list[str] = field(default_factory=list)  # commits on main, oldest first
    sdk: str | None = None  # Spaces only
    variables: dict[str, dict] = field(default_factory=dict)  # Spaces only: key -> {"value", "description"}


class HubState:
    def __init__(self) -> None:
        self.repos: dict[str, Repo] = {}  # datasets
        self.spaces: dict[str, Repo] = {}
        self.authorizations: list[str] = []
        self.downloads: list[str] = []  # the repo paths of every file served (GET .../resolve/...)
        self.lock = threading.Lock()
        self.fail_status: int | None = None


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


SPACE_SDKS = ("gradio", "docker", "static", "streamlit")


def yaml_problems(content: str, repo_type: str) -> list[str]:
    """What the Hub's metadata validation refuses (a subset): the front matter must be a YAML mapping."""
    import yaml

    if not content.startswith("---\n"):
        return []
    head = content[4:].split("\n---", 1)
    if len(head) != 2:
        return ["YAML front matter is not closed with ---"]
    try:
        meta = yaml.safe_load(head[0])
    except yaml.YAMLError as exc:
        return [f"Invalid YAML: {exc}"]
    if meta is None:
        return []
    if not isinstance(meta, dict):
        return ["YAML metadata must be a mapping"]
    problems = []
    if "license" in meta and not isinstance(meta["license"], str):
        problems.append('"license" must be a string')
    configs = meta.get("configs", [])
    if not isinstance(configs, list) or not all(isinstance(c, dict) and "config_name" in c for c in configs):
        problems.append('"configs" must be a list of mappings, each with a config_name')
    if repo_type == "space" and meta.get("sdk") not in SPACE_SDKS:
        problems.append(f'"sdk" must be one of {", ".join(SPACE_SDKS)}')
    return problems


def _sha(files: dict[str, bytes], parent: str) -> str:
    digest = hashlib.sha1(parent.encode())
    for path in sorted(files):
        digest.update(path.encode() + hashlib.sha1(files[path]).digest())
    return digest.hexdigest()


class Handler(BaseHTTPRequestHandler):
    state: HubState
    endpoint: str

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    # -- helpers ------------------------------------------------------------------------------
    def _send(
        self, status: int, body: bytes | dict | list = b"", headers: dict | None = None, head_only: bool = False
    ) -> None:
        data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
        self.send_response(status)
        self.send_header(
            "Content-Type", "application/json" if isinstance(body, (dict, list)) else "application/octet-stream"
        )
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if not head_only:
            self.wfile.write(data)

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _repos(self, kind: str) -> dict[str, Repo]:
        """kind: "datasets" or "spaces", as in the Hub's URLs."""
        return self.state.spaces if kind == "spaces" else self.state.repos

    def _variables(self, repo_id: str, post: bool) -> None:
        repo = self.state.spaces.get(repo_id)
        if repo is None:
            return self._send(404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})
        if post:
            payload = json.loads(self._body())
            repo.variables[payload["key"]] = {"value": payload["value"], "description": payload.get("description")}
        return self._send(200, repo.variables)

    def _files_at(self, repo: Repo, revision: str) -> dict[str, bytes] | None:
        revision = unquote(revision)
        if revision in ("main", repo.head):
            return repo.files
        match = re.fullmatch(r"refs/pr/(\d+)", revision)
        if match and int(match.group(1)) <= len(repo.prs):
            return repo.prs[int(match.group(1)) - 1]
        return repo.commits.get(revision)

    # -- routes -------------------------------------------------------------------------------
    def _fail(self, head_only: bool = False) -> bool:
        if self.state.fail_status is None:
            return False
        self._body()
        echo = {"error": f"internal failure; request headers: Authorization: {self.headers.get('Authorization')}"}
        self._send(self.state.fail_status, echo, head_only=head_only)
        return True

    def do_POST(self) -> None:
        self.state.authorizations.append(self.headers.get("Authorization", ""))
        if self._fail():
            return
        url = urlparse(self.path)
        if url.path == "/api/validate-yaml":
            payload = json.loads(self._body())
            problems = yaml_problems(payload.get("content", ""), payload.get("repoType") or "model")
            return self._send(400 if problems else 200, {"errors": [{"message": m} for m in problems], "warnings": []})
        if url.path == "/api/repos/create":
            payload = json.loads(self._body())
            repo_id = f"{payload['organization']}/{payload['name']}" if payload.get("organization") else payload["name"]
            kind = "spaces" if payload.get("type") == "space" else "datasets"
            repos = self._repos(kind)
            with self.state.lock:
                if repo_id in repos:
                    return self._send(
                        409,
                        {
                            "error": f"You already created this {kind[:-1]} repo",
                            "url": f"{self.endpoint}/{kind}/{repo_id}",
                        },
                    )
                if kind == "spaces" and payload.get("sdk") not in SPACE_SDKS:
                    return self._send(400, {"error": f"sdk must be one of {', '.join(SPACE_SDKS)}"})
                repos[repo_id] = Repo(sdk=payload.get("sdk"))
                for variable in payload.get("variables") or []:
                    repos[repo_id].variables[variable["key"]] = {
                        "value": variable["value"],
                        "description": variable.get("description"),
                    }
            return self._send(200, {"url": f"{self.endpoint}/{kind}/{repo_id}", "name": repo_id})
        match = re.fullmatch(r"/api/spaces/([^/]+/[^/]+)/variables", url.path)
        if match:
            return self._variables(match.group(1), post=True)
        match = re.fullmatch(r"/api/(datasets|spaces)/([^/]+/[^/]+)/(preupload|commit)/(.+)", url.path)
        if not match or match.group(2) not in self._repos(match.group(1)):
            return self._send(404, {"error": f"not found: {url.path}"})
        kind, repo_id, action = match.group(1), match.group(2), match.group(3)
        repo = self._repos(kind)[repo_id]
        if action == "preupload":
            files = json.loads(self._body())["files"]
            answer = [
                {"path": f["path"], "uploadMode": "regular", "shouldIgnore": False}
                | ({"oid": git_blob_sha1(repo.files[f["path"]])} if f["path"] in repo.files else {})
                for f in files
            ]
            return self._send(200, {"files": answer})
        lines = [json.loads(line) for line in self._body().decode().splitlines() if line.strip()]
        header = next(line["value"] for line in lines if line["key"] == "header")
        added = {
            line["value"]["path"]: base64.b64decode(line["value"]["content"]) for line in lines if line["key"] == "file"
        }
        deleted = {line["value"]["path"] for line in lines if line["key"] == "deletedFile"}
        create_pr = parse_qs(url.query).get("create_pr", ["0"])[0] in ("1", "true", "True")
        with self.state.lock:
            parent = header.get("parentCommit")
            if parent and parent != repo.head:
                return self._send(
                    412,
                    {
                        "error": "A commit has happened since. Please refresh and try again. "
                        f"(parent {parent} is not {repo.head})"
                    },
                )
            files = {p: b for p, b in repo.files.items() if p not in deleted} | added
            sha = _sha(files, repo.head)
            if create_pr:
                repo.prs.append(files)
                number = len(repo.prs)
                repo.commits[sha] = files
                return self._send(
                    200,
                    {
                        "commitOid": sha,
                        "commitUrl": f"{self.endpoint}/{kind}/{repo_id}/commit/{sha}",
                        "pullRequestUrl": f"{self.endpoint}/{kind}/{repo_id}/discussions/{number}",
                    },
                )
            repo.files, repo.head = files, sha
            repo.commits[sha] = files
            repo.history.append(sha)
        return self._send(200, {"commitOid": sha, "commitUrl": f"{self.endpoint}/{kind}/{repo_id}/commit/{sha}"})

    def do_GET(self) -> None:
        self._get(head_only=False)

    def do_HEAD(self) -> None:
        self._get(head_only=True)

    def _get(self, head_only: bool) -> None:
        if self._fail(head_only):
            return
        url = urlparse(self.path)
        path = url.path
        match = re.fullmatch(r"/api/spaces/([^/]+/[^/]+)/variables", path)
        if match:
            return self._variables(match.group(1), post=False)
        match = re.fullmatch(r"/api/(datasets|spaces)/([^/]+/[^/]+)(?:/revision/(.+))?", path)
        if match:
            kind, repo_id, revision = match.groups()
            repo = self._repos(kind).get(repo_id)
            if repo is None:
                return self._send(404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"}, head_only)
            files = self._files_at(repo, revision or "main")
            sha = (
                repo.head
                if files is repo.files
                else next((s for s, f in repo.commits.items() if f is files), repo.head)
            )
            return self._send(
                200,
                {
                    "id": repo_id,
                    "sha": sha,
                    "private": False,
                    "siblings": [{"rfilename": p} for p in sorted(files or {})],
                }
                | ({"sdk": repo.sdk} if kind == "spaces" else {}),
                head_only=head_only,
            )
        match = re.fullmatch(r"/api/(datasets|spaces)/([^/]+/[^/]+)/tree/([^/]+)(/.*)?", path)
        if match:
            repo = self._repos(match.group(1)).get(match.group(2))
            files = self._files_at(repo, match.group(3)) if repo else None
            if files is None:
                return self._send(404, {"error": "not found"}, head_only=head_only)
            prefix = unquote((match.group(4) or "").lstrip("/"))
            entries = [
                {"type": "file", "path": p, "size": len(b), "oid": git_blob_sha1(b)}
                for p, b in sorted(files.items())
                if p.startswith(prefix)
            ]
            return self._send(200, entries, head_only=head_only)
        match = re.fullmatch(r"/(datasets|spaces)/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path)
        if match:
            repo = self._repos(match.group(1)).get(match.group(2))
            revision = match.group(3)
            files = self._files_at(repo, revision) if repo else None
            name = unquote(match.group(4))
            if repo is None or files is None or name not in files:
                return self._send(404, {"error": "Entry not found"}, {"X-Error-Code": "EntryNotFound"}, head_only)
            data = files[name]
            if not head_only:
                self.state.downloads.append(name)
            commit = repo.head if files is repo.files else revision
            return self._send(
                200, data, {"X-Repo-Commit": commit, "ETag": f'"{hashlib.sha1(data).hexdigest()}"'}, head_only
            )
        return self._send(404, {"error": f"not implemented: {path}"}, head_only=head_only)


class HubServer:
    """The stand-in hub on ``host:port`` (port 0: a free one); ``endpoint`` is its URL once constructed."""

    def __init__(self, fail_status: int | None = None, port: int = 0, host: str = "127.0.0.1") -> None:
        self.state = HubState()
        self.state.fail_status = fail_status
        self.server = ThreadingHTTPServer((host, port), Handler)
        self.endpoint = f"http://{host}:{self.server.server_address[1]}"
        handler = type("BoundHandler", (Handler,), {"state": self.state, "endpoint": self.endpoint})
        self.server.RequestHandlerClass = handler
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> HubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
