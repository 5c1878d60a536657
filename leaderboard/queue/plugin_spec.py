"""A submission's plugin spec: ``package==version`` on a package index, or a git URL pinned to a commit.

Parsing uses ``packaging`` (PEP 508 requirements); the spec must pin exactly one thing, because the
board's numbers must be reproducible from it: one released version, or one full 40-hex commit (a
branch or tag can move). ``check_exists`` asks the outside world whether it names something real:

- a package version: pip's own index client (``pip index versions``), so the index is whatever
  pip is configured with (pip.conf, PIP_INDEX_URL, PIP_FIND_LINKS) or ``--index-url``/
  ``--find-links``: the same pip that installs it in the worker. It lists versions without
  downloading or building anything (building an sdist would run the submitter's code);
- a commit: ``git fetch --depth=1 <url> <sha>`` into an empty bare repository (``--filter=tree:0``
  where the server allows it, so only the commit object comes), which fails for an unknown commit.
  Only the protocols in git's own ``GIT_ALLOW_PROTOCOL`` (default: https) are accepted: a URL
  typed into a web form must not make the server read its own disk (file://) or run a command (ext::).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Literal

from leaderboard.errors import BadInput, shorten

COMMIT = re.compile(r"^[0-9a-f]{40}$")
EXPECTED = "expected package==version (a release on the package index) or git+https://HOST/REPO@<40-hex commit>"
CHECK_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class PluginSpec:
    kind: Literal["package", "git"]
    requirement: str  # what pip installs
    name: str | None  # the distribution name (a bare git URL may leave it to the package's metadata)
    version: str | None = None  # package specs
    url: str | None = None  # git specs: the repository, without "git+" and the commit
    commit: str | None = None

    def __str__(self) -> str:
        return self.requirement


def allowed_git_protocols() -> list[str]:
    return [p for p in (os.environ.get("GIT_ALLOW_PROTOCOL") or "https").split(":") if p]


def parse(spec: str) -> PluginSpec:
    """The spec, or BadInput saying what is wrong and what was expected."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.version import InvalidVersion, Version

    text = " ".join(str(spec).split())
    if not text:
        raise BadInput(f"plugin spec is empty: {EXPECTED}.")
    if len(text) > 500 or any(ord(c) < 32 for c in text):
        raise BadInput(f"plugin spec {shorten(text, 80)!r}: too long or holds control characters; {EXPECTED}.")
    if text.startswith("git+"):
        return _git(text, None, text)
    try:
        requirement = Requirement(text)
    except InvalidRequirement as exc:
        raise BadInput(f"plugin spec {shorten(text, 80)!r} does not parse ({exc}); {EXPECTED}.") from None
    if requirement.marker is not None:
        raise BadInput(f"plugin spec {text!r}: environment markers (;...) are not accepted; {EXPECTED}.")
    if requirement.url:
        if not requirement.url.startswith("git+"):
            raise BadInput(f"plugin spec {text!r}: a direct URL must be a git URL pinned to a commit; {EXPECTED}.")
        return _git(requirement.url, requirement.name, text)
    specifiers = list(requirement.specifier)
    if len(specifiers) != 1 or specifiers[0].operator != "==" or "*" in specifiers[0].version:
        raise BadInput(
            f"plugin spec {text!r} does not pin one version; {EXPECTED} "
            "(the board's numbers must be reproducible from the spec)."
        )
    try:
        version = str(Version(specifiers[0].version))
    except InvalidVersion:
        raise BadInput(f"plugin spec {text!r}: {specifiers[0].version!r} is not a version; {EXPECTED}.") from None
    extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
    return PluginSpec("package", f"{requirement.name}{extras}=={version}", requirement.name, version=version)


def _git(url: str, name: str | None, text: str) -> PluginSpec:
    """git+SCHEME://HOST/PATH@<40-hex>[#egg=NAME] (pip's VCS URL form)."""
    location, _, fragment = url.removeprefix("git+").partition("#")
    repository, at, commit = location.rpartition("@")
    scheme = location.partition("://")[0]
    if "://" not in location or scheme not in allowed_git_protocols():
        allowed = ", ".join(f"git+{p}://" for p in allowed_git_protocols())
        raise BadInput(f"plugin spec {shorten(text, 80)!r}: only {allowed} URLs are accepted; {EXPECTED}.")
    if not at or "/" in commit or not COMMIT.match(commit.lower()):
        raise BadInput(
            f"plugin spec {shorten(text, 80)!r} is not pinned to a full 40-hex commit "
            f"(found {shorten(commit, 20)!r} after the last @); {EXPECTED}."
        )
    if not re.fullmatch(r"[A-Za-z0-9._~:/@%+-]+", repository) or repository.endswith("://"):
        raise BadInput(f"plugin spec {shorten(text, 80)!r}: {repository!r} is not a repository URL; {EXPECTED}.")
    egg = dict(part.partition("=")[::2] for part in fragment.split("&") if part).get("egg")
    name = name or egg or None
    pinned = f"git+{repository}@{commit.lower()}" + (f"#{fragment}" if fragment else "")
    requirement = f"{name} @ {pinned}" if name and not egg else pinned
    return PluginSpec("git", requirement, name, url=repository, commit=commit.lower())


