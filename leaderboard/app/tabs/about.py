"""The About tab: each benchmark, its tasks and papers, the board's rules, and how to submit."""

from __future__ import annotations

from typing import Any

import gradio as gr

from leaderboard.app.tabs.base import Hook, Load, Shell, Tab
from leaderboard.app.views.about import about_html

ID = "about"
LABEL = "About"


def build(shell: Shell) -> Tab | None:
    with gr.Tab(LABEL, id=ID) as tab:
        about = gr.HTML("", elem_id="about-page", js_on_load=None)
    shell.when_opened(tab, ID, lambda: (about_html(shell.board()),), [], [about])

    def on_load(load: Load) -> list[Any]:
        return [about_html(shell.board()) if load.tab == ID else gr.skip()]

    return Tab(id=ID, load=Hook(on_load, [about]))
