"""Scores reported in papers: the record, its schema, hostile files, and every entered cell against the paper text."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from conftest import REPO

from leaderboard.records import reported
from leaderboard.records.reported import ReportedFile, load_reported, read_reported_file

SUBMISSIONS = REPO / "submissions"
PAPERS = REPO.parent / "shared" / "papers"
needs_papers = pytest.mark.skipif(
    not PAPERS.is_dir(), reason=f"paper texts not found at {PAPERS} (CI always has ../shared/papers)"
)

# Where each paper prints its captions: below the table (True) or above it (False). The listwise-
# distillation text lost its captions: its tables are found by line range (1-based, inclusive).
CAPTION_BELOW = {
    "000_c7ab13de71428e7a": True,
    "002_819cd7e3a5ab57ee": True,
    "003_29f8a98f52bd8789": False,
    "004_3c5dcdfc67fe6c3c": True,
}
LINE_RANGES = {("001_8aec494cff9cf4b4", "Table 2"): (38, 52), ("001_8aec494cff9cf4b4", "Table 3"): (53, 53)}
MARKUP = re.compile(r"</?[a-z]+>|\*\*")  # <u>second best</u>, <del>, **bold** in the extracted text
CAPTION = re.compile(r"^Table \d+:")


def paper_region(paper_file: str, table: str) -> list[str]:
    """The lines of ``table`` in the paper: from its caption to the next caption on the table's side."""
    lines = [MARKUP.sub("", line) for line in (PAPERS / f"{paper_file}.txt").read_text("utf-8").split("\n")]
    if (paper_file, table) in LINE_RANGES:
        first, last = LINE_RANGES[paper_file, table]
        return lines[first - 1 : last]
    name = table.split(" (")[0]  # "Table 2 (Contriever)": one printed table entered as two
    caption = next(i for i, line in enumerate(lines) if line.startswith(f"{name}:"))
    if CAPTION_BELOW[paper_file]:
        start = max((i for i in range(caption) if CAPTION.match(lines[i])), default=max(caption - 60, -1)) + 1
        return lines[start:caption]
    end = min((i for i in range(caption + 1, len(lines)) if CAPTION.match(lines[i])), default=caption + 60)
    return lines[caption + 1 : end]


def printed_cells(region: list[str], label: str) -> list[str]:
    """The cells printed after row ``label`` in ``region``.

    'A | B': the row's leading cells are A and B; 'A / B': the first row B after row A. A tab-separated
    row is split at tabs (an empty cell stays a cell), a markdown row at '|', a table flattened into
    one line at spaces.
    """
    text = "\n".join(region)
    position = 0
    for part in label.split(" / "):
        head = re.escape(part).replace(r"\ \|\ ", r"\t")  # "method | Q/Doc" are two tab-separated cells
        # A row starting a tab-separated line, else a markdown cell, else a label inside a flattened line.
        for pattern in (rf"^{head}(\t)", rf"(?<=\| ){head}( \| )", rf"(?:^|(?<=\s)){head}(\s)"):
            found = re.compile(pattern, re.MULTILINE).search(text, position)
            if found is not None:
                break
        else:
            return []
        position = found.end()
    separator = found.group(1)
    rest = text[position:].split("\n")[0]
    if separator == "\t":
        return [c.strip() for c in rest.split("\t")]
    if "|" in separator:
        return [c.strip() for c in rest.split("|")]
    return rest.split()


def cell_problems(paper: ReportedFile) -> tuple[list[str], int]:
    """Every entered cell that is not printed in its row at its column's position, and the number checked."""
    problems, checked = [], 0
    for table in paper.tables:
        region = paper_region(paper.paper_file, table.table)
        for r, row in enumerate(table.rows):
            for c, (column, printed) in enumerate(zip(table.columns, row.values, strict=True)):
                if printed is None:
                    continue
                # A transposed table prints the grid's columns as rows and its rows as columns.
                label, position = (column.label, r) if table.transposed else (row.label, table.printed_offset + c)
                cells = printed_cells(region, label)
                found = cells[position] if position < len(cells) else None
                checked += 1
                if found != printed:
                    problems.append(
                        f"{paper.paper} {table.table}, row {row.label!r}, column {column.label!r}: entered "
                        f"{printed!r}, the paper prints {found!r}"
                    )
    return problems, checked


def reported_papers() -> list[Path]:
    return sorted((SUBMISSIONS / "reported").glob("*.json"))


