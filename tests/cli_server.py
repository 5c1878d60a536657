"""A fork server for the tests' ``leaderboard`` commands: each command is a process of its own, as a user's is,
without paying the imports of the heavy libraries every time.

The server is a separate interpreter, started once per test process (``CliServer``). It imports the libraries
in ``PRELOAD`` (none reads the environment at import in a way a test changes: ``ENV_AT_IMPORT`` lists what they
read), then waits. For each command it forks a child that takes the command's environment, working folder,
arguments, stdin, stdout and stderr, and runs ``python -m leaderboard ARGS`` as the interpreter would: the
working folder first on ``sys.path``, then ``PYTHONPATH``'s folders, then the interpreter's own; the exit code
is the process's. Nothing of ``leaderboard`` (nor of the hub's libraries, which read their settings at import)
is imported before the fork: each command discovers its plugins and reads its settings afresh.

This file runs as a script: it imports nothing from the tests.
"""

from __future__ import annotations

import contextlib
import io
import json
import locale
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from typing import Any

# Libraries a command imports and a fresh interpreter would import alike.
PRELOAD = (
    "numpy",
    "scipy.sparse",
    "scipy.stats",
    "scipy.special",
    "pandas",
    "pydantic",
    "pydantic_core",
    "click",
    "rich.console",
    "rich.progress",
    "rich.table",
    "rich.markup",
    "pytrec_eval",
    "bm25s",
    "Stemmer",
    "pluggy",
    "packaging.version",
    "packaging.requirements",
    "platformdirs",
    "jsonschema",
    "yaml",
    "filelock",
    "urllib.request",
    "email.parser",
    "gzip",
    "difflib",
    "multiprocessing",
)

# Environment variables that the interpreter or a preloaded library reads once, at start or import: a command
# whose environment differs from the server's in one of them runs in a fresh interpreter instead.
ENV_AT_IMPORT = ("PYTHON", "NPY_", "NUMPY_", "OMP_", "OPENBLAS_", "MKL_", "BLIS_", "GOTO", "SCIPY_", "PANDAS_")
ENV_AT_IMPORT += ("LANG", "LC_", "TQDM_", "PYDANTIC_", "MALLOC_", "LD_")
ENV_KEPT: tuple[str, ...] = ()  # PYTHONPATH is read at start too: a sitecustomize or .pth file on it runs then


def at_import(name: str) -> bool:
    return name.startswith(ENV_AT_IMPORT) and name not in ENV_KEPT


def _exit_code(exc: SystemExit) -> int:
    """The process's exit code for ``sys.exit(code)``, as the interpreter computes it."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _streams() -> None:
    """sys.stdin, stdout and stderr over fds 0, 1 and 2 as a fresh interpreter makes them (none is a terminal)."""
    encoding = os.environ.get("PYTHONIOENCODING") or None
    sys.stdin = open(0, encoding=encoding, closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", encoding=encoding, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding=encoding, errors="backslashreplace", closefd=False, buffering=1)  # noqa: SIM115
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr


def _run_child(request: dict, fds: list[int], server_fds: list[int], signals: dict, base_path: list[str]) -> None:
    """In the forked child: become ``python -m leaderboard ARGS`` and exit with its code. Never returns."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        for number, handler in signals.items():
            signal.signal(number, handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in {*fds, *server_fds}:
            os.close(fd)
        import importlib

        importlib.invalidate_caches()
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.path[:] = [os.getcwd(), *[os.path.abspath(p) for p in extra], *base_path]
        _streams()
        sys.argv = ["leaderboard", *request["args"]]
        import runpy

        try:
            runpy.run_module("leaderboard", run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exc:
            code = _exit_code(exc)
        except BaseException:  # what the interpreter prints for an uncaught exception
            import traceback

            traceback.print_exc()
            code = 1
        import threading

        threading._shutdown()  # type: ignore[attr-defined]  # the interpreter's exit: wait for non-daemon threads
        import atexit

        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
        os._exit(code)


def serve(listener: socket.socket, alive: int) -> None:
    """Fork a child per request; answer each connection with the child's pid, then its exit code. Ends, killing
    every child still running, when ``alive`` (the test process's end of a pipe) closes."""
    signals = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGCHLD, signal.SIGTERM)}
    base_path = sys.path[1:]  # without this script's folder
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children: dict[int, socket.socket] = {}
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(wake_r, selectors.EVENT_READ)
    selector.register(alive, selectors.EVENT_READ)
    while True:
        for key, _ in selector.select():
            if key.fileobj is listener:
                conn, _ = listener.accept()
                _, fds, _, _ = socket.recv_fds(conn, 16, 4)
                with open(fds[3], encoding="utf-8") as told:
                    request = json.load(told)
                pid = os.fork()
                if pid == 0:
                    own = [listener.fileno(), wake_r, wake_w, alive, conn.fileno()]
                    own += [c.fileno() for c in children.values()]
                    _run_child(request, fds[:3], own, signals, base_path)
                for fd in fds[:3]:
                    os.close(fd)
                children[pid] = conn
                conn.sendall(f"{pid}\n".encode())
            elif key.fileobj == wake_r:
                os.read(wake_r, 4096)
                while children:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                    if pid == 0:
                        break
                    conn = children.pop(pid, None)
                    if conn is not None:
                        conn.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())
                        conn.close()
            elif not os.read(alive, 4096):  # the test process ended
                for pid in children:
                    os.kill(pid, signal.SIGKILL)
                return


