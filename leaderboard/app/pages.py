"""HTML for the tabs around the board: benchmark summary, view tables, provenance, skipped files, About."""

from __future__ import annotations

import math
import urllib.parse
from typing import Any

import pandas as pd

from leaderboard.app import aggregates
from leaderboard.app.board import OVERALL, Board
from leaderboard.app.filters import OPEN_WEIGHTS, ZERO_SHOT, Filters
from leaderboard.app.imported_runs import IMPORT_RULES_HTML, IMPORTED_NOTE, source_label
from leaderboard.app.ranking import Ranking
from leaderboard.app.render import (
    ARROW,
    PAGE_SIZE,
    ZERO_WIDTH_RULE,
    Cell,
    aggregate_title,
    esc,
    model_cell,
    page_slice,
    pager,
    safe_url,
    score,
    span,
    table,
)
from leaderboard.app.values import MISSING, finite, model_key
from leaderboard.app.views import direction_of
from leaderboard.contract.task import View

SUBMIT = """
<p>Where this board has a <b>Submit</b> tab, publish your model plugin (a release on the package index or a git
commit) and submit it there: the leaderboard's worker evaluates it in a sandbox and publishes the results; the
<b>Queue</b> tab follows it. Without the queue (offline, or as a pull request):</p>
<ol>
<li>Write a model plugin (copy <code>plugins/leaderboard-hybrid-rrf/</code>; its README is the model-author guide),
or a task plugin (see <code>plugins/leaderboard-example-task/</code>).</li>
<li>Run it locally on every task of a benchmark, without <code>--limit</code>: <code>leaderboard run --model YOUR-MODEL
--task TASK ...</code>. Partial results are never ranked.</li>
<li>Add <code>submissions/&lt;your-model&gt;/model.json</code> and your result files, and check them with
<code>leaderboard validate submissions/&lt;your-model&gt;</code>.</li>
<li>Open a pull request; maintainers re-run a sample and push the results to the results dataset, which this board
reads (it refreshes without a restart).</li>
</ol>
"""


