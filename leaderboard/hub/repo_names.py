"""Hub repository names, checked with huggingface_hub's own validator before any work is done.

Every option that names a hub repository (``push --repo``, ``pull --repo``, ``space deploy --repo``,
``space build|deploy --results``, ``serve --results hf://...``, and the queue's ``--requests`` and
``--results``) goes through ``repo_id``: a name the hub would refuse (``../x``, ``org/a b``, a
trailing newline, ``a--b``) stops the command at once with exit 2, naming the option, instead of
after every result was validated or half-way through an upload. ``repo_option`` is the same check
as a click callback, so it runs while the command line is parsed.
"""

from __future__ import annotations

from typing import Any

from leaderboard.errors import BadInput, shorten

HUB_PREFIXES = ("hf://datasets/", "hf://")  # how --results may name a dataset (longest first)


def repo_id(value: str, option: str = "--repo", what: str = "the dataset", prefixed: bool = False) -> str:
    """``value`` as ORG/NAME when the hub accepts it as a repository id; BadInput naming ``option`` otherwise.

    ``prefixed``: ``value`` may be written ``hf://ORG/NAME`` or ``hf://datasets/ORG/NAME`` (returned bare).
    """
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id

    name = value
    if prefixed:
        name = next((value[len(p) :] for p in HUB_PREFIXES if value.startswith(p)), value)
    shown = shorten(repr(value), 120)
    try:
        validate_repo_id(name)
    except HFValidationError as exc:
        reason = str(exc).split(":")[0]  # the validator's sentence, without its echo of the raw value
        expected = f"expected {what} as ORG/NAME"
        raise BadInput(f"{option} {shown}: not a valid hub repository name ({reason}); {expected}.") from None
    if name.count("/") != 1:  # the hub also has bare names (a user's own repo); ours are always ORG/NAME
        raise BadInput(f"{option} {shown}: expected {what} as ORG/NAME (one '/').")
    return name


def repo_option(what: str = "the dataset", prefixed: bool = False) -> Any:
    """A click callback: the option's value checked by ``repo_id`` (None passes through)."""

    def check(ctx: Any, param: Any, value: str | None) -> str | None:
        if value is None:
            return None
        option = param.opts[0] if param is not None and param.opts else "--repo"
        return repo_id(value, option, what, prefixed)

    return check
