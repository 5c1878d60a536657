"""Listing commands read well wherever their output goes (issue 32: `benchmarks` named each task once per
column, `plugins` and `benchmarks` piped printed lines of thousands of characters; issue 31: a
100,000-cell `show --reported` table did not finish in 300 s)."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli

from leaderboard.cli import formats


def test_benchmarks_name_each_task_once():
    listed = json.loads(run_cli("benchmarks", "--format", "json").stdout)
    by_name = {b["name"]: b for b in listed}
    assert by_name["ComLQ"]["tasks"] == ["comlq"] and by_name["NegConstraint"]["tasks"] == ["negconstraint"]
    assert all(len(b["tasks"]) == len(set(b["tasks"])) for b in listed if b["tasks"])
    assert len(by_name["ComLQ"]["declaration"]["tasks"]) > 1  # the declaration keeps every column
    table = run_cli("benchmarks")
    assert table.returncode == 0 and "comlq; comlq" not in table.stdout


@pytest.mark.parametrize("command", ["plugins", "benchmarks", "models", "tasks"])
def test_piped_listings_wrap_at_the_width_and_json_keeps_everything(command):
    ran = run_cli(command, env={"COLUMNS": "120"})
    assert ran.returncode == 0, ran.stderr
    assert max(len(line) for line in ran.stdout.splitlines()) <= 120
    ran = run_cli(command, env={"COLUMNS": ""})  # unset: the default width of a piped table
    assert max(len(line) for line in ran.stdout.splitlines()) <= formats.PIPED_WIDTH


def test_a_long_list_is_cut_in_a_table_cell_and_whole_in_json():
    listed = json.loads(run_cli("plugins", "--format", "json").stdout)
    mteb = next(p for p in listed if len(p["tasks"]) > formats.LIST_ITEMS)  # the mteb bridge registers many tasks
    table = run_cli("plugins", env={"COLUMNS": "250"}).stdout
    registered = sum(len(mteb[kind]) for kind in ("tasks", "models", "benchmarks", "judges"))
    words = " ".join(table.replace("│", " ").split())  # the cell's text, wherever the table wrapped it
    assert f"… and {registered - formats.LIST_ITEMS} more" in words


def test_a_table_of_many_rows_is_printed_as_plain_aligned_text(monkeypatch, capsys):
    """rich lays a table out at about a millisecond a row: past RICH_ROWS rows the plain layout prints them all."""
    import rich.table

    def refuse(*args, **kwargs):
        raise AssertionError("rich.table.Table used for a table of many rows")

    monkeypatch.setattr(rich.table, "Table", refuse)
    rows = [{"model": f"model-{i}", "value": i / 7, "tasks": ["a", "b"]} for i in range(formats.RICH_ROWS + 1)]
    rows[3]["model"] = "\x1b[31mevil\u202e 中文"
    formats.emit(rows, "table", "Many rows", ["model", "value", "tasks"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"Many rows ({len(rows):,} rows; --format csv or json for a file)"
    assert lines[1].split() == ["model", "value", "tasks"] and set(lines[2].replace(" ", "")) == {"-"}
    body = lines[3:]
    assert len(body) == len(rows) and body[0].split() == ["model-0", "0.0000", "a;", "b"]
    assert body[3].startswith("evil 中文 ") and "\x1b" not in body[3] and "\u202e" not in body[3]
    assert body[-1].index("a; b") == body[0].index("a; b")  # aligned columns


def test_show_reported_of_many_cells_lists_every_cell(tmp_path):
    rows, columns = 50, 30  # 1,500 cells: past the rich layout's limit
    table = {
        "table": "Table 1",
        "scale": 100,
        "columns": [{"label": f"c{j}", "task": f"task{j}", "metric": "ndcg_at_10"} for j in range(columns)],
        "rows": [{"label": f"m{i}", "model": f"model-{i}", "values": ["50.5"] * columns} for i in range(rows)],
    }
    paper = {
        **{"schema_version": "1", "kind": "reported", "paper": "Big", "title": "Big", "paper_file": "x"},
        **{"bibtex": "@misc{x}", "tables": [table]},
    }
    (tmp_path / "reported").mkdir()
    (tmp_path / "reported" / "big.json").write_text(json.dumps(paper))
    ran = run_cli("show", str(tmp_path), "--reported", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert ran.returncode == 0, ran.stderr
    listed = [line for line in ran.stdout.splitlines() if line.startswith("reported in Big, Table 1")]
    assert len(listed) == rows * columns
