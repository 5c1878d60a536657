"""Property: no set of schema-valid (or invalid) result files and benchmark declarations makes the
board's data layer raise, and no text from a file reaches the page unescaped.

Results are real runs, mutated: metrics dropped, splits renamed, views declared over metrics and
subsets that may not exist, per-query data valid, absent or damaged, hostile model names, odd
parameter counts; benchmarks reference any of it. Bounded examples so it stays fast.
"""

import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import leaderboard
from leaderboard.app.data import task_views as views
from leaderboard.app.data.board import OVERALL
from leaderboard.app.data.filters import OPTIONAL_COLUMNS, Filters
from leaderboard.app.server import loading
from leaderboard.app.views import board as board_table
from leaderboard.app.views import charts, render
from leaderboard.app.views import overall as overall_view
from leaderboard.app.views.about import about_html
from leaderboard.app.views.board_notes import benchmark_summary, board_notes
from leaderboard.app.views.provenance import provenance_html
from leaderboard.app.views.size import size_frame
from leaderboard.app.views.skipped import skipped_html
from leaderboard.app.views.status import status_line
from leaderboard.app.views.views import view_heading, view_table_html
from leaderboard.records.result import encode_per_query


def board_html(ranking, filters, columns):
    """The board's first page as the app draws it (``board_table``: sorted and paged on the server)."""
    return board_table.board_html(ranking, board_table.TableRequest(filters, tuple(columns)))


TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=24)
HOSTILE_TEXT = st.one_of(TEXT, st.sampled_from(["<img src=x onerror=alert(1)>", "${alert(1)}", "{{x}}", "it's", "[/]"]))


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    out = tmp_path_factory.mktemp("bases")
    leaderboard.evaluate(["bm25"], ["demo", "multiconir-demo-task2"], output=out)
    return [json.loads(p.read_text()) for p in sorted(out.rglob("*.json"))]


@st.composite
def results(draw, bases):
    base = json.loads(json.dumps(draw(st.sampled_from(bases))))
    name = draw(HOSTILE_TEXT)
    base["model"]["name"] = base["model"]["metadata"]["name"] = name
    base["model"]["revision"] = draw(st.sampled_from(["r1", "r2", None]))
    base["model"]["metadata"]["n_parameters"] = draw(
        st.one_of(st.none(), st.integers(-5, 10**13), st.floats(allow_nan=False, allow_infinity=False), TEXT)
    )
    metrics = list(base["scores"]["test"]["default"])
    scores = base["scores"]["test"]
    for subset in scores:
        keep = draw(st.lists(st.sampled_from(metrics), unique=True, max_size=len(metrics)))
        scores[subset] = {m: v for m, v in scores[subset].items() if m in keep} or {metrics[0]: 0.5}
    if draw(st.booleans()):
        base["scores"] = {"dev": scores}
        base["task"]["splits"], base["confidence_intervals"] = ["dev"], {}
    split = base["task"]["splits"][0]
    main = draw(st.sampled_from(list(base["scores"][split]["default"])))
    base["task"]["main_score"], base["main_score"] = main, base["scores"][split]["default"][main]
    subsets = list(base["scores"][split])
    base["task"]["views"] = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "kind": st.sampled_from(["table", "curve", "bars"]),
                    "title": HOSTILE_TEXT,
                    "subsets": st.lists(st.sampled_from([*subsets, "nowhere"]), min_size=1, max_size=4),
                    "metrics": st.lists(st.sampled_from([*metrics, "absent_metric"]), max_size=4),
                    "split": st.sampled_from(["test", "dev"]),
                    "labels": st.dictionaries(st.sampled_from([*metrics, *subsets]), HOSTILE_TEXT, max_size=3),
                    "description": HOSTILE_TEXT,
                    "y_range": st.one_of(st.none(), st.just([0.0, 1.0])),
                }
            ),
            max_size=3,
        )
    )
    per_query = draw(st.sampled_from(["none", "valid", "damaged", "other-ids"]))
    if per_query == "none":
        base["per_query"] = None
    else:
        ids = [f"q{i}" for i in range(draw(st.integers(1, 14)))]
        if per_query == "other-ids":
            ids = [f"x{i}" for i in range(len(ids))]
        values = {q: {main: draw(st.floats(0, 1))} for q in ids}
        base["per_query"] = encode_per_query(values).model_dump()
        if per_query == "damaged":
            base["per_query"]["data"] = "AAAA" + base["per_query"]["data"][4:]
    if draw(st.booleans()):
        base["coverage"] = {"complete": False, "queries": 3, "total_queries": 12, "reason": draw(HOSTILE_TEXT)}
    return base


