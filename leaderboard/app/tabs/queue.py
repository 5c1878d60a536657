"""The Queue tab (shown when the app has a requests dataset): pending, running, finished and failed requests.

Read from the requests dataset on the server (``live_queue``), polled with the board; the tick
redraws it while it is open (the running times move on), opening it reads again if it is stale.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from leaderboard.app.tabs.base import Hook, Load, Shell, Tab, Tick, table_html
from leaderboard.app.views.queue import queue_html
from leaderboard.queue.requests import now

ID = "queue"
LABEL = "Queue"


def build(shell: Shell) -> Tab | None:
    queue = shell.queue
    assert queue is not None, "the Queue tab needs a requests dataset"

    def render(refresh: bool = True) -> str:
        if refresh:
            queue.fresh()
        return queue_html(queue.snapshot, now(), queue.repo_id, queue.read_at, queue.problem)

    with gr.Tab(LABEL, id=ID) as tab:
        table = table_html("", elem_id="queue")
    shell.when_opened(tab, ID, lambda: (render(),), [], [table])

    def on_load(load: Load) -> list[Any]:
        return [render() if load.tab == ID else gr.skip()]

    def on_tick(tick: Tick, active: str) -> list[Any]:
        return [render(refresh=False) if active == ID else gr.skip()]

    return Tab(id=ID, load=Hook(on_load, [table]), tick=Hook(on_tick, [table], [shell.active]))
