"""Progress wherever the output goes (issue 32): with stderr a pipe or a file, a run prints plain progress lines
(phase, done/total, rate, ETA) at most every interval and at each phase's end; --quiet silences them."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

from conftest import run_cli

from leaderboard.cli.progress_lines import ProgressLines, duration
from leaderboard.progress import step, use_progress

LINE = re.compile(r"^\[progress \d+:\d\d:\d\d\] ")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _lines(stream: io.StringIO) -> list[str]:
    return [LINE.sub("", line) for line in stream.getvalue().splitlines()]


def test_a_phase_reports_done_total_rate_and_eta_at_most_once_an_interval_and_when_it_ends():
    clock, stream = Clock(), io.StringIO()
    lines = ProgressLines(stream, interval=15, clock=clock, background=False)
    with lines, use_progress(lines):
        with step("loading model m"):
            clock.now += 20
            lines.report_due()  # a phase without a count: how long it has run
        with step("encoding corpus", total=1000) as bar:
            for _ in range(10):  # advancing faster than the interval writes nothing in between
                clock.now += 1
                bar.advance(25)
                lines.report_due()
            clock.now += 10
            bar.advance(50)
            lines.report_due()  # 20 s after the last report: one line
            lines.report_due()  # at once again: nothing
            clock.now += 80
            bar.advance(700)
    assert _lines(stream) == [
        "loading model m: running for 20.0s",
        "loading model m: done in 20.0s",
        "encoding corpus: 300/1,000 (30.0%), 15.0/s, ETA 46.7s",
        "encoding corpus: 1,000/1,000 done in 1m40s (10.0/s)",
    ]
    assert all(LINE.match(line) for line in stream.getvalue().splitlines())


def test_a_phase_mirrored_from_ray_ends_once():
    """The Ray mirror sets totals and completed counts directly, again and again: one end line."""
    clock, stream = Clock(), io.StringIO()
    lines = ProgressLines(stream, interval=15, clock=clock, background=False)
    task = lines.add_task("job 1 · encoding corpus", total=None)
    lines.update(task, total=200, completed=50)
    clock.now += 4
    lines.update(task, total=200, completed=200)
    lines.update(task, total=200, completed=200)
    assert _lines(stream) == ["job 1 · encoding corpus: 200/200 done in 4.0s (50.0/s)"]


def test_a_phase_that_fails_is_not_reported_as_done():
    import pytest

    clock, stream = Clock(), io.StringIO()
    lines = ProgressLines(stream, interval=15, clock=clock, background=False)
    with use_progress(lines), pytest.raises(ValueError), step("loading data"):
        raise ValueError("bad row")
    clock.now += 60
    lines.report_due()
    assert stream.getvalue() == ""


def test_durations_read_as_a_person_writes_them():
    assert [duration(s) for s in (8.24, 288, 3720)] == ["8.2s", "4m48s", "1h02m"]


def test_a_run_piped_prints_progress_lines_and_quiet_silences_them(tmp_path):
    ran = run_cli("run", "-m", "bm25", "-t", "demo", "--output", str(tmp_path / "a"))  # stderr is a pipe
    assert ran.returncode == 0, ran.stderr
    progress = [line for line in ran.stderr.splitlines() if LINE.match(line)]
    phases = [LINE.sub("", line) for line in progress]
    assert any(p.startswith("loading model bm25: done in ") for p in phases), ran.stderr
    assert any(re.match(r"searching \(bm25\): 12/12 done in \S+ \([\d,.]+/s\)", p) for p in phases), ran.stderr
    quiet = run_cli("run", "-m", "bm25", "-t", "demo", "--output", str(tmp_path / "b"), "--quiet")
    assert quiet.returncode == 0 and not [line for line in quiet.stderr.splitlines() if LINE.match(line)]
    assert "bm25" in quiet.stdout  # the results table is still printed


def test_a_slow_phase_reports_while_it_runs():
    """A phase that has not ended is reported every interval: the phase below waits until a line about it
    has been written (it never sleeps on the clock), in a process whose stderr is a pipe."""
    script = """
import sys, threading
from leaderboard.cli.console import progress
from leaderboard.progress import step, use_progress

reported = threading.Event()

class Watched:  # stderr, noticing the progress line about the running phase
    def __init__(self, real):
        self.real = real
    def write(self, text):
        if "searching: 3/10" in text:
            reported.set()
        return self.real.write(text)
    def __getattr__(self, name):
        return getattr(self.real, name)

sys.stderr = Watched(sys.stderr)
with progress() as bar, use_progress(bar):
    with step("searching", total=10) as phase:
        phase.advance(3)
        assert reported.wait(120), "no progress line while the phase ran"
        phase.advance(7)
"""
    env = {**os.environ, "LEADERBOARD_PROGRESS_INTERVAL": "0.1"}
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert ran.returncode == 0, ran.stderr
    phases = [LINE.sub("", line) for line in ran.stderr.splitlines()]
    assert phases[0].startswith("searching: 3/10 (30.0%), ") and "/s, ETA " in phases[0], phases
    assert phases[-1].startswith("searching: 10/10 done in "), phases
