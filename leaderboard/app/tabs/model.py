"""The Model tab: one model's page (``model_page``), by a link's ``?model=NAME`` or the picker.

Every model name on the board links here. The page does not depend on the benchmark selector: it shows
every benchmark the model is on. The picker lists the board's first models (``model_index``: the most
benchmarks first; ``picks.LISTED_AT_MOST``); any other is typed whole, or opened by its name on the board.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from leaderboard.app.data.board import Board
from leaderboard.app.data.model_index import model_index
from leaderboard.app.tabs.assets import COPY_JS, FROM_URL_JS, MODEL_CSS, MODEL_LINKS_HEAD, TABLE_CSS, url_state_js
from leaderboard.app.tabs.base import DRAW_LATEST, SELECT_QUEUE, Hook, Load, Shell, Tab, skips, view_html
from leaderboard.app.tabs.picks import as_list, listed_names
from leaderboard.app.views.model import model_page_html

ID = "model"
LABEL = "Model"


def model_links_head() -> str:
    """The script (for the page's head) that opens a model's page in place when its name is clicked."""
    import json

    return MODEL_LINKS_HEAD % json.dumps(LABEL)


def build(shell: Shell) -> Tab | None:
    def draw(name: str | None) -> str:
        name = (name or "").strip()
        shown = model_page_html(shell.board(), name)
        return view_html(ID, shown, model=name)

    def picker(name: str = "") -> dict[str, Any]:
        index = model_index(shell.board())
        value = index.resolve(name) if name else None
        return gr.update(choices=listed_names(index.names, as_list(value)), value=value)

    with gr.Tab(LABEL, id=ID) as tab:
        pick = gr.Dropdown([], value=None, label="Model", elem_id="model-pick", allow_custom_value=True)
        page = gr.HTML(
            "", elem_id="model-view", js_on_load=COPY_JS, css_template=TABLE_CSS + MODEL_CSS, apply_default_css=False
        )
        # clicked by a model's name on the page when this tab is open already (``MODEL_LINKS_HEAD``)
        go = gr.Button("model", elem_id="model-go", elem_classes=["state-box"])
    outputs = [pick, page]

    def on_open(name: str | None) -> tuple[Any, ...]:
        return ID, picker(name or ""), draw(name)

    # not shell.when_opened: the model comes from the URL (a name clicked writes it there), see FROM_URL_JS
    tab.select(on_open, [pick], [shell.active, *outputs], js=FROM_URL_JS, queue=SELECT_QUEUE)
    go.click(on_open, [pick], [shell.active, *outputs], js=FROM_URL_JS)
    pick.input(draw, [pick], page, js=url_state_js({0: "model"}), trigger_mode=DRAW_LATEST)

    def on_load(load: Load) -> list[Any]:
        if load.tab != ID:
            return skips(outputs)
        return [picker(load.state.model), draw(load.state.model)]

    # the index of every model, built in the background warm-up of each new board: the first page opened finds it
    def warm(board: Board) -> None:
        model_index(board)

    return Tab(id=ID, load=Hook(on_load, outputs), spinner=page, warm=warm)
