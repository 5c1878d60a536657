"""Where a credential lies within reach of a process running as this user, found by name and by value.

A plugin run without namespaces (the queue's isolation "process") runs as the worker's user: it can
read that user's files and the environment of that user's processes (``/proc/<pid>/environ``). So
before such a run, the worker looks, and ``findings`` names each place it finds one:

- a variable of its own environment that is secret-named (``HF_TOKEN``, ``MY_API_KEY``) or whose value
  has the shape of a token ``redaction`` knows (``HUBVALUE=hf_...``), whatever its name;
- the same in the environment of every process it descends from that it can read (the shell that ran
  ``env -u HF_TOKEN leaderboard worker`` still holds it);
- every token file huggingface_hub may read: the configured ``HF_TOKEN_PATH``, the token files under
  ``HF_HOME``, and the default ones under ``~/.cache/huggingface`` (and ``$XDG_CACHE_HOME/huggingface``),
  which a plugin can read even while ``HF_HOME`` points elsewhere.

A finding names the variable, the process or the file, never the value.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from leaderboard.security.redaction import is_secret_name, token_kind

TOKEN_FILE_NAMES = ("token", "stored_tokens")


@dataclass(frozen=True)
class Finding:
    where: str  # "its environment", "process 123 (sh), which it descends from", "token file"
    what: str  # the variable or the path
    why: str  # "secret-named", "holds a value shaped like a Hugging Face token", "exists"

    def __str__(self) -> str:
        return f"{self.where} {self.what} ({self.why})"


def _variable_findings(environ: Mapping[str, str], where: str, exempt: Collection[str]) -> list[Finding]:
    found = []
    for name, value in sorted(environ.items()):
        if not value or value in exempt:
            continue
        if is_secret_name(name):
            found.append(Finding(where, name, "secret-named"))
            continue
        kind = token_kind(value)
        if kind:
            found.append(Finding(where, name, f"holds a value shaped like a {kind}"))
    return found


def environment_findings(environ: Mapping[str, str] | None = None, exempt: Collection[str] = ()) -> list[Finding]:
    """The credentials in this process's environment (``exempt``: values an operator passes on purpose)."""
    return _variable_findings(os.environ if environ is None else environ, "its environment variable", exempt)


def ancestors(start: int | None = None) -> list[tuple[int, str]]:
    """(pid, command name) of every process this one descends from, nearest first (Linux; [] elsewhere)."""
    found: list[tuple[int, str]] = []
    pid = os.getppid() if start is None else start
    seen: set[int] = set()
    while pid > 0 and pid not in seen:
        seen.add(pid)
        try:
            status = Path(f"/proc/{pid}/status").read_text(errors="replace")
        except OSError:
            break
        name = re.search(r"^Name:\s*(.*)$", status, re.M)
        found.append((pid, name.group(1).strip() if name else "?"))
        parent = re.search(r"^PPid:\s*(\d+)", status, re.M)
        pid = int(parent.group(1)) if parent else 0
    return found


def ancestor_findings(exempt: Collection[str] = (), start: int | None = None) -> list[Finding]:
    """The credentials in the environment of each process this one descends from that can be read here."""
    found = []
    for pid, command in ancestors(start):
        try:
            raw = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:  # another user's process, or gone: a plugin of this user cannot read it either
            continue
        pairs = (entry.decode(errors="replace").split("=", 1) for entry in raw.split(b"\0") if b"=" in entry)
        environ = dict(pair for pair in pairs if len(pair) == 2)
        where = f"process {pid} ({command}), which it descends from, has the variable"
        found += _variable_findings(environ, where, exempt)
    return found


def token_file_paths(environ: Mapping[str, str] | None = None) -> list[Path]:
    """Every token file huggingface_hub may read, whether or not it exists: the configured paths and the
    default ones (``HF_HOME`` moved elsewhere does not stop a plugin from reading the default file)."""
    from huggingface_hub import constants

    environ = os.environ if environ is None else environ
    home = Path(environ.get("HOME") or Path.home())
    folders = [home / ".cache" / "huggingface", Path(constants.HF_HOME)]
    if environ.get("XDG_CACHE_HOME"):
        folders.append(Path(environ["XDG_CACHE_HOME"]) / "huggingface")
    if environ.get("HF_HOME"):
        folders.append(Path(environ["HF_HOME"]))
    paths = [folder.expanduser() / name for folder in folders for name in TOKEN_FILE_NAMES]
    paths.append(Path(constants.HF_TOKEN_PATH))
    paths.append(Path(getattr(constants, "HF_STORED_TOKENS_PATH", constants.HF_TOKEN_PATH)))
    if environ.get("HF_TOKEN_PATH"):
        paths.append(Path(environ["HF_TOKEN_PATH"]))
    return sorted({path.expanduser() for path in paths})


def token_files(environ: Mapping[str, str] | None = None) -> list[Path]:
    """The token files that exist (``hf auth login`` writes them)."""
    return [path for path in token_file_paths(environ) if path.is_file()]


def findings(exempt: Collection[str] = ()) -> list[Finding]:
    """Every credential within reach of a process of this user: this environment, its ancestors', token files."""
    files = [Finding("token file", str(path), "exists") for path in token_files()]
    return [*environment_findings(exempt=exempt), *ancestor_findings(exempt), *files]
