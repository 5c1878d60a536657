"""The Compare tab: two models, per task and subset, the paired difference with its 95% interval and p-value.

The numbers come from ``leaderboard.analysis.comparison`` (through the app's data layer), the same
functions ``leaderboard compare`` prints, so the tab and the command agree; this module only lays
them out. A row is anything with the attributes of ``comparison.TaskComparison`` (``subset``
defaults to the whole task).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from leaderboard.analysis.p_value_text import at_floor, format_p
from leaderboard.app.data.values import MISSING, finite
from leaderboard.app.views.render import ARROW, MINUS, Cell, empty, esc, score, table
from leaderboard.metrics.bootstrap import N_RESAMPLES

MODEL_SEPARATOR = "\x1f"  # between name and revision in a model choice's value


def choice_value(key: tuple[str, str]) -> str:
    return f"{key[0]}{MODEL_SEPARATOR}{key[1]}"


def parse_choice(value: Any) -> tuple[str, str] | None:
    if not isinstance(value, str) or not value:
        return None
    name, _, revision = value.partition(MODEL_SEPARATOR)
    return name, revision


def p_text(p: Any, resamples: Any = None, exact: bool = False) -> str:
    """A p-value as ``leaderboard compare`` prints it (``analysis.comparison.format_p``), "≤" at the floor."""
    value = finite(p)
    if value is None:
        return MISSING
    floor = isinstance(resamples, int) and resamples > 0 and at_floor(value, resamples, exact)
    return format_p(value, floor)


def p_texts(row: Any) -> tuple[str, str]:
    """p and Holm's p: both are upper bounds when the raw p is at the sampled test's floor (as the CLI)."""
    resamples, exact = getattr(row, "resamples", None), bool(getattr(row, "exact", False))
    raw, adjusted = finite(getattr(row, "p_value", None)), finite(getattr(row, "p_holm", None))
    floor = raw is not None and isinstance(resamples, int) and resamples > 0 and at_floor(raw, resamples, exact)
    return (
        MISSING if raw is None else format_p(raw, floor),
        MISSING if adjusted is None else format_p(adjusted, floor),
    )


def _queries(row: Any) -> str:
    """How many queries were paired; where the metric exists on some queries only and the two results differ
    on which (LSNC: each run's judge), also how many each result's own score covers."""
    n = getattr(row, "queries", None)
    own = (getattr(row, "queries_a", None), getattr(row, "queries_b", None))
    if n is None:
        return MISSING
    if all(isinstance(q, int) for q in own) and own != (n, n):
        return f"{n} (of A {own[0]}, B {own[1]})"
    return str(n)


def _signed(value: Any) -> str:
    number = finite(value)
    return MISSING if number is None else f"{number:+.4f}".replace("-", MINUS)  # the true minus, as the board


def comparison_html(
    a: str,
    b: str,
    rows: Sequence[Any],
    problems: Sequence[str] = (),
    *,
    subsets_shown: bool = True,
    labels: Mapping[Any, Any] | None = None,
    plain: str = "",
) -> str:
    """The table of A vs B; ``problems``: why some task could not be compared (shown under the table).

    ``subsets_shown=False``: the rows are the tasks only, and the caption says how to get the subsets.
    ``labels``: (task, subset, metric) -> (subset label, metric label), as ``ModelComparison.labels`` names
    them from the task's views; the subset's and the metric's own names otherwise. Each row names the
    subset and the metric it compares, so a label never names another metric than the row's.
    """
    notes = "".join(f"<li>{esc(p)}</li>" for p in problems)
    notes_html = f'<ul class="note" id="compare-problems">{notes}</ul>' if notes else ""
    if not rows and plain:
        return plain + notes_html  # the scores themselves, marked untested, rather than nothing
    if not rows:
        return empty(f"No task with per-query scores of both {a} and {b} to compare.") + notes_html
    # The difference, its interval and p first (on a phone they are on screen), then what they come from.
    headers = [
        ("Task", "", "c-name"),
        ("Subset", "", "c-text"),
        ("A − B", "mean over queries of the paired difference", "c-agg"),
        ("95% CI", "paired percentile bootstrap over queries", ""),
        ("p", "two-sided paired randomization (sign-flip) test", ""),
        ("p (Holm)", "Holm-adjusted across the task rows, and across each task's subset rows", ""),
        ("Metric", "", "c-text"),
        ("Queries", "queries both results score (a metric on some queries only: both have it)", ""),
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
        subset = str(getattr(row, "subset", "default") or "default")
        named = (labels or {}).get((row.task, subset, row.metric))
        subset_label, metric_label = named if named else ("all queries" if subset == "default" else subset, row.metric)
        p_raw, p_holm = p_texts(row)
        body.append(
            [
                Cell(esc(row.task), row.task, "c-name", row.task),
                Cell(esc(subset_label), subset, "c-text", subset),
                Cell(f'<span class="v">{_signed(difference)}</span>', difference, f"c-agg {better}".strip()),
                Cell(
                    f"{_signed(low)} to {_signed(high)}" if low is not None and high is not None else MISSING,
                    low,
                    "c-ci",
                ),
                Cell(p_raw, finite(getattr(row, "p_value", None))),
                Cell(p_holm, finite(getattr(row, "p_holm", None))),
                Cell(esc(f"{metric_label} {ARROW.get(direction, '')}".strip()), row.metric, "c-text", row.metric),
                Cell(esc(_queries(row)), finite(getattr(row, "queries", None))),
                Cell(score(finite(row.mean_a)), finite(row.mean_a)),  # the board's minus sign, as A − B's
                Cell(score(finite(row.mean_b)), finite(row.mean_b)),
            ]
        )
    caption = (
        f"A = {esc(a)}, B = {esc(b)}: paired over the queries both results score, the same statistics as "
        "<code>leaderboard compare</code>. Each row compares the metric it names on the subset it names; a metric "
        "computed on some queries only (LSNC: the queries a judge labelled) on those both results have. Shaded: "
        "the 95% interval excludes 0 (A better in green, B in red). ≤: the smallest p the sampled sign flips "
        "can give was reached."
    )
    if not subsets_shown:
        caption += " Per-task rows only: <b>Per subset</b> above adds each subset's row (one test each)."
    return table(headers, [("rows", "", body)], "compare-table", caption) + plain + notes_html


def plain_difference_html(a: str, b: str, line_a: Any, line_b: Any, columns: Sequence[Any], tasks: set[str]) -> str:
    """The board's values of two models on the columns of ``tasks`` (those not compared over queries) and their
    plain difference, each row marked "no interval: imported" where a side is an import (mteb's files hold no
    per-query values) or "no interval" otherwise: never a test, never shaded."""
    body = []
    for column in columns:
        if column.spec.task not in tasks or column.key in line_a.other_data or column.key in line_b.other_data:
            continue  # compared over queries above, or on other data (not comparable)
        value_a, value_b = finite(line_a.values.get(column.key)), finite(line_b.values.get(column.key))
        if value_a is None or value_b is None:
            continue
        why = "no interval: imported" if (line_a.imported or line_b.imported) else "no interval: no per-query values"
        difference = value_a - value_b
        body.append(
            [
                Cell(esc(column.label.rstrip(" ↑↓")), column.label, "c-name", column.spec.task),
                Cell(esc(f"{column.metric_label} {ARROW.get(column.direction, '')}".strip()), column.spec.metric),
                Cell(f'<span class="v">{_signed(difference)}</span>', difference, "c-agg"),
                Cell(esc(why), why, "c-text"),
                Cell(score(value_a), value_a),
                Cell(score(value_b), value_b),
            ]
        )
    if not body:
        return ""
    headers = [
        ("Column", "", "c-name"),
        ("Metric", "", "c-text"),
        ("A − B", "the plain difference of the two scores: no interval, no test", "c-agg"),
        ("Interval", "", "c-text"),
        (esc(f"A: {a}"), a, ""),
        (esc(f"B: {b}"), b, ""),
    ]
    caption = (
        f"A = {esc(a)}, B = {esc(b)}: the board's scores where the two cannot be compared over queries (an imported "
        "run holds no per-query values). The difference is plain: no interval, no significance test, so it says "
        "nothing about whether it would hold on other queries."
    )
    return table(headers, [("rows", "", body)], "compare-plain", caption)


def aggregates_html(a: str, b: str, rows: Sequence[Any]) -> str:
    """The benchmark's declared aggregates for A and B (``comparison.aggregate_differences``): A − B with its paired
    95% interval and p where per-query values exist, else the plain difference marked with why it has none."""
    if not rows:
        return ""
    body = []
    for row in rows:
        test = row.test
        difference = finite(row.difference)
        if test is not None:
            significant = test.low > 0 or test.high < 0
            better = ""
            if significant and difference is not None:
                better = "a-better" if (difference > 0) == (row.direction == "higher") else "b-better"
            interval = Cell(f"{_signed(test.low)} to {_signed(test.high)}", test.low, "c-ci")
            p_cell = Cell(p_text(test.p_value, N_RESAMPLES), test.p_value)
        else:
            better = ""
            interval = Cell(esc(row.why), row.why, "c-text")
            p_cell = Cell(MISSING)
        name = f"{row.label} {ARROW.get(row.direction, '')}".strip() + (" (default)" if row.default else "")
        body.append(
            [
                Cell(esc(name), row.label, "c-name", row.label),
                Cell(f'<span class="v">{_signed(difference)}</span>', difference, f"c-agg {better}".strip()),
                interval,
                p_cell,
                Cell(score(finite(row.mean_a)), finite(row.mean_a)),
                Cell(score(finite(row.mean_b)), finite(row.mean_b)),
            ]
        )
    headers = [
        ("Aggregate", "", "c-name"),
        ("A − B", "the difference of the two aggregates", "c-agg"),
        ("95% CI", "paired percentile bootstrap over the queries of every task it averages", ""),
        ("p", "two-sided paired randomization (sign-flip) test of the aggregate's difference", ""),
        (esc(f"A: {a}"), a, ""),
        (esc(f"B: {b}"), b, ""),
    ]
    caption = (
        f"A = {esc(a)}, B = {esc(b)} on each aggregate the benchmark declares (the default is what the board ranks "
        "by). Where both have per-query values on every task it averages: the paired difference, its 95% interval "
        "and p (one test per aggregate, not Holm-adjusted with the task rows below); otherwise the plain difference, "
        "with why it has no interval: no test, so it says nothing about whether it would hold on other queries."
    )
    return table(headers, [("rows", "", body)], "compare-aggregates", caption)
