"""The Submit tab (shown when the app has a requests dataset): a model author asks for an evaluation.

The answer comes from ``leaderboard.queue.submit`` run on the server, with every check `leaderboard
submit` makes; the write token stays on the server (``live_queue``).
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from leaderboard.app.tabs.base import Hook, Shell, Tab, Tick
from leaderboard.app.views.submit import refused_html, submitted_html
from leaderboard.errors import LeaderboardError
from leaderboard.queue.submit import Submission, requestable
from leaderboard.security.redaction import redact

ID = "submit"
LABEL = "Submit"
INTRO = (
    "<p>Submit a retriever or reranker packaged as a plugin of this harness (<code>leaderboard new-plugin</code> "
    "writes one) and released on the package index or in a public git repository. The leaderboard's worker "
    "installs the plugin at the version you name into an isolated environment, runs the public benchmarks you "
    "choose on the leaderboard's own data, checks the results and publishes them on the board. Follow your "
    "request in the Queue tab.</p>"
    '<p class="note">Checked before anything is written: the plugin names a released version on the package '
    "index or a full git commit; the model and revision are not already queued or evaluated on these "
    "benchmarks; a contact has at most 3 requests open. The contact is stored in the request's file in the "
    "requests dataset: not shown on the board, but readable by whoever can read that dataset.</p>"
)


def build(shell: Shell) -> Tab | None:
    queue = shell.queue
    assert queue is not None, "the Submit tab needs a requests dataset"
    with gr.Tab(LABEL, id=ID) as tab:
        gr.HTML(INTRO, elem_id="submit-intro", js_on_load=None)
        plugin = gr.Textbox(
            label="Plugin: package==version, or git+https://HOST/REPO@<40-hex commit>", elem_id="submit-plugin"
        )
        with gr.Row():
            model = gr.Textbox(label="Model id (what `leaderboard run --model` takes)", elem_id="submit-model")
            revision = gr.Textbox(label="Model revision its results carry (optional)", elem_id="submit-revision")
        benchmarks = gr.CheckboxGroup(_requestable(shell), label="Benchmarks", elem_id="submit-benchmarks")
        contact = gr.Textbox(label="Contact: an e-mail address or hub user name", elem_id="submit-contact")
        button = gr.Button("Submit for evaluation", variant="primary", elem_id="submit-button")
        answer = gr.HTML("", elem_id="submit-answer-box", js_on_load=None)

    def on_submit(plugin: str, model: str, revision: str, chosen: list[str], contact: str) -> str:
        submission = Submission(plugin or "", model or "", tuple(chosen or ()), contact or "", revision or None)
        try:
            request = queue.submit(submission, _requestable(shell))
        except LeaderboardError as exc:  # a refusal (bad input, a duplicate) or the hub's answer, redacted
            return refused_html(redact(exc, queue.dataset.store.token))
        except Exception as exc:  # never a traceback in the page
            return refused_html(f"internal error ({type(exc).__name__}); nothing was written, please try again")
        return submitted_html(request, queue.repo_id)

    button.click(on_submit, [plugin, model, revision, benchmarks, contact], answer, concurrency_limit=1)
    shell.when_opened(tab, ID, lambda: (), [], [])

    def on_tick(tick: Tick) -> list[Any]:
        return [gr.update(choices=_requestable(shell)) if tick.changed else gr.skip()]

    return Tab(id=ID, tick=Hook(on_tick, [benchmarks]))


def _requestable(shell: Shell) -> list[str]:
    """The board's public benchmarks: a local board also shows non-public ones, which are never requested."""
    return requestable(shell.board().benchmarks)
