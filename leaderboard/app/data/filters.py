"""The reader's filters over a board's models (kind, instructions, size, zero-shot, license, open weights, where
the numbers come from, search) and the optional columns, with the model facts they show."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from leaderboard.app.data.values import finite

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


LINKED_LICENSE = "own license (a link)"  # model_meta.json gives a link to the license's text, not its name


# What model_meta.json writes where it records no license (compared case-insensitively)
NOT_RECORDED = frozenset({"", "none", "null", "unknown", "not specified", "not-specified", "n/a", "na"})


def license_of(info: dict[str, Any]) -> str:
    """A model's license as the filter and the License column name it: its SPDX id ("mit" and "MIT" are one
    license, MIT), any other name in lower case, ``LINKED_LICENSE`` for a link to a license's text (apart from the
    names: the model page links it), "unknown" where none is recorded."""
    value = info.get("license")
    text = str(value).strip() if isinstance(value, str) else ""
    if text.casefold() in NOT_RECORDED:
        return UNKNOWN_LICENSE
    if text.startswith(("http://", "https://")):
        return LINKED_LICENSE
    return license_id(text)


@functools.lru_cache(maxsize=1024)
def license_id(text: str) -> str:
    """The SPDX id of a license name, case-insensitively (packaging's table of the SPDX license list, PEP 639);
    a name that is no SPDX id (gemma, other) in lower case."""
    from packaging.licenses import InvalidLicenseExpression, canonicalize_license_expression

    try:
        return str(canonicalize_license_expression(text))
    except InvalidLicenseExpression:
        return text.casefold()


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
        if self.licenses and license_of(info) not in {license_of({"license": name}) for name in self.licenses}:
            return False
        weights = info.get("open_weights")
        if self.open_weights != "any" and weights is not (self.open_weights == "yes"):
            return False
        if self.sources and info.get("source", SOURCES[0]) not in self.sources:
            return False
        if not self.search:
            return True
        names = [info.get("name", ""), *(info.get("copies") or ())]  # a row of byte-identical files: every name
        return any(self.search.casefold() in str(name).casefold() for name in names)


MODEL_COLUMNS = ("Parameters", "Dimension", "Max tokens")
MODEL_FACTS = ("License", "Open weights", "Released", "Zero-shot")  # shown where some row of the board has them


def metadata_value(info: dict[str, Any], column: str) -> float | None:
    keys = {
        "Parameters": ("n_parameters",),
        "Dimension": ("embedding_dim", "embedding_dimension", "dim"),
        "Max tokens": ("max_length", "max_tokens"),
    }[column]
    for key in keys:
        value = finite(info.get(key))
        if value is not None and value > 0:
            return value
    return None


def model_fact(info: dict[str, Any], column: str) -> str | None:
    """A MODEL_FACTS cell's text (None: unknown): from model_meta.json for imported runs; zero-shot per board."""
    if column == "License":
        found = license_of(info)  # its SPDX id, as the filter names it
        return None if found == UNKNOWN_LICENSE else found
    if column == "Released":
        value = info.get("release_date")
        return str(value)[:10] if value else None
    flag = info.get("open_weights" if column == "Open weights" else "zero_shot")
    return None if not isinstance(flag, bool) else ("yes" if flag else "no")
