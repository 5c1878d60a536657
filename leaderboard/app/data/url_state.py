"""The view state a link carries: parsed from the page's URL query, never trusted.

Parameters: ``benchmark``, ``tab``, ``kind``, ``instr``, ``size``, ``q`` (search), ``cols``, ``sort``
(``<column key>.asc|desc``), ``p`` (the page of the table; not ``page``, which Gradio reserves for its
own multipage routing: ``?page=2`` would be a server error, see ``legacy_links``), ``models`` (picked
models), ``overall`` (the benchmarks of the
Overall view), ``revisions`` (``1``: older revisions too), ``zs`` (the zero-shot filter), ``a`` and ``b``
(the compared models), ``model`` (a model's page: opens the Model tab when no ``tab`` is given), ``side``
(the models side by side: opens that tab likewise), ``lic`` (licenses), ``open`` (open weights: yes|no),
``src`` (where the numbers come from: run here|imported|reported), ``by`` (the aggregate ranked by; absent:
the benchmark's declared one), ``tasks`` (the benchmark's tasks its ranking is recomputed over, Overall-style;
absent: all of them).
Lists are joined by ``|``. The page's JavaScript writes them (``tabs.assets.url_state_js``); the page
load reads them here. Unknown values are dropped by the callers, which know the valid choices.
A query longer than ``MAX_QUERY`` is trimmed (``trim``): its parameters are kept in order while
they fit, a list cut after its last whole item that fits, and any other value that does not fit dropped.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass, field

MAX_QUERY = 8192  # longer query strings are trimmed to this (a hand-made link, not one the page wrote)
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
    model: str = ""  # the model page's model
    side: tuple[str, ...] = ()  # the models side by side
    licenses: tuple[str, ...] | None = None
    open_weights: str = ""
    sources: tuple[str, ...] | None = None
    by: str = ""
    tasks: tuple[str, ...] | None = None  # the benchmark's tasks ranked over (absent: all of them)
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


def trim(query: str, limit: int = MAX_QUERY) -> str:
    """The query cut to at most ``limit`` characters; unchanged when it fits.

    Whole parameters are kept, shortest first, while they fit (the benchmark and the tab before a long
    list); then each list parameter (``a|b|...``) left out keeps the items that fit in the room left;
    any other value that does not fit is dropped. The order of the parameters is kept.
    """
    if len(query) <= limit:
        return query
    # at most one field per two characters of the limit: a query of a million '&' costs no more
    pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)[: limit // 2]
    fields = [urllib.parse.urlencode([pair]) for pair in pairs]
    kept: dict[int, str] = {}
    room = limit + 1  # each field costs its length and one '&' (the first has none)
    for index in sorted(range(len(fields)), key=lambda i: len(fields[i])):
        if len(fields[index]) + 1 <= room:
            kept[index] = fields[index]
            room -= len(fields[index]) + 1
    for index, (key, value) in enumerate(pairs):
        if index not in kept and LIST_SEPARATOR in value:
            field = _fitted(key, value, room - 1)
            if field:
                kept[index] = field
                room -= len(field) + 1
    return "&".join(kept[index] for index in sorted(kept))


def _fitted(key: str, value: str, room: int) -> str:
    """A list parameter encoded with the items that fit in ``room`` characters ('' when none does)."""
    size = len(urllib.parse.quote_plus(key)) + 1  # "key="
    items: list[str] = []
    for item in value.split(LIST_SEPARATOR):
        cost = len(urllib.parse.quote_plus(item)) + (_SEPARATOR_COST if items else 0)
        if size + cost > room:
            break
        items.append(item)
        size += cost
    return urllib.parse.urlencode([(key, LIST_SEPARATOR.join(items))]) if items else ""


_SEPARATOR_COST = len(urllib.parse.quote_plus(LIST_SEPARATOR))


def parse(query: str | None) -> ViewState:
    """The state in ``?a=b&...`` (a leading ``?`` is optional); anything malformed is left at its default."""
    if not isinstance(query, str):
        return ViewState()
    text = trim(query.lstrip("?"))
    pairs = dict(urllib.parse.parse_qsl(text, keep_blank_values=False))
    try:
        page = max(1, int(pairs.get(PAGE, "1")))
    except ValueError:
        page = 1
    return ViewState(
        benchmark=pairs.get("benchmark", ""),
        tab=pairs.get("tab", "") or _tab_of(pairs),
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
        model=pairs.get("model", ""),
        side=_list(pairs.get("side")) or (),
        licenses=_list(pairs.get("lic")),
        open_weights=pairs.get("open", ""),
        sources=_list(pairs.get("src")),
        by=pairs.get("by", ""),
        tasks=_list(pairs.get("tasks")),
    )


def _tab_of(pairs: dict[str, str]) -> str:
    """The tab a link without ``tab`` opens: ``?model=NAME`` a model's page, ``?side=A|B`` the side-by-side view."""
    return "model" if pairs.get("model") else "side" if pairs.get("side") else ""


def known(values: tuple[str, ...] | None, choices: list[str] | tuple[str, ...], default: list[str]) -> list[str]:
    """The values that are valid choices, in the choices' order; the default when none is given or valid."""
    if values is None:
        return list(default)
    kept = [c for c in choices if c in set(values)]
    return kept if kept or not values else list(default)
