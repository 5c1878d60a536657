"""Shared helpers for the Chromium tests of the app and the Space: every wait is for a state, never for time.

A browser test on a busy machine (CI runs beside other work) must wait for the exact state it checks:
- a value or text: Playwright's ``expect(locator)`` assertions, which retry until they hold;
- the URL: ``wait_url(page, name, value)`` / ``wait_url_lacks`` (the page writes it before the event's
  request is sent, so it says nothing about the server's answer);
- a redrawn tab: the view it shows, by the data attributes each tab writes on its drawing
  (``tab_view(page, "provenance", benchmark=...)``, ``board_view(page, benchmark=..., sort=...)``,
  ``comparison(page, a=..., b=...)``), never a selector that the previous drawing also matches;
- that nothing changed (a check of absence): ``events_done(page)`` first, which waits until every Gradio
  event the page has sent is answered and drawn;
- a screenshot: ``settle(page)`` (events answered, no progress overlay, fonts and charts drawn);
  ``publish_screenshots`` copies a module's shots to docs/screenshots/ with LEADERBOARD_UPDATE_SCREENSHOTS=1.
Timeouts only bound a failure (``TIMEOUT``); they are never the thing waited for.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
DESKTOP, PHONE = {"width": 1440, "height": 900}, {"width": 390, "height": 844}
SIZES = {"desktop": DESKTOP, "phone": PHONE}
TIMEOUT = 120_000  # ms: a bound on a failure under load, not a wait (every wait ends when its state holds)
START_SECONDS = 240  # a server's start, under load
expect.set_options(timeout=TIMEOUT)  # expect() retries until its state holds, as long as any other wait
# an event's request and its answer's stream (queued), or its one request (``tabs.base.SELECT_QUEUE``)
GRADIO_EVENTS = ("/gradio_api/queue/join", "/gradio_api/queue/data", "/gradio_api/run/")
NEXT_FRAMES = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_log(work: Path) -> Any:
    """A file for a server's stdout and stderr. Never a pipe: a pipe nobody reads fills (64 KiB) and the
    server then blocks in its next print, with a reader's event half answered (seen under load, where
    Gradio and uvicorn log more)."""
    work.mkdir(parents=True, exist_ok=True)
    return open(work / f"server-{os.getpid()}-{time.monotonic_ns()}.log", "w+b")


def log_text(proc: subprocess.Popen) -> str:
    """What the server wrote (to its ``server_log`` file, or its pipe once it has ended)."""
    if proc.stdout is None:
        return ""
    if getattr(proc.stdout, "name", None) and isinstance(proc.stdout.name, str):
        return Path(proc.stdout.name).read_bytes().decode(errors="replace")
    return proc.stdout.read().decode(errors="replace")


SERVERS: dict[str, subprocess.Popen] = {}  # URL -> a `leaderboard serve` process (``serving``), for diagnoses


def queue_status(page_url: str) -> str:
    """Gradio's /queue/status (JSON) of the server behind ``page_url``; raises OSError when unreadable."""
    url = next((url for url in SERVERS if page_url.startswith(url)), page_url.split("?")[0])
    with urllib.request.urlopen(url + "gradio_api/queue/status", timeout=10) as answer:
        return answer.read().decode(errors="replace")


def server_state(page_url: str) -> str:
    """What the server behind ``page_url`` is doing: Gradio's queue status and every thread's stack
    (``leaderboard serve`` prints them on SIGUSR1), for a failure message."""
    found = [proc for url, proc in SERVERS.items() if page_url.startswith(url)]
    if not found:
        return "(not a server started by serving(): no diagnosis)"
    (proc,) = found
    try:
        status = queue_status(page_url)
    except OSError as exc:
        status = f"unreadable: {exc}"
    before = log_text(proc).count("Thread 0x")
    proc.send_signal(signal.SIGUSR1)
    deadline = time.monotonic() + 30  # bounds a server that cannot even print
    while log_text(proc).count("Thread 0x") == before and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    return f"queue status: {status}\nserver log (tail):\n{log_text(proc)[-12000:]}"


