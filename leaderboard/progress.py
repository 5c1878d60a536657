"""Progress that any layer can report to without holding a reference to the CLI.

The runner opens one reporter (rich's ``Progress`` on a terminal, ``cli.progress_lines.ProgressLines``
when stderr is a file or a pipe) and installs it with ``use_progress``; model plugins and helpers
call ``step``. With no reporter installed (library use, tests) these calls cost nothing.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any, Protocol


class Reporter(Protocol):
    """What ``step`` needs of a progress display: rich's ``Progress`` has it, and so does ``ProgressLines``."""

    def add_task(self, description: str, *, total: float | None = ...) -> Any: ...

    def advance(self, task_id: Any, advance: float = ...) -> None: ...

    def update(
        self, task_id: Any, *, total: float | None = ..., completed: float | None = ..., visible: bool | None = ...
    ) -> None: ...


_current: contextvars.ContextVar[Reporter | None] = contextvars.ContextVar("progress", default=None)


@contextlib.contextmanager
def use_progress(progress: Reporter | None) -> Iterator[None]:
    token = _current.set(progress)
    try:
        yield
    finally:
        _current.reset(token)


def current() -> Reporter | None:
    """The installed reporter (e.g. to mirror bars that Ray workers report)."""
    return _current.get()


class _Step:
    def __init__(self, progress: Reporter | None, task_id: Any):
        self._progress, self._task_id = progress, task_id

    def advance(self, amount: float = 1) -> None:
        if self._progress is not None and self._task_id is not None:
            self._progress.advance(self._task_id, amount)


@contextlib.contextmanager
def step(description: str, total: float | None = None) -> Iterator[_Step]:
    """A bar (or, off a terminal, timed lines) for one phase (loading, indexing, encoding, search, scoring)."""
    progress = _current.get()
    task_id = progress.add_task(description, total=total) if progress is not None else None
    handle = _Step(progress, task_id)
    try:
        yield handle
    except BaseException:
        if progress is not None and task_id is not None:
            progress.update(task_id, visible=False)  # a phase that failed is not shown as done: the error says why
        raise
    if progress is not None and task_id is not None:
        progress.update(task_id, total=total or 1, completed=total or 1)  # shown as finished
