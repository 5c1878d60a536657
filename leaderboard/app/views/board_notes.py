"""The Leaderboard tab's text around its table: the benchmark's summary line above it, the notes below it.

The summary says what ranks the benchmark (its declared aggregate, or the reader's choice) and how many rows
the reader's filters show; the notes say what the marks mean, why a cell has no interval, and each column's
metric, so the numbers are read as the board claims them.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

from leaderboard.app.data import aggregates
from leaderboard.app.data.board import OVERALL, Board
from leaderboard.app.data.filters import OPEN_WEIGHTS, ZERO_SHOT, Filters
from leaderboard.app.data.ranking import Ranking, aggregate_title
from leaderboard.app.views.overall import overall_summary
from leaderboard.app.views.render import ARROW, ZERO_WIDTH_RULE, esc, link, safe_url


def filter_note(name: str, filters: Filters | None) -> str:
    """ "filtered by 'bge' (clear)" when the reader's filters hide models (a link may restore a search)."""
    if filters is None or filters == Filters():
        return ""
    parts = [f"'{filters.search}'"] if filters.search else []
    if filters.kinds:
        parts.append("kind " + "/".join(filters.kinds))
    if filters.instructions != "any":
        parts.append(f"takes instructions: {filters.instructions}")
    if filters.sizes:
        parts.append("size " + "/".join(filters.sizes))
    if filters.zero_shot != "any":
        parts.append(ZERO_SHOT.get(filters.zero_shot, filters.zero_shot))
    if filters.licenses:
        parts.append("license " + "/".join(filters.licenses))
    if filters.open_weights != "any":
        parts.append(OPEN_WEIGHTS.get(filters.open_weights, filters.open_weights))
    if filters.sources:
        parts.append("source " + "/".join(filters.sources))
    clear = urllib.parse.urlencode({"benchmark": name})
    return (
        f' · <span class="filtered" id="filter-note">filtered by {esc(", ".join(parts))} '
        f'(<a href="?{esc(clear)}">clear</a>)</span>'
    )


def benchmark_summary(board: Board, name: str, ranking: Ranking | None, filters: Filters | None = None) -> str:
    """The benchmark's line: description, paper, what ranks it, and how many models the view shows."""
    if name == OVERALL:
        return overall_summary(board.overall_ranking())
    benchmark = board.benchmark(name)
    if benchmark is None or ranking is None:
        return '<div class="summary">No benchmark is declared for these results yet.</div>'
    paper = f" · {link(benchmark.reference, 'paper')}" if safe_url(benchmark.reference) else ""
    ranked_by = ranking.benchmark.aggregate_label or _without_prefix(benchmark.formula)
    formula = f" · ranked by {esc(ranked_by)}" if ranked_by else ""
    choices = aggregates.choices(ranking)
    if aggregates.base(ranking) is not ranking:  # the reader's choice, and the benchmark's own default
        formula += f" (chosen; the default is {esc(choices[0])})"
    elif len(choices) > 1:
        formula += f" (the default; also: {esc(', '.join(choices[1:]))}, under Rank by)"
    counts = f" · {len(ranking.ranked)} ranked, {len(ranking.unranked)} not ranked"
    subset = ranking.memo.get("tasks")
    if subset:  # ranked over some of its tasks (a link's ``tasks``): said where a phone shows it too
        total = len([c for c in ranking.columns if c.spec.in_aggregate])
        counts = f" · over {len(subset)} of {total} tasks{counts}"
    note = filter_note(name, filters)
    if note:  # the counts of the rows shown, out of all
        assert filters is not None
        shown = [sum(filters.keep(line.info) for line in lines) for lines in (ranking.ranked, ranking.unranked)]
        counts = (
            f" · {shown[0]} of {len(ranking.ranked)} ranked, {shown[1]} of {len(ranking.unranked)} not ranked shown"
            + note
        )
    label = "" if benchmark.public else ' <span class="tag">not public: shown on a local board only</span>'
    return (
        f'<div class="summary"><b>{esc(benchmark.name)}</b>{label}<span class="desc">: {esc(benchmark.description)}'
        f"{paper}{formula}</span>{counts}</div>"
    )


def _without_prefix(formula: str) -> str:
    """A formula without a leading "score =" (the page already says what it defines)."""
    text = formula.strip()
    head, sep, rest = text.partition("=")
    return rest.strip() if sep and head.strip().casefold() in ("score", "the score") else text


IMPORTED_NOTE = (
    "† run by mteb, imported: mteb's result files hold no per-query values, so these rows have no interval and "
    "are never tested for significance (nor is any model against one of them at #1). Each links to its file."
)