def wait_until_served(url: str, proc: subprocess.Popen, seconds: float = START_SECONDS) -> None:
    """Until ``url`` answers (the server's own start: no page to wait on yet); fails if the process ends."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited ({proc.returncode}):\n{log_text(proc)}") from None
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server did not answer within {seconds} s") from None
            time.sleep(0.2)


@contextlib.contextmanager
def serving(command: list[str], env: dict[str, str], port: int, cwd: Path | None = None) -> Iterator[str]:
    """Run a server command listening on 127.0.0.1:``port``; yield its URL; stop it after."""
    log = server_log(Path(tempfile.gettempdir()) / "leaderboard-test-servers")
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=cwd)
    proc.stdout = log  # log_text reads it
    url = f"http://127.0.0.1:{port}/"
    SERVERS[url] = proc
    try:
        wait_until_served(url, proc)
        yield url
    except BaseException:
        # while the server still runs: its queue and every thread's stack, in its log and the failure's output
        if proc.poll() is None:
            print(server_state(url))
        raise
    finally:
        SERVERS.pop(url, None)
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        print(f"server log: {log.name} ({Path(log.name).stat().st_size} bytes)")
        log.close()


def serve_results(root: Path, env: dict[str, str], *extra: str) -> contextlib.AbstractContextManager[str]:
    """``leaderboard serve --public`` over a results folder."""
    port = free_port()
    command = [sys.executable, "-m", "leaderboard", "serve", "--results", str(root), "--port", str(port), "--public"]
    return serving([*command, *extra], env, port)


_SHARED: dict[str, Any] = {}  # "playwright", "browser": one Chromium per test process


def shared_browser() -> Any:
    """Debian's Chromium, driven by Playwright: one per test process at a time (each pytest-xdist worker has its
    own), started on first use and stopped by ``stop_shared_browser`` (after each module that used it: the sync
    API keeps an event loop running in this thread). Every test opens its own pages; none closes the browser."""
    browser = _SHARED.get("browser")
    if browser is None or not browser.is_connected():
        if "playwright" not in _SHARED:
            from playwright.sync_api import sync_playwright

            _SHARED["playwright"] = sync_playwright().start()
        _SHARED["browser"] = _SHARED["playwright"].chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    return _SHARED["browser"]


def stop_shared_browser() -> None:
    browser, playwright = _SHARED.pop("browser", None), _SHARED.pop("playwright", None)
    with contextlib.suppress(Exception):  # a browser that crashed is already gone
        if browser is not None:
            browser.close()
    if playwright is not None:
        playwright.stop()


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """The shared Chromium (``shared_browser``) for the block: the pages the block opened are closed after it,
    and the browser too if the block started it."""
    started = "browser" not in _SHARED
    browser = shared_browser()
    before = set(OPEN_PAGES)
    try:
        yield browser
    finally:
        for page in [p for p in OPEN_PAGES if p not in before]:
            with contextlib.suppress(Exception):
                page.close()
        if started:
            stop_shared_browser()


OPEN_PAGES: list[Any] = []  # pages not yet closed, oldest first: a failing test's are photographed (conftest)


def new_page(browser: Any, size: dict = DESKTOP) -> Any:
    """A page that counts its Gradio events in flight (``events_done``) and records dialogs (none expected)."""
    page = browser.new_page(viewport=size, accept_downloads=True)
    OPEN_PAGES.append(page)
    page.on("close", lambda closed: OPEN_PAGES.remove(closed) if closed in OPEN_PAGES else None)
    page.set_default_timeout(TIMEOUT)
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    pending: set[Any] = set()
    page.gradio_pending = pending

    def started(request: Any) -> None:
        if any(part in request.url for part in GRADIO_EVENTS):
            pending.add(request)

    def ended(request: Any) -> None:
        pending.discard(request)

    page.on("request", started)
    page.on("requestfinished", ended)
    page.on("requestfailed", ended)
    return page


READY = ".board-view"  # the page load always draws the board (of the link's benchmark, or the landing page)


def open_page(browser: Any, server: str, size: dict = DESKTOP, query: str = "", ready: str = READY) -> Any:
    """The app at ``server + query``, once its page load has drawn (``ready``: what the load draws)."""
    from playwright.sync_api import Error as PlaywrightError

    page = new_page(browser, size)
    try:
        page.goto(server + query)
        page.wait_for_selector(ready, state="attached")
    except PlaywrightError as exc:  # what the server was doing meanwhile: its queue and every thread's stack
        state = server_state(page.url)
        raise AssertionError(f"{server + query}: the page load never drew {ready!r} ({exc})\n{state}") from exc
    return page


def queue_empty(page_url: str) -> bool:
    """Gradio's queue holds no event waiting (its /queue/status), for the server behind ``page_url``."""
    try:
        return json.loads(queue_status(page_url)).get("queue_size") == 0
    except (OSError, ValueError):
        return False


