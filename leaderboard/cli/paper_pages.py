"""LaTeX tables that a page holds, for the long per-subset tables (``show --subsets``, ``compare --per-subset``).

Rows come in blocks, each under a heading (the metric: ComLQ's 36 subsets under nDCG@10, then its
negation subsets under LSNC@10, ...). ``paginate`` cuts the blocks into tables of at most
``LINES_PER_TABLE`` rows, and ``latex_parts`` writes each as a float of its own, "part 2 of 5" in
its caption: no ``longtable``, no scaling, nothing beyond booktabs. Each row is two lines (a score
with its interval below it), so a subset's label carries its own name below it too
(``subset_cell``) rather than in a wider column.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from leaderboard.analysis.subset_text import subset_text
from leaderboard.cli.paper_tables import Cell, Section, render

# A letter-size article page holds 18 such rows with a caption of a few lines: 16 leave room for a caption
# that names long models.
LINES_PER_TABLE = 16

Block = tuple[str, list[list[Any]]]  # a heading and its rows


@dataclass
class Part:
    """One table: its columns, its rows (``Section`` headings among them) and a sentence of its own (a key)."""

    headers: Sequence[str]
    rows: list[Any]
    key: str = ""
    subheaders: Sequence[str] | None = None


def subset_cell(label: str, subset: str) -> Cell:
    """A subset's label, with its own name below it where the label hides it ("#1" over "evidence=1")."""
    return Cell(label, below="" if subset_text(label, subset) == label else subset)


def paginate(blocks: Sequence[Block], limit: int = LINES_PER_TABLE) -> list[list[Any]]:
    """The blocks cut into tables of at most ``limit`` rows (headings count): a block cut in two repeats its
    heading, "(continued)", and no table ends with a heading."""
    pages: list[list[Any]] = [[]]
    for heading, lines in blocks:
        if not lines:
            continue
        if len(pages[-1]) + 2 > limit:  # room for the heading and one row
            pages.append([])
        pages[-1].append(Section(heading))
        for line in lines:
            if len(pages[-1]) >= limit:
                pages.append([Section(f"{heading} (continued)")])
            pages[-1].append(line)
    return [page for page in pages if page]


def latex_parts(parts: Sequence[Part], caption: str, notes: Sequence[str], label: str) -> list[str]:
    """Each part as a booktabs ``table``: the caption with "(part i of n)", the part's key, and the notes in the
    first part only (the others say "Notes as in part 1")."""
    out = []
    for number, part in enumerate(parts, 1):
        numbered = f"{caption} (part {number} of {len(parts)})" if len(parts) > 1 else caption
        said = list(notes) if number == 1 else ["Notes as in part 1"]
        name = f"{label}-{number}" if len(parts) > 1 else label
        out.append(
            render(
                part.headers,
                part.rows,
                "latex",
                numbered,
                [part.key, *said] if part.key else said,
                1,
                subheaders=part.subheaders,
                label=name,
            )
        )
    return out


def slug(text: str) -> str:
    """Text as a LaTeX label's part: lower-case letters, digits and hyphens."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "table"
