"""A named variant of a model (a paper's own protocol, such as ``bm25:mair``) shown beside the model it varies.

A model plugin declares a variant in its metadata (``ProtocolVariant``, recorded in every result): the
default model's name, the paper's name for the setup, what it does otherwise, and the benchmark(s) whose
paper it reproduces. On those benchmarks' boards only, under the variant's name, the board says which
protocol it is, how it differs, and its score minus the default's on the same ranking, so a reader sees
how much the protocol alone moves the number. Elsewhere the protocol is not the paper's: nothing is said.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from leaderboard.app.views.render import esc


def _signed(value: float) -> str:
    return f"{value:+.4f}".replace("-", "−")  # the true minus sign, as everywhere on the board


def default_score(lines: Iterable[Any], name: str) -> float | None:
    """The aggregate of the row named ``name`` (the default model) on the same ranking, if it has one."""
    for line in lines:
        if line.name == name and line.aggregate is not None and math.isfinite(line.aggregate):
            return float(line.aggregate)
    return None


def note(line: Any, lines: Iterable[Any], benchmark: str) -> tuple[str, str]:
    """(HTML under the variant's name, its tooltip text); ("", "") for a model that is no variant of its
    paper's protocol on ``benchmark``."""
    info = line.info
    default = info.get("variant_of")
    if not isinstance(default, str) or not default or benchmark not in (info.get("variant_benchmarks") or ()):
        return "", ""
    protocol = str(info.get("protocol") or f"a variant of {default}")
    differences = [str(d) for d in info.get("differences") or []]
    base = default_score(lines, default)
    delta = ""
    if base is not None and line.aggregate is not None and math.isfinite(line.aggregate):
        delta = f" · Δ {_signed(line.aggregate - base)} vs {default}"
    how = f"{default} with {', '.join(differences)}" if differences else f"a variant of {default}"
    wrap = ' style="white-space: normal"'  # the whole note, on as many lines as it takes (not cut as a revision is)
    html = f'<span class="rev variant"{wrap}>{esc(protocol)}{esc(delta)}</span>'
    html += f'<span class="rev variant-how"{wrap}>{esc(how)}</span>'
    return html, f"{protocol}: {how}{delta}"
