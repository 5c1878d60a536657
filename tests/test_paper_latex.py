"""`show --format latex`, `show --subsets --format latex` and `compare --format latex` compile with pdflatex in a
minimal booktabs article, with no error, no overfull box, no float larger than its page and no bitmap font, for
the baselines' real ComLQ and NegConstraint results (issue 32); every symbol a label uses is set by a command."""

from __future__ import annotations

import shutil

import pytest
from conftest import REPO, run_cli
from latex_compile import HAVE_PDFLATEX, SKIP_REASON, compile_latex

pytestmark = pytest.mark.skipif(not HAVE_PDFLATEX, reason=SKIP_REASON)

TASKS = ("comlq", "negconstraint")


@pytest.fixture(scope="module")
def baselines(tmp_path_factory):
    """The committed baseline runs on ComLQ and NegConstraint (submissions/*/results), in one results folder."""
    folder = tmp_path_factory.mktemp("baselines") / "results"
    found = [p for task in TASKS for p in (REPO / "submissions").glob(f"*/results/**/{task}.json")]
    assert len(found) >= 6, found  # bm25, bm25-okapi and all-MiniLM-L6-v2 on both tasks
    for path in found:
        target = folder / path.relative_to(REPO / "submissions")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    return folder


def _check(compiled) -> None:
    assert compiled.returncode == 0 and not compiled.errors, compiled.errors or compiled.log[-2000:]
    assert not compiled.overfull, compiled.overfull
    assert "Float too large" not in compiled.log  # a table longer than its page
    assert not compiled.bitmap_fonts()