def plural(count: int, noun: str) -> str:
    """'1 model', '2 models' (the status line said "1 models")."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def link(url: Any, text: str) -> str:
    safe = safe_url(url)
    return f'<a href="{esc(safe)}" target="_blank" rel="noopener noreferrer">{esc(text)}</a>' if safe else esc(text)


def status_line(board: Board) -> str:
    revision = f"results revision {esc(board.revision[:12])}" if board.revision else "results from a local folder"
    shown = board.loaded_at.strftime("%Y-%m-%d %H:%M UTC")
    newest = board.last_result
    counts = board.counts()
    parts = [
        revision,
        f"shown since {shown}",
        f"newest result {esc(newest[:10])}" if newest else "no results yet",
        f"{plural(counts['models'], 'model')}, {plural(counts['results'], 'result')}",
    ]
    return f'<div class="status" id="status">{" · ".join(parts)}</div>'


def unknown_benchmark(name: str) -> str:
    """The line above the landing page when a link names a benchmark this board does not show."""
    return (
        f'<div class="summary" id="unknown-benchmark">No benchmark named <b>{esc(name)}</b> on this board '
        "(a task is shown inside its benchmark; non-public ones only on a local board): every benchmark "
        "is listed below.</div>"
    )


def home_summary(board: Board) -> str:
    counts = board.counts()
    loose = len(getattr(board, "standalone", ()))
    declared = plural(len(board.benchmarks) - loose, "benchmark")
    if loose:  # a local board's tasks in no benchmark are counted apart (they are folded on the page)
        declared += f" and {plural(loose, 'task')} in no benchmark"
    return (
        '<div class="summary"><b>Every benchmark</b>: its top models by its own score, with 95% intervals; '
        f"pick one above (or click its name) for the full board. {declared}, "
        f"{plural(counts['models'], 'model')}.</div>"
    )


def overall_summary(found: Any) -> str:
    """Overall: the method and the chosen set, stated on the page (the set is also in the URL)."""
    unknown = getattr(found, "unknown", [])
    extra = f" Not on this board (ignored): {esc(', '.join(unknown))}." if unknown else ""
    names = ", ".join(found.benchmarks) or "none"
    short = f"mean rank over {plural(len(found.benchmarks), 'benchmark')} ({names})"
    others = getattr(found, "others", [])
    if getattr(found, "default", False) and found.benchmarks and others:  # the default, and what it left out
        shared = len(found.ranked)
        short = (
            f"mean rank over the {plural(len(found.benchmarks), 'benchmark')} most models share ({names}: "
            f"{plural(shared, 'model')} ranked in all; tick others above to add them: {', '.join(others)})"
        )
    # On a phone only the short form shows (the table stays near the top); the full method is beside it.
    return (
        f'<div class="summary" id="overall-summary"><b>Overall</b>: {esc(short)}'
        f'<span class="desc">, {esc(getattr(found, "method", ""))}{extra}</span></div>'
    )


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


REPORTED_NOTE = (
    "Reported rows are numbers copied from each paper's tables, obtained with the paper's own setup "
    "(its tokenisation, preprocessing, data version and code), which may differ from this harness's; "
    "Δ measures the difference to the board's run of the model (reproduced by this harness, or run by mteb and "
    "imported, as each cell says), it does not explain it."
)


IDENTICAL_NOTE = (
    "⚠ same source file: the imported result files of these models are byte-identical (one git blob in mteb's "
    "results repository), an upstream copy rather than two runs; their equal scores are not a tie to trust."
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


# -- task views --------------------------------------------------------------------------------------


def view_table_html(board: Board, task: str, view: View, wide: pd.DataFrame, table_id: str) -> str:
    entries = [c for c in wide.columns if c != "model"]
    directions = {view.label(s, m): direction_of(board, task, m) for s, m in view.axis}
    best = {}
    for entry in entries:
        values = [v for v in wide[entry] if finite(v) is not None]
        if values:
            best[entry] = min(values) if directions.get(entry) == "lower" else max(values)
    headers = [("Model", "", "c-name")] + [
        (f'<span class="h">{esc(e)}</span><span class="m">{ARROW[directions.get(e, "higher")]}</span>', "", "")
        for e in entries
    ]
    rows = []
    for _, record in wide.iterrows():
        cells = [Cell(esc(record["model"]), record["model"], "c-name", str(record["model"]))]
        for entry in entries:
            value = finite(record[entry])
            cells.append(Cell(score(value), value, "best" if value is not None and value == best.get(entry) else ""))
        rows.append(cells)
    return table(headers, [("rows", "", rows)], table_id)


def view_heading(task: str, view: View) -> str:
    description = f'<p class="m">{esc(view.description)}</p>' if view.description else ""
    return f'<h3 class="view-title">{esc(task)}: {esc(view.title)}</h3>{description}'


# -- provenance and skipped --------------------------------------------------------------------------


def provenance_html(board: Board, tasks: list[str], search: str = "", page: int = 1) -> str:
    """Every result behind the view, one page (``PAGE_SIZE`` rows) at a time, with a pager to the others."""
    wanted = set(tasks)
    rows = [r for r in board.shown_rows if r["task"]["name"] in wanted]
    if search:
        rows = [r for r in rows if Filters(search=search).keep(r["model"])]
    rows.sort(key=lambda r: (r["task"]["name"], model_key(r)))
    if not rows:
        return '<div class="empty">No results yet.</div>'
    headers = [
        ("Model", "", "c-name"),
        ("Task", "", "c-text"),
        ("File", "relative to the results dataset", "c-file"),
        ("Main score", "the task's main metric", "c-text"),
        ("Value", "", ""),
        ("Stored 95% CI", "an interval the file itself stores; the board computes its own from per-query values", ""),
        ("Coverage", "complete results only are ranked", "c-text"),
        ("Queries", "", ""),
        ("Data hash", "sha256 over the data files actually loaded", "c-text"),
        ("Data revision", "", "c-text"),
        ("Harness", "", "c-text"),
        ("Date", "", "c-text"),
        ("Source", "", "c-text"),
    ]
    page, pages, start, stop = page_slice(len(rows), page, PAGE_SIZE)
    body = []
    for r in rows[start:stop]:
        task, digest = r["task"], r["task"].get("content_hash") or ""
        complete = "complete" if r["complete"] else f"partial ({r.get('coverage_reason') or 'subset'})"
        harness = f"{r.get('harness') or ''} {(r.get('harness_commit') or '')[:8]}".strip()
        ci = r.get("main_ci")
        body.append(
            [
                model_cell(r["model"], "c-name"),
                Cell(esc(task["name"]), task["name"], "c-text"),
                Cell(esc(r["_path"]), r["_path"], "c-file"),
                Cell(esc(task["main_score"]), task["main_score"], "c-text"),
                Cell(score(finite(r["main_score"])), finite(r["main_score"])),
                Cell(span(tuple(ci)) if isinstance(ci, list) and len(ci) == 2 else "none stored", None),
                Cell(esc(complete), int(bool(r["complete"])), "c-text"),
                Cell(esc(r.get("queries") if r.get("queries") is not None else MISSING), finite(r.get("queries"))),
                Cell(esc(digest[:19] or MISSING), digest, "c-text", digest),
                Cell(esc(task.get("data_revision") or MISSING), task.get("data_revision"), "c-text"),
                Cell(esc(harness or MISSING), harness, "c-text"),
                Cell(esc(str(r["created_at"])[:19] or "none in the file"), r["created_at"], "c-text"),
                _source_cell(r),
            ]
        )
    more = pager(
        page, pages, start + 1, stop, len(rows), "results", "provenance-pager", "provenance-page", "provenance-go"
    )
    return table(headers, [("rows", "", body)], "provenance-table") + more


def _source_cell(row: dict[str, Any]) -> Cell:
    """Who made the result: "run here", or "run by mteb X.Y, imported" linked to the imported file."""
    label = source_label(row)
    if not label:
        return Cell("run here", 0, "c-text")
    found = row.get("imported_from") or {}
    url = safe_url(found.get("url"))
    text = link(url, label) if url else esc(label)
    return Cell(text, 1, "c-text", str(found.get("file") or ""))


def skipped_html(board: Board) -> str:
    from leaderboard.app.reported_tier import reported_scores

    skipped = list(board.skipped) + [_reported_skip(reason) for reason in reported_scores(board)[1]]
    if not skipped:
        return '<div class="empty">No file was skipped: every result file is valid.</div>'
    rows = [[Cell(esc(path), path, "c-file"), Cell(esc(reason), reason, "c-reason")] for path, reason in skipped]
    intro = (
        f"<p>{len(skipped)} file(s) or declarations could not be used and are never shown elsewhere. Paths are "
        "relative to the results dataset; reasons are given in full.</p>"
    )
    return intro + table([("File", "", "c-file"), ("Reason", "", "c-reason")], [("rows", "", rows)], "skipped-table")


def _reported_skip(reason: str) -> tuple[str, str]:
    """A reported-scores file's skip reason ('path: why') as (file, reason), the path made relative."""
    path, _, why = reason.partition(": ")
    return (path.rsplit("/reported/", 1)[-1] and "reported/" + path.rsplit("/reported/", 1)[-1], why or reason)


