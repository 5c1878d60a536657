"""The models a picker offers on one benchmark, and a link's picks (``models=``, ``a=``, ``b=``) resolved to them.

A picker's value is what a reader would type: the model's name for the revision the board shows
(its newest), ``name@revision`` for an older one. A link may name a model so, or by the form older
pages wrote (name, U+001F, revision); a name matches case-insensitively when only one model has it.
A pick that names no model with results on the benchmark is kept, so the tab can say so: it is
never replaced by another model.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from leaderboard.app.data import task_views
from leaderboard.app.data.ranking import Ranking
from leaderboard.app.data.values import ModelKey
from leaderboard.app.views.render import esc

OLD_SEPARATOR = "\x1f"  # between name and revision in the values pages wrote before
NAMED_AT_MOST = 5  # unknown picks named in a note; the rest are counted
# A picker lists at most this many models; the others are typed, or opened by a link. Gradio's frontend
# copies a menu's every choice several times per event, in any tab (its state snapshots): 10,000 listed
# models cost the browser about 0.4 s of every later click (docs/development/perf.md).
LISTED_AT_MOST = 500
T = TypeVar("T")


@dataclass(frozen=True)
class Resolved:
    """A link's picks: the values found (in the link's order, at most the limit), those found past the
    limit (counted), and those that name no model of the benchmark (named)."""

    values: list[str]
    over_limit: int
    unknown: list[str]


class Picks:
    """The models of a benchmark a picker offers: ``newest`` (each model's shown revision) and, for a picker
    of every revision, ``every``."""

    def __init__(self, newest: Ranking | None, every: Ranking | None = None) -> None:
        shown = [line.key for line in newest.lines] if newest else []
        self.keys: list[ModelKey] = [line.key for line in every.lines] if every else shown
        self._newest = {key[0]: key for key in shown}
        self._known = set(self.keys)
        folded: dict[str, list[str]] = {}
        for name in self._newest:
            folded.setdefault(name.casefold(), []).append(name)
        self._folded = folded

    def value(self, key: ModelKey) -> str:
        return key[0] if self._newest.get(key[0]) == key else f"{key[0]}@{key[1]}"

    def choices(self, keep: Iterable[str] = ()) -> list[tuple[str, str]]:
        """(label, value) of the first ``LISTED_AT_MOST`` models (board order) and of each value in ``keep``
        (the picks shown), labelled as the board labels them. Any other model is typed: the pickers take
        custom values, resolved by ``key``."""
        labels = task_views.model_labels(self.keys)
        kept = [key for pick in keep if (key := self.key(pick)) is not None]
        return [(labels[key], self.value(key)) for key in listed_names(self.keys, kept)]

    def key(self, pick: object) -> ModelKey | None:
        """The model a pick names, or None."""
        if not isinstance(pick, str) or not pick.strip():
            return None
        text = pick.strip()
        name, separator, revision = text.partition(OLD_SEPARATOR)
        if separator:
            return (name, revision) if (name, revision) in self._known else None
        if text in self._newest:
            return self._newest[text]
        name, at, revision = text.rpartition("@")
        if at:
            found = self._revision(name.strip(), revision.strip())
            if found is not None:
                return found
        same = self._folded.get(text.casefold(), [])
        return self._newest[same[0]] if len(same) == 1 else None

    def _revision(self, name: str, revision: str) -> ModelKey | None:
        if (name, revision) in self._known:
            return name, revision
        # a unique prefix of a revision (a commit's short hash)
        found = [key for key in self.keys if key[0] == name and revision and key[1].startswith(revision)]
        return found[0] if len(found) == 1 else None

    def resolve(self, picks: Iterable[str], limit: int | None = None) -> Resolved:
        values: list[str] = []
        unknown: list[str] = []
        over = 0
        for pick in picks:
            key = self.key(pick)
            if key is None:
                unknown.append(pick)
            elif self.value(key) in values:
                continue
            elif limit is not None and len(values) >= limit:
                over += 1
            else:
                values.append(self.value(key))
        return Resolved(values, over, unknown)


def as_list(value: Any) -> list[str]:
    """A picker's value as a list of picks (a single picker's one name, a multiselect's names)."""
    if isinstance(value, str):
        return [value] if value else []
    return [str(v) for v in value or [] if v]


def listed_names(names: list[T], keep: Iterable[T] = ()) -> list[T]:
    """What a picker lists (model names, or ``Picks``' keys): the first ``LISTED_AT_MOST`` (in their order), then
    each of ``keep`` (the picks shown) not among them."""
    listed = names[:LISTED_AT_MOST]
    shown = set(listed)
    return listed + [name for name in dict.fromkeys(keep) if name not in shown]


def unknown_note(unknown: list[str], benchmark: str, parameter: str = "") -> str:
    """The sentence that names picks no model of the benchmark answers to (HTML); ``parameter``: the link's."""
    if not unknown:
        return ""
    named = ", ".join(f"“{esc(pick)}”" for pick in unknown[:NAMED_AT_MOST])
    more = f" and {len(unknown) - NAMED_AT_MOST} more" if len(unknown) > NAMED_AT_MOST else ""
    what = "No model named" if len(unknown) == 1 else "No models named"
    source = f" (the link's <code>{esc(parameter)}=</code>)" if parameter else ""
    return f"{what} {named}{more} has results on {esc(benchmark)}{source}."