def test_the_baselines_results_table_compiles_and_fits(baselines, tmp_path):
    ran = run_cli("show", str(baselines), "--format", "latex", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert ran.returncode == 0, ran.stderr
    assert "nDCG@10" in ran.stdout and "ndcg" not in ran.stdout and str(baselines) not in ran.stdout
    assert r"$\geq$" in ran.stdout and ">=" not in ran.stdout
    _check(compile_latex(tmp_path / "tex", ran.stdout))


def test_the_baselines_comparison_compiles_and_fits(baselines, tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    args = ("compare", "bm25", "all-MiniLM-L6-v2", "-t", "comlq", "-t", "negconstraint", "--results", str(baselines))
    ran = run_cli(*args, "--format", "latex", env=env)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.count("nDCG@10") == 2 and "Holm" in ran.stdout
    caption = ran.stdout.split(r"\caption{")[1]
    assert "same queries. Scores:" in caption  # sentences, not "…same queries Scores:"
    _check(compile_latex(tmp_path / "tex", ran.stdout))
    every = run_cli(*args, "--format", "latex", "--columns", "task,metric,a,b,p,p_holm", env=env)
    assert every.returncode == 0, every.stderr
    _check(compile_latex(tmp_path / "tex-columns", every.stdout))


def test_every_character_a_name_can_hold_compiles(tmp_path):
    """Every printable ASCII character, a blank line, control and bidi characters and non-Latin text in one cell."""
    from leaderboard.cli.paper_tables import Cell, render

    text = "".join(chr(c) for c in range(32, 127)) + "\n\n\x1b[31m\u202e é ő 中文 🙂 ≈ ≤ − ‑ -- '' ``"
    table = render(
        ["Model", "Score"], [[Cell(text[:60]), Cell("0.5")], [Cell(text[60:]), Cell("0.4")]], "latex", "", []
    )
    compiled = compile_latex(tmp_path, table)
    assert compiled.returncode == 0 and not compiled.errors, compiled.errors
    assert not compiled.bitmap_fonts()


def test_the_baselines_subset_tables_compile_and_fit_the_page(baselines, tmp_path):
    """ComLQ's 36 subsets and NegConstraint's 8 metrics: models as columns (three a table), each metric a block of
    rows, cut into tables a page holds; ComLQ's ¬ and NegConstraint's ∪ set as math symbols, never "?"."""
    from leaderboard.cli.paper_pages import LINES_PER_TABLE
    from leaderboard.cli.subset_tables import MODELS_PER_TABLE

    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    ran = run_cli("show", str(baselines), "--subsets", "--format", "latex", env=env)
    assert ran.returncode == 0, ran.stderr
    tables = ran.stdout.split(r"\begin{table}")[1:]
    assert len(tables) > 2 and all(r"\begin{tabular}{lrrr@" in t for t in tables)  # Subset, A, B, C
    assert MODELS_PER_TABLE == 3 and "A = sentence-transformers/all-MiniLM-L6-v2 @ sha256-" in tables[0]
    for table in tables:
        body = table.split(r"\midrule")[1].split(r"\bottomrule")[0]
        rows = [line for line in body.splitlines() if line.endswith(r"\\") and not line.startswith("{\\scriptsize")]
        assert len([r for r in rows if not r.startswith(" & ")]) <= LINES_PER_TABLE
    assert r"$\neg$2in" in ran.stdout and r"(A - a) $\cup$ (B - b)" in ran.stdout and "?" not in ran.stdout
    assert r"\emph{paired win rate}" in ran.stdout and r"\emph{LSNC@10 (lexical-v1)}" in ran.stdout
    assert r"comlq: scores per subset (part 1 of" in ran.stdout and str(baselines) not in ran.stdout
    _check(compile_latex(tmp_path / "tex", ran.stdout))


def test_subset_tables_take_the_metrics_named_by_columns(baselines, tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    args = ("show", str(baselines), "--subsets")
    ran = run_cli(*args, "--format", "latex", "--columns", "paired_win_rate,violation_at_1", env=env)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.count(r"\begin{table}") == 1 and "comlq" not in ran.stdout  # ComLQ has neither
    assert ran.stdout.index(r"\emph{paired win rate}") < ran.stdout.index(r"\emph{violator in top 1 $\downarrow$}")
    assert "nDCG" not in ran.stdout
    _check(compile_latex(tmp_path / "tex", ran.stdout))
    markdown = run_cli(*args, "--format", "markdown", "--columns", "ndcg_at_10", env=env)
    assert markdown.returncode == 0, markdown.stderr
    assert "| Model | Subset | nDCG@10 |" in markdown.stdout and "LSNC@" not in markdown.stdout
    bad = run_cli(*args, "--format", "latex", "--columns", "ndcg", env=env)
    assert bad.returncode == 2 and "unknown column 'ndcg'" in bad.stderr and "paired_win_rate" in bad.stderr
    assert bad.stdout == "" and "Traceback" not in bad.stderr


def test_every_symbol_a_label_uses_is_set_by_a_command(tmp_path):
    """Negation, set operations, arrows, comparisons and the Greek alphabet: no "?", no error, no bitmap font."""
    from leaderboard.cli.paper_tables import Cell, render
    from leaderboard.cli.sanitize import latex

    greek = "".join(chr(c) for c in range(0x3B1, 0x3CA)) + "".join(chr(c) for c in range(0x391, 0x3AA) if c != 0x3A2)
    symbols = "¬ ∪ ∩ ∖ ∧ ∨ ∈ ∉ ⊂ ⊆ ↑ ↓ → ← ↔ ⇒ ≤ ≥ ≈ ≠ − † ‡ ± × ÷ · ° µ ∞"
    assert "?" not in latex(greek + symbols)
    assert latex("¬2in") == r"$\neg$2in" and latex("(A - a) ∪ B") == r"(A - a) $\cup$ B"
    assert latex("α ≤ β") == r"$\alpha$ $\leq$ $\beta$" and latex("ΑΡ") == "AP"  # capital Alpha, Rho look Latin
    rows = [[Cell(symbols), Cell("0.5")], [Cell(greek[:25]), Cell("0.4")], [Cell(greek[25:]), Cell("0.3")]]
    compiled = compile_latex(tmp_path, render(["Subset", "Score"], rows, "latex", "", []))
    assert compiled.returncode == 0 and not compiled.errors, compiled.errors
    assert not compiled.bitmap_fonts()


def test_the_baselines_per_subset_comparison_compiles_and_fits_the_page(baselines, tmp_path):
    """compare --per-subset: a block of subset rows per metric, cut into tables a page holds."""
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    args = ("compare", "bm25", "all-MiniLM-L6-v2", "-t", "comlq", "-t", "negconstraint", "--results", str(baselines))
    ran = run_cli(*args, "--per-subset", "--resamples", "1000", "--format", "latex", env=env)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.count(r"\begin{table}") > 3
    assert "comlq: A = bm25 vs B = all-MiniLM-L6-v2, per subset (part 1 of" in ran.stdout
    assert r"\emph{LSNC@10 (lexical-v1)}" in ran.stdout and r"(A - a) $\cup$ B" in ran.stdout
    assert r"$\neg$2in & " in ran.stdout and "{\\scriptsize type=2in}" in ran.stdout  # its own name below the label
    _check(compile_latex(tmp_path / "tex", ran.stdout))
