"""Cutting credentials out of text before it is shown or published.

``Redactor`` removes every known secret value (the hub token, the value of every secret-named
variable, every variable whose value has a token's shape, and values an operator passes to runs as
secrets) together with the forms a plugin could print it in to slip past a plain match: base64
(standard and URL-safe, at any byte offset), hex (either case) and reversed. Then it masks every
string in a known token format: the formats come from Yelp's ``detect-secrets`` (its regex-based
detectors: AWS, GitHub classic, Slack, Stripe, private keys, JWTs, ...), plus the few it lacks here
(Hugging Face ``hf_``, GitHub fine-grained ``github_pat_``, current OpenAI ``sk-`` keys, bearer headers).

``redact(text, token)`` is the short form every error message uses (the hub client, the app, a
plugin through the toolkit). A value printed in pieces (a token in two halves) is published in
pieces: no pattern can see it; the threat model states this limit.
"""

from __future__ import annotations

import base64
import functools
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

# A variable whose name says it holds a credential: never passed to a run, redacted from its output.
SECRET_NAME = re.compile(r"(?i)token|key|secret|passw|credential|auth|cookie|session|^aws_|^azure_|^gcp_|^google_")
# Names that match SECRET_NAME but hold a path to public certificates (AWS_CA_BUNDLE), not a secret.
NOT_SECRET = re.compile(r"(?i)_CA_BUNDLE$|_CA_CERTS?$|_CERT_FILE$")
# Shorter values ("1", "true", "dev") are too common to cut out of a log; a credential is longer.
MIN_SECRET_CHARS = 8
MASK = "***"

# Token formats detect-secrets 1.5 has no detector for (or only an older shape of), with their names.
_OWN_PATTERNS = (
    ("Hugging Face token", r"\bhf_[A-Za-z0-9]{8,}"),
    ("GitHub fine-grained token", r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    ("GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
    ("API key (sk-)", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("AWS access key id", r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b"),
    ("bearer token", r"(?i)(?<=bearer\s)[^\s'\",;}\]]+"),
)
# detect-secrets detectors that flag what is not a credential here (public IP addresses).
_SKIPPED_DETECTORS = ("IPPublicDetector",)


def is_secret_name(name: str) -> bool:
    return bool(SECRET_NAME.search(name)) and not NOT_SECRET.search(name)


def secret_variables(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """name -> value of every secret-named variable with a value."""
    environ = os.environ if environ is None else environ
    return {name: value for name, value in environ.items() if value and is_secret_name(name)}


@functools.cache
def token_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(what it is, pattern) of every token format: detect-secrets' regex detectors, then ours."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    patterns: list[tuple[str, re.Pattern[str]]] = []
    detector: Any
    for kind, detector in get_mapping_from_secret_type_to_class().items():
        if issubclass(detector, RegexBasedDetector) and detector.__name__ not in _SKIPPED_DETECTORS:
            patterns += [(str(kind), pattern) for pattern in detector.denylist]  # a class attribute of each
    return (*patterns, *((kind, re.compile(p)) for kind, p in _OWN_PATTERNS))


def token_kind(value: str) -> str | None:
    """What kind of credential ``value`` holds by its shape ("Hugging Face token", ...), or None."""
    for kind, pattern in token_patterns():
        if pattern.search(value):
            return kind
    return None


def token_valued(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """name -> kind of every variable whose value has a token's shape, whatever its name."""
    environ = os.environ if environ is None else environ
    found = {}
    for name, value in environ.items():
        kind = token_kind(value) if value else None
        if kind:
            found[name] = kind
    return found


def secret_forms(value: str) -> list[str]:
    """``value`` and the forms a run could print it in: reversed, hex, and base64 (standard and URL-safe) at
    each of the three byte offsets it can start at inside a longer encoded text (only the characters that
    depend on the value alone, so a match holds whatever surrounds it)."""
    data = value.encode("utf-8")
    forms = {value, value[::-1], data.hex(), data.hex().upper()}
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + data).decode("ascii")
        first = -(-8 * offset // 6)  # the first character made of the value's bits only
        last = 8 * (offset + len(data)) // 6  # one past the last such character
        core = encoded[first:last]
        forms |= {core, core.replace("+", "-").replace("/", "_")}
    return sorted((f for f in forms if len(f) >= MIN_SECRET_CHARS), key=len, reverse=True)


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
    """Cleans text before it is published: known secret values and their encoded forms first (longest
    first), then token formats.

    ``known``: values to cut (the hub token, values an operator passes to runs as secrets). The secret-named
    and token-valued variables of ``environ`` (default: this process's) are cut too.
    """

    def __init__(self, *known: str | None, environ: Mapping[str, str] | None = None):
        environ = os.environ if environ is None else environ
        values = {v for v in known if v} | set(secret_variables(environ).values())
        values |= {environ[name] for name in token_valued(environ)}
        forms = {form for value in values if len(value) >= MIN_SECRET_CHARS for form in secret_forms(value)}
        self.values = sorted(forms, key=len, reverse=True)
        self.patterns = [pattern for _, pattern in token_patterns()]

    def __call__(self, text: object) -> str:
        text = str(text)
        for value in self.values:
            text = text.replace(value, MASK)
        for pattern in self.patterns:
            text = pattern.sub(_masked, text)
        return text


def redact(text: object, token: str | None = None) -> str:
    """``text`` with ``token``, this process's secret values and every known token format masked as ``***``.

    The one cleaning every message gets before it is shown: hub errors (push, pull, serve), the app's
    notices, a judge's endpoint errors."""
    return Redactor(token)(text)


def named(names: Iterable[str]) -> str:
    return ", ".join(sorted(names))
