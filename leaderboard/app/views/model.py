"""A model's page: every benchmark it is on, where it is strong or weak per subset, its metadata and sources.

Read from the board's ``model_index`` (no scan of the results per request) and the benchmark's own
ranking: the same rows, values and intervals the board shows. Intervals are computed for the rows
the page shows only (``page_statistics.with_statistics``: the model and each column's leader).

"Strong or weak" is read per column (a task, or a subset such as a query type or a stratum): the
model's place among the benchmark's ranked models on that column, and its value against that
column's leader with both 95% intervals. Apart intervals mean the leader is ahead beyond the noise
of the two cells; overlapping ones are not a test (the paired test is the Compare tab, linked).
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from leaderboard.app.data.aggregates import aggregate_values
from leaderboard.app.data.filters import LINKED_LICENSE, MODEL_FACTS, license_of, metadata_value, model_fact
from leaderboard.app.data.model_index import Place, model_index, place
from leaderboard.app.data.page_statistics import with_statistics
from leaderboard.app.data.reported_tier import reported_lines
from leaderboard.app.data.values import MISSING
from leaderboard.app.views.board import strip_arrow
from leaderboard.app.views.render import ARROW, ZERO_WIDTH, esc, header_cells, parameters, safe_url, score, span
from leaderboard.mteb.imported import source_label

if TYPE_CHECKING:
    from leaderboard.app.data.board import Board
    from leaderboard.app.data.ranking import Column, Line, Ranking
    from leaderboard.app.data.reported_tier import ReportedLine

LEADS, CLOSE, BEHIND, AHEAD_UNKNOWN = "leads", "close", "behind", "no interval"


@dataclass
class Standing:
    """The model on one column of a benchmark, against that column's leader."""

    column: Column
    value: float | None
    interval: tuple[float, float] | None
    place: Place | None
    leader_value: float | None = None
    leader_interval: tuple[float, float] | None = None

    @property
    def leader(self) -> Line | None:
        return self.place.leader if self.place else None

    @property
    def gap(self) -> float | None:
        """model − leader (the column's own units; its direction says which sign is better)."""
        if self.value is None or self.leader_value is None:
            return None
        return self.value - self.leader_value

    @property
    def percentile(self) -> float | None:
        """1 = best of the ranked models on this column, 0 = last (one ranked model: 1)."""
        if self.place is None:
            return None
        if self.place.of <= 1:
            return 1.0
        return 1 - (min(self.place.position, self.place.of) - 1) / (self.place.of - 1)

    def verdict(self) -> str:
        """leads (the column's best or tied with it) / close (the two intervals overlap) / behind (apart) /
        no interval (one of the two cells has none: an imported run, no per-query values)."""
        if self.place is None or self.leader is None:
            return ""
        if self.place.position == 1:
            return LEADS
        # a zero-width interval is no interval (render.ZERO_WIDTH_RULE): too few queries, or all equal
        own, leader = self.interval, self.leader_interval
        if own is None or leader is None or not _width(own) or not _width(leader):
            return AHEAD_UNKNOWN
        (low, high), (leader_low, leader_high) = own, leader
        return CLOSE if low <= leader_high and leader_low <= high else BEHIND


def _width(interval: tuple[float, float]) -> bool:
    return span(interval) != ZERO_WIDTH


@dataclass
class Source:
    text: str
    url: str | None = None


@dataclass
class BenchmarkPart:
    """The model on one benchmark: its row (rank, score, interval), each column against its leader, sources."""

    benchmark: str
    ranking: Ranking
    line: Line
    standings: list[Standing] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    reported: list[ReportedLine] = field(default_factory=list)
    bibtex: str = ""
    reference: str | None = None

    @property
    def ranked(self) -> int:
        return len(self.ranking.ranked)


@dataclass
class ModelPage:
    name: str
    info: dict[str, Any]
    revisions: list[str]
    parts: list[BenchmarkPart]

    def strongest(self, count: int = 3) -> list[tuple[BenchmarkPart, Standing]]:
        """The columns where the model stands best among the ranked models: in their better half, best first."""
        return [item for item in self._by_percentile() if (item[1].percentile or 0.0) > 0.5][:count]

    def weakest(self, count: int = 3) -> list[tuple[BenchmarkPart, Standing]]:
        """The columns where it stands worst: in their worse half, worst first."""
        return [item for item in reversed(self._by_percentile()) if (item[1].percentile or 0.0) < 0.5][:count]

    def _by_percentile(self) -> list[tuple[BenchmarkPart, Standing]]:
        scored = [(p, s) for p in self.parts for s in p.standings if s.percentile is not None and s.place.of > 1]  # type: ignore[union-attr]
        return sorted(scored, key=lambda item: (-(item[1].percentile or 0.0), item[0].benchmark, item[1].column.key))


