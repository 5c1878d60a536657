"""The Queue tab: the requests dataset's records by state (running, pending, finished, failed), with their times.

Every text from a request (model ids, specs, contacts, reasons) is someone's input: it goes through
``render.esc``. Contacts are never shown (the queue is public).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from leaderboard.app.views.render import Cell, esc, table
from leaderboard.queue import view
from leaderboard.queue.dataset import Snapshot

HEADERS = [
    ("Model", "", "c-name"),
    ("Plugin", "the spec the worker installs", "c-text"),
    ("Benchmarks", "", "c-text"),
    ("Status", "", "c-text"),
    ("Submitted", "", "c-text"),
    ("Time", "waiting, running for, or took", "c-text"),
    ("Detail", "the worker and attempt, the result files, or why it failed", "c-reason"),
]
SECTIONS = (("running", "Running"), ("pending", "Pending"), ("finished", "Finished"), ("failed", "Failed"))


def queue_html(
    snapshot: Snapshot | None, at: datetime, repo: str, read_at: datetime | None = None, problem: str | None = None
) -> str:
    """The queue as of ``read_at``, its times counted to ``at`` (now)."""
    if snapshot is None:
        why = f": {esc(problem)}" if problem else ""
        return f'<div class="empty" id="queue-empty">The queue ({esc(repo)}) could not be read yet{why}.</div>'
    rows = view.rows(snapshot, at)
    read = f"read {(read_at or at):%H:%M:%S} UTC" + (f"; the last refresh failed ({esc(problem)})" if problem else "")
    intro = (
        f'<p class="note" id="queue-status">Requests in {esc(repo)}, {read}. Open requests first, then the '
        f"{view.SETTLED_SHOWN} most recently settled; a worker takes the oldest pending one.</p>"
    )
    if snapshot.unreadable:
        intro += (
            f'<p class="note">{len(snapshot.unreadable)} file(s) in the dataset are not requests and are skipped.</p>'
        )
    if not rows:
        return intro + '<div class="empty" id="queue-empty">No request yet: submit one in the Submit tab.</div>'
    bodies = []
    for status, heading in (*SECTIONS, ("cancelled", "Cancelled")):
        chosen = [r for r in rows if r["status"] == status]
        if chosen:
            bodies.append((f"queue-{status}", f"{heading} ({len(chosen)})", [_cells(r) for r in chosen]))
    return intro + table(HEADERS, bodies, "queue-table")


def _cells(row: dict[str, Any]) -> list[Cell]:
    texts = [row["plugin"], ", ".join(row["benchmarks"]), row["status"], row["submitted"], row["time"]]
    return [
        Cell(esc(row["model"]), row["model"], "c-name"),
        *(Cell(esc(text), text, "c-text") for text in texts),
        Cell(esc(row["detail"]), row["detail"], "c-reason"),
    ]
