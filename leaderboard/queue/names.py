"""Who already publishes a model name: one identity per model, checked at ``submit`` and again by the worker.

A request may not publish a model whose canonical identity (``records.identity``: NFKC, case folded,
``/`` and ``__`` alike) equals a model already on the results dataset, when it is spelled otherwise
(``BM25`` beside ``bm25``) or comes from another plugin distribution. The same plugin's new revisions
stay welcome. What is known of each published model:

- its model card in the results dataset (``results/<folder>/model_card.json``): the exact name and the
  plugin its results name;
- the queue's finished requests: the exact name and the plugin distribution that published it.

Both are read as hostile input: an unreadable card is skipped (the push's own replace rule still
protects it), and a request names what it claims only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from leaderboard.errors import BadInput
from leaderboard.hub.store import PREFIX, HubStore
from leaderboard.queue.plugin_spec import parse
from leaderboard.queue.requests import EvalRequest
from leaderboard.records.files import slug
from leaderboard.records.identity import Claim, conflicts, folder_identity, identity

MAX_CARD_BYTES = 64 * 1024


def model_names(request: EvalRequest) -> list[str]:
    """The model names a request's results may carry: its model, or what follows a plugin prefix (``st:org/name``)."""
    prefix, sep, rest = request.model.partition(":")
    return [request.model, rest] if sep and prefix and rest else [request.model]


def distribution(plugin: str) -> str | None:
    """The distribution a plugin spec installs (None: a git URL whose package names itself)."""
    try:
        return parse(plugin).name
    except BadInput:
        return None


def request_claims(request: EvalRequest) -> list[Claim]:
    """The names ``request`` may publish (its model, or a prefix plugin's model after the prefix)."""
    where = f"request {request.id}"
    return [Claim(name, distribution=distribution(request.plugin), where=where) for name in model_names(request)]


def queue_claims(requests: Iterable[EvalRequest], results_repo: str | None, but: str | None = None) -> list[Claim]:
    """What the queue's finished requests published (into ``results_repo`` when it is known), ``but`` one."""
    found = []
    for other in requests:
        if other.id == but or other.status != "finished":
            continue
        if results_repo is not None and other.results_repo not in (None, results_repo):
            continue
        found += request_claims(other)
    return found


def card_claims(store: HubStore, listing: dict[str, str | None], head: str | None, names: Iterable[str]) -> list[Claim]:
    """The model cards in the results dataset whose folder may hold a model of the same identity as ``names``."""
    wanted = {folder_identity(slug(name)) for name in names}
    cards = sorted(
        path
        for path in listing
        if path.startswith(f"{PREFIX}/")
        and path.endswith("/model_card.json")
        and path.count("/") == 2
        and folder_identity(path.split("/")[1]) in wanted
    )
    found = []
    for path in cards:
        try:
            card = json.loads(store.read(path, head)[:MAX_CARD_BYTES])
        except (BadInput, ValueError):
            continue  # unreadable: the card's own replace rule still refuses to touch it
        if isinstance(card, dict) and isinstance(card.get("name"), str):
            plugin = card.get("plugin") if isinstance(card.get("plugin"), str) else None
            found.append(Claim(card["name"], plugin=plugin, where=f"{store.repo_id}/{path}"))
    return found


def collision_problems(claims: list[Claim], published: list[Claim]) -> list[str]:
    """One message per published model a request's names collide with, naming both."""
    problems = []
    for claim in claims:
        for other in conflicts(claim, published):
            how = "is spelled otherwise" if other.name != claim.name else "comes from another plugin"
            problems.append(
                f"model {claim.described()} has the identity {identity(claim.name)!r} of the published model "
                f"{other.described()}, which {how}; names equal up to case, Unicode width and / for __ are one "
                "model, and a model's page and folder belong to the plugin that published it first"
            )
    return list(dict.fromkeys(problems))