# -- About ---------------------------------------------------------------------------------------------


def about_html(board: Board) -> str:
    counts = board.counts()
    parts = [
        "<h2>About this leaderboard</h2>",
        "<p>Retrievers and rerankers evaluated by one open harness; every number comes from a result file that "
        "records its data hash, settings and harness version (see Provenance).</p>",
        "<h3>How the board ranks</h3><ul>"
        "<li>Each benchmark ranks only models with <b>complete</b> results for every task in its aggregate. Partial "
        "runs (<code>--limit</code>, a sample) are never ranked; models with incomplete coverage are listed below the "
        "ranking, unranked, with what is missing.</li>"
        "<li>The score is the benchmark's declared aggregate (its formula is shown). Scores of benchmarks with "
        "different metrics are never averaged; the Overall view averages ranks, not scores (MTEB's mean rank), over "
        "a set of benchmarks the reader chooses (by default the benchmarks most models share); models ranked "
        "in only some of them are listed with their coverage.</li>"
        "<li>One row per model: its newest revision (by the date of its newest result); older revisions appear "
        'with the "Every revision" filter, each labelled with its revision.</li>'
        "<li>Scores reported in papers are shown in their own tier under a benchmark's runs, marked with the "
        "paper and table they come from; they are never ranked and carry no interval. Where the board also has "
        'the model\'s own run, the row shows that run\'s score ("reproduced" for this harness\'s run, "run by mteb" '
        "for an imported one) and the difference.</li>"
        "<li>Every score carries a 95% bootstrap interval over queries where the results carry per-query scores "
        "(or the interval stored in the result); a subset column's interval (a query type, a domain, a stratum) "
        "resamples that subset's own queries, and a cell without per-query membership shows none. ≈ marks a "
        "model not significantly different from #1 (paired randomization test, p ≥ 0.05); † marks a model that "
        "could not be tested.</li>"
        "<li>Results computed on different data than most results of a task (another data hash) are not compared.</li>"
        "</ul>" + IMPORT_RULES_HTML,
        f"<h3>Data</h3><p>{status_line(board)}</p><p>{plural(counts['models'], 'model')}, "
        f"{plural(counts['results'], 'result file')} on {plural(counts['tasks'], 'task')}; "
        f"{counts['skipped']} file(s) skipped (see Skipped).</p>",
        "<h3>Benchmarks</h3>",
    ]
    if not board.benchmarks:
        parts.append("<p>No benchmark is declared yet (the results dataset has no benchmarks.json).</p>")
    for benchmark in board.benchmarks:
        label = "" if benchmark.public else ' <span class="tag">not public: local view only</span>'
        rows = "".join(
            f"<tr><td>{esc(t.task)}</td><td>{esc(t.label.rstrip(' ↑↓') or MISSING)}</td>"  # the arrow has a column
            f"<td><code>{esc(t.metric)}</code>"
            f"{'' if t.subset == 'default' else ' on ' + esc(t.subset)}</td><td>{ARROW[t.direction]}</td>"
            f"<td>{'yes' if t.in_aggregate else 'no'}</td></tr>"
            for t in benchmark.tasks
        )
        citation = f"<pre class='citation'>{esc(benchmark.citation)}</pre>" if benchmark.citation else ""
        paper = f"<p>Paper: {link(benchmark.reference, benchmark.reference)}</p>" if benchmark.reference else ""
        formula = f"<p>Aggregate: <code>{esc(benchmark.formula or benchmark.aggregate)}</code>"
        formula += f" ({esc(benchmark.aggregate_label)})</p>" if benchmark.aggregate_label else "</p>"
        formula += complexity_html(board, [t.task for t in benchmark.tasks])
        parts.append(
            f'<div class="about-benchmark"><h4>{esc(benchmark.name)}{label}</h4><p>{esc(benchmark.description)}</p>'
            f"{paper}{formula}<table class='plain'><thead><tr><th>task</th><th>column</th><th>metric</th>"
            f"<th>better</th><th>in aggregate</th></tr></thead><tbody>{rows}</tbody></table>{citation}</div>"
        )
    parts.append("<h3>Metrics</h3>" + metrics_html(board))
    parts.append("<h3>How to submit a model</h3>" + SUBMIT)
    return '<div class="about" id="about">' + "".join(parts) + "</div>"