def test_checked_in_schema_equals_the_generated_one():
    shipped = REPO / "leaderboard" / "records" / "schema" / f"reported-{reported.SCHEMA_VERSION}.json"
    assert shipped.read_text("utf-8") == reported.schema_text(), (
        "leaderboard/records/schema/reported-1.json is stale: regenerate it with "
        "`python -m leaderboard.records.reported`"
    )


def test_every_seed_paper_file_validates_against_the_json_schema():
    import jsonschema

    schema = json.loads(reported.schema_text())
    files = reported_papers()
    assert {p.name for p in files} >= {
        "comlq.json",
        "multiconir.json",
        "inf-ir.json",
        "listwise-distillation.json",
        "complexity-aware-training.json",
    }
    for path in files:
        jsonschema.validate(json.loads(path.read_text("utf-8")), schema)


def test_the_seed_papers_load_whole_and_name_their_source():
    scores, skipped = load_reported(SUBMISSIONS)
    assert skipped == []
    by_paper: dict[str, int] = {}
    for s in scores:
        by_paper[s.paper] = by_paper.get(s.paper, 0) + 1
    assert set(by_paper) == {"MultiConIR", "ComLQ", "InF-IR", "Listwise distillation", "Complexity-aware training"}
    assert min(by_paper.values()) >= 10
    tables = {(s.paper, s.table) for s in scores}
    assert {("MultiConIR", f"Table {n}") for n in (1, 2, *range(13, 21))} <= tables
    assert {("ComLQ", "Table 3"), ("ComLQ", "Table 4"), ("InF-IR", "Table 2"), ("InF-IR", "Table 5")} <= tables


def test_comlq_bm25_is_the_papers_50_5_on_the_harness_scale():
    scores, _ = load_reported(SUBMISSIONS)
    (cell,) = [
        s for s in scores if s.paper == "ComLQ" and s.table == "Table 3" and s.row == "BM25" and s.column == "total"
    ]
    assert (cell.model, cell.benchmark, cell.task, cell.subset, cell.metric) == (
        "bm25",
        "ComLQ",
        "comlq",
        "default",
        "ndcg_at_10",
    )
    assert cell.printed == "50.5" and cell.value == 0.505
    assert cell.source == "reported in ComLQ, Table 3"
    per_type = {s.subset: s.value for s in scores if s.table == "Table 3" and s.model == "bm25" and s.paper == "ComLQ"}
    assert per_type["type=1p"] == 0.661 and per_type["type=pni"] == 0.317


def test_the_columns_agree_where_the_paper_prints_a_derived_number():
    """Column alignment, checked by arithmetic rather than by the text: a shifted column breaks these."""
    scores, _ = load_reported(SUBMISSIONS)
    cells = {(s.paper, s.table, s.row, s.column): float(s.printed) for s in scores}
    task1 = [t for t in ("Table 1", "Table 13", "Table 14", "Table 15", "Table 16", "Table 17")]
    rows = {(p, t, r) for p, t, r, _ in cells if p == "MultiConIR" and t in task1}
    assert len(rows) == 6 * 13
    for paper, table, row in rows:
        decline = cells.get((paper, table, row, "Decline"), cells.get((paper, table, row, "decline")))
        assert decline == pytest.approx(
            cells[paper, table, row, "Query1"] - cells[paper, table, row, "Query10"], abs=0.02
        )
    followir = {(t, r) for p, t, r, c in cells if p == "InF-IR" and c == "FollowIR / score"}
    assert len(followir) > 20
    for table, row in followir:
        parts = [cells.get(("InF-IR", table, row, c)) for c in ("Robust04 / MAP", "News21 / nDCG", "Core17 / MAP")]
        assert cells["InF-IR", table, row, "FollowIR / score"] == pytest.approx(sum(parts) / 3, abs=0.1)


@needs_papers
@pytest.mark.parametrize("path", reported_papers(), ids=lambda p: p.stem)
def test_every_entered_cell_is_printed_in_its_row_and_column_of_the_paper(path):
    paper = read_reported_file(path)
    problems, checked = cell_problems(paper)
    assert checked >= 10
    assert problems == []


