"""The reader's filters over a board's models (kind, instructions, size, zero-shot, license, open weights, where
the numbers come from, search) and the optional columns."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import Any

from leaderboard.app.values import finite

SIZES = ("< 100M", "100M–1B", "1B–10B", "≥ 10B", "unknown")
OPTIONAL_COLUMNS: tuple[str, ...] = ("Coverage", "Missing", "Parameters", "Kind", "Instructions", "Revision", "Harness")
OPTIONAL_COLUMNS += ("Updated",)
OPTIONAL_COLUMNS += ("License", "Open weights", "Released", "Zero-shot")  # model_meta.json's, for imported runs
DEFAULT_COLUMNS = ("Coverage", "Missing", "Parameters", "Kind", "Instructions", "Zero-shot")
# MTEB's leaderboard's zero-shot filter (allow all, only zero-shot, remove unknown): value -> label
ZERO_SHOT = {"any": "every model", "only": "zero-shot only", "known": "known training data only"}
OPEN_WEIGHTS = {"any": "any", "yes": "open weights", "no": "closed (API)"}  # model_meta.json's open_weights
# Where a row's numbers come from: this harness's run, an mteb run imported, or a number copied (a paper's table,
# or mteb's `external` results, which are the model authors' own): ``source_of``
SOURCES = ("run here", "imported", "reported")
UNKNOWN_LICENSE = "unknown"


def source_of(imported_label: str | None) -> str:
    """A row's SOURCES entry from its ``Line.imported`` label (None: run by this harness)."""
    if not imported_label:
        return SOURCES[0]
    return SOURCES[2] if imported_label.startswith("reported") else SOURCES[1]


def license_label(value: str) -> str:
    """How a license is named in the filter: a link (model_meta.json may give one) by its site and first two path
    parts, "nvidia/llama-embed-nemotron-8b (link)", not a 70-character address that no phone shows whole."""
    if not value.startswith(("http://", "https://")):
        return value
    parsed = urllib.parse.urlsplit(value)
    parts = [p for p in parsed.path.split("/") if p][:2]
    return f"{'/'.join(parts) or parsed.netloc} (link)"


def license_of(info: dict[str, Any]) -> str:
    value = info.get("license")
    return str(value) if value else UNKNOWN_LICENSE


def size_bucket(parameters: Any) -> str:
    count = finite(parameters)
    if count is None or count <= 0:
        return "unknown"
    for limit, bucket in ((1e8, SIZES[0]), (1e9, SIZES[1]), (1e10, SIZES[2])):
        if count < limit:
            return bucket
    return SIZES[3]


@dataclass(frozen=True)
class Filters:
    kinds: tuple[str, ...] = ()  # empty: every kind
    instructions: str = "any"  # "any", "yes" or "no"
    sizes: tuple[str, ...] = ()  # empty: every size
    search: str = ""
    zero_shot: str = "any"  # ZERO_SHOT: a model's status on the benchmark shown (``Line.zero_shot``)
    licenses: tuple[str, ...] = ()  # empty: every license (UNKNOWN_LICENSE: none recorded)
    open_weights: str = "any"  # OPEN_WEIGHTS: "yes" keeps open models, "no" closed ones (unknown: neither)
    sources: tuple[str, ...] = ()  # SOURCES kept; empty: all

    @property
    def shows_reported(self) -> bool:
        """The papers' tier is shown (its rows have no model metadata: only the search and the source apply)."""
        return not self.sources or SOURCES[2] in self.sources

    def keep(self, info: dict[str, Any]) -> bool:
        if self.kinds and info.get("kind") not in self.kinds:
            return False
        takes = bool(info.get("takes_instructions"))
        if (self.instructions == "yes" and not takes) or (self.instructions == "no" and takes):
            return False
        if self.sizes and size_bucket(info.get("n_parameters")) not in self.sizes:
            return False
        status = info.get("zero_shot")
        if (self.zero_shot == "only" and status is not True) or (self.zero_shot == "known" and status is None):
            return False
        if self.licenses and license_of(info) not in self.licenses:
            return False
        weights = info.get("open_weights")
        if self.open_weights != "any" and weights is not (self.open_weights == "yes"):
            return False
        if self.sources and info.get("source", SOURCES[0]) not in self.sources:
            return False
        return not self.search or self.search.casefold() in str(info.get("name", "")).casefold()