def events_done(page: Any, open_stream_ok: bool = False) -> None:
    """Every Gradio event the page has sent is answered and drawn.

    The page first gets two frames to send what the last action started (its handlers run in them);
    then each event's request and answer stream is awaited; then two frames to draw the answer.

    ``open_stream_ok`` (before a screenshot, once the test has checked what it shows): an answer stream
    (``queue/data``) may stay open with nothing left to answer. Gradio closes a session's stream only
    when its last pending event completes, and it once kept one open with no request queued and every
    server thread idle (its stacks, taken by ``server_state``, in the failures of
    test_comparison_view_equals_the_compare_statistics). So with no event request in flight, an empty
    queue and no progress shown, such a stream counts as answered.
    """
    page.evaluate(NEXT_FRAMES)
    deadline = time.monotonic() + TIMEOUT / 1000
    while page.gradio_pending:
        if (
            open_stream_ok
            and all("/queue/data" in r.url for r in page.gradio_pending)
            and not page.evaluate("() => !!document.querySelector('[data-testid=status-tracker]:not(.hide)')")
            and queue_empty(page.url)
        ):
            break
        if time.monotonic() > deadline:
            urls = [r.url for r in page.gradio_pending]
            raise AssertionError(f"Gradio events still in flight: {urls}\n{server_state(page.url)}")
        page.wait_for_timeout(50)  # lets Playwright deliver the network events it polls (a state, not a delay)
    page.evaluate(NEXT_FRAMES)


def wait_url(page: Any, parameter: str, value: str) -> None:
    page.wait_for_function(
        "([p, v]) => new URL(location.href).searchParams.get(p) === v", arg=[parameter, value], timeout=TIMEOUT
    )


def wait_url_has(page: Any, parameter: str, value: str) -> bool:
    """The URL's list parameter (``a|b``) holds ``value``."""
    page.wait_for_function(
        "([p, v]) => (new URL(location.href).searchParams.get(p) || '').split('|').includes(v)",
        arg=[parameter, value],
        timeout=TIMEOUT,
    )
    return True


def wait_url_lacks(page: Any, parameter: str) -> bool:
    page.wait_for_function("(p) => !new URL(location.href).searchParams.has(p)", arg=parameter, timeout=TIMEOUT)
    return True


def select_benchmark(page: Any, name: str) -> None:
    """Pick a benchmark in the selector; returns once the board shows it (not only once the URL names it)."""
    page.locator("#benchmark-select input").click()
    page.get_by_role("option", name=name, exact=True).click()
    wait_url(page, "benchmark", name)
    board_view(page, benchmark=name)


