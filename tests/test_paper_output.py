"""compare from results alone (no data, no task plugin), paper-ready Markdown/LaTeX tables from show and
compare, and `leaderboard cite`."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from conftest import REPO, run_cli

from leaderboard.analysis.comparison import per_query_values
from leaderboard.metrics.bootstrap import stratified_bootstrap
from leaderboard.records.files import read_result

SUBMISSIONS = REPO / "submissions"
RESULTS = {
    "bm25": SUBMISSIONS / "bm25" / "results" / "bm25" / "bm25s-0.3.16" / "negconstraint.json",
    "bm25-okapi": SUBMISSIONS / "bm25-okapi" / "results" / "bm25-okapi" / "okapi-1" / "negconstraint.json",
}


@pytest.fixture
def results_only(tmp_path):
    """Two complete NegConstraint results as pulled from a results dataset, and nowhere any NegConstraint data."""
    folder = tmp_path / "pulled"
    for model, source in RESULTS.items():
        target = folder / model / source.parent.name / source.name
        target.parent.mkdir(parents=True)
        shutil.copy(source, target)
    env = {
        "LEADERBOARD_NEGCONSTRAINT_DIR": str(tmp_path / "no-such-data"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "HF_HUB_OFFLINE": "1",
    }
    return folder, env


def _bootstrap(values: dict[str, float]) -> tuple[float, float]:
    low, high = stratified_bootstrap([np.asarray([[values[q] for q in sorted(values)]])])
    return float(low[0]), float(high[0])


def test_compare_from_results_alone_needs_no_data_and_says_reused(results_only):
    folder, env = results_only
    ran = run_cli(
        "compare",
        "bm25",
        "bm25-okapi",
        "--task",
        "negconstraint",
        "--results",
        str(folder),
        "--format",
        "json",
        env=env,
    )
    assert ran.returncode == 0, ran.stderr
    assert "skipped" not in ran.stdout + ran.stderr
    reused = [line for line in ran.stderr.splitlines() if line.startswith("reused: ")]
    assert len(reused) == 2 and all("negconstraint.json" in line for line in reused)
    (comparison,) = json.loads(ran.stdout)["tasks"]
    a, b = (read_result(path) for path in RESULTS.values())
    assert comparison["queries"] == 366
    assert comparison["mean_a"] == pytest.approx(a.main_score, abs=1e-12)
    assert comparison["mean_b"] == pytest.approx(b.main_score, abs=1e-12)
    assert not (folder / "negconstraint").exists() and len(list(folder.rglob("*.json"))) == 2  # nothing run


def test_compare_refuses_results_on_different_data(results_only):
    folder, env = results_only
    path = next((folder / "bm25-okapi").rglob("negconstraint.json"))
    data = json.loads(path.read_text())
    data["task"]["source"]["content_hash"] = "sha256:" + "0" * 64
    path.write_text(json.dumps(data))
    ran = run_cli("compare", "bm25", "bm25-okapi", "--task", "negconstraint", "--results", str(folder), env=env)
    assert ran.returncode == 2 and "different data" in ran.stderr and "Traceback" not in ran.stderr


@pytest.mark.parametrize("fmt", ["markdown", "latex"])
def test_compare_paper_tables(results_only, fmt):
    folder, env = results_only
    args = ("compare", "bm25", "bm25-okapi", "--task", "negconstraint", "--results", str(folder))
    ran = run_cli(*args, "--format", fmt, env=env)
    assert ran.returncode == 0, ran.stderr
    numbers = json.loads(run_cli(*args, "--format", "json", env=env).stdout)["tasks"][0]
    a, b = (read_result(path) for path in RESULTS.values())
    low_a, high_a = _bootstrap(per_query_values(a, "ndcg_at_10", "a"))  # the board's interval of a cell
    low_b, high_b = _bootstrap(per_query_values(b, "ndcg_at_10", "b"))
    interval_a, interval_b = f"[{low_a:.4f}, {high_a:.4f}]", f"[{low_b:.4f}, {high_b:.4f}]"
    difference, ci = f"{numbers['difference']:+.4f}", f"[{numbers['ci_low']:+.4f}, {numbers['ci_high']:+.4f}]"
    assert numbers["p_holm"] >= 0.05  # so B, the worse, is marked as not significantly different
    out, p = ran.stdout, f"{numbers['p_value']:.4f}"
    if fmt == "markdown":  # one task: p alone (Holm's equals it); the metric named by its label, after the task
        assert out.startswith("**A = bm25, B = bm25-okapi: paired tests over the same queries**\n\n")
        assert "| Task | Queries | A | B | A − B (95% CI) | p |" in out

        def md(text: str) -> str:
            return text.replace("[", "\\[").replace("]", "\\]")

        row = (
            f"| negconstraint (nDCG@10) | 366 | **{a.main_score:.4f}** {md(interval_a)} | "
            f"{b.main_score:.4f} {md(interval_b)} ≈ | {difference} {md(ci)} | {p} |"
        )
        assert row in out
    else:
        assert r"\begin{tabular}{lrrrrr@{\hspace{6pt}}}" in out and r"\toprule" in out and r"\end{table}" in out
        assert "Task & Queries & A & B & A $-$ B & p \\\\\n &  &  &  & 95\\% CI &  \\\\" in out
        minus = difference.replace("-", "$-$")  # a minus sign, not a hyphen
        mark = r"\rlap{\textsuperscript{$\approx$}}"
        assert rf"negconstraint & 366 & \textbf{{{a.main_score:.4f}}} & {b.main_score:.4f}{mark} & {minus} & {p}" in out
        assert rf"{{\scriptsize nDCG@10}} &  & {{\scriptsize {interval_a}}} & {{\scriptsize {interval_b}}}" in out
        assert "≈" not in out and "≤" not in out and "≥" not in out  # set by LaTeX commands, never as UTF-8
        assert r"p $\geq$ 0.05" in out and ">=" not in out


@pytest.mark.parametrize("fmt", ["markdown", "latex"])
def test_show_paper_tables(results_only, fmt):
    folder, env = results_only
    ran = run_cli("show", str(folder), "--format", fmt, env=env)
    assert ran.returncode == 0, ran.stderr
    a, b = (read_result(path) for path in RESULTS.values())
    low_b, high_b = _bootstrap(per_query_values(b, "ndcg_at_10", "b"))
    interval_b = f"[{low_b:.4f}, {high_b:.4f}]"
    assert str(folder) not in ran.stdout and "Revision" not in ran.stdout  # no path; one revision a model name
    if fmt == "markdown":
        assert ran.stdout.startswith("**Results of 2 models on 1 task**\n\n")
        assert "| Model | negconstraint (nDCG@10) |" in ran.stdout
        assert f"| bm25-okapi | {b.main_score:.4f} \\{interval_b[:-1]}\\] ≈ |" in ran.stdout
        assert f"| bm25 | **{a.main_score:.4f}** \\[" in ran.stdout
    else:
        assert "Model & negconstraint \\\\\n & nDCG@10 \\\\" in ran.stdout
        assert rf"bm25-okapi & {b.main_score:.4f}\rlap{{\textsuperscript{{$\approx$}}}} \\" in ran.stdout
        assert rf" & {{\scriptsize {interval_b}}} \\" in ran.stdout
        assert rf"bm25 & \textbf{{{a.main_score:.4f}}} \\" in ran.stdout


def test_paper_tables_columns_are_chosen_with_columns(results_only):
    folder, env = results_only
    ran = run_cli("show", str(folder), "--format", "markdown", "--columns", "model,revision,negconstraint", env=env)
    assert ran.returncode == 0, ran.stderr
    assert "| Model | Revision | negconstraint (nDCG@10) |" in ran.stdout and "| bm25 | bm25s-0.3.16 | **" in ran.stdout
    args = ("compare", "bm25", "bm25-okapi", "--task", "negconstraint", "--results", str(folder), "--format", "latex")
    ran = run_cli(*args, "--columns", "task,metric,a,b", "--columns", "p_holm", env=env)
    assert ran.returncode == 0, ran.stderr
    assert "Task & Metric & A & B & p \\\\\n &  &  &  & Holm \\\\" in ran.stdout
    for value, said in (("model,nosuch", "unknown column 'nosuch'"), (",", "no column named")):
        ran = run_cli("show", str(folder), "--format", "latex", "--columns", value, env=env)
        assert ran.returncode == 2 and said in ran.stderr and "model, revision, negconstraint" in ran.stderr
    ran = run_cli("show", str(folder), "--columns", "model", env=env)  # a listing format has its own columns
    assert ran.returncode == 2 and "--columns chooses the columns of --format markdown or latex" in ran.stderr


def test_cite_comlq_and_the_harness():
    ran = run_cli("cite", "ComLQ")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("@inproceedings{xu2026comlq,")
    assert "title = {ComLQ: Benchmarking Complex Logical Queries in Information Retrieval}" in ran.stdout
    assert "Xu, Ganlin and Yin, Zhitao" in ran.stdout and "year = {2026}" in ran.stdout
    from importlib.metadata import version

    assert "@software{retrieval_leaderboard," in ran.stdout
    assert f"version = {{{version('retrieval-leaderboard')}}}" in ran.stdout
    assert ran.stdout.count("{") == ran.stdout.count("}")  # balanced braces: a BibTeX parser can read it


def test_cite_several_a_built_entry_and_an_unknown_name():
    ran = run_cli("cite", "multiconir", "NegConstraint")  # names are matched without case
    assert ran.returncode == 0, ran.stderr
    assert "@article{lu2025multiconir," in ran.stdout and "arXiv:2503.08046" in ran.stdout
    # NegConstraint declares a citation line only: the @misc entry says it was built from it
    assert "% built by leaderboard cite from the NegConstraint declaration's citation line" in ran.stdout
    assert "@misc{negconstraint," in ran.stdout and r"\url{https://arxiv.org/abs/2505.22299}" in ran.stdout
    ran = run_cli("cite", "ComLQ", "NoSuchBench")
    assert ran.returncode == 2 and "Unknown benchmark 'NoSuchBench'" in ran.stderr and "ComLQ" in ran.stderr
    assert ran.stdout == "" and "Traceback" not in ran.stderr


def test_compare_runs_only_what_is_missing(tmp_path):
    import leaderboard

    out = tmp_path / "results"
    (first,) = leaderboard.evaluate(["bm25"], ["demo"], output=out, use_cache=False)
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    ran = run_cli("compare", "bm25", "bm25-okapi", "--task", "demo", "--results", str(out), env=env)
    assert ran.returncode == 0, ran.stderr
    assert f"reused: {first.path}" in ran.stderr
    written = [line for line in ran.stderr.splitlines() if line.startswith("written: ")]
    assert len(written) == 1 and "bm25-okapi" in written[0] and "skipped" not in ran.stderr


def test_markdown_tables_parse_as_gfm_tables(results_only):
    """GitHub renders them as tables: a GFM reader (markdown-it-py with tables) finds one table, every row full."""
    from markdown_it import MarkdownIt

    folder, env = results_only
    args = ("compare", "bm25", "bm25-okapi", "--task", "negconstraint", "--results", str(folder))
    for ran in (run_cli(*args, "--format", "markdown", env=env), run_cli("show", str(folder), "--format", "markdown")):
        assert ran.returncode == 0, ran.stderr
        tokens = MarkdownIt("commonmark").enable("table").parse(ran.stdout)
        kinds = [t.type for t in tokens]
        assert kinds.count("table_open") == 1
        cells_per_row = [
            kinds[i : kinds.index("tr_close", i)].count("td_open") for i, k in enumerate(kinds) if k == "tr_open"
        ]
        assert len(set(cells_per_row[1:])) == 1 and cells_per_row[1] == kinds.count("th_open") > 1


def test_a_paper_table_of_no_complete_result_is_refused(tmp_path):
    ran = run_cli("run", "-m", "bm25", "-t", "demo", "--limit", "3", "--output", str(tmp_path / "r"), "--quiet")
    assert ran.returncode == 0, ran.stderr
    shown = run_cli("show", str(tmp_path / "r"), "--format", "latex")
    assert shown.returncode == 2 and shown.stdout == ""
    assert "no complete result to put in a table (1 partial result: complete runs have no --limit" in shown.stderr
