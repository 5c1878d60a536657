"""A worker's credentials: which variables and files count as one, and redacting them from what a run publishes.

A run's log tail, its failure reason and the request's history go to the requests dataset, which
anyone can read; a plugin can print whatever it finds. ``Redactor`` removes from such text every
value of the worker's secret-named environment variables (and the hub token it was given) and every
string in a known token format: the formats come from Yelp's ``detect-secrets`` (its regex-based
detectors: AWS, GitHub classic, Slack, Stripe, private keys, JWTs, ...), plus the few it lacks here
(Hugging Face ``hf_``, GitHub fine-grained ``github_pat_``, current OpenAI ``sk-`` keys, bearer headers).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

# A variable whose name says it holds a credential: never passed to a run, redacted from its output.
SECRET_NAME = re.compile(r"(?i)token|key|secret|passw|credential|auth|cookie|session|^aws_|^azure_|^gcp_|^google_")
# Names that match SECRET_NAME but hold a path to public certificates (AWS_CA_BUNDLE), not a secret.
NOT_SECRET = re.compile(r"(?i)_CA_BUNDLE$|_CA_CERTS?$|_CERT_FILE$")
# Shorter values ("1", "true", "dev") are too common to cut out of a log; a credential is longer.
MIN_SECRET_CHARS = 8
MASK = "***"

# Token formats detect-secrets 1.5 has no detector for (or only an older shape of).
_OWN_PATTERNS = (
    r"\bhf_[A-Za-z0-9]{8,}",  # Hugging Face
    r"\bgithub_pat_[A-Za-z0-9_]{20,}",  # GitHub fine-grained
    r"\bgh[pousr]_[A-Za-z0-9]{20,}",  # GitHub classic, any length
    r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",  # OpenAI (and similar API keys)
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",  # Slack
    r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",  # AWS access key id
    r"(?i)(?<=bearer\s)[^\s'\",;}\]]+",  # Authorization: Bearer <anything>
)
# detect-secrets detectors that flag what is not a credential here (public IP addresses).
_SKIPPED_DETECTORS = ("IPPublicDetector",)


def is_secret_name(name: str) -> bool:
    return bool(SECRET_NAME.search(name)) and not NOT_SECRET.search(name)


def secret_variables(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """name -> value of every secret-named variable with a value."""
    environ = os.environ if environ is None else environ
    return {name: value for name, value in environ.items() if value and is_secret_name(name)}


def token_files() -> list[Path]:
    """Hugging Face token files that exist (``hf auth login`` writes them)."""
    from huggingface_hub import constants

    paths = [Path(constants.HF_TOKEN_PATH), Path(getattr(constants, "HF_STORED_TOKENS_PATH", constants.HF_TOKEN_PATH))]
    return sorted({path for path in paths if path.is_file()})


def ancestor_secrets() -> dict[int, list[str]]:
    """pid -> secret-named variables in the environment of each process this one descends from (Linux).

    A plugin running as this user can read those processes' /proc/<pid>/environ: a shell that
    exported HF_TOKEN and started the worker with it removed still holds it. Unreadable ones are skipped.
    """
    found: dict[int, list[str]] = {}
    pid = os.getppid()
    seen: set[int] = set()
    while pid > 1 and pid not in seen:
        seen.add(pid)
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            break
        pairs = [entry.decode(errors="replace").split("=", 1) for entry in environ.split(b"\0") if b"=" in entry]
        secret = sorted(name for name, value in pairs if value and is_secret_name(name))
        if secret:
            found[pid] = secret
        match = re.search(r"^PPid:\s*(\d+)", status, re.M)
        pid = int(match.group(1)) if match else 0
    return found


@functools.cache
def token_patterns() -> tuple[re.Pattern[str], ...]:
    """Every token format: detect-secrets' regex detectors, then ours."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    patterns: list[re.Pattern[str]] = []
    detector: Any
    for detector in get_mapping_from_secret_type_to_class().values():
        if issubclass(detector, RegexBasedDetector) and detector.__name__ not in _SKIPPED_DETECTORS:
            patterns += list(detector.denylist)  # a class attribute of each regex detector
    return (*patterns, *(re.compile(p) for p in _OWN_PATTERNS))


def _masked(match: re.Match[str]) -> str:
    """The match with its secret part masked: a detector's capture group when it holds the secret
    (AWS's 40-character key after ``aws_secret=``), else the whole match (GitHub's ``(ghp|gho)_...``
    captures only the prefix)."""
    if match.re.groups and (match.group(1) or "") and len(match.group(1)) >= MIN_SECRET_CHARS:
        start, end = match.span(1)
        offset = match.start()
        text = match.group(0)
        return text[: start - offset] + MASK + text[end - offset :]
    return MASK


class Redactor:
    """Cleans text before it is published: known secret values first (longest first), then token formats."""

    def __init__(self, *known: str | None, environ: Mapping[str, str] | None = None):
        values = {v for v in known if v} | set(secret_variables(environ).values())
        self.values = sorted((v for v in values if len(v) >= MIN_SECRET_CHARS), key=len, reverse=True)
        self.patterns = token_patterns()

    def __call__(self, text: object) -> str:
        text = str(text)
        for value in self.values:
            text = text.replace(value, MASK)
        for pattern in self.patterns:
            text = pattern.sub(_masked, text)
        return text


def named(names: Iterable[str]) -> str:
    return ", ".join(sorted(names))
