"""Hostile names reach no terminal, Markdown or LaTeX reader as anything but text (issue 31: control and
bidi characters removed, Markdown and LaTeX escaped fully), with one sanitising function per target
(``leaderboard.cli.sanitize``), used by every CLI table."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import REPO, make_plugin_dist, run_cli
from hypothesis import example, given, settings
from hypothesis import strategies as st
from latex_compile import HAVE_PDFLATEX, SKIP_REASON, compile_latex
from markdown_it import MarkdownIt

from leaderboard.cli import sanitize

BIDI = "\u202e"
HOSTILE = (
    "evil\n\nname `code` <script>alert(1)</script> [x](javascript:alert(1)) ![i](http://x/i.png) "
    "a\rb \x1b[31mred\x1b[0m \x07 " + BIDI + "gnp.exe *em* _u_ ~~s~~ &amp; | % $ # { } ~ ^ \\ <b>"
)
NEGCONSTRAINT = REPO / "submissions" / "bm25" / "results" / "bm25" / "bm25s-0.3.16" / "negconstraint.json"

# Everything a text can hold: control and format characters, surrogate-free Unicode, the specials.
texts = st.text(
    st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(list("\\`*_[]<>&|~{}$%#^\"'-\n\r\t\x1b\x00\x7f\x85\u2028\u202e\u2066 ")),
    ),
    max_size=60,
)


@pytest.fixture
def hostile_results(tmp_path):
    """Two complete NegConstraint results, one under a model name that attacks every output format."""
    folder = tmp_path / "results"
    data = json.loads(NEGCONSTRAINT.read_text())
    (folder / "a").mkdir(parents=True)
    shutil.copy(NEGCONSTRAINT, folder / "a" / "negconstraint.json")
    data["model"]["name"] = HOSTILE
    (folder / "b").mkdir()
    (folder / "b" / "negconstraint.json").write_text(json.dumps(data))
    return folder, {"XDG_CACHE_HOME": str(tmp_path / "cache")}


def _gfm() -> MarkdownIt:
    """A GitHub Flavored Markdown reader (markdown-it-py: CommonMark with GFM tables and strikethrough),
    with raw HTML on, as GitHub passes its safe subset."""
    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def _cells(markdown: str, column: int = 0) -> list[list[str]]:
    """The text of every body cell of the first table; a cell of ``column`` must parse as text only."""
    tokens = _gfm().parse(markdown)
    rows, row, in_body = [], None, False
    for token in tokens:
        if token.type in ("tbody_open", "tbody_close"):
            in_body = token.type == "tbody_open"
        elif in_body and token.type == "tr_open":
            row = []
        elif in_body and token.type == "tr_close":
            rows.append(row)
        elif in_body and token.type == "inline" and row is not None:
            kinds = {child.type for child in token.children or []}
            assert len(row) != column or kinds <= {"text"}, f"a cell parsed as {kinds}: {token.content!r}"
            row.append("".join(child.content for child in token.children or []))
    return rows


def test_terminal_and_listing_formats_strip_control_and_bidi_characters(hostile_results):
    folder, env = hostile_results
    for fmt in ("table", "csv"):
        ran = run_cli("show", str(folder), "--format", fmt, env=env)
        assert ran.returncode == 0, ran.stderr
        for bad in ("\x1b", BIDI, "\r", "\x07"):
            assert bad not in ran.stdout + ran.stderr, (fmt, bad)
        assert "red" in ran.stdout and "gnp.exe" in ran.stdout  # the text stays, only the controls go
    ran = run_cli("show", str(folder), "--format", "json", env=env)
    assert ran.returncode == 0, ran.stderr
    assert "\x1b" not in ran.stdout and BIDI not in ran.stdout and "\\u202e" in ran.stdout  # escaped, not lost
    assert {row["model"] for row in json.loads(ran.stdout)} == {"bm25", HOSTILE}


def test_markdown_renders_a_hostile_name_as_the_text_of_one_cell(hostile_results):
    folder, env = hostile_results
    ran = run_cli("show", str(folder), "--format", "markdown", env=env)
    assert ran.returncode == 0, ran.stderr
    html = _gfm().render(ran.stdout)
    assert "<script" not in html and "href=" not in html and "src=" not in html
    assert "<a " not in html and "<img" not in html and "<code>" not in html and "<b>" not in html
    rows = _cells(ran.stdout)
    assert len(rows) == 2 and all(len(row) == 2 for row in rows)  # \r and blank lines split nothing
    expected = " ".join(sanitize.plain(HOSTILE).split())
    assert expected in {row[0] for row in rows}
    assert "\x1b" not in ran.stdout and BIDI not in ran.stdout


@pytest.mark.skipif(not HAVE_PDFLATEX, reason=SKIP_REASON)
def test_latex_of_a_hostile_name_compiles_as_one_row(hostile_results, tmp_path):
    folder, env = hostile_results
    ran = run_cli("show", str(folder), "--format", "latex", env=env)
    assert ran.returncode == 0, ran.stderr
    body = ran.stdout.split(r"\midrule")[1].split(r"\bottomrule")[0]
    assert "\n\n" not in ran.stdout and body.count(r"\\") == 4  # two models, each a score line and an interval line
    compiled = compile_latex(tmp_path / "tex", ran.stdout)
    assert compiled.returncode == 0 and not compiled.errors, compiled.errors
    assert not compiled.bitmap_fonts()  # every character set from pdflatex's own fonts


@settings(max_examples=300, deadline=None)
@given(texts)
def test_plain_removes_every_control_and_bidi_character_and_nothing_else(text):
    import unicodedata

    def forbidden(c: str) -> bool:
        return c in sanitize._BIDI or (unicodedata.category(c) == "Cc" and c not in "\t\n")

    cleaned = sanitize.plain(text)
    assert not any(forbidden(c) for c in cleaned)
    if "\x1b" not in text:  # else a whole ANSI sequence goes, its printable tail included
        assert cleaned == "".join(c for c in text if not forbidden(c))
    remaining = iter(text)
    assert all(c in remaining for c in cleaned)  # what is left is the text's own, in order
    assert sanitize.plain(cleaned) == cleaned


@settings(max_examples=300, deadline=None)
@given(texts)
@example("\\[")  # a backslash before a bracket that opens no tag (found by this test)
@example("a\\\\[1 \\[b] \\[red]")
def test_terminal_text_prints_as_itself_through_rich(text):
    from rich.text import Text

    # inside markup, as the CLI prints it ("[dim]...[/]"; trailing backslashes are doubled for that), and without
    # emoji codes, as the CLI's consoles (``emoji=False``)
    printed = Text.from_markup(f"[bold]{sanitize.terminal(text)}[/bold]", emoji=False).plain
    assert printed == sanitize.plain(text)


@settings(max_examples=300, deadline=None)
@given(texts)
def test_markdown_text_is_exactly_the_text_of_one_table_cell(text):
    table = f"| name | x |\n|---|---|\n| {sanitize.markdown(text) or ' '} | 1 |\n"
    rows = _cells(table)
    assert len(rows) == 1 and len(rows[0]) == 2 and rows[0][1] == "1"
    assert rows[0][0] == " ".join(sanitize.plain(text).split())


@settings(max_examples=300, deadline=None)
@given(texts)
def test_latex_text_is_printable_ascii_with_every_special_character_escaped(text):
    import re

    escaped = sanitize.latex(text)
    assert all(" " <= c <= "~" for c in escaped if c not in sanitize._LATEX_LETTERS)
    # what is left once our own commands, escapes and math groups are taken out is plain letters
    rest = re.sub(r"\$(\\\$|[^$])*\$|\\texttt\{[^}]*\}|\\[a-zA-Z]+(\{\})?|\\[%#&_{}$ ]|-\{\}|'\{\}|\{\}", "", escaped)
    assert not set(rest) & set('\\{}$&%#_^~<>|"`'), rest
    groups = re.sub(r"\\[{}]", "", escaped)  # the braces that group, not the printed ones
    assert groups.count("{") == groups.count("}")


def test_listings_of_a_hostile_plugin_strip_control_and_bidi_characters(tmp_path):
    source = f"""
