"""The threat model's statements and their tests stay tied together.

docs/explanation/threat-model.md states each guarantee under a stable id (T1, T2, ...) and names no test (a
user page); docs/development/threat-model-tests.md maps each id to its tests. Every id of the page has at
least one test there, every test named there exists, and README's short table names no test and links each
cell to the page.
"""

from __future__ import annotations

import re

import pytest
from conftest import REPO

PAGE = REPO / "docs" / "explanation" / "threat-model.md"
TESTS_PAGE = REPO / "docs" / "development" / "threat-model-tests.md"
NAMED = re.compile(r"`(tests/test_\w+\.py)::(test_\w+)(\[[\w-]+\])?`")


def page_ids() -> list[str]:
    return re.findall(r'<a id="t(\d+)"></a>\*\*T\1\.\*\*', PAGE.read_text("utf-8"))


def mapping() -> dict[str, list[tuple[str, str, str]]]:
    """id -> (file, test, case) named on the development page's table."""
    found: dict[str, list[tuple[str, str, str]]] = {}
    for row in re.finditer(r"^\| (T\d+) \| (.*) \|$", TESTS_PAGE.read_text("utf-8"), re.M):
        found[row[1]] = NAMED.findall(row[2])
    return found


def test_each_guarantee_has_an_id_in_order_and_the_page_names_no_test():
    ids = [int(i) for i in page_ids()]
    assert ids == list(range(1, len(ids) + 1)) and len(ids) >= 20
    text = PAGE.read_text("utf-8")
    assert not re.search(r"tests/|test_\w+|\.py::", text), "a user page names no test"


@pytest.mark.parametrize("number", page_ids())
def test_every_guarantee_has_a_test(number):
    tests = mapping().get(f"T{number}", [])
    assert tests, f"T{number} on the threat-model page has no test on {TESTS_PAGE.relative_to(REPO)}"


def test_every_test_the_mapping_names_exists():
    named = {(file, test) for rows in mapping().values() for file, test, _ in rows}
    named |= {(file, test) for file, test, _ in NAMED.findall(TESTS_PAGE.read_text("utf-8"))}
    assert len(named) >= 30
    missing = [f"{file}::{test}" for file, test in sorted(named)
               if not re.search(rf"^def {test}\(", (REPO / file).read_text("utf-8"), re.M)]  # fmt: skip
    assert not missing, missing
    assert set(mapping()) == {f"T{i}" for i in page_ids()}, "the table lists exactly the page's ids"


def test_readmes_short_threat_model_names_no_test_and_links_every_cell_to_the_page():
    section = (REPO / "README.md").read_text("utf-8").split("## Threat model, in short", 1)[1].split("\n## ", 1)[0]
    assert not re.search(r"test_\w+|tests/", section)
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| ---")][1:]
    assert len(rows) >= 5
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")][1:]
        for cell in cells:
            assert "(docs/explanation/threat-model.md#t" in cell, f"README threat-model cell without a link: {cell}"
