"""The Skipped tab: every result file the board could not use, with its reason."""

from __future__ import annotations

from typing import Any

import gradio as gr

from leaderboard.app import pages
from leaderboard.app.tabs.base import Hook, Load, Shell, Tab, table_html

ID = "skipped"


def build(shell: Shell) -> Tab:
    with gr.Tab("Skipped", id=ID) as tab:
        table = table_html("", elem_id="skipped")
    shell.when_opened(tab, ID, lambda: (pages.skipped_html(shell.board()),), [], [table])

    def on_load(load: Load) -> list[Any]:
        return [pages.skipped_html(shell.board()) if load.tab == ID else gr.skip()]

    return Tab(id=ID, load=Hook(on_load, [table]))
