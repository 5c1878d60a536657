"""The Skipped tab: every result file the board could not use, with its reason."""

from __future__ import annotations

from typing import Any

import gradio as gr

from leaderboard.app.tabs.base import Hook, Load, Shell, Tab, table_html, view_html
from leaderboard.app.views.skipped import skipped_html

ID = "skipped"
LABEL = "Skipped"


def build(shell: Shell) -> Tab | None:
    def render_skipped() -> str:
        return view_html(ID, skipped_html(shell.board()))

    with gr.Tab(LABEL, id=ID) as tab:
        table = table_html("", elem_id="skipped")
    shell.when_opened(tab, ID, lambda: (render_skipped(),), [], [table])

    def on_load(load: Load) -> list[Any]:
        return [render_skipped() if load.tab == ID else gr.skip()]

    return Tab(id=ID, load=Hook(on_load, [table]))