def model_page(board: Board, name: str) -> ModelPage | None:
    """The page of the model named ``name`` (None: no such model on the board)."""
    index = model_index(board)
    resolved = index.resolve(name)
    if resolved is None:
        return None
    entries = index.of(resolved)
    parts = [_part(board, entry.benchmark, entry.ranking, entry.line) for entry in entries]
    info: dict[str, Any] = {}
    for entry in entries:  # the first benchmark's model block, completed by the others' (imported metadata)
        for key, value in entry.line.info.items():
            if info.get(key) in (None, "") and value not in (None, ""):
                info[key] = value
    revisions = sorted({e.line.revision for e in entries} | {r for e in entries for r in e.line.other_revisions})
    return ModelPage(resolved, info, revisions, parts)


def _part(board: Board, name: str, ranking: Ranking, line: Line) -> BenchmarkPart:
    places = {column.key: place(ranking, column.key, line.values.get(column.key)) for column in ranking.columns}
    leaders = {p.leader.key: p.leader for p in places.values() if p is not None and p.leader is not None}
    with_statistics(board, ranking, [line, *leaders.values()])  # the page's rows only
    standings = []
    for column in ranking.columns:
        found = places[column.key]
        leader = found.leader if found else None
        standings.append(
            Standing(
                column,
                line.values.get(column.key),
                line.intervals.get(column.key),
                found,
                leader.values.get(column.key) if leader else None,
                leader.intervals.get(column.key) if leader else None,
            )
        )
    benchmark = board.benchmark(name)
    folded = line.name.casefold()
    return BenchmarkPart(
        name,
        ranking,
        line,
        standings,
        _sources(name, ranking, line),
        [r for r in reported_lines(board, ranking) if r.model.casefold() == folded],
        bibtex(benchmark) if benchmark is not None else "",
        safe_url(getattr(benchmark, "reference", None)),
    )


def bibtex(benchmark: Any) -> str:
    """The benchmark's BibTeX, as ``leaderboard cite`` prints it (its declaration's, or a @misc built from its
    citation line); a broken declaration gives none rather than an error on the page."""
    from leaderboard.contract.citation import benchmark_bibtex

    try:
        text = benchmark_bibtex(benchmark)
    except Exception:  # a third party's declaration: the page still opens
        return ""
    return plain_text(text)


def plain_text(text: str) -> str:
    """Text without control or format characters (bidi overrides would reorder what a reader copies), as the CLI
    prints it (``cli.sanitize.plain``, which the app may not import); newlines and tabs kept."""
    import unicodedata

    return "".join(c for c in text if c in "\n\t" or unicodedata.category(c) not in ("Cc", "Cf"))


def _sources(name: str, ranking: Ranking, line: Line) -> list[Source]:
    """Where each number of the row comes from: this harness's runs (their provenance), mteb's imported files."""
    found: dict[tuple[str, str | None], list[str]] = {}  # (source, link) -> the columns it gives, in order
    for column in ranking.columns:
        row = line.chosen.get(column.key)
        if row is None:
            continue
        label = source_label(row)
        if label:
            key = (label, safe_url(line.sources.get(column.key)))
        else:
            harness = str(row.get("harness") or "").strip()
            text = "run here" + (f" (harness {harness})" if harness else "")
            key = (text, "?" + urllib.parse.urlencode({"benchmark": name, "tab": "provenance"}))
        columns = found.setdefault(key, [])
        if column.label not in columns:
            columns.append(column.label)
    return [Source(f"{', '.join(columns)}: {text}", url) for (text, url), columns in found.items()]


# -- HTML ---------------------------------------------------------------------------------------------


def page_link(name: str) -> str:
    """The link to a model's page (``?model=NAME``), as every model name on the board links it."""
    return "?" + urllib.parse.urlencode({"model": name})


