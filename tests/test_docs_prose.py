"""Plain prose on the pages users read, checked.

* Tutorial and how-to pages: sentences of at most ``SENTENCE_WORDS`` words, paragraphs of at most
  ``PARAGRAPH_WORDS`` (a list item, a table cell and a paragraph are each one paragraph).
* Every user page (all of docs/ outside docs/development/, and README): no test function or test file
  is named, no measurement is dated, and no count of tests is written by hand.

Prose is the page without its code blocks, HTML comments, headings and link targets; inline code counts
as one word.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO

DOCS = REPO / "docs"
SENTENCE_WORDS = 45
PARAGRAPH_WORDS = 120
HELD_PAGES = sorted([*(DOCS / "tutorials").glob("*.md"), *(DOCS / "how-to").glob("*.md")])
USER_PAGES = sorted(p for p in DOCS.rglob("*.md") if "development" not in p.relative_to(DOCS).parts) + [
    REPO / "README.md"
]

FENCE = re.compile(r"^\s*(```|~~~)")
COMMENT = re.compile(r"<!--.*?-->", re.S)
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
# A sentence ends at . ! or ? (a closing bracket or quote may follow) before a capital, a quote, a code span,
# a link or a bracket: "e.g. the" and "0.8280" do not end one.
SENTENCE_END = re.compile(r"(?<=[.!?])[)\"'”’*_]*\s+(?=[A-Z`\"“(\[*])")
ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|vs|etc|cf|Fig|Eq|No|approx)\.$", re.I)

# A test function (test_ and at least two more words: a split such as test_iid is no test) or a test module.
TEST_NAME = re.compile(r"\btest(?:_[a-z0-9]+){2,}|\btests/[\w/.*-]+\.py\b")
ISO_DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
MEASUREMENT = re.compile(
    r"\bload average\b|\bpeak RSS\b|\bmeasured (?:on|at) \w+|\bon this (?:2-core )?machine\b", re.I
)
TEST_COUNT = re.compile(r"\b\d[\d,]* tests\b")


# Pages another change is rewriting, and the page about the tests themselves: the test-name check skips them.
NAMES_TESTS_FOR_NOW = {
    # The threat model states each guarantee with its test: the statement-to-test map is moving to the
    # development section (docs/development/threat-model-tests.md), README's table with it.
    "docs/explanation/threat-model.md",
    "README.md",
    # How to run the tests names the test files a contributor runs.
    "docs/how-to/run-the-tests.md",
}


def prose_blocks(page: Path) -> list[tuple[int, str]]:
    """(line, Markdown) of each paragraph, list item and table cell of a page: code blocks, comments and headings
    left out."""
    text = COMMENT.sub(lambda m: "\n" * m.group().count("\n"), page.read_text("utf-8"))
    blocks: list[tuple[int, str]] = []
    current: list[str] = []
    start = 0
    in_code = False

    def flush() -> None:
        if current:
            blocks.append((start, " ".join(current)))
            current.clear()

    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            flush()
            in_code = not in_code
            continue
        if in_code:
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "![", "!!!", "???", "---")):
            flush()
            continue
        if stripped.startswith("|"):
            flush()
            if not re.fullmatch(r"\|[\s:|-]+\|?", stripped):  # the rule under a table's header
                blocks += [(number, cell) for cell in stripped.strip("|").split("|") if cell.strip()]
            continue
        if LIST_ITEM.match(line):
            flush()
            line = LIST_ITEM.sub("", line)
        if not current:
            start = number
        current.append(line.strip())
    flush()
    return blocks


def _plain(markdown: str) -> str:
    text = re.sub(r"`[^`]*`", "CODE", markdown)  # inline code: one word
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their text
    text = re.sub(r"<[^>]+>", " ", text)
    return " ".join(text.split())


def sentences(paragraph: str) -> list[str]:
    parts: list[str] = []
    for piece in SENTENCE_END.split(paragraph):
        if parts and ABBREVIATIONS.search(parts[-1]):
            parts[-1] += " " + piece
        else:
            parts.append(piece)
    return parts


def words(text: str) -> int:
    return len([w for w in text.split() if re.search(r"\w", w)])


def _name(page: Path) -> str:
    return page.relative_to(REPO).as_posix()


@pytest.mark.parametrize("page", HELD_PAGES, ids=_name)
def test_tutorials_and_how_to_pages_keep_sentences_and_paragraphs_short(page):
    long = []
    for line, markdown in prose_blocks(page):
        block = _plain(markdown)
        if words(block) > PARAGRAPH_WORDS:
            long.append(f"{_name(page)}:{line}: a paragraph of {words(block)} words (at most {PARAGRAPH_WORDS})")
        for sentence in sentences(block):
            if words(sentence) > SENTENCE_WORDS:
                long.append(
                    f"{_name(page)}:{line}: a sentence of {words(sentence)} words (at most {SENTENCE_WORDS}): "
                    f"{sentence[:90]}..."
                )
    assert not long, "\n".join(long)


@pytest.mark.parametrize("page", USER_PAGES, ids=_name)
def test_user_pages_name_no_test_and_date_no_measurement(page):
    found = []
    checks = [(ISO_DATE, "a dated measurement"), (MEASUREMENT, "a measurement"), (TEST_COUNT, "a count of tests")]
    if _name(page) not in NAMES_TESTS_FOR_NOW:
        checks.append((TEST_NAME, "a test's name"))
    for line, block in prose_blocks(page):
        for pattern, what in checks:
            for match in pattern.finditer(block):
                found.append(f"{_name(page)}:{line}: {what}: {match.group()!r}")
    assert not found, "\n".join(found)


def test_the_checks_see_what_they_look_for(tmp_path):
    """The checker itself: a long sentence, a long paragraph, a test's name and a date are each found."""
    page = tmp_path / "page.md"
    long_sentence = " ".join(["word"] * (SENTENCE_WORDS + 1)) + "."
    short = "A short sentence. " * 45
    page.write_text(
        f"# Title\n\n{long_sentence}\n\n{short}\n\n- See `x` and tests/test_docs.py, measured 2026-11-27.\n\n"
        "```bash\nnot prose at all " + "x " * 200 + "\n```\n",
        "utf-8",
    )
    blocks = prose_blocks(page)
    assert [line for line, _ in blocks] == [3, 5, 7]
    assert max(words(s) for s in sentences(_plain(blocks[0][1]))) == SENTENCE_WORDS + 1
    assert words(blocks[1][1]) > PARAGRAPH_WORDS and max(words(s) for s in sentences(_plain(blocks[1][1]))) == 3
    assert TEST_NAME.search(blocks[2][1]) and ISO_DATE.search(blocks[2][1])
    assert sentences("Use e.g. the demo. Then run it.") == ["Use e.g. the demo.", "Then run it."]
    assert sentences("It scored 0.8280. Then `show` lists it.") == ["It scored 0.8280.", "Then `show` lists it."]
