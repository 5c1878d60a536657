"""The view state a link carries: parsed from the page's URL query, never trusted.

Parameters: ``benchmark``, ``tab``, ``kind``, ``instr``, ``size``, ``q`` (search), ``cols``, ``sort``
(``<column key>.asc|desc``), ``p`` (the page of the table; not ``page``, which Gradio reserves for its
own multipage routing: ``?page=2`` would be a server error, see ``legacy_links``), ``models`` (picked
models), ``overall`` (the benchmarks of the
Overall view), ``revisions`` (``1``: older revisions too), ``zs`` (the zero-shot filter), ``a`` and ``b``
(the compared models).
Lists are joined by ``|``. The page's JavaScript writes them (``assets.url_state_js``); the page
load reads them here. Unknown values are dropped by the callers, which know the valid choices.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass, field

MAX_QUERY = 8192  # longer query strings are ignored (a hand-made link, not one the page wrote)
LIST_SEPARATOR = "|"
PAGE = "p"  # the table page's parameter; Gradio's own routes read ``page``


@dataclass(frozen=True)
class ViewState:
    benchmark: str = ""
    tab: str = ""
    kinds: tuple[str, ...] | None = None  # None: the default (every kind)
    instructions: str = ""
    sizes: tuple[str, ...] | None = None
    search: str = ""
    columns: tuple[str, ...] | None = None
    sort: tuple[str, str] | None = None  # (column key, "asc" | "desc")
    page: int = 1
    models: tuple[str, ...] = ()
    overall: tuple[str, ...] | None = None
    revisions: bool = False
    zero_shot: str = ""  # ``zs``: filters.ZERO_SHOT
    a: str = ""
    b: str = ""
    extra: dict[str, str] = field(default_factory=dict)


def _list(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    return tuple(part for part in value.split(LIST_SEPARATOR) if part)


def parse_sort(value: str | None) -> tuple[str, str] | None:
    if not value:
        return None
    key, _, direction = value.rpartition(".")
    if not key or direction not in ("asc", "desc"):
        return None
    return key, direction


def parse(query: str | None) -> ViewState:
    """The state in ``?a=b&...`` (a leading ``?`` is optional); anything malformed is left at its default."""
    text = (query or "").lstrip("?")
    if not isinstance(query, str) or len(text) > MAX_QUERY:
        return ViewState()
    pairs = dict(urllib.parse.parse_qsl(text, keep_blank_values=False))
    try:
        page = max(1, int(pairs.get(PAGE, "1")))
    except ValueError:
        page = 1
    return ViewState(
        benchmark=pairs.get("benchmark", ""),
        tab=pairs.get("tab", ""),
        kinds=_list(pairs.get("kind")),
        instructions=pairs.get("instr", ""),
        sizes=_list(pairs.get("size")),
        search=pairs.get("q", ""),
        columns=_list(pairs.get("cols")),
        sort=parse_sort(pairs.get("sort")),
        page=min(page, 10**6),
        models=_list(pairs.get("models")) or (),
        overall=_list(pairs.get("overall")),
        revisions=pairs.get("revisions") in ("1", "true", "all"),
        zero_shot=pairs.get("zs", ""),
        a=pairs.get("a", ""),
        b=pairs.get("b", ""),
    )


def known(values: tuple[str, ...] | None, choices: list[str] | tuple[str, ...], default: list[str]) -> list[str]:
    """The values that are valid choices, in the choices' order; the default when none is given or valid."""
    if values is None:
        return list(default)
    kept = [c for c in choices if c in set(values)]
    return kept if kept or not values else list(default)