def index_args(index_url: str | None = None, find_links: tuple[str, ...] = ()) -> list[str]:
    """pip options naming the index (none: pip's own configuration). Find-links alone means no index."""
    args = [f"--index-url={index_url}"] if index_url else []
    if find_links and not index_url:
        args.append("--no-index")
    return args + [f"--find-links={link}" for link in find_links]


def check_exists(spec: PluginSpec, pip_index_args: list[str] | tuple[str, ...] = ()) -> None:
    """BadInput unless the spec names a real release (on the index) or a real commit (in the repository)."""
    if spec.kind == "package":
        _check_release(spec, list(pip_index_args))
    else:
        _check_commit(spec)


def _check_release(spec: PluginSpec, pip_index_args: list[str]) -> None:
    from packaging.version import InvalidVersion, Version

    assert spec.name and spec.version
    command = [sys.executable, "-m", "pip", "index", "versions", spec.name, "--pre", "--disable-pip-version-check"]
    ran = _run([*command, *pip_index_args, "--retries=1", "--timeout=30"], "ask the package index")
    where = _index_named(pip_index_args)
    if ran.returncode != 0:
        if "No matching distribution" in ran.stderr:
            raise BadInput(f"plugin spec {spec}: there is no package {spec.name!r} on {where}.")
        raise BadInput(f"plugin spec {spec}: could not ask {where}: {_last_line(ran.stderr or ran.stdout)}")
    listed = next((line for line in ran.stdout.splitlines() if line.startswith("Available versions:")), "")
    versions = []
    for value in listed.partition(":")[2].split(","):
        try:
            versions.append(Version(value.strip()))
        except InvalidVersion:
            continue
    if Version(spec.version) not in versions:
        known = ", ".join(str(v) for v in sorted(versions, reverse=True)[:5]) or "none"
        raise BadInput(f"plugin spec {spec}: {spec.name} has no version {spec.version} on {where} (newest: {known}).")


def _check_commit(spec: PluginSpec) -> None:
    assert spec.url and spec.commit
    env = {
        **os.environ,
        "GIT_TERMINAL_PROMPT": "0",  # a private repository fails instead of waiting for a password
        "GIT_ALLOW_PROTOCOL": ":".join(allowed_git_protocols()),
    }
    with tempfile.TemporaryDirectory(prefix="leaderboard-commit-") as tmp:
        subprocess.run(["git", "init", "-q", "--bare", tmp], check=True, capture_output=True, env=env)
        fetch = ["git", "-C", tmp, "fetch", "-q", "--depth=1", "--filter=tree:0", "--", spec.url, spec.commit]
        ran = _run(fetch, "reach the repository", env)
    if ran.returncode == 0:
        return
    message = ran.stderr.strip()
    if "not our ref" in message or "couldn't find remote ref" in message or "no such remote ref" in message:
        raise BadInput(f"plugin spec {spec}: commit {spec.commit} is not in {spec.url}.")
    fatal = next((line for line in message.splitlines() if line.startswith("fatal:")), message)
    raise BadInput(f"plugin spec {spec}: could not reach {spec.url}: {_last_line(fatal)}")


def _run(command: list[str], action: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=CHECK_TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        raise BadInput(f"could not {action} within {CHECK_TIMEOUT_S:.0f} s; try again later.") from None
    except FileNotFoundError as exc:
        raise BadInput(f"could not {action}: {exc.filename} is not installed.") from None


def _index_named(pip_index_args: list[str]) -> str:
    for arg in pip_index_args:
        if arg.startswith(("--index-url=", "--find-links=")):
            location = re.sub(r"//[^/@]*@", "//", arg.partition("=")[2])  # never print user:password@
            return f"the package index ({location})"
    return "the package index"


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip() and "experimental" not in line]
    return shorten(lines[-1] if lines else "no message", 300)