REPORTED_NOTE = (
    "Reported rows are numbers copied from each paper's tables, obtained with the paper's own setup "
    "(its tokenisation, preprocessing, data version and code), which may differ from this harness's; "
    "Δ measures the difference to the board's run of the model (reproduced by this harness, or run by mteb and "
    "imported, as each cell says), it does not explain it."
)


IDENTICAL_NOTE = (
    "⚠ same source file: the imported result files of these models are byte-identical (one git blob in mteb's "
    "results repository), an upstream copy rather than two runs; their equal scores are not a tie to trust. "
    "Where every file behind a ranked score is shared, the models are one row with one rank, each name on it."
)


OTHER_DATA_NOTE = (
    "Greyed values were computed on other data (another dataset revision) than the ranked results: shown with "
    "the revision they ran on, never ranked nor compared."
)


def board_notes(ranking: Ranking, reported: int = 0) -> str:
    """Below the table: what the marks mean, how intervals are made, and every column's metric.

    ``reported``: how many reported (paper) rows the board shows (their note; a board of only those says so).
    """
    if not ranking.lines and reported:
        items = ["No reproduced runs yet: only the papers' reported numbers are shown (never ranked)."]
    else:
        items = [ranking.test_note, ranking.interval_note]
    if reported:
        items.append(REPORTED_NOTE)
    if any(line.imported for line in ranking.lines):
        items.append(IMPORTED_NOTE)
    if any(line.identical for line in ranking.lines):
        items.append(IDENTICAL_NOTE)
    if any(line.other_data for line in ranking.lines):
        items.append(OTHER_DATA_NOTE)
    if ranking.benchmark.formula:  # the title first: the formula may end in its own parenthesis
        items.append(f"Score ({aggregate_title(ranking)}) = {_without_prefix(ranking.benchmark.formula).rstrip('.')}.")
    metrics = [
        f"<li><b>{esc(c.label.rstrip(' ↑↓'))}</b> — <code>{esc(c.spec.metric)}</code> {ARROW[c.direction]}"
        f"{': ' + esc(c.description) if c.description else ''}</li>"
        for c in ranking.columns
    ]
    # Why some cells show "no interval" (the rows whose statistics were computed: the pages shown)
    reasons: dict[str, dict[str, None]] = {}
    for line in ranking.lines:
        for key, why in getattr(line, "interval_notes", {}).items():
            if why and line.values.get(key) is not None and key not in line.intervals:
                reasons.setdefault(key, {})[why] = None
    labels = {c.key: c.label.rstrip(" ↑↓") for c in ranking.columns}
    for key, whys in reasons.items():
        items.append(f"No interval in {labels.get(key, key)}: {'; '.join(whys)}.")
    intervals = [ci for line in ranking.lines for ci in (line.aggregate_interval, *line.intervals.values()) if ci]
    if any(not ci[1] > ci[0] for ci in intervals):
        items.append(ZERO_WIDTH_RULE)
    notes = "".join(f"<p>{esc(item)}</p>" for item in items if item)
    return f'<div class="notes" id="board-notes">{notes}<p>Columns:</p><ul>{"".join(metrics)}</ul></div>'


def citations(board: Board, benchmark: Any) -> list[tuple[str, str]]:
    """What to cite for a benchmark's board, as (what, BibTeX): the benchmark (its declaration's BibTeX, as
    ``leaderboard cite`` prints it), then each of its tasks' own (their results' declarations; tasks sharing one
    paper listed together), without control characters (``views.model.bibtex``)."""
    from leaderboard.app.views.model import bibtex, plain_text

    found = [(benchmark.name, bibtex(benchmark))] if bibtex(benchmark) else []
    by_entry: dict[str, list[str]] = {}
    for task in dict.fromkeys(t.task for t in benchmark.tasks):
        text = str((board.tasks.get(task) or {}).get("citation") or "").strip()
        if text.startswith("@"):
            by_entry.setdefault(plain_text(text), []).append(task)
    seen = {entry for _, entry in found}
    found += [(", ".join(tasks), entry) for entry, tasks in by_entry.items() if entry not in seen]
    return found


def cite_html(board: Board, benchmark: Any) -> str:
    """A closed panel below the board: the BibTeX of the benchmark and of its tasks, with a copy button."""
    entries = citations(board, benchmark)
    if not entries:
        return ""
    named = "; ".join(what for what, _ in entries)
    text = "\n\n".join(entry for _, entry in entries)
    return (
        f'<details class="mp-cite" id="board-cite"><summary>Cite {esc(benchmark.name)} (BibTeX of the benchmark and '
        f'its tasks)</summary><p class="note">{esc(named)}</p>'
        f'<button type="button" class="mp-copy">Copy BibTeX</button><pre class="mp-bibtex">{esc(text)}</pre></details>'
    )
