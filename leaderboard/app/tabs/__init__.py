"""The app's tabs, one module each; ``ui.build_app`` lays out the page around them and wires what they share.

Adding a tab is two modules and one line:

0. Write its view, ``leaderboard/app/views/<name>.py``: functions from the board's data to the HTML (or
   chart data) the tab shows, with no Gradio in them, so they are tested without a server (``views``;
   ``tests/test_app_views.py`` checks that every tab has one).
1. Write ``leaderboard/app/tabs/<name>.py`` with ``ID = "<name>"`` (the URL's ``tab=`` value), ``LABEL``
   and ``build(shell: Shell) -> Tab | None``. ``build`` opens ``with gr.Tab(LABEL, id=ID) as tab:``, lays out
   its components, and wires its own events: ``shell.when_opened(tab, ID, fn, inputs, outputs)``
   for what it draws when opened (the URL and the shell's active tab are set for you), and any
   button or control of its own. Read the board through ``shell.board()`` / ``shell.ranking(name)``
   (never keep a board: the poll swaps in a new one) and the benchmark from ``shell.selector``.
2. Return a ``Tab`` with the hooks it needs, each ``Hook(fn, outputs, inputs)`` where
   ``fn(event, *inputs)`` returns one value per output (``gr.skip()`` for none):
   - ``load``: the page load, with the link's state (``Load``); draw when ``load.tab == ID``;
   - ``switch``: another benchmark picked (``Switch``); redraw when ``switch.tab == ID``;
   - ``tick``: the poll (``Tick``; ``tick.changed`` when the board is a new revision): refresh
     what must follow the source (called on every tick, only when the board polls);
   - ``url_parameters``: the URL parameters of this tab that a benchmark switch drops;
   - ``warm``: ``fn(board)``, what the tab draws first, precomputed in the background for each new board.
   A tab shown only on some boards returns None from ``build`` before it lays anything out (the
   page then has no such tab), or sits in a group ``ui.build_app`` adds on a condition (``QUEUE_TABS``:
   only with a requests dataset).
3. Add the module to ``TABS`` below (or its group), where its tab should sit.

A tab's own CSS and JavaScript go into ``assets``, beside the page's: one place for all of them. Beside the tab
modules: ``base`` (the shell, the hooks, what tabs share), ``picks`` (the model pickers) and ``assets``.

Each tab names the view it draws in data attributes (``base.view_html``: ``<div class="{ID}-view"
data-benchmark=...>``), so tests wait for that view, not for a previous one (tests/browser_helpers.py).

``tests/test_app_browser.py`` opens every tab by its label (its ``TABS``): add the new one there.
"""

from __future__ import annotations

from leaderboard.app.tabs import (
    about,
    board,
    compare,
    model,
    provenance,
    queue,
    side,
    size,
    skipped,
    submit,
    time,
    views,
)
from leaderboard.app.tabs.base import Hook, Load, Shell, Switch, Tab, Tick

# In page order. Each module: ID, LABEL and build(shell) -> Tab | None.
TABS = (board, views, size, time, compare, side, model, provenance, skipped, about)
# After them, only when the app has a requests dataset (``shell.queue``): the evaluation queue's tabs.
QUEUE_TABS = (submit, queue)

__all__ = ["QUEUE_TABS", "TABS", "Hook", "Load", "Shell", "Switch", "Tab", "Tick"]
