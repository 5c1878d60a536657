"""Paper-ready tables (GitHub Markdown, LaTeX) for ``show`` and ``compare``.

Every score carries its 95% interval (from the result: the queries behind that very number), the
metric is named by its label (nDCG@10, not ``ndcg_at_10``; ``metrics.labels``), the best score of
a column is bold, and ≈ marks a score not significantly different from the best one, as on the
board: a paired sign-flip test on the same queries (``analysis.comparison.compare_cell``, the
function ``compare`` uses: a macro mean over subsets, such as MultiConIR's over domains, is tested
as the board tests it, each subset weighted as the score weights it), p ≥ 0.05; † marks a score
that could not be tested (no per-query values, or other queries).

LaTeX is a booktabs ``table`` that compiles with pdflatex in a plain article (``\\usepackage{booktabs}``)
and fits its text width for a few models and tasks: each score's interval sits below it in a smaller
font, headers take two lines (task over metric), and ``--columns`` picks the columns. Every text
from a result or a plugin goes through ``cli.sanitize`` (one function per target).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from leaderboard.cli import sanitize

SIGNIFICANCE_LEVEL = 0.05  # the board's
APPROX, UNTESTED = "≈", "†"

# Kept for callers that escape one text: the sanitising functions of the two paper targets.
latex_escape = sanitize.latex
markdown_escape = sanitize.markdown


@dataclass(frozen=True)
class Cell:
    """One table cell: its text (bold or not), a mark after it (≈, †) and a smaller second line (an interval)."""

    text: str
    bold: bool = False
    below: str = ""
    mark: str = ""


@dataclass(frozen=True)
class Section:
    """A row that heads the rows below it across the whole table (e.g. the metric of a per-subset block)."""

    text: str


CellLike = Cell | tuple[str, bool]
Row = Sequence[CellLike] | Section


def _cell(value: CellLike) -> Cell:
    return value if isinstance(value, Cell) else Cell(value[0], value[1])


def score(value: float | None, interval: Sequence[float] | None) -> str:
    """ "0.6907 [0.6811, 0.7001]" (one line: terminal tables, CSV)."""
    if value is None:
        return "–"
    text = f"{value:.4f}"
    return f"{text} {interval_text(interval)}" if interval else text


def interval_text(interval: Sequence[float] | None, signed: bool = False) -> str:
    if not interval:
        return ""
    spec = "+.4f" if signed else ".4f"
    return f"[{interval[0]:{spec}}, {interval[1]:{spec}}]"


def score_cell(value: float | None, interval: Sequence[float] | None, bold: bool = False, mark: str = "") -> Cell:
    """A score with its interval below it (LaTeX) or after it (Markdown)."""
    if value is None:
        return Cell("–")
    return Cell(f"{value:.4f}", bold, interval_text(interval), mark)


def sentences(*parts: str) -> str:
    """Sentences joined with one space, each ending with a full stop (no "…queries Scores:")."""
    return " ".join(p if p.rstrip().endswith((".", "!", "?")) else p.rstrip() + "." for p in parts if p.strip())


def render(
    headers: Sequence[str],
    rows: Sequence[Row],
    fmt: str,
    caption: str,
    notes: Sequence[str],
    text_columns: int = 1,
    *,
    subheaders: Sequence[str] | None = None,
    label: str = "",
) -> str:
    """A table in GitHub Markdown (a caption line, a pipe table, a notes paragraph) or LaTeX (a booktabs
    ``table``: the caption is ``caption`` and ``notes``). The first ``text_columns`` columns are
    left-aligned, the others right-aligned. ``subheaders``: a second header line (e.g. the metric
    under each task); in Markdown it is put in parentheses after the header. A ``Section`` row heads the
    rows below it (LaTeX: a line across the table in italics; Markdown: its text, bold, in the first cell)."""
    cells = [row if isinstance(row, Section) else [_cell(c) for c in row] for row in rows]
    if fmt == "markdown":
        return _markdown(headers, cells, caption, notes, text_columns, subheaders)
    return _latex(headers, cells, caption, notes, text_columns=text_columns, subheaders=subheaders, label=label)


def _markdown(headers, rows, caption, notes, text_columns, subheaders) -> str:
    def head(i: int, text: str) -> str:
        sub = subheaders[i] if subheaders else ""
        return sanitize.markdown(f"{text} ({sub})" if sub and text else sub or text) or " "

    def cell(c: Cell) -> str:
        text = sanitize.markdown(c.text)
        text = f"**{text}**" if c.bold and text else text
        below = c.below if not c.below or c.below.startswith("[") else f"({c.below})"  # an interval, or a metric
        return " ".join(t for t in (text, sanitize.markdown(below), sanitize.markdown(c.mark)) if t)

    lines = [f"**{sanitize.markdown(caption)}**", ""]
    lines.append("| " + " | ".join(head(i, h) for i, h in enumerate(headers)) + " |")
    lines.append("|" + "|".join(["---"] * text_columns + ["---:"] * (len(headers) - text_columns)) + "|")
    for row in rows:
        if isinstance(row, Section):
            row = [Cell(row.text, bold=True)] + [Cell("")] * (len(headers) - 1)
        lines.append("| " + " | ".join(cell(c) or " " for c in row) + " |")
    if notes:
        lines += ["", sanitize.markdown(sentences(*notes))]
    return "\n".join(lines) + "\n"


def _latex(headers, rows, caption, notes, *, text_columns, subheaders, label) -> str:
    def cell(c: Cell) -> str:
        text = sanitize.latex(c.text)
        text = rf"\textbf{{{text}}}" if c.bold and text else text
        # a raised mark of no width: the numbers of a column stay aligned on their last digit
        return text + (rf"\rlap{{\textsuperscript{{{sanitize.latex(c.mark)}}}}}" if c.mark.strip() else "")

    def small(text: str) -> str:
        return rf"{{\scriptsize {sanitize.latex(text)}}}" if text else ""

    # 6pt after the last column (4pt between columns): room for a raised mark after its last number
    spec = "l" * text_columns + "r" * (len(headers) - text_columns) + r"@{\hspace{6pt}}"
    lines = [
        r"% retrieval-leaderboard; needs \usepackage{booktabs}",
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        r"\setlength{\tabcolsep}{4pt}",
        rf"\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        " & ".join(sanitize.latex(h) for h in headers) + r" \\",
    ]
    if subheaders and any(subheaders):
        lines.append(" & ".join(sanitize.latex(s) for s in subheaders) + r" \\")
    lines.append(r"\midrule")
    for i, row in enumerate(rows):
        if isinstance(row, Section):
            if i:
                lines.append(r"\addlinespace[4pt]")
            lines.append(rf"\multicolumn{{{len(headers)}}}{{l}}{{\emph{{{sanitize.latex(row.text)}}}}} \\")
            continue
        lines.append(" & ".join(cell(c) for c in row) + r" \\")
        if any(c.below for c in row):
            lines.append(" & ".join(small(c.below) for c in row) + r" \\")
            if i < len(rows) - 1:
                lines.append(r"\addlinespace[2pt]")
    lines += [r"\bottomrule", r"\end{tabular}"]
    lines.append(r"\caption{" + sanitize.latex(sentences(caption, *notes)) + "}")
    if label:
        lines.append(rf"\label{{{label}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def choose_columns(requested: Sequence[str] | None, available: Sequence[str], default: Sequence[str]) -> list[str]:
    """The columns to print, in the order asked: ``--columns a,b`` (repeatable), else ``default``."""
    from leaderboard.errors import BadInput, shorten

    if not requested:
        return list(default)
    chosen = [c.strip() for value in requested for c in value.split(",") if c.strip()]
    unknown = [c for c in chosen if c not in available]
    if unknown or not chosen:
        what = f"unknown column {shorten(unknown[0], 60)!r}" if unknown else "no column named"
        raise BadInput(f"--columns: {what}; expected a comma-separated list of: {', '.join(available)}.")
    return list(dict.fromkeys(chosen))


def _better(direction: str, a: float, b: float) -> bool:
    return a > b if direction == "higher" else a < b


def _arrow(direction: str, text: str) -> str:
    return text + " ↓" if direction == "lower" and not text.endswith("↓") else text


COMPARE_COLUMNS = ("task", "metric", "queries", "a", "b", "difference", "p", "p_holm")


def comparison_table(
    model_a: str,
    model_b: str,
    comparisons,
    pairs,
    resamples: int,
    fmt: str,
    *,
    columns: Sequence[str] | None = None,
) -> str:
    """``compare``'s result: each model's score with its interval, the difference with its bootstrap
    interval, p and Holm's p; the better model bold and, when Holm's p ≥ 0.05, the other marked ≈.
    Columns (``COMPARE_COLUMNS``): by default every one, but p alone when there is one task (Holm's p is p)."""
    from leaderboard.cli.formats import at_floor, format_p
    from leaderboard.metrics.labels import metric_label

    # by default the metric is written below the task (one column less) and p is Holm's (p itself with one task)
    default = ["task", "queries", "a", "b", "difference", "p" if len(comparisons) == 1 else "p_holm"]
    chosen = choose_columns(columns, COMPARE_COLUMNS, default)
    titles = {
        "task": ("Task", ""),
        "metric": ("Metric", ""),
        "queries": ("Queries", ""),
        "a": ("A", ""),  # the caption names A and B: a long model name would widen its column
        "b": ("B", ""),
        "difference": ("A − B", "95% CI"),
        "p": ("p", ""),
        "p_holm": ("p", "Holm"),
    }
    rows = []
    for c, (a, b) in zip(comparisons, pairs):
        a_best, b_best = _better(c.direction, c.mean_a, c.mean_b), _better(c.direction, c.mean_b, c.mean_a)
        tie = c.p_holm >= SIGNIFICANCE_LEVEL
        floor = at_floor(c, resamples)
        metric = _arrow(c.direction, metric_label(_declaration(a), c.metric))
        values = {
            "task": Cell(c.task, below="" if "metric" in chosen else metric),
            "metric": Cell(metric),
            "queries": Cell(f"{c.queries:,}"),
            "a": score_cell(c.mean_a, _interval(a), a_best, APPROX if tie and b_best else ""),
            "b": score_cell(c.mean_b, _interval(b), b_best, APPROX if tie and a_best else ""),
            "difference": Cell(f"{c.difference:+.4f}", below=interval_text((c.ci_low, c.ci_high), signed=True)),
            "p": Cell(format_p(c.p_value, floor)),
            "p_holm": Cell(format_p(c.p_holm, floor)),
        }
        rows.append([values[k] for k in chosen])
    text_columns = sum(1 for k in chosen if k in ("task", "metric"))
    chosen_order = [k for k in chosen if k in ("task", "metric")] + [k for k in chosen if k not in ("task", "metric")]
    rows = [[row[chosen.index(k)] for k in chosen_order] for row in rows]
    notes = [
        "Scores: mean over the queries with the result's 95% bootstrap interval"
        + (" (below)" if fmt == "latex" else ""),
        f"Bold: the better model; {APPROX}: not significantly different from it "
        f"(Holm-adjusted p ≥ {SIGNIFICANCE_LEVEL})",
        f"A − B: the mean per-query difference with its paired percentile bootstrap interval ({resamples:,} resamples)",
        "p: two-sided paired randomization test (sign flips)"
        + ("; Holm: adjusted across the tasks" if len(comparisons) > 1 else "")
        + "; ≤: the smallest p that the sampled flips can give",
    ]
    if any(c.direction == "lower" for c in comparisons):
        notes.append("↓: lower is better")
    caption = f"A = {model_a}, B = {model_b}: paired tests over the same queries"
    return render(
        [titles[k][0] for k in chosen_order],
        rows,
        fmt,
        caption,
        notes,
        text_columns=text_columns,
        subheaders=[titles[k][1] for k in chosen_order],
        label="tab:leaderboard-compare",
    )


def _declaration(result: Any) -> dict[str, Any]:
    """A result's task declaration as plain JSON (what ``metric_label`` reads)."""
    return {
        "metrics": [{"name": m.name, "label": getattr(m, "label", "")} for m in result.task.metrics],
        "views": [{"subsets": list(v.subsets), "labels": dict(v.labels)} for v in result.task.views],
    }


def _interval(result: Any) -> Sequence[float] | None:
    from leaderboard.analysis.cell_intervals import interval_of
    from leaderboard.records.per_query_columns import of_result

    split = result.task.main_split
    stored = result.confidence_intervals.get(split, {}).get("default", {}).get(result.task.main_score)
    return interval_of(stored, of_result(result), result.task.main_score, result.main_score)


def _mark(task: str, metric: str, direction: str, scored: tuple[Any, float], best: tuple[Any, float]) -> str:
    """≈ when a score is not significantly different from the best one, by the board's test: the paired
    sign-flip test of ``compare`` (``analysis.comparison.compare_cell``) on the queries behind both scores,
    each subset of a macro mean (MultiConIR's domains) weighted as the score weights it; † when the two
    were not scored on the same queries or their per-query values do not give their scores."""
    from leaderboard.analysis.cell_intervals import score_strata
    from leaderboard.analysis.comparison import compare_cell
    from leaderboard.records.per_query_columns import query_ids

    mine, theirs = (score_strata(columns, metric, "default", value) for columns, value in (scored, best))
    if isinstance(mine, str) or isinstance(theirs, str) or query_ids(mine) != query_ids(theirs):
        return UNTESTED  # as the board: a test pairs the very queries behind both scores
    test = compare_cell(task, metric, direction, scored[0], best[0])
    if isinstance(test, str):
        return UNTESTED
    return APPROX if test.p_value >= SIGNIFICANCE_LEVEL else ""


def results_table(index: Any, fmt: str, title: str = "", columns: Sequence[str] | None = None) -> str:
    """``show``'s complete results as models x tasks: score [95% CI] of each task's main metric, the best
    per task bold, ≈ for a model not significantly different from that best (partial results left out).

    Columns: ``model``, ``revision`` and each task's name; by default the model, the revision only when
    one model name has several, and every task."""
    from leaderboard.analysis.cell_intervals import interval_of
    from leaderboard.metrics.labels import metric_label

    complete = [(path, s) for path, s in index.summaries() if s["complete"]]
    if not complete:
        from leaderboard.errors import BadInput

        partial = len(index.summaries())
        why = f" ({_count(partial, 'partial result')}: complete runs have no --limit or --corpus-sample)"
        raise BadInput(f"{index.root}: no complete result to put in a table{why if partial else ''}.")
    tasks = sorted({s["task"]["name"] for _, s in complete})
    models = sorted({(s["model"]["name"], s["model"]["revision"]) for _, s in complete})
    several_revisions = len({name for name, _ in models}) < len(models)
    chosen = choose_columns(
        columns, ["model", "revision", *tasks], ["model", *(["revision"] if several_revisions else []), *tasks]
    )
    chosen_tasks = [c for c in chosen if c in tasks]
    cell: dict[tuple[tuple[str, str], str], tuple[str, dict[str, Any]]] = {}
    for path, s in sorted(complete, key=lambda r: r[1]["created_at"]):  # the newest of equal runs wins
        cell[((s["model"]["name"], s["model"]["revision"]), s["task"]["name"])] = (path, s)
    per_query = index.per_query([path for (_, task), (path, _) in cell.items() if task in chosen_tasks])
    declarations = index.tasks()
    marks: dict[tuple[tuple[str, str], str], tuple[bool, str]] = {}
    metric_of: dict[str, str] = {}
    directions = set()
    for task in chosen_tasks:
        entries = {m: cell[(m, task)] for m in models if (m, task) in cell}
        some = next(iter(entries.values()))[1]["task"]
        metric, direction = some["main_score"], some["direction"]
        directions.add(direction)
        metric_of[task] = _arrow(direction, metric_label(declarations.get(task), metric))
        best = (max if direction == "higher" else min)(entries, key=lambda m: entries[m][1]["main_score"])
        best_scored = (per_query.get(entries[best][0]), entries[best][1]["main_score"])
        for m, (path, s) in entries.items():
            scored = (per_query.get(path), s["main_score"])
            marks[(m, task)] = (True, "") if m == best else (False, _mark(task, metric, direction, scored, best_scored))
    rows = []
    for m in models:
        if chosen_tasks and not any((m, t) in cell for t in chosen_tasks):
            continue  # no result on any chosen task
        row = []
        for column in chosen:
            if column in ("model", "revision"):
                row.append(Cell(m[0] if column == "model" else m[1] or ""))
            elif (m, column) not in cell:
                row.append(Cell("–"))
            else:
                path, s = cell[(m, column)]
                bold, mark = marks[(m, column)]
                ci = interval_of(s["main_ci"], per_query.get(path), s["task"]["main_score"], s["main_score"])
                row.append(score_cell(s["main_score"], ci, bold, mark))
        rows.append(row)
    marked = {c.mark for row in rows for c in row}
    notes = [
        "Each cell: the task's main metric, mean over its queries, with the result's 95% bootstrap interval"
        + (" (below)" if fmt == "latex" else ""),
        f"Bold: the best model of the task; {APPROX}: not significantly different from it "
        f"(paired sign-flip test on the same queries, p ≥ {SIGNIFICANCE_LEVEL})",
    ]
    if UNTESTED in marked:
        notes.append(f"{UNTESTED}: not tested (no per-query values, or other queries)")
    if "lower" in directions:
        notes.append("↓: lower is better")
    left_out = len(index.summaries()) - len(complete)
    if left_out:
        notes.append(f"{left_out} partial result{'s' if left_out != 1 else ''} left out")
    headers = {"model": "Model", "revision": "Revision"}
    text_columns = sum(1 for c in chosen if c in headers)
    order = [c for c in chosen if c in headers] + chosen_tasks
    rows = [[row[chosen.index(c)] for c in order] for row in rows]
    return render(
        [headers.get(c, c) for c in order],
        rows,
        fmt,
        title or f"Results of {_count(len(rows), 'model')} on {_count(len(order) - text_columns, 'task')}",
        notes,
        text_columns=text_columns,
        subheaders=["" if c in headers else metric_of[c] for c in order],
        label="tab:leaderboard-results",
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
