"""A small record read from a hostile file: bounded in size, parsed with ``safe_json``, validated by pydantic.

The queue's requests and receipts and the queue's attestations and keyring are written by anyone with
write access to a dataset; each is read through ``read_record``, which names the file and its first
problems instead of raising anything else.
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ValidationError

from leaderboard import safe_json
from leaderboard.errors import BadInput

Record = TypeVar("Record", bound=BaseModel)


def read_record(model: type[Record], data: bytes, where: str, what: str, max_bytes: int) -> Record:
    """``model`` from a hostile file's bytes: bounded, safe JSON, validated; BadInput naming ``where`` otherwise."""
    if len(data) > max_bytes:
        raise BadInput(f"{where}: {len(data):,} bytes, more than a {what}'s {max_bytes:,}.")
    try:
        text = data.decode("utf-8")
        parsed = safe_json.loads(text, finite=True)
    except (UnicodeDecodeError, safe_json.UnsafeJSON) as exc:
        raise BadInput(f"{where}: {exc}; expected a {what} (JSON).") from None
    try:
        return model.model_validate(parsed)
    except ValidationError as exc:
        problems = [f"{'/'.join(map(str, e['loc'])) or '<root>'}: {e['msg']}" for e in exc.errors()[:3]]
        raise BadInput(f"{where}: not a {what} ({'; '.join(problems)}).") from None
