"""The Gradio Blocks app: overview with filters, per-family tabs, provenance, skipped files."""

from __future__ import annotations

import tempfile
from pathlib import Path

import gradio as gr
import pandas as pd

from leaderboard.app import data

KINDS = ["sparse", "dense", "reranker", "pipeline"]
DOMAIN_CHOICES = ["average"] + list(data.DOMAINS)
ABOUT = (
    "Retrievers and rerankers on hard queries: multi-condition (MultiConIR), complex logical (ComLQ), "
    "negation (NegConstraint) and instruction following (FollowIR and friends, through mteb). "
    "Missing results show as —, never as zero. A family score marked * averages only the tasks the model has; "
    "Average covers the families marked 'higher is better' (columns with ↓ are lower-is-better and not averaged)."
)


def _datatypes(frame: pd.DataFrame) -> list[str]:
    # Only the Model column is markdown (a link, its text escaped); every other cell is plain text.
    return ["number" if c == "Rank" else "markdown" if c == "Model" else "str" for c in frame.columns]


def _subset(domain: str) -> str:
    return "default" if domain == "average" else f"domain={domain}"


def build_app(results_dir: Path) -> gr.Blocks:
    loaded = data.load(Path(results_dir))
    results = loaded.rows
    full = data.overview(results)
    optional = [c for c in data.visible(full).columns if c not in ("Rank", "Model")]

    def current_view(kinds, min_p, max_p, instructions, search, columns) -> pd.DataFrame:
        return data.visible(data.filter_models(full, kinds, min_p, max_p, instructions, search or ""), columns)

    def as_csv(view: pd.DataFrame) -> str:
        target = Path(tempfile.mkdtemp()) / "leaderboard.csv"
        plain = view.copy()
        plain["Model"] = full.loc[view.index, "_name"]  # the CSV holds names, not markdown links
        plain.to_csv(target, index=False)
        return str(target)

    def refresh(kinds, min_p, max_p, instructions, search, columns):
        # The download button always holds the CSV of the view on screen.
        view = current_view(kinds, min_p, max_p, instructions, search, columns)
        return gr.update(value=view, datatype=_datatypes(view)), as_csv(view)

    with gr.Blocks(title="Retrieval leaderboard") as app:
        gr.Markdown("# Retrieval leaderboard\n" + ABOUT)
        with gr.Tabs():
            with gr.Tab("Overview", id="overview"):
                with gr.Row():
                    kinds = gr.CheckboxGroup(KINDS, value=KINDS, label="Model kind", elem_id="filter-kind")
                    instructions = gr.Radio(
                        ["all", "yes", "no"], value="all", label="Instruction-aware", elem_id="filter-instructions"
                    )
                    search = gr.Textbox(label="Search by name", elem_id="filter-search")
                with gr.Row():
                    min_p = gr.Number(label="Min parameters (M)", value=None, elem_id="filter-min-params")
                    max_p = gr.Number(label="Max parameters (M)", value=None, elem_id="filter-max-params")
                    columns = gr.CheckboxGroup(optional, value=optional, label="Columns", elem_id="columns")
                initial = data.visible(full)
                table = gr.Dataframe(
                    value=initial, datatype=_datatypes(initial), interactive=False, wrap=True, elem_id="overview-table"
                )
                csv = gr.DownloadButton("Download CSV of this view", value=as_csv(initial), elem_id="download-csv")
                inputs = [kinds, min_p, max_p, instructions, search, columns]
                for control in inputs:
                    control.change(refresh, inputs, [table, csv])

            with gr.Tab("MultiConIR", id="multiconir"):
                domain = gr.Dropdown(DOMAIN_CHOICES, value="average", label="Domain", elem_id="domain-filter")
                gr.Markdown("**Win rate vs number of conditions** (Task 1, strict >: a tie is a loss)")
                wr_plot = gr.LinePlot(
                    data.win_rate_curve(results),
                    x="conditions",
                    y="win rate",
                    color="model",
                    y_lim=[0, 1],
                    sort=data.CONDITION_LABELS,
                    elem_id="wr-plot",
                )
                decline = gr.Dataframe(data.decline_table(results), interactive=False, elem_id="decline-table")
                gr.Markdown("**Adjacent-pair win rate** (Task 2: d+ vs HN1 … HN9 vs HN10)")
                adj_plot = gr.LinePlot(
                    data.adjacent_curve(results),
                    x="pair",
                    y="win rate",
                    color="model",
                    y_lim=[0, 1],
                    sort=data.PAIR_LABELS,
                    elem_id="adjacent-plot",
                )
                gr.Markdown("**Flip rate per domain** (Task 3, lower is better)")
                gr.Dataframe(data.flip_rate_table(results), interactive=False, elem_id="flip-table")
                gr.Markdown("**Document length** (mean adjacent win rate: Task 2 vs Task 4)")
                length = gr.Dataframe(data.length_table(results), interactive=False, elem_id="length-table")

                def by_domain(choice):
                    subset = _subset(choice)
                    return (
                        data.win_rate_curve(results, subset),
                        data.decline_table(results, subset),
                        data.adjacent_curve(results, subset),
                        data.length_table(results, subset),
                    )

                domain.change(by_domain, domain, [wr_plot, decline, adj_plot, length])

            with gr.Tab("ComLQ", id="comlq"):
                types, others = data.comlq_tables(results)
                gr.Markdown("**nDCG@10 per query type** (¬ marks the negation types)")
                gr.Dataframe(types, interactive=False, elem_id="comlq-types")
                gr.Markdown("**Overall, negation consistency (LSNC) and evidence count**")
                gr.Dataframe(others, interactive=False, elem_id="comlq-other")

            with gr.Tab("Instruction following", id="instructions"):
                gr.Markdown(
                    "FollowIR p-MRR with original (og) and changed-instruction MAP / nDCG, and the other mteb instruction tasks."
                )
                gr.Dataframe(data.instruction_table(results), interactive=False, elem_id="instruction-table")

            with gr.Tab("Provenance", id="provenance"):
                gr.Markdown(
                    "Every result file: data hash and revision, harness version and commit, date, confidence interval of the main score."
                )
                prov = data.provenance_table(results)
                gr.Dataframe(prov, interactive=False, elem_id="provenance-table")

            with gr.Tab(f"Skipped ({len(loaded.skipped)})", id="skipped"):
                gr.Markdown(
                    "Files that are not valid results of a known schema version, with the reason. They are never shown above."
                )
                gr.Dataframe(
                    pd.DataFrame(loaded.skipped, columns=["file", "reason"]),
                    interactive=False,
                    wrap=True,
                    elem_id="skipped-table",
                )
    return app
