"""Paper-ready tables (Markdown, LaTeX) for ``show`` and ``compare``.

Every score carries its 95% interval (from the result: the queries behind that very number), the
metric is named in the column header, the best score of a column is bold, and ≈ marks a score not
significantly different from the best one, as on the board: a paired sign-flip test on the same
queries (``records.comparison.compare_values``, the function ``compare`` uses), p >= 0.05; † marks a
score that could not be tested (no per-query values, or other queries).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

SIGNIFICANCE_LEVEL = 0.05  # the board's
APPROX, UNTESTED = "≈", "†"
_LATEX_SPECIAL = re.compile(r"([\\&%$#_{}~^])")
_LATEX_REPLACEMENTS = {"\\": r"\textbackslash{}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    escaped = _LATEX_SPECIAL.sub(lambda m: _LATEX_REPLACEMENTS.get(m.group(1), "\\" + m.group(1)), str(text))
    return (
        escaped.replace("≈", r"$\approx$")
        .replace("†", r"$^\dagger$")
        .replace("−", "$-$")
        .replace("↓", r"$\downarrow$")
        .replace("≤", r"$\leq$")
    )


def markdown_escape(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*").replace("\n", " ")


def score(value: float | None, interval: Sequence[float] | None) -> str:
    if value is None:
        return "–"
    text = f"{value:.4f}"
    return f"{text} [{interval[0]:.4f}, {interval[1]:.4f}]" if interval else text


def render(
    headers: Sequence[str],
    rows: Sequence[Sequence[tuple[str, bool]]],
    fmt: str,
    caption: str,
    notes: Sequence[str],
    text_columns: int = 1,
) -> str:
    """A table whose cells are (text, bold); Markdown (a pipe table and notes) or LaTeX (booktabs tabular).
    The first ``text_columns`` columns are left-aligned, the numbers right-aligned."""
    if fmt == "markdown":
        lines = [f"**{markdown_escape(caption)}**", ""]
        lines.append("| " + " | ".join(markdown_escape(h) for h in headers) + " |")
        lines.append("|" + "|".join(["---"] * text_columns + ["---:"] * (len(headers) - text_columns)) + "|")
        for row in rows:
            cells = [f"**{markdown_escape(t)}**" if bold and t else markdown_escape(t) for t, bold in row]
            lines.append("| " + " | ".join(cells) + " |")
        lines += [""] + [markdown_escape(n) for n in notes]
        return "\n".join(lines) + "\n"
    lines = [r"\begin{table}[t]", r"\centering", r"\small"]
    lines.append(r"\begin{tabular}{" + "l" * text_columns + "r" * (len(headers) - text_columns) + "}")
    lines += [r"\toprule", " & ".join(latex_escape(h) for h in headers) + r" \\", r"\midrule"]
    for row in rows:
        cells = [rf"\textbf{{{latex_escape(t)}}}" if bold and t else latex_escape(t) for t, bold in row]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    lines.append(r"\caption{" + latex_escape(" ".join([caption, *notes])) + "}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def _better(direction: str, a: float, b: float) -> bool:
    return a > b if direction == "higher" else a < b


def comparison_table(model_a: str, model_b: str, comparisons, pairs, resamples: int, fmt: str) -> str:
    """``compare``'s result: each model's score with its interval, the difference with its bootstrap
    interval, p and Holm's p; the better model bold and, when Holm's p >= 0.05, the other marked ≈."""
    from leaderboard.cli.formats import at_floor, format_p

    headers = ["Task", "Metric", "Queries", f"A: {model_a}", f"B: {model_b}", "A − B [95% CI]", "p", "p (Holm)"]
    rows = []
    for c, (a, b) in zip(comparisons, pairs):
        ci_a, ci_b = _interval(a), _interval(b)
        a_best = _better(c.direction, c.mean_a, c.mean_b)
        b_best = _better(c.direction, c.mean_b, c.mean_a)
        tie = c.p_holm >= SIGNIFICANCE_LEVEL
        text_a = score(c.mean_a, ci_a) + (" " + APPROX if tie and b_best else "")
        text_b = score(c.mean_b, ci_b) + (" " + APPROX if tie and a_best else "")
        metric = c.metric + (" ↓" if c.direction == "lower" else "")
        floor = at_floor(c, resamples)
        rows.append(
            [
                (c.task, False),
                (metric, False),
                (str(c.queries), False),
                (text_a, a_best),
                (text_b, b_best),
                (f"{c.difference:+.4f} [{c.ci_low:+.4f}, {c.ci_high:+.4f}]", False),
                (format_p(c.p_value, floor), False),
                (format_p(c.p_holm, floor), False),
            ]
        )
    notes = [
        "Scores: mean over queries with the result's 95% bootstrap interval. Bold: the better model;",
        f"{APPROX}: not significantly different from it (Holm-adjusted p >= {SIGNIFICANCE_LEVEL}).",
        f"A − B: mean per-query difference with its paired percentile bootstrap interval ({resamples:,} resamples);",
        "p: two-sided paired randomization test (sign flips); Holm across the tasks; ≤: the smallest p the sampled",
        "flips can give. ↓: lower is better.",
    ]
    caption = f"{model_a} (A) vs {model_b} (B): paired tests over the same queries"
    return render(headers, rows, fmt, caption, notes, text_columns=2)


def _interval(result: Any) -> Sequence[float] | None:
    from leaderboard.records.comparison import per_query_values

    split = result.task.main_split
    stored = result.confidence_intervals.get(split, {}).get("default", {}).get(result.task.main_score)
    return interval(stored, per_query_values(result, result.task.main_score, "result"))


def interval(stored: Sequence[float] | None, values: dict[str, float] | None) -> Sequence[float] | None:
    """The interval a result stored for the score; else, as the board does, the percentile bootstrap of its own
    per-query values (``metrics.bootstrap.stratified_bootstrap``, one stratum, queries in id order); else none."""
    if stored:
        return stored
    if not values:
        return None
    import numpy as np

    from leaderboard.metrics.bootstrap import stratified_bootstrap

    low, high = stratified_bootstrap([np.asarray([[values[q] for q in sorted(values)]], dtype=float)])
    return float(low[0]), float(high[0])


def results_table(index: Any, fmt: str, title: str) -> str:
    """``show``'s complete results as models x tasks: score [95% CI] of each task's main metric, the best
    per task bold, ≈ for a model not significantly different from that best (partial results left out)."""
    from leaderboard.records.comparison import compare_values

    complete = [(path, s) for path, s in index.summaries() if s["complete"]]
    tasks = sorted({s["task"]["name"] for _, s in complete})
    models = sorted({(s["model"]["name"], s["model"]["revision"]) for _, s in complete})
    cell: dict[tuple[tuple[str, str], str], tuple[str, dict[str, Any]]] = {}
    for path, s in sorted(complete, key=lambda r: r[1]["created_at"]):  # the newest of equal runs wins
        cell[((s["model"]["name"], s["model"]["revision"]), s["task"]["name"])] = (path, s)
    per_query = index.per_query([path for path, _ in cell.values()])
    marks: dict[tuple[tuple[str, str], str], tuple[bool, str]] = {}
    headers = ["Model", "Revision"]
    for task in tasks:
        entries = {m: cell[(m, task)] for m in models if (m, task) in cell}
        some = next(iter(entries.values()))[1]["task"]
        metric, direction = some["main_score"], some["direction"]
        headers.append(f"{task} ({metric}{' ↓' if direction == 'lower' else ''})")
        best = (max if direction == "higher" else min)(entries, key=lambda m: entries[m][1]["main_score"])
        best_values = _values(per_query.get(entries[best][0]), metric)
        for m, (path, _) in entries.items():
            if m == best:
                marks[(m, task)] = (True, "")
                continue
            values = _values(per_query.get(path), metric)
            if best_values is None or values is None or set(values) != set(best_values):
                marks[(m, task)] = (False, UNTESTED)
                continue
            test = compare_values(task, metric, direction, values, best_values)
            marks[(m, task)] = (False, APPROX if test.p_value >= SIGNIFICANCE_LEVEL else "")
    rows = []
    for m in models:
        row = [(m[0], False), (m[1], False)]
        for task in tasks:
            if (m, task) not in cell:
                row.append(("–", False))
                continue
            path, s = cell[(m, task)]
            bold, mark = marks[(m, task)]
            ci = interval(s["main_ci"], _values(per_query.get(path), s["task"]["main_score"]))
            row.append((score(s["main_score"], ci) + (" " + mark if mark else ""), bold))
        rows.append(row)
    left_out = len(index.summaries()) - len(complete)
    notes = [
        "Each cell: the task's main metric, mean over its queries, with the result's 95% bootstrap interval.",
        f"Bold: the best model of the task; {APPROX}: not significantly different from it (paired sign-flip test",
        f"on the same queries, p >= {SIGNIFICANCE_LEVEL}); {UNTESTED}: not tested (no per-query values or other "
        "queries). ↓: lower is better.",
    ]
    if left_out:
        notes.append(f"{left_out} partial result(s) left out.")
    return render(headers, rows, fmt, title, notes, text_columns=2)


def _values(stored: dict[str, Any] | None, metric: str) -> dict[str, float] | None:
    """query id -> value from the index's per-query column ({"ids": [...], "values": {metric: [...]}})."""
    if not stored or metric not in stored.get("values", {}):
        return None
    pairs = zip(stored["ids"], stored["values"][metric])
    return {qid: float(v) for qid, v in pairs if v is not None}