@st.composite
def declarations(draw, task_names, metric_names):
    tasks = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "task": st.sampled_from([*task_names, "missing-task"]),
                    "metric": st.sampled_from([*metric_names, "absent_metric"]),
                    "direction": st.sampled_from(["higher", "lower"]),
                    "subset": st.sampled_from(["default", "nowhere"]),
                    "split": st.sampled_from(["test", "dev"]),
                    "in_aggregate": st.booleans(),
                    "label": HOSTILE_TEXT,
                }
            ),
            min_size=1,
            max_size=4,
        )
    )
    return {
        "name": draw(HOSTILE_TEXT),
        "description": draw(HOSTILE_TEXT),
        "reference": draw(st.sampled_from(["https://example.org/p", "javascript:alert(1)", ""])),
        "tasks": tasks,
        "formula": draw(HOSTILE_TEXT),
        "public": draw(st.booleans()),
    }


def _no_raw(text: str, html: str) -> None:
    """Text that would be markup if unescaped (a tag, or a quote closing an attribute) never appears raw.

    A lone "<" or '"' appears in any HTML page, so only strings that could open a tag or break out
    of an attribute are checked.
    """
    if re.search(r"<[A-Za-z/!?]", text) or re.search(r'"\s*[A-Za-z-]+\s*=', text):
        assert text not in html


@settings(max_examples=20, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data_=st.data())
def test_the_data_layer_never_raises_and_escapes_everything(bases, data_):
    files = data_.draw(st.lists(results(bases), min_size=1, max_size=5))
    tasks = sorted({f["task"]["name"] for f in files})
    metrics = sorted({m for f in files for s in f["scores"].values() for v in s.values() for m in v})
    declared = data_.draw(st.lists(declarations(tasks, metrics), max_size=3))
    junk = data_.draw(st.sampled_from([b"", b"{", b"\xff\xfe", b"[]", b'{"schema_version": "2"}']))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for number, record in enumerate(files):
            folder = root / f"m{number}" / "r"
            folder.mkdir(parents=True)
            (folder / f"{record['task']['name']}.json").write_text(json.dumps(record))
        (root / "junk.json").write_bytes(junk)
        (root / "benchmarks.json").write_text(json.dumps(declared + [{"name": 3}]))
        for public in (True, False):
            board = loading.load(root, public=public, persist=False)
            pages_html = [about_html(board), skipped_html(board), status_line(board)]
            for name in board.benchmark_names:
                if name == OVERALL:
                    pages_html.append(overall_view.overall_html(board.overall_ranking(), Filters()))
                    continue
                ranking = board.ranking(name)
                filters = Filters(search=data_.draw(st.sampled_from(["", "<", "m"])))
                pages_html += [
                    board_html(ranking, filters, OPTIONAL_COLUMNS),
                    board_notes(ranking),
                    benchmark_summary(board, name, ranking),
                    provenance_html(board, [c.spec.task for c in ranking.columns]),
                ]
                render.csv_frame(ranking, filters).to_csv()
                frame, _ = size_frame(ranking)
                charts.size_chart(frame, "score")
                for task in {c.spec.task for c in ranking.columns}:
                    paths = {line.key: line.paths[task] for line in ranking.lines if task in line.paths}
                    for view in views.views_of(board, task):
                        long = views.view_frame(board, view, paths)
                        wide = views.view_table(long, view)
                        pages_html.append(view_table_html(board, task, view, wide, "t"))
                        pages_html.append(view_heading(task, view))
                        charts.view_chart(long, view, "value")
            html = "".join(pages_html)
            for record in files:
                _no_raw(record["model"]["name"], html)
            for declaration in declared:
                _no_raw(declaration["name"], html)
                _no_raw(declaration["description"], html)
            assert 'href="javascript' not in html  # shown as text, never a link
