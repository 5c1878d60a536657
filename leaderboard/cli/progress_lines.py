"""Progress as plain lines, for a run whose stderr is a file, a pipe or a CI log (no terminal to redraw).

It takes the place of rich's ``Progress`` (the same ``add_task`` / ``advance`` / ``update`` that
``leaderboard.progress.step`` and the Ray mirror call) and writes:

* a line when a phase ends: ``[progress 0:03:12] encoding corpus: 11,251/11,251 done in 8m49s (21.3/s)``;
* every ``interval`` seconds (``LEADERBOARD_PROGRESS_INTERVAL``, default 15), one line per phase still
  running: ``[progress 0:01:40] encoding corpus: 5,120/11,251 (45.5%), 21.3/s, ETA 4m48s``, or, for a
  phase without a count, how long it has been running.

The time in brackets is the time since the run started. Nothing is written between two reports,
however fast a phase advances: a 30-minute run writes a few hundred lines at most.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

DEFAULT_INTERVAL = 15.0
INTERVAL_ENV = "LEADERBOARD_PROGRESS_INTERVAL"


def interval_from_env() -> float:
    """Seconds between reports: $LEADERBOARD_PROGRESS_INTERVAL when it is a positive number, else 15."""
    try:
        value = float(os.environ.get(INTERVAL_ENV, ""))
    except ValueError:
        return DEFAULT_INTERVAL
    return value if value > 0 else DEFAULT_INTERVAL


def duration(seconds: float) -> str:
    """ "8.2s", "4m48s", "1h02m"."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    return f"{minutes // 60}h{minutes % 60:02d}m"


def _count(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


@dataclass
class _Phase:
    description: str
    total: float | None
    started: float
    completed: float = 0.0
    finished: bool = field(default=False)


class ProgressLines:
    """A drop-in for rich's ``Progress`` that writes plain, timed lines (see the module's docstring)."""

    def __init__(
        self,
        stream: IO[str] | None = None,
        interval: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        background: bool = True,
    ):
        self.stream = stream or sys.stderr
        self.interval = interval if interval is not None else interval_from_env()
        self.clock = clock
        self.background = background  # False: reports only when report_due() is called (tests)
        self.started = clock()
        self.last_report = self.started
        self._phases: dict[int, _Phase] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- rich Progress's interface ---------------------------------------------------------------
    def __enter__(self) -> ProgressLines:
        if self.background:
            self._thread = threading.Thread(target=self._reporter, name="progress-lines", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def add_task(self, description: str, total: float | None = None, **_: Any) -> int:
        with self._lock:
            task_id = len(self._phases)
            self._phases[task_id] = _Phase(description, total, self.clock())
        return task_id

    def advance(self, task_id: int, advance: float = 1) -> None:
        with self._lock:
            phase = self._phases.get(task_id)
            if phase is not None:
                phase.completed += advance

    def update(
        self,
        task_id: int,
        total: float | None = None,
        completed: float | None = None,
        visible: bool | None = None,
        **_: Any,
    ) -> None:
        with self._lock:
            phase = self._phases.get(task_id)
            if phase is None or phase.finished:
                return
            if visible is False:  # hidden (a phase that failed): no line, now or later
                phase.finished = True
                return
            if total is not None:
                phase.total = total
            if completed is not None:
                phase.completed = completed
            if phase.total is not None and phase.completed >= phase.total:
                phase.finished = True  # progress.step marks a phase finished this way when it ends
                self._write(self._ended(phase))

    # -- reporting -------------------------------------------------------------------------------
    def report_due(self) -> None:
        """Write one line per running phase if ``interval`` seconds passed since the last report."""
        with self._lock:
            now = self.clock()
            if now - self.last_report < self.interval:
                return
            self.last_report = now
            for phase in self._phases.values():
                if not phase.finished:
                    self._write(self._running(phase, now))

    def _reporter(self) -> None:
        while not self._stop.wait(min(self.interval, 1.0)):
            self.report_due()

    def _stamp(self) -> str:
        elapsed = int(self.clock() - self.started)
        return f"[progress {elapsed // 3600}:{elapsed // 60 % 60:02d}:{elapsed % 60:02d}]"

    def _name(self, phase: _Phase) -> str:
        from leaderboard.cli.sanitize import plain

        return " ".join(plain(phase.description).split())

    def _running(self, phase: _Phase, now: float) -> str:
        elapsed = now - phase.started
        if not phase.total or phase.total <= 1 and phase.completed == 0:
            return f"{self._name(phase)}: running for {duration(elapsed)}"
        share = 100 * phase.completed / phase.total
        text = f"{self._name(phase)}: {_count(phase.completed)}/{_count(phase.total)} ({share:.1f}%)"
        if phase.completed > 0 and elapsed > 0:
            rate = phase.completed / elapsed
            text += f", {rate:,.1f}/s, ETA {duration(max(phase.total - phase.completed, 0) / rate)}"
        return text

    def _ended(self, phase: _Phase) -> str:
        elapsed = self.clock() - phase.started
        if not phase.total or phase.total <= 1:  # a phase without a count (loading, scoring)
            return f"{self._name(phase)}: done in {duration(elapsed)}"
        rate = f" ({phase.total / elapsed:,.1f}/s)" if elapsed > 0 else ""
        return f"{self._name(phase)}: {_count(phase.total)}/{_count(phase.total)} done in {duration(elapsed)}{rate}"

    def _write(self, line: str) -> None:
        try:
            self.stream.write(f"{self._stamp()} {line}\n")
            self.stream.flush()
        except (OSError, ValueError):  # a closed pipe must not stop the run
            pass
