"""`show --format latex` and `compare --format latex` compile with pdflatex in a minimal booktabs article, with
no error, no overfull box and no bitmap font, for the baselines' real ComLQ and NegConstraint results (issue 32)."""

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
