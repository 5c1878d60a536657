"""The Compare tab: two models, per task and subset, the paired difference with its 95% interval and p-value.

The numbers come from ``leaderboard.records.comparison`` (through the app's data layer), the same
functions ``leaderboard compare`` prints, so the tab and the command agree; this module only lays
them out. A row is anything with the attributes of ``comparison.TaskComparison`` (``subset``
defaults to the whole task).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from leaderboard.app.render import ARROW, Cell, empty, esc, table
from leaderboard.app.values import MISSING, finite

MODEL_SEPARATOR = "\x1f"  # between name and revision in a model choice's value


def choice_value(key: tuple[str, str]) -> str:
    return f"{key[0]}{MODEL_SEPARATOR}{key[1]}"


def parse_choice(value: Any) -> tuple[str, str] | None:
    if not isinstance(value, str) or not value:
        return None
    name, _, revision = value.partition(MODEL_SEPARATOR)
    return name, revision


def p_text(p: Any, resamples: Any = None, exact: bool = False) -> str:
    value = finite(p)
    if value is None:
        return MISSING
    floor = 1 / (int(resamples) + 1) if isinstance(resamples, int) and resamples > 0 and not exact else None
    if floor is not None and value <= floor * 1.0000001:
        return f"≤{floor:.2g}"
    return f"{value:.3g}" if value >= 0.001 else f"{value:.1e}"


def _signed(value: Any) -> str:
    number = finite(value)
    return MISSING if number is None else f"{number:+.4f}".replace("-", "−")  # the true minus, as the board


def comparison_html(
    a: str,
    b: str,
    rows: Sequence[Any],
    problems: Sequence[str] = (),
    subsets_shown: bool = True,
    labels: dict[tuple[str, str], str] | None = None,
) -> str:
    """The table of A vs B; ``problems``: why some task could not be compared (shown under the table).

    ``subsets_shown=False``: the rows are the tasks only, and the caption says how to get the subsets.
    ``labels``: (task, subset) -> the board's column label for that subset (the subset's name otherwise).
    """
    notes = "".join(f"<li>{esc(p)}</li>" for p in problems)
    notes_html = f'<ul class="note" id="compare-problems">{notes}</ul>' if notes else ""
    if not rows:
        return empty(f"No task with per-query scores of both {a} and {b} to compare.") + notes_html
    # The difference, its interval and p first (on a phone they are on screen), then what they come from.
    headers = [
        ("Task", "", "c-name"),
        ("Subset", "", "c-text"),
        ("A − B", "mean over queries of the paired difference", "c-agg"),
        ("95% CI", "paired percentile bootstrap over queries", ""),
        ("p", "two-sided paired randomization (sign-flip) test", ""),
        ("p (Holm)", "Holm-adjusted across the rows shown", ""),
        ("Metric", "", "c-text"),
        ("Queries", "queries both results score", ""),
        (esc(f"A: {a}"), a, ""),
        (esc(f"B: {b}"), b, ""),
    ]
    body = []
    for row in rows:
        direction = getattr(row, "direction", "higher")
        difference = finite(getattr(row, "difference", None))
        low, high = finite(getattr(row, "ci_low", None)), finite(getattr(row, "ci_high", None))
        significant = low is not None and high is not None and (low > 0 or high < 0)
        better = ""
        if significant and difference is not None:
            a_better = (difference > 0) == (direction == "higher")
            better = "a-better" if a_better else "b-better"
        resamples, exact = getattr(row, "resamples", None), bool(getattr(row, "exact", False))
        subset = str(getattr(row, "subset", "default") or "default")
        body.append(
            [
                Cell(esc(row.task), row.task, "c-name", row.task),
                Cell(
                    esc("all queries" if subset == "default" else (labels or {}).get((row.task, subset), subset)),
                    subset,
                    "c-text",
                    subset,
                ),
                Cell(f'<span class="v">{_signed(difference)}</span>', difference, f"c-agg {better}".strip()),
                Cell(
                    f"{_signed(low)} to {_signed(high)}" if low is not None and high is not None else MISSING,
                    low,
                    "c-ci",
                ),
                Cell(p_text(getattr(row, "p_value", None), resamples, exact), finite(getattr(row, "p_value", None))),
                Cell(p_text(getattr(row, "p_holm", None), resamples, exact), finite(getattr(row, "p_holm", None))),
                Cell(esc(f"{row.metric} {ARROW.get(direction, '')}"), row.metric, "c-text"),
                Cell(str(getattr(row, "queries", MISSING)), finite(getattr(row, "queries", None))),
                Cell(f"{finite(row.mean_a):.4f}" if finite(row.mean_a) is not None else MISSING, finite(row.mean_a)),
                Cell(f"{finite(row.mean_b):.4f}" if finite(row.mean_b) is not None else MISSING, finite(row.mean_b)),
            ]
        )
    caption = (
        f"A = {esc(a)}, B = {esc(b)}: paired over the queries both results score, the same statistics as "
        "<code>leaderboard compare</code>. Shaded: the 95% interval excludes 0 (A better in green, B in red)."
    )
    if not subsets_shown:
        caption += " Per-task rows only: <b>Per subset</b> above adds each subset's row (one test each)."
    return table(headers, [("rows", "", body)], "compare-table", caption) + notes_html