def main() -> None:
    path, alive = sys.argv[1], int(sys.argv[2])
    import importlib

    for name in PRELOAD:
        with contextlib.suppress(ImportError):  # a library this install lacks: its commands say so themselves
            importlib.import_module(name)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    print("ready", flush=True)
    serve(listener, alive)


if __name__ == "__main__":
    main()


class CliServer:
    """The test process's end: starts the server on first use; ``run`` is ``subprocess.run`` for one command."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None
        self.env: dict[str, str] = {}

    def start(self) -> None:
        folder = tempfile.mkdtemp(prefix="leaderboard-cli-server-")
        self.path = os.path.join(folder, "socket")
        alive_r, self.alive = os.pipe()
        self.env = {k: v for k, v in os.environ.items() if k not in ENV_KEPT}
        self.proc = subprocess.Popen(
            [sys.executable, __file__, self.path, str(alive_r)],
            pass_fds=(alive_r,), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=self.env, cwd=folder,
        )  # fmt: skip
        os.close(alive_r)
        assert self.proc.stdout is not None
        if self.proc.stdout.readline() != b"ready\n":
            raise RuntimeError(f"the command server did not start ({self.proc.wait()})")

    def stop(self) -> None:
        if self.proc is not None:
            os.close(self.alive)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            shutil.rmtree(os.path.dirname(self.path), ignore_errors=True)
            self.proc = None

    def takes(self, env: dict[str, str]) -> bool:
        """Whether a command with this environment can run here (else: in a fresh interpreter)."""
        own = self.env if self.proc is not None else {k: v for k, v in os.environ.items() if k not in ENV_KEPT}
        return not any(at_import(name) and env.get(name) != own.get(name) for name in {*env, *own})

    def run(self, args: list[str], env: dict[str, str], cwd: str | None, timeout: float) -> subprocess.CompletedProcess:
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        request = {"args": args, "env": env, "cwd": os.path.abspath(cwd or os.getcwd())}
        command = [sys.executable, "-m", "leaderboard", *args]
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as told:
            told.write(json.dumps(request).encode())
            told.seek(0)
            stdin = os.open(os.devnull, os.O_RDONLY)
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.connect(self.path)
                socket.send_fds(conn, [b"r"], [stdin, out.fileno(), err.fileno(), told.fileno()])
                os.close(stdin)
                pid = int(_line(conn))
                conn.settimeout(timeout)
                try:
                    code = int(_line(conn))
                except TimeoutError:
                    os.kill(pid, signal.SIGKILL)
                    conn.settimeout(30)
                    _line(conn)
                    raise subprocess.TimeoutExpired(command, timeout, _text(out), _text(err)) from None
            return subprocess.CompletedProcess(command, code, _text(out), _text(err))


def _line(conn: socket.socket) -> bytes:
    """One line of the server's answer (a pid or an exit code)."""
    got = b""
    while not got.endswith(b"\n"):
        part = conn.recv(64)
        if not part:
            raise RuntimeError("the command server closed the connection")
        got += part
    return got


def _text(file: Any) -> str:
    """What the command wrote to ``file``, decoded as ``subprocess.run(text=True)`` does."""
    file.seek(0)
    return io.TextIOWrapper(io.BytesIO(file.read()), encoding=locale.getpreferredencoding(False)).read()