from leaderboard import hookimpl
from leaderboard_plugins.bm25 import BM25

@hookimpl
def register_models(register):
    register("evil-model", lambda request: BM25(), description={HOSTILE!r})
"""
    site = tmp_path / "site"
    make_plugin_dist(site, "evil-plugin", "evil_plugin", source, {"evil-plugin": "evil_plugin"})
    env = {"PYTHONPATH": str(site)}
    for command in (("models",), ("plugins",), ("models", "--format", "csv")):
        ran = run_cli(*command, env=env)
        assert ran.returncode == 0, ran.stderr
        assert "evil-model" in ran.stdout and "\x1b" not in ran.stdout and BIDI not in ran.stdout, command


def test_cite_of_a_hostile_benchmark_strips_control_and_bidi_characters(tmp_path):
    source = """
from leaderboard import Benchmark, BenchmarkTask, hookimpl

@hookimpl
def register_benchmarks(register):
    register(
        "Evil",
        lambda: Benchmark(
            name="Evil",
            description="x",
            reference="https://example.org",
            tasks=(BenchmarkTask("demo", "ndcg_at_10"),),
            bibtex="@misc{evil,\\n  title = {\\x1b[2J\\x1b]0;pwned\\x07Evil \\u202etxt.exe},\\n  year = {2026}\\n}",
        ),
    )
"""
    site = tmp_path / "site"
    make_plugin_dist(site, "evil-bench", "evil_bench", source, {"evil-bench": "evil_bench"})
    ran = run_cli("cite", "Evil", env={"PYTHONPATH": str(site)})
    assert ran.returncode == 0, ran.stderr
    assert "title = {Evil txt.exe}," in ran.stdout and "\x1b" not in ran.stdout and BIDI not in ran.stdout
