"""The license ids the Hugging Face Hub accepts in a card's ``license`` field, and the check ``push --license`` runs.

huggingface_hub ships no list of them; this is the Hub's own table, "Licenses"
(https://huggingface.co/docs/hub/repositories-licenses; source: huggingface/hub-docs,
docs/hub/repositories-licenses.md at commit 008d54d08fd9d5d05ed2840bebb0b61111326a15). A license
the Hub does not know would make it refuse the whole push commit after every result was validated,
and a value with a newline would write keys of its own into the card's YAML: both stop at the
command line instead. ``other`` is the Hub's id for any license not in the table.
"""

from __future__ import annotations

from typing import Any

from leaderboard.errors import BadInput, shorten

LICENSES_URL = "https://huggingface.co/docs/hub/repositories-licenses"
HUB_LICENSES = frozenset(
    [
        "apache-2.0",
        "mit",
        "openrail",
        "bigscience-openrail-m",
        "creativeml-openrail-m",
        "bigscience-bloom-rail-1.0",
        "bigcode-openrail-m",
        "afl-3.0",
        "artistic-2.0",
        "bsl-1.0",
        "bsd",
        "bsd-2-clause",
        "bsd-3-clause",
        "bsd-3-clause-clear",
        "c-uda",
        "cc",
        "cc0-1.0",
        "cc-by-2.0",
        "cc-by-2.5",
        "cc-by-3.0",
        "cc-by-4.0",
        "cc-by-sa-3.0",
        "cc-by-sa-4.0",
        "cc-by-nc-2.0",
        "cc-by-nc-3.0",
        "cc-by-nc-4.0",
        "cc-by-nd-4.0",
        "cc-by-nc-nd-3.0",
        "cc-by-nc-nd-4.0",
        "cc-by-nc-sa-2.0",
        "cc-by-nc-sa-3.0",
        "cc-by-nc-sa-4.0",
        "cdla-sharing-1.0",
        "cdla-permissive-1.0",
        "cdla-permissive-2.0",
        "wtfpl",
        "ecl-2.0",
        "epl-1.0",
        "epl-2.0",
        "etalab-2.0",
        "eupl-1.1",
        "agpl-3.0",
        "gfdl",
        "gpl",
        "gpl-2.0",
        "gpl-3.0",
        "lgpl",
        "lgpl-2.1",
        "lgpl-3.0",
        "isc",
        "lppl-1.3c",
        "ms-pl",
        "mpl-2.0",
        "odc-by",
        "odbl",
        "openrail++",
        "osl-3.0",
        "postgresql",
        "ofl-1.1",
        "ncsa",
        "unlicense",
        "zlib",
        "pddl",
        "lgpl-lr",
        "deepfloyd-if-license",
        "llama2",
        "gemma",
        "unknown",
        "other",
    ]
)


def license_id(value: str, option: str = "--license") -> str:
    """``value`` when it is one of the Hub's license ids; BadInput naming ``option`` otherwise."""
    if value in HUB_LICENSES:
        return value
    close = sorted(i for i in HUB_LICENSES if value.strip().lower() and i.startswith(value.strip().lower()[:4]))
    hint = f" (close: {', '.join(close[:6])})" if close else ""
    raise BadInput(
        f"{option} {shorten(repr(value), 80)}: not a license id the Hugging Face Hub accepts{hint}; expected one of "
        f"the ids listed at {LICENSES_URL}, e.g. cc-by-4.0, cc0-1.0, mit, apache-2.0, or 'other'."
    )


def license_option(ctx: Any, param: Any, value: str | None) -> str | None:
    """``license_id`` as a click callback, so a bad license stops the command before any work."""
    return None if value is None else license_id(value, param.opts[0] if param is not None else "--license")