def mean_cw(board: Board, task: str) -> tuple[float, Any] | None:
    """The paper's mean CW of a task's evaluated queries, from its newest complete default-protocol result."""
    rows = [r for r in board.results_of(task) if r["complete"] and not r.get("task_options")]
    if not rows:
        return None
    newest = max(rows, key=lambda r: r["created_at"])
    complexity = (board.details([newest["_path"]]).get(newest["_path"]) or {}).get("complexity") or {}
    value = finite(complexity.get("mean_cw")) if isinstance(complexity, dict) else None
    return (value, complexity.get("queries")) if value is not None else None


def complexity_html(board: Board, tasks: list[str]) -> str:
    """One line: each task's mean CW, where its results record it (labelled as the paper's CW)."""
    found = []
    for task in dict.fromkeys(tasks):
        got = mean_cw(board, task)
        if got is not None:
            queries = f", {got[1]:,} queries" if isinstance(got[1], int) else ""
            found.append(f"{esc(task)} {got[0]:.2f}{queries}")
    if not found:
        return ""
    return (
        '<p class="mean-cw">Mean query complexity (the paper\'s CW, eq. 1 of "Complexity-Aware Training": '
        f"non-stopword tokens per query): {'; '.join(found)}.</p>"
    )


def metrics_html(board: Board) -> str:
    """Each metric a benchmark reads, as its task defines it (judges and coverage are in the descriptions)."""
    seen: dict[tuple[str, str], str] = {}
    for benchmark in board.benchmarks:
        for spec in benchmark.tasks:
            declared = board.tasks.get(spec.task, {})
            for metric in declared.get("metrics", []):
                if isinstance(metric, dict) and metric.get("name") == spec.metric:
                    bounds = _range(metric.get("low"), metric.get("high"))
                    seen[(spec.task, spec.metric)] = f"{metric.get('description') or ''}{bounds}"
            seen.setdefault((spec.task, spec.metric), "")
    if not seen:
        return "<p>No metrics yet.</p>"
    items = "".join(
        f"<li><code>{esc(metric)}</code> ({esc(task)}): {esc(text)}</li>"
        for (task, metric), text in seen.items()
        if text
    )
    # The tasks without results here: one line, not one "no description" line each.
    bare = [f"{metric} ({task})" for (task, metric), text in seen.items() if not text]
    rest = f"<p>No description in the results yet (no result of these tasks): {esc(', '.join(bare))}.</p>"
    return (f"<ul>{items}</ul>" if items else "") + (rest if bare else "")


