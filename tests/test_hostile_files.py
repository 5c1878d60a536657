"""No single file takes a listing down: every hostile result file is skipped with a reason (issue 16).

Each case is a file that crashed or hung `show`, the app or `push` before (or that every reader
accepted although it is wrong). The readers turn it into BadInput; `show` lists it as skipped next
to the valid result beside it; `push --dry-run` and `validate` refuse it with exit 2, never 1.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from leaderboard.cli import cli
from leaderboard.errors import BadInput
from leaderboard.records.files import read_result
from leaderboard.records.listing import result_files

REPO = Path(__file__).resolve().parent.parent


def flat(output: str) -> str:
    """CLI output without line breaks (rich wraps long messages at the console width)."""
    return output.replace("\n", "")


@pytest.fixture(scope="module")
def demo_result(tmp_path_factory) -> Path:
    """One real, valid result file (BM25 on the embedded demo task), written once for the module."""
    out = tmp_path_factory.mktemp("demo-result")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(out / "xdg"))
        ran = CliRunner().invoke(cli, ["run", "-m", "bm25", "-t", "demo", "-o", str(out / "results")])
    assert ran.exit_code == 0, ran.output
    (path,) = (out / "results").rglob("demo.json")
    return path


def base(demo_result: Path) -> dict:
    return json.loads(demo_result.read_text())


def edited(change: Callable[[dict], object]) -> Callable[[dict], str]:
    def make(data: dict) -> str:
        data = copy.deepcopy(data)
        change(data)
        return json.dumps(data)

    return make


def with_detail(raw: str) -> Callable[[dict], str]:
    """The valid result with task_details.x replaced by raw JSON text (e.g. 600 nested arrays)."""

    def make(data: dict) -> str:
        data = copy.deepcopy(data)
        data["task_details"]["x"] = "PLACEHOLDER"
        return json.dumps(data).replace('"PLACEHOLDER"', raw)

    return make


def set_main(value: float) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        data["scores"]["test"]["default"]["ndcg_at_10"] = value
        data["main_score"] = value

    return change


# name -> (how to make bad.json from the valid result's JSON, a fragment of the reason)
TEXT_CASES: dict[str, tuple[Callable[[dict], str | bytes], str]] = {
    "nested-600": (with_detail("[" * 600 + "]" * 600), "nested more than 201 levels deep"),
    "integer-5000-digits": (with_detail("9" * 5000), "number out of range"),
    "non-utf8": (
        lambda d: json.dumps(d).replace('"bm25"', '"bm25\udcff"', 1).encode("utf-8", "surrogateescape"),
        "not UTF-8",
    ),
    "lone-surrogate": (lambda d: json.dumps(d).replace('"bm25"', '"bm25\\ud800"', 1), "lone surrogate"),
    "infinity": (with_detail("1e999"), "finite number"),
    "ndcg-1.5": (edited(set_main(1.5)), "1.5 is outside the metric's range [0.0, 1.0]"),
    "ndcg-minus-0.3": (edited(set_main(-0.3)), "-0.3 is outside the metric's range"),
    "other-metric-out-of-range": (
        edited(lambda d: d["scores"]["test"]["default"].__setitem__("recall_at_10", 7.0)),
        "scores/test/default/recall_at_10: 7.0 is outside",
    ),
    "main-score-missing": (
        edited(lambda d: d["scores"]["test"]["default"].pop("ndcg_at_10")),
        "main score 'ndcg_at_10' is missing from its own scores",
    ),
    "only-a-dev-split": (
        edited(lambda d: d.__setitem__("scores", {"dev": d["scores"]["test"]})),
        "missing from its own scores (scores/test/default/ndcg_at_10)",
    ),
    "main-score-differs": (edited(lambda d: d.__setitem__("main_score", 0.125)), "0.125 differs from"),
    "no-splits": (edited(lambda d: d["task"].__setitem__("splits", [])), "task/splits"),
    "created-at-markup": (edited(lambda d: d.__setitem__("created_at", "[/]")), "created_at"),
    "created-at-naive": (edited(lambda d: d.__setitem__("created_at", "2026-01-01T00:00:00")), "timezone"),
    "main-score-name-markup": (
        edited(lambda d: d["task"].__setitem__("main_score", "[/]")),
        "main score '[/]' is missing",
    ),
}


def make_special(kind: str, path: Path) -> None:
    if kind == "directory":
        path.mkdir()
        (path / "inner.txt").write_text("x")
    elif kind == "broken-symlink":
        path.symlink_to(path.parent / "nowhere.json")
    elif kind == "fifo":
        os.mkfifo(path)


SPECIAL_CASES = {"directory": "a directory", "broken-symlink": "broken symbolic link", "fifo": "not a regular file"}


def folder_with(tmp_path: Path, demo_result: Path, case: str) -> Path:
    """results/<model>/<revision>/{demo.json (valid), bad.json (the case)}."""
    folder = tmp_path / "results" / "bm25" / "rev"
    folder.mkdir(parents=True)
    shutil.copy(demo_result, folder / "demo.json")
    bad = folder / "bad.json"
    if case in TEXT_CASES:
        content = TEXT_CASES[case][0](base(demo_result))
        bad.write_bytes(content if isinstance(content, bytes) else content.encode())
    else:
        make_special(case, bad)
    return tmp_path / "results"


ALL_CASES = list(TEXT_CASES) + list(SPECIAL_CASES)


def reason_of(case: str) -> str:
    return TEXT_CASES[case][1] if case in TEXT_CASES else SPECIAL_CASES[case]


@pytest.mark.parametrize("case", ALL_CASES)
def test_read_result_refuses_with_a_reason(tmp_path, demo_result, case):
    root = folder_with(tmp_path, demo_result, case)
    bad = root / "bm25" / "rev" / "bad.json"
    assert bad in list(result_files(root))  # listed (never opened by the listing), so it can be reported
    with pytest.raises(BadInput) as caught:
        read_result(bad)
    assert reason_of(case) in str(caught.value) and str(bad) in str(caught.value)
    assert read_result(root / "bm25" / "rev" / "demo.json").model.name == "bm25"


@pytest.mark.parametrize("case", [c for c in ALL_CASES if c != "fifo"])
def test_show_lists_it_as_skipped_and_shows_the_rest(tmp_path, demo_result, case):
    root = folder_with(tmp_path, demo_result, case)
    shown = CliRunner().invoke(cli, ["show", str(root)])
    assert shown.exit_code == 0, shown.output
    assert "Traceback" not in shown.output and "Internal error" not in shown.output
    assert "bm25" in shown.output and "0.8280" in shown.output  # the valid result is still listed
    assert "skipped" in shown.output and "bad.json" in flat(shown.output)


@pytest.mark.parametrize("case", [c for c in ALL_CASES if c != "fifo"])
def test_push_dry_run_refuses_it_with_exit_2(tmp_path, demo_result, case):
    root = folder_with(tmp_path, demo_result, case)
    pushed = CliRunner().invoke(cli, ["push", str(root), "--repo", "org/results", "--dry-run"])
    assert pushed.exit_code == 2, pushed.output
    assert "bad.json" in flat(pushed.output) and "Traceback" not in pushed.output


def test_a_fifo_never_blocks_show_or_push(tmp_path, demo_result):
    """A FIFO named *.json hung `show` forever: in a subprocess with a time limit, so a hang fails the test."""
    root = folder_with(tmp_path, demo_result, "fifo")
    env = {**os.environ, "COLUMNS": "200", "HF_HUB_OFFLINE": "1"}
    for args, code in ((["show", str(root)], 0), (["push", str(root), "--repo", "o/r", "--dry-run"], 2)):
        ran = subprocess.run(
            [sys.executable, "-m", "leaderboard", *args], capture_output=True, text=True, timeout=60, env=env
        )
        assert ran.returncode == code, ran.stderr
        assert "bad.json" in ran.stderr and "Traceback" not in ran.stderr


@pytest.mark.parametrize("case", ["nested-600", "non-utf8", "ndcg-1.5", "directory", "created-at-markup"])
def test_validate_lists_it_with_exit_2(tmp_path, demo_result, case):
    submission = tmp_path / "submissions" / "bm25"
    shutil.copytree(REPO / "submissions" / "bm25", submission)
    for old in (submission / "results").rglob("*.json"):
        old.unlink()
    root = folder_with(tmp_path / "made", demo_result, case)
    shutil.move(str(root / "bm25"), str(submission / "results" / "bm25"))
    checked = CliRunner().invoke(cli, ["validate", str(submission)])
    assert checked.exit_code == 2, checked.output
    assert "bad.json" in flat(checked.output) and "Traceback" not in checked.output


def test_markup_in_every_field_of_a_valid_result_is_printed_as_text(tmp_path, demo_result):
    """A valid file whose names are rich markup: `show` exited 1 with MarkupError on such cells."""
    data = base(demo_result)
    data["model"]["name"] = "[bold red]evil[/]"
    data["model"]["revision"] = "[/]"
    data["task"]["name"] = "[link=x]t[/link]"
    name = "[/]"
    for subsets in data["scores"].values():
        for values in subsets.values():
            values[name] = values.pop("ndcg_at_10")
    for metric in data["task"]["metrics"]:
        if metric["name"] == "ndcg_at_10":
            metric["name"] = name
    data["task"]["main_score"] = name
    data["confidence_intervals"] = {}
    data["counts"]["queries"] = 12
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "x.json").write_text(json.dumps(data))
    read_result(tmp_path / "r" / "x.json")  # valid
    shown = CliRunner().invoke(cli, ["show", str(tmp_path / "r")])
    assert shown.exit_code == 0, shown.output
    for text in ("[bold red]evil[/]", "[/]", "[link=x]t[/link]"):
        assert text in flat(shown.output)
    skipped = tmp_path / "s" / "[bold]x.json"
    skipped.parent.mkdir()
    skipped.write_text("[/]")
    shown = CliRunner().invoke(cli, ["show", str(tmp_path / "s")])
    assert shown.exit_code == 0 and "[bold]x.json" in flat(shown.output)