@needs_papers
def test_the_paper_check_catches_a_wrong_number_a_shifted_column_and_an_unknown_row():
    paper = read_reported_file(SUBMISSIONS / "reported" / "comlq.json")
    data = paper.model_dump()
    bm25 = next(r for r in data["tables"][0]["rows"] if r["label"] == "BM25")
    bm25["values"][-1] = "50.6"  # a typo
    bm25["values"][0], bm25["values"][1] = bm25["values"][1], bm25["values"][0]  # two cells swapped
    data["tables"][1]["rows"][0]["label"] = "HyDE-2"  # a row the paper does not print
    problems, _ = cell_problems(ReportedFile.model_validate(data))
    assert any("'BM25', column 'total': entered '50.6', the paper prints '50.5'" in p for p in problems)
    assert any("'BM25', column '1p': entered '60.2', the paper prints '66.1'" in p for p in problems)
    assert sum("'HyDE-2'" in p for p in problems) == 5
    assert len(problems) == 8


def _write(folder: Path, name: str, data: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), "utf-8")
    return path


def _paper(**change) -> dict:
    data = json.loads((SUBMISSIONS / "reported" / "comlq.json").read_text("utf-8"))
    data["tables"] = data["tables"][1:]  # Table 4 only: small
    return {**data, **change}


def test_hostile_files_are_skipped_with_a_reason_and_the_good_one_is_read(tmp_path):
    folder = tmp_path / "reported"
    _write(folder, "good.json", _paper())
    _write(folder, "not-json.json", "{")
    _write(folder, "deep.json", "[" * 5000 + "]" * 5000)
    _write(folder, "list.json", [])
    _write(folder, "version.json", _paper(schema_version="9"))
    narrow = _paper()
    narrow["tables"][0]["rows"][0]["values"] = ["1.0"]
    _write(folder, "narrow.json", narrow)
    words = _paper()
    words["tables"][0]["rows"][0]["values"][0] = "high"
    _write(folder, "words.json", words)
    (folder / "binary.json").write_bytes(b'{"paper": "\xff"}')
    (folder / "folder.json").mkdir()
    (folder / "dangling.json").symlink_to(tmp_path / "nowhere")
    os.mkfifo(folder / "fifo.json")
    big = folder / "big.json"
    with big.open("wb") as handle:
        handle.truncate(reported.MAX_FILE_BYTES + 1)
    scores, skipped = load_reported(tmp_path)
    assert {s.row for s in scores} == {"HyDE", "BGE", "PromptReps", "BM25", "LameR", "Contriever", "AGR", "InteR"}
    assert len(scores) == 40
    reasons = "\n".join(skipped)
    assert len(skipped) == 11, reasons
    for name, why in [
        ("not-json.json", "not valid JSON"),
        ("deep.json", "nested"),
        ("list.json", "expected a JSON object"),
        ("version.json", "schema_version '9'"),
        ("narrow.json", "1 values for 5 columns"),
        ("words.json", "should match pattern"),
        ("binary.json", "not UTF-8"),
        ("folder.json", "a directory"),
        ("dangling.json", "broken symbolic link"),
        ("fifo.json", "not a regular file"),
        ("big.json", "bytes"),
    ]:
        assert any(name in line and why in line for line in skipped), (name, reasons)
    assert "a result file" not in reasons


def test_a_copied_paper_file_does_not_double_its_cells(tmp_path):
    _write(tmp_path / "reported", "a.json", _paper())
    _write(tmp_path / "reported", "b.json", _paper())
    scores, skipped = load_reported(tmp_path)
    assert len(scores) == 40
    assert len(skipped) == 1 and "b.json" in skipped[0] and "repeats cells" in skipped[0]


def test_no_reported_folder_is_no_scores_and_no_problem(tmp_path):
    assert load_reported(tmp_path) == ([], [])
    assert load_reported(tmp_path / "missing") == ([], [])


def test_printed_x100_values_are_stored_exactly_on_the_0_1_scale():
    data = _paper()
    data["tables"][0]["rows"][0]["values"] = ["27.8", "−3.5", "+0.1", "100", "0.0"]
    cells = ReportedFile.model_validate(data).scores()
    assert [c.value for c in cells[:5]] == [0.278, -0.035, 0.001, 1.0, 0.0]
    assert [c.printed for c in cells[:5]] == ["27.8", "−3.5", "+0.1", "100", "0.0"]


