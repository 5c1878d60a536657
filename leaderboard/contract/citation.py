"""A benchmark's BibTeX, from its declaration: what ``leaderboard cite`` prints and a model page's Cite shows."""

from __future__ import annotations

import re
from typing import Any


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", name.lower()) or "benchmark"


def benchmark_bibtex(declaration: Any) -> str:
    """The declaration's BibTeX; else a @misc entry from its citation line and reference, marked as such."""
    if declaration.bibtex.strip():
        return str(declaration.bibtex).strip()
    if declaration.citation.strip().startswith("@"):  # a citation given as BibTeX already
        return str(declaration.citation).strip()
    text = declaration.citation.strip() or declaration.description.strip()
    braced = text.replace("{", "(").replace("}", ")")
    return (
        f"% built by leaderboard cite from the {declaration.name} declaration's citation line (no BibTeX declared)\n"
        f"@misc{{{_key(declaration.name)},\n"
        f"  title = {{{declaration.name}}},\n"
        f"  note = {{{braced}}},\n"
        f"  howpublished = {{\\url{{{declaration.reference}}}}}\n"
        "}"
    )