def _metadata_html(page: ModelPage) -> str:
    info = page.info
    facts = [
        ("Parameters", parameters(info.get("n_parameters"))),
        ("Dimension", _count(metadata_value(info, "Dimension"))),
        ("Max tokens", _count(metadata_value(info, "Max tokens"))),
        *((fact, model_fact(info, fact) or MISSING) for fact in MODEL_FACTS if fact != "Zero-shot"),
        ("Kind", str(info.get("kind") or MISSING)),
        ("Takes instructions", "yes" if info.get("takes_instructions") else "no"),
        ("Revisions", ", ".join(r or "none" for r in page.revisions) or MISSING),
        ("Run by", runners(page) or MISSING),
    ]
    rows = "".join(f"<tr><th scope='row'>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in facts)
    linked = safe_url(info.get("license")) if license_of(info) == LINKED_LICENSE else None
    if linked:  # the license's text, at the link model_meta.json gives
        anchor = f'<a href="{esc(linked)}" target="_blank" rel="noopener noreferrer">{esc(LINKED_LICENSE)}</a>'
        rows = rows.replace(f"<td>{esc(LINKED_LICENSE)}</td>", f"<td>{anchor}</td>", 1)
    reference = safe_url(info.get("reference"))
    link = (
        f'<p class="note">Reference: <a href="{esc(reference)}" target="_blank" rel="noopener noreferrer">'
        f"{esc(reference)}</a></p>"
        if reference
        else ""
    )
    return f'<table class="mp-facts" id="model-facts">{rows}</table>{link}'


def runners(page: ModelPage) -> str:
    """What ran the model's results, with the benchmarks of each: "mteb 1.38, imported (FollowIR)" for mteb's runs
    (the version in each imported file), "this harness, plugin sentence-transformers 0.3 (ComLQ)" for runs here."""
    found: dict[str, list[str]] = {}
    for part in page.parts:
        for column in part.ranking.columns:
            row = part.line.chosen.get(column.key)
            if row is None:
                continue
            label = source_label(row)
            if label:
                text = label.removeprefix("run by ")
            else:
                model = row.get("model") or {}
                plugin = " ".join(str(v) for v in (model.get("plugin"), model.get("plugin_version")) if v)
                text = "this harness" + (f", plugin {plugin}" if plugin else "")
            benchmarks = found.setdefault(text, [])
            if part.benchmark not in benchmarks:
                benchmarks.append(part.benchmark)
    return "; ".join(f"{text} ({', '.join(benchmarks)})" for text, benchmarks in found.items())


def _count(value: float | None) -> str:
    return MISSING if value is None else f"{value:,.0f}"


def _summary_html(page: ModelPage) -> str:
    def items(found: list[tuple[BenchmarkPart, Standing]]) -> str:
        return "".join(
            f"<li>{esc(part.benchmark)} · {esc(column_name(standing.column))}: "
            f"#{standing.place.position} of {standing.place.of}</li>"  # type: ignore[union-attr]
            for part, standing in found
        )

    strong, weak = page.strongest(), page.weakest()
    out = ""
    if strong:
        out += (
            f'<div id="model-strongest"><b>Strongest</b> (place among the ranked models)<ul>{items(strong)}</ul></div>'
        )
    if weak:
        out += f'<div id="model-weakest"><b>Weakest</b><ul>{items(weak)}</ul></div>'
    return f'<div class="mp-sw">{out}</div>' if out else ""


def column_name(column: Column) -> str:
    """'Demo · nDCG@10': the column's label, with its metric where the label does not say it."""
    label, metric = strip_arrow(column.label), strip_arrow(column.metric_label)
    said = metric.split(" (")[0].casefold()  # "MAP@1000 (original)" is said by "Robust04 MAP@1000"
    return label if said in label.casefold() else f"{label} · {metric}"


def _benchmark_html(part: BenchmarkPart, page_name: str = "") -> str:
    line, ranking = part.line, part.ranking
    spelled = f" · as <b>{esc(line.name)}</b>" if page_name and line.name != page_name else ""  # a collision
    arrow = ARROW.get(ranking.direction, "")
    if line.rank is not None:
        mark = f" {line.marker}" if line.marker else ""
        standing = f"#{line.rank}{mark} of {part.ranked} ranked"
        if line.copy_of:  # its files are byte-identical to another model's: the board shows one row for both
            standing += f", one row with {line.copy_of} (byte-identical result files)"
    else:
        standing = "not ranked: " + ("; ".join(line.missing) or "incomplete results")
    interval = span(line.aggregate_interval) if line.aggregate_interval else ""
    if line.imported:
        interval = f"no interval: {line.imported}"
    board_link = "?" + urllib.parse.urlencode({"benchmark": part.benchmark})
    head = (
        f'<h3 class="mp-bench"><a href="{esc(board_link)}">{esc(part.benchmark)}</a></h3>'
        f'<p class="mp-rank" data-rank="{line.rank or ""}"><b>{esc(standing)}</b> · '
        f"{esc(ranking.aggregate_label)} {arrow} <b>{score(line.aggregate)}</b>"
        f"{f' <span class=ci>{esc(interval)}</span>' if interval else ''}"
        f"{f' · revision {esc(line.revision)}' if line.revision else ''}{spelled}</p>"
    )
    head += _aggregates_html(part)
    leader_rank = ranking.ranked[0] if ranking.ranked else None
    rows = []
    for standing_row in part.standings:
        rows.append(_standing_row(part, standing_row))
    caption = "Each column (a task, or a subset) against its leader."
    if leader_rank is not None and leader_rank.key != line.key and not line.imported and not leader_rank.imported:
        compare = "?" + urllib.parse.urlencode(
            {"benchmark": part.benchmark, "tab": "compare", "a": line.name, "b": leader_rank.name}
        )
        caption += f' <a href="{esc(compare)}">Paired test against #1 (Compare tab)</a>.'
    headers = header_cells(
        (
            ("Column", "c-text"),
            ("Score · 95% CI", ""),
            ("vs leader", "c-text"),
            ("Place", ""),
            ("Gap", ""),
            ("Leader", "c-text"),
            ("Leader's score", ""),
        )
    )
    table = (
        f'<div class="lb-scroll"><table class="lb mp-table" data-benchmark="{esc(part.benchmark)}">'
        f"<caption>{caption}</caption><thead><tr>{headers}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )
    body = f"{head}{table}{_sources_html(part)}"
    return f'<section class="mp-part" data-benchmark="{esc(part.benchmark)}">{body}</section>'


def _aggregates_html(part: BenchmarkPart) -> str:
    """Each aggregate the benchmark declares (where it declares more than one): the model's value, its interval (or
    why none) and its rank among the models ranked by it."""
    found = aggregate_values(part.ranking, part.line)
    if len(found) < 2:
        return ""
    rows = []
    for value in found:
        name = f"{value.label} {ARROW.get(value.direction, '')}".strip() + (" (default)" if value.default else "")
        if value.interval:
            interval = span(value.interval)
        elif value.value is None:
            interval = ""
        elif part.line.imported:
            interval = f"no interval: {part.line.imported}"
        else:
            interval = "no interval: per-query values missing"
        rank = f"#{value.rank} of {value.ranked}" if value.rank is not None else "not ranked by it"
        rows.append(  # the rank before the score: on a phone both are on screen beside the (wrapped) name
            f'<tr data-aggregate="{esc(value.label)}"><td class="c-text mp-col" title="{esc(value.formula)}">'
            f'{esc(name)}</td><td data-v="{value.rank!r}">{esc(rank)}</td>'
            f'<td data-v="{value.value!r}"><span class="v">{score(value.value)}</span>'
            f'<span class="ci">{esc(interval)}</span></td></tr>'
        )
    headers = header_cells((("Aggregate", "c-text"), ("Rank", ""), ("Score · 95% CI", "")))
    return (
        f'<div class="lb-scroll mp-aggregates"><table class="lb mp-aggregates-table">'
        f"<caption>Every aggregate {esc(part.benchmark)} declares (the default ranks its board; the others rank it "
        "when picked under Rank by), with the model's rank by each.</caption>"
        f"<thead><tr>{headers}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _standing_row(part: BenchmarkPart, s: Standing) -> str:
    column = s.column
    name = f"{column_name(column)} {ARROW.get(column.direction, '')}"
    if not column.spec.in_aggregate:
        name += " (not ranked)"
    verdict = s.verdict()
    no_interval = "no interval: " + part.line.imported if part.line.imported else "no interval"
    interval = span(s.interval) if s.interval else (no_interval if s.value is not None else "")
    leader = s.leader
    leader_name = MISSING
    if leader is not None:
        leader_name = f'<a class="to-model" href="{esc(page_link(leader.name))}">{esc(leader.label or leader.name)}</a>'
    leader_value = score(s.leader_value)
    if s.leader_interval:
        leader_value += f' <span class="ci">{span(s.leader_interval)}</span>'
    if s.gap is None or verdict == LEADS:
        gap = MISSING
    else:
        gap = score(s.gap) if s.gap < 0 else f"+{score(s.gap)}"
    place_text = f"{s.place.position} / {s.place.of}" if s.place else MISSING
    return (
        f'<tr data-column="{esc(column.key)}" data-verdict="{esc(verdict)}">'
        f'<td class="c-text mp-col">{esc(name)}</td>'
        f'<td data-v="{s.value!r}"><span class="v">{score(s.value)}</span><span class="ci">{esc(interval)}</span></td>'
        f'<td class="c-text mp-{esc(verdict.replace(" ", "-"))}">{esc(verdict)}</td>'
        f'<td data-v="{s.percentile!r}">{esc(place_text)}</td><td>{gap}</td>'
        f'<td class="c-text">{leader_name}</td><td>{leader_value}</td></tr>'
    )


def _sources_html(part: BenchmarkPart) -> str:
    items = []
    for source in part.sources:
        text = esc(source.text)
        items.append(f'<li><a href="{esc(source.url)}">{text}</a></li>' if source.url else f"<li>{text}</li>")
    for row in part.reported:
        value = score(row.aggregate_value)
        link = f' (<a href="{esc(part.reference)}" target="_blank" rel="noopener">paper</a>)' if part.reference else ""
        items.append(f"<li>{esc(row.source)}: {value}, copied from the paper, not reproduced here{link}</li>")
    sources = f'<div class="mp-sources"><b>Where the numbers come from</b><ul>{"".join(items)}</ul></div>'
    cite = ""
    if part.bibtex and part.line.rank is not None:
        cite = (
            f'<details class="mp-cite"><summary>Cite {esc(part.benchmark)} (BibTeX)</summary>'
            f'<button type="button" class="mp-copy">Copy BibTeX</button><pre class="mp-bibtex">{esc(part.bibtex)}</pre>'
            "</details>"
        )
    return sources + cite


def model_page_html(board: Board, name: str) -> str:
    """The page of ``name``; a clear line when no model has that name."""
    if not name:
        return '<div class="empty" id="model-empty">Pick a model to see its page.</div>'
    page = model_page(board, name)
    if page is None:
        return f'<div class="empty" id="model-empty">No model named {esc(name)} on this board.</div>'
    count = len(page.parts)
    intro = (
        f'<h2 class="mp-name" id="model-name">{esc(page.name)}</h2>'
        f'<p class="note">On {count} benchmark{"s" if count != 1 else ""}, each with the revision its board shows '
        "by default (≈ beside a rank: not significantly different from #1; †: not tested). Each column of a "
        "benchmark (a task, or a subset: query type, domain, stratum) gives the model's score and 95% interval, "
        "its place among the ranked models on that column and that column's leader. vs leader: <b>leads</b>; "
        "<b>close</b>: the two intervals overlap (not a test: the Compare tab's paired test is linked); "
        "<b>behind</b>: they do not; <b>no interval</b>: one of the two cells has none (an imported run).</p>"
    )
    top = f'<div class="mp-top">{_metadata_html(page)}{_summary_html(page)}</div>'
    others = model_index(board).collisions.get(page.name, [])
    if others:  # one identity, several spellings in the dataset: said, never silently merged or hidden
        intro += (
            f'<p class="note collision" id="model-collision"><b>Name collision:</b> {esc(", ".join(others))} '
            f"{'is' if len(others) == 1 else 'are'} the same model name as {esc(page.name)} up to case, Unicode "
            "width or / for __, published separately in this results dataset. This page shows the rows of every "
            "spelling, each marked with its own name; check which plugin published each.</p>"
        )
    parts = "".join(_benchmark_html(part, page.name) for part in page.parts)
    return f'<div id="model-page" data-model="{esc(page.name)}">{intro}{top}{parts}</div>'