def _range(low: Any, high: Any) -> str:
    low, high = finite(low), finite(high)
    if low is None and high is None:
        return ""
    left = "-∞" if low is None else f"{low:g}"
    right = "∞" if high is None else f"{high:g}"
    return f" Range [{left}, {right}]."


def size_frame(ranking: Ranking) -> tuple[pd.DataFrame, list[str]]:
    """Ranked models with a known size, and the names of those without one: computed once per ranking (at
    100,000 imported results, 10,000 points took 0.1 s to gather on every opening of the tab)."""
    found = ranking.memo.get("size_frame")
    if found is None:
        found = ranking.memo["size_frame"] = _size_frame(ranking)
    return found


def _size_frame(ranking: Ranking) -> tuple[pd.DataFrame, list[str]]:
    from leaderboard.app.render import parameters

    rows, unsized = [], []
    for line in ranking.ranked:
        count = finite(line.info.get("n_parameters"))
        if count is None or count <= 0 or line.aggregate is None or not math.isfinite(line.aggregate):
            unsized.append(line.name)
            continue
        rows.append(
            {
                "model": line.name,
                "parameters": count,
                "size": parameters(count),
                "score": line.aggregate,
                "kind": line.info.get("kind"),
                "rank": line.rank,
            }
        )
    return pd.DataFrame(rows, columns=["model", "parameters", "size", "score", "kind", "rank"]), unsized
