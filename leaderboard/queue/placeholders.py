"""Fields of a submission spec that must say something real: not empty, not the scaffold's placeholder.

``leaderboard new-plugin`` writes ``model.json`` with every field the author must fill in starting
with ``TODO:`` (``leaderboard/cli/templates/plugin/model.json.tmpl``), so a spec that still holds
one is recognised, and ``validate`` and ``verify`` refuse it, naming the field.
"""

from __future__ import annotations

from typing import Any

PLACEHOLDER_PREFIX = "TODO"
# Fields a reader of the board relies on. ``plugin.install`` may be absent (the package is on PyPI);
# when present it must be a real requirement.
REQUIRED = (("model", "license"), ("model", "training_data"), ("contact",))
OPTIONAL = (("plugin", "install"),)
_FILLERS = {"", "todo", "tbd", "n/a", "na", "none", "null", "unknown", "?", "-", "..."}


def is_placeholder(value: str) -> bool:
    text = value.strip()
    return text.lower() in _FILLERS or text.upper().startswith(PLACEHOLDER_PREFIX)


def placeholder_problems(spec: Any) -> list[str]:
    """'<field>: ...' for each field that is empty or still a placeholder (absent required fields are the
    schema's to report)."""
    if not isinstance(spec, dict):
        return []
    problems = []
    for keys, required in [(k, True) for k in REQUIRED] + [(k, False) for k in OPTIONAL]:
        value: Any = spec
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        name = ".".join(keys)
        if value is None:
            continue  # absent: required ones are reported by the schema, optional ones may be
        if not isinstance(value, str):
            continue  # the schema reports the type
        if is_placeholder(value):
            shown = value.strip()[:60]
            what = "is empty" if not shown else f"is still a placeholder ({shown!r})"
            hint = "" if required else "; omit it when the package is on PyPI"
            problems.append(f"{name} {what}: fill it in before submitting{hint}")
    return problems
