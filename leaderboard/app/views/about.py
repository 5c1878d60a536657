"""The About tab: how the board ranks, each benchmark with its tasks, metrics and papers, and how to submit."""

from __future__ import annotations

from typing import Any

from leaderboard.app.data.board import Board
from leaderboard.app.data.values import MISSING, finite
from leaderboard.app.views.render import ARROW, esc, link, plural
from leaderboard.app.views.status import status_line

# The rules of imported runs (``data.imported_runs``), as the About page states them.
IMPORT_RULES_HTML = (
    "<h3>Imported runs (mteb's results)</h3><ul>"
    "<li>Results imported from mteb's results repository (<code>leaderboard import</code>) are runs made by mteb, "
    'not numbers copied from papers: each row says "run by mteb X.Y, imported", links to its file, and is '
    "marked †: mteb's files hold no per-query values, so it has no interval and no significance test.</li>"
    "<li><b>Comparability.</b> Results of an mteb task, imported or run here from the hub, are compared by the "
    "<b>dataset revision</b> they ran on; other results by the sha256 of the data they loaded. Each task ranks "
    "the results on the data most of its complete results share; the others are listed, unranked, with the "
    "revision they ran on. An imported file that names no dataset revision is never ranked.</li>"
    "<li><b><code>external</code> results</b> (numbers the model's authors reported, copied into mteb's "
    "repository, not runs of mteb) are shown, marked as such, and never ranked; a model's <code>external</code> "
    "revision is shown only when it has no other.</li>"
    "<li><b>Revisions.</b> A model's revision run by this harness is shown before an imported one; a result "
    "without a date (mteb wrote none before 1.14) counts as older than any dated one; among undated ones, the "
    "newer mteb version wins.</li>"
    "<li>Where this harness has its own run of a model and task that an import also has, the model is one row: "
    "this harness's run, with mteb's value and the difference (this harness − mteb) under it.</li>"
    "<li><b>Zero-shot</b>, as MTEB's leaderboard decides it: a model whose training datasets (with those of the "
    "model it was adapted from, and their similar tasks) include a task of the benchmark is not zero-shot; one "
    "whose model_meta.json names none is "
    "unknown.</li></ul>"
)

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
