"""What a tab module gets (the ``Shell``) and gives back (a ``Tab``), and the helpers tabs share.

The shell is the page around the tabs: the benchmark selector, the benchmark shown, the tab open,
the chart width, the summary line and the Overall set above the tabs, and the live board. A tab
module's ``build(shell)`` lays out its components inside the current ``gr.Blocks``, wires its own
events, and returns a ``Tab`` whose hooks ``ui.build_app`` calls from the three events that concern
every tab: the page load (``Load``), a benchmark switch (``Switch``) and the poll tick (``Tick``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # before gradio is imported: no telemetry

import gradio as gr
from gradio.components.plot import PlotData

from leaderboard.app.data import url_state
from leaderboard.app.data.board import OVERALL, Board, label_of
from leaderboard.app.data.ranking import Ranking
from leaderboard.app.server.live import LiveBoard
from leaderboard.app.server.live_queue import LiveQueue
from leaderboard.app.tabs.assets import SORT_JS, TABLE_CSS, url_js
from leaderboard.app.views.landing import HOME
from leaderboard.app.views.render import esc

# The trigger mode of every event that draws a view from the reader's controls. Gradio's default for ``input`` and
# ``click`` events ("once") drops an event that comes while the last one is still being answered, and the view then
# disagrees with the controls (the last of quick ticks lost under load); "always_last" answers the controls' latest
# state once the pending answer is in.
DRAW_LATEST = "always_last"
# Whether a tab's select goes through Gradio's queue: it does not. The queue answers a page's events over one
# stream, which the server closes once the page has no event pending. A page that opens sends the first tab's
# select and then the page load: when the select was answered and the stream closed before the load was taken,
# and the page read the load's reply before the close, the load's answer went to a closed stream and the page
# waited for ever, with the server idle. Outside the queue, a select is answered in its own request, and the load
# is the one queued event of a page that opens.
SELECT_QUEUE = False


@dataclass(frozen=True)
class Load:
    """A page load: the link's state, the benchmark it shows (HOME when the link names none the board has),
    the tab it opens, and the chart width that fits the window."""

    state: url_state.ViewState
    name: str
    tab: str
    width: int


@dataclass(frozen=True)
class Switch:
    """The reader picked another benchmark (``name``) while ``tab`` is open."""

    name: str
    previous: str
    tab: str
    width: int


@dataclass(frozen=True)
class Tick:
    """A poll tick: ``changed`` when the board is a new revision since this page last drew it."""

    name: str
    changed: bool


@dataclass
class Hook:
    """A tab's part of a shared event: ``fn(event, *inputs)`` returns one value per output, in order."""

    fn: Callable[..., Sequence[Any]]
    outputs: list[Any]
    inputs: list[Any] = field(default_factory=list)


@dataclass
class Tab:
    """What a tab contributes to the page's shared events; each hook is optional.

    ``url_parameters``: the URL parameters a benchmark switch drops (the tab's picks, a sort).
    ``spinner``: the component that shows progress while a switch redraws (one, where the reader looks).
    ``warm``: what the tab draws first, computed for each new board in the server's background warm-up
    (``live.LiveBoard``), so that the reader's first opening finds it ready.
    """

    id: str
    load: Hook | None = None
    switch: Hook | None = None
    tick: Hook | None = None
    url_parameters: tuple[str, ...] = ()
    spinner: Any = None
    warm: Callable[[Board], None] | None = None


class Shell:
    """The page around the tabs, shared by every tab module (built by ``ui.build_app`` before the tabs)."""

    def __init__(self, live: LiveBoard) -> None:
        self.live = live
        # Components set by ui.build_app as it lays out the page (Gradio needs them created in page order).
        self.selector: Any = None  # the benchmark dropdown
        self.shown: Any = None  # gr.State: the benchmark drawn (the selector may lag behind an update)
        self.active: Any = None  # gr.State: the id of the tab open
        self.chart_width: Any = None  # gr.State: the window's width for charts
        self.summary: Any = None  # the benchmark's summary line, above the tabs
        self.overall_set: Any = None  # the Overall view's benchmarks, above the tabs
        self.queue: LiveQueue | None = None  # the evaluation queue, when the app has a requests dataset

    def board(self) -> Board:
        return self.live.board

    def benchmark_list(self) -> list[str]:
        return [b.name for b in self.board().benchmarks]

    def kinds_present(self) -> list[str]:
        return self.board().kinds or ["sparse", "dense", "reranker"]

    def ranking(self, name: str | None, revisions: bool = False) -> Ranking | None:
        """The benchmark's ranking without statistics (computed for the rows shown only), None for HOME/Overall."""
        if not name or name in (OVERALL, HOME):
            return None
        return self.board().ranking(name, with_stats=False, all_revisions=bool(revisions))

    def selector_update(self, name: str | None = None) -> dict[str, Any]:
        current = self.board()
        names = current.benchmark_names
        choices = [(HOME, HOME)] + [(label_of(current, n), n) for n in names]
        return gr.update(choices=choices, value=name if name in names else HOME)

    def lists_key(self, name: str) -> str:
        """Which benchmark (and board revision) a model picker holds the models of."""
        return f"{name}\0{self.live.generation}"

    def when_opened(
        self,
        tab: Any,
        tab_id: str,
        fn: Callable[..., Any],
        inputs: list[Any],
        outputs: list[Any],
        queued: bool = SELECT_QUEUE,
    ) -> None:
        """Wire a tab's select: the URL's ``tab`` and the shell's active tab are set, then ``fn`` draws.

        ``queued``: True for a tab whose select sets a state that other events listen to (Gradio reports a
        state's change to the page from queued events only)."""
        tab.select(
            lambda *args: (tab_id, *fn(*args)),
            inputs,
            [self.active, *outputs],
            js=url_js("tab", tab_id),
            queue=queued,
        )


def table_html(value: str, **html_kwargs: Any) -> gr.HTML:
    """An HTML block holding a sortable table: the table's own CSS (scoped), not Gradio's prose styles."""
    return gr.HTML(value, js_on_load=SORT_JS, css_template=TABLE_CSS, apply_default_css=False, **html_kwargs)


def view_html(tab: str, html: str, **view: Any) -> str:
    """A tab's drawing in a ``<div class="{tab}-view">`` that names the view it shows in data attributes
    (``data-benchmark`` ...): a reader (or a test) can tell it from the previous view still on screen."""
    attributes = "".join(f' data-{key}="{esc(value)}"' for key, value in view.items())
    return f'<div class="{esc(tab)}-view"{attributes}>{html}</div>'


def changed(value: Any, default: Any) -> Any:
    """The value when it differs from the default, else a skip: an unchanged control fires no change event."""
    return gr.skip() if value == default else value


def page_number(value: Any) -> int:
    try:
        return max(1, int(str(value or "1")))
    except ValueError:
        return 1


def plot_data(chart: Any) -> PlotData:
    """What ``gr.Plot`` sends for an altair chart (``views.charts``), written compactly: ``gr.Plot`` would call
    ``chart.to_json()``, indented (Size vs score at 10,000 models: 2.2 MB and 0.17 s, against 1.6 MB and 0.09 s)."""
    return PlotData(type="altair", plot=chart.to_json(indent=None))


def skips(outputs: Sequence[Any]) -> list[Any]:
    return [gr.skip()] * len(outputs)