def tab_view(page: Any, tab: str, **attributes: str) -> Any:
    """The drawing of tab ``tab`` (``<div class="{tab}-view" data-...>``, written by the app's tabs) once its
    data attributes equal ``attributes`` (``benchmark=``, ``sort=``, ``page=``, ``a=``, ...): the view asked
    for, not the previous one still on screen."""
    selector = f".{tab}-view"
    page.wait_for_function(
        "([selector, wanted]) => { const e = document.querySelector(selector); "
        "return !!e && Object.entries(wanted).every(([k, v]) => e.dataset[k] === v); }",
        arg=[selector, attributes],
        timeout=TIMEOUT,
    )
    return page.locator(selector)


def board_view(page: Any, **attributes: str) -> Any:
    """The Leaderboard tab's table once it shows ``attributes`` (benchmark=, sort=, page=)."""
    return tab_view(page, "board", **attributes)


def comparison(page: Any, **attributes: str) -> Any:
    """The Compare tab's view once it compares ``attributes`` (benchmark=, a=, b=: the pickers' values)."""
    return tab_view(page, "compare", **attributes)


def settle(page: Any) -> None:
    """Before a screenshot: events answered, no progress overlay, web fonts loaded, every chart drawn."""
    events_done(page, open_stream_ok=True)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=status-tracker]:not(.hide)')", timeout=TIMEOUT, polling=100
    )
    page.evaluate("() => document.fonts.ready.then(() => true)")
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('.view-plot, #size-plot'))"
        ".filter((p) => p.offsetParent !== null)"
        ".every((p) => p.querySelector('canvas.marks, svg.marks') || p.querySelector('.empty'))"
        " || !document.querySelector('.view-plot, #size-plot')",
        timeout=TIMEOUT,
    )
    page.evaluate(NEXT_FRAMES)


def in_viewport(locator: Any, viewport: dict) -> bool:
    box = locator.bounding_box()
    return (
        bool(box)
        and box["x"] >= 0
        and box["x"] + box["width"] <= viewport["width"]
        and (box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"])
    )


def publish_screenshots(folder: Path, docs: Path) -> None:
    """With LEADERBOARD_UPDATE_SCREENSHOTS=1: copy the PNGs a test module wrote to ``docs`` (docs/screenshots/),
    replacing those of the same name only (other modules' screenshots stay)."""
    if os.environ.get("LEADERBOARD_UPDATE_SCREENSHOTS") != "1":
        return
    docs.mkdir(parents=True, exist_ok=True)
    for shot in sorted(folder.glob("*.png")):
        shutil.copy(shot, docs / shot.name)


def fully_shown(locator: Any) -> bool:
    """The element is inside the window and not cut by any ancestor that clips (a table's scroll box)."""
    return locator.evaluate(
        """(e) => { const r = e.getBoundingClientRect();
        if (r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) return false;
        for (let p = e.parentElement; p; p = p.parentElement) {
          const s = getComputedStyle(p);
          if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
          const c = p.getBoundingClientRect();
          if (r.left < c.left - 0.5 || r.right > c.right + 0.5 || r.top < c.top - 0.5 || r.bottom > c.bottom + 0.5)
            return false;
        }
        return true; }"""
    )


def chromium_missing() -> bool:
    return not os.path.exists(CHROMIUM)


def save_failure(pages: list[Any], folder: Path) -> list[str]:
    """A failing browser test's evidence in ``folder``: a screenshot of each page it left open, and the log of
    the server behind each (``serving``). Lines naming each file, for the failure's report."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for number, page in enumerate(pages, start=1):
        try:
            url = page.url
        except Exception:  # a page whose browser is gone
            continue
        shot = folder / f"failure-page-{number}.png"
        try:
            page.screenshot(path=str(shot), full_page=True, timeout=30_000)
            lines.append(f"screenshot of {url}: {shot}")
        except Exception as exc:  # the evidence must not hide the failure
            lines.append(f"no screenshot of {url}: {exc}")
        server = next((proc for base, proc in SERVERS.items() if url.startswith(base)), None)
        if server is not None:
            log = folder / f"failure-server-{number}.log"
            log.write_text(log_text(server), encoding="utf-8")
            lines.append(f"log of the server at {url.split('?')[0]}: {log}")
    return lines