def test_harness_names_are_names_the_harness_declares():
    """A cell mapped to a harness task names a metric and subset that task (or its benchmark) declares."""
    from leaderboard.engine.building import make_task
    from leaderboard.engine.options import RunOptions
    from leaderboard.registry import get_registry

    registry = get_registry()
    benchmarks = {name: entry.factory() for name, entry in registry.entries["benchmark"].items()}
    declared = {(t.task, t.metric, t.subset) for b in benchmarks.values() for t in b.tasks}
    metadata: dict = {}
    scores, _ = load_reported(SUBMISSIONS)
    mapped = 0
    for s in scores:
        if s.aggregate:
            benchmark = benchmarks[s.task]
            assert s.metric in {benchmark.aggregate_label, *(a.label for a in benchmark.also)}, s
        elif s.task in registry.names("task") and (s.task, s.metric, s.subset) not in declared:
            if s.task not in metadata:
                metadata[s.task] = make_task(registry, s.task, RunOptions())[0].metadata
            meta = metadata[s.task]
            known = s.metric in {m.name for m in meta.metrics} and s.subset in meta.subsets
            assert known or "paper's label" in (s.notes or ""), s
        mapped += s.task in registry.names("task") or s.aggregate
    assert mapped > 2000


# -- ComLQ's reported BM25 (issue 31): the note states what was checked here, and its numbers hold -----------


def _comlq_bm25_note():
    comlq = read_reported_file(SUBMISSIONS / "reported" / "comlq.json")
    table = next(t for t in comlq.tables if t.table == "Table 3")
    return table, next(r for r in table.rows if r.label == "BM25")


def test_the_comlq_bm25_note_gives_numbers_recomputed_from_the_paper_the_data_and_our_run():
    from conftest import COMLQ

    table, row = _comlq_bm25_note()
    note = row.notes or ""
    result = json.loads((SUBMISSIONS / "bm25/results/bm25/bm25s-0.3.16/comlq.json").read_text("utf-8"))
    sizes = result["subset_sizes"]["test"]
    types = [c.label for c in table.columns if c.label != "total"]
    counts = {t: sizes[f"type={t}"] for t in types}
    if COMLQ.is_dir():  # the released data's own type counts (a type's suffix _1.._3 is its evidence count)
        queries = [json.loads(line) for line in (COMLQ / "queries.jsonl").read_text("utf-8").splitlines()]
        assert counts == {t: sum(q["type"].split("_")[0] == t for q in queries) for t in types}

    def weighted(values):
        printed = dict(zip([c.label for c in table.columns], values, strict=True))
        return float(printed["total"]), sum(float(printed[t]) * counts[t] for t in types) / sum(counts.values())

    total, mean = weighted(row.values)
    assert (total, round(mean, 2), round(total - mean, 2)) == (50.5, 48.52, 1.98)
    assert "48.52" in note and "1.98 apart" in note and "2,909 queries" in note
    gaps = [round(t - m, 2) for t, m in (weighted(r.values) for r in table.rows if r is not row)]
    assert f"{min(gaps):+.2f}" == "-1.24" and f"{max(gaps):+.2f}" == "+3.47" and "-1.24 to +3.47" in note
    ours = {t: 100 * result["scores"]["test"][f"type={t}"]["ndcg_at_10"] for t in types}
    above = {t: ours[t] - float(v) for t, v in zip(types, row.values, strict=False)}
    assert f"{100 * result['main_score']:.2f}" == "69.07" and "69.07" in note
    assert (round(min(above.values()), 1), min(above, key=above.get)) == (9.2, "pi") and "9.2 (pi)" in note
    assert (round(max(above.values()), 1), max(above, key=above.get)) == (32.6, "3in") and "32.6 (3in)" in note
    # what comes from a report not checked here is said to be so, and the re-run here names its script
    assert "From a project member's report, not checked here" in note
    assert "docs/checks/comlq_bm25_llama_index.py" in note
    assert (REPO / "docs" / "checks" / "comlq_bm25_llama_index.py").is_file()


def test_the_board_shows_a_reported_rows_note(tmp_path):
    import shutil

    from leaderboard.app.data.reported_tier import reported_lines
    from leaderboard.app.server import loading
    from leaderboard.app.views.board import TableRequest, board_html

    root = tmp_path / "board"
    shutil.copytree(SUBMISSIONS / "bm25" / "results", root)
    shutil.copytree(SUBMISSIONS / "reported", root / "reported")
    from leaderboard.registry import installed_benchmarks

    board = loading.load(root, installed_benchmarks(), public=True, persist=False)
    ranking = board.ranking("ComLQ")
    papers = reported_lines(board, ranking)
    (bm25,) = [line for line in papers if line.model == "bm25"]
    _, row = _comlq_bm25_note()
    assert row.notes in bm25.notes
    html = board_html(ranking, TableRequest(), papers)
    assert html.count('<details class="note">') == len([p for p in papers if p.notes])
    assert "1.98 apart" in html
