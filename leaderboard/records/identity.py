"""One identity per model: names that a reader, a URL or a file system cannot tell apart are one model.

A model's canonical identity is its name after Unicode NFKC normalisation and case folding, with ``/``
and ``__`` counted as the same (the results layout writes ``org/model`` as the folder ``org__model``).
``BM25``, ``bm25`` and ``ｂｍ２５`` are one identity; so are ``org/model`` and ``org__model``. The board keys
its model pages by it, and the queue and ``push`` refuse a second spelling of an identity already
published (``conflicts``), so no model can borrow another's page or folder.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass


def identity(name: str) -> str:
    """The canonical identity of a model name (NFKC, case folded, ``__`` read as ``/``)."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return folded.strip().replace("__", "/")


def folder_identity(folder: str) -> str:
    """The identity a results folder's name suggests (``path_component`` may add ``~<hash>``: cut off)."""
    return identity(folder.split("~", 1)[0])


@dataclass(frozen=True)
class Claim:
    """A model name as someone publishes it, with what tells publishers apart where it is known."""

    name: str
    plugin: str | None = None  # the plugin (entry-point name) its results name, as its model card says
    distribution: str | None = None  # the plugin's distribution (package), where the queue knows it
    where: str = ""  # for messages: a model card's path, a request

    def described(self) -> str:
        owner = self.distribution or self.plugin
        return f"{self.name!r}" + (f" ({owner})" if owner else "") + (f", {self.where}" if self.where else "")


def same_publisher(a: Claim, b: Claim) -> bool:
    """Whether two claims of one spelling come from one plugin: by distribution where both are known, else by
    plugin name where both are known; when neither can be compared they are taken as one (checked again later,
    where the other side is known)."""
    if a.distribution and b.distribution:
        return _package(a.distribution) == _package(b.distribution)
    if a.plugin and b.plugin:
        return a.plugin == b.plugin
    return True


def conflicts(claim: Claim, published: Iterable[Claim], spelling_only: bool = False) -> list[Claim]:
    """The published claims ``claim`` may not join: the same identity spelled otherwise, or (unless
    ``spelling_only``) the same spelling from another plugin."""
    key = identity(claim.name)
    found = []
    for other in published:
        if identity(other.name) != key:
            continue
        if other.name != claim.name or (not spelling_only and not same_publisher(claim, other)):
            found.append(other)
    return found


def _package(name: str) -> str:
    """A distribution name as package indexes compare them (PEP 503)."""
    import re

    return re.sub(r"[-_.]+", "-", name).lower()
