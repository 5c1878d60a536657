"""Run a submitted plugin's code in its own folder, with limits, without secrets.

Every command that runs submitted code (pip installing the plugin, which may build it; the
evaluation; any probe of the plugin's environment) goes through ``Sandbox.run``:

- **Environment**: an allow-list (``SAFE_ENV``; a name that looks like a secret, or a value shaped like a
  credential, is refused when an operator asks to pass it with ``--pass-env``; ``--pass-secret`` passes
  one on purpose, and the worker redacts its encoded forms), with HOME, TMPDIR, the XDG folders and
  HF_HOME inside the folder: no HF_TOKEN, no cloud keys, no token file found through HF_HOME.
- **Limits**: wall-clock time (the whole process group is killed), address space (RLIMIT_AS: a
  10 GB allocation fails with MemoryError) and file size (RLIMIT_FSIZE), set by a small launcher
  (``_LIMITS``) before it execs the command, so nothing runs between fork and exec in the worker.
  The launcher also asks the kernel to kill the command when the worker dies (PR_SET_PDEATHSIG).
- **Output**: read through a pipe into a bounded head and tail; a plugin printing forever fills
  neither memory nor disk.
- **Files** (isolation "bwrap", the default): bubblewrap (the sandbox Flatpak uses, unprivileged
  user namespaces) mounts the whole file system read-only, hides the worker's home and Hugging
  Face folder behind empty ones (re-showing, read-only, only what the run needs: the Python
  installation, the harness, the data), gives a fresh /proc in a new PID namespace (the worker's
  processes and their environment are invisible; every process of the run dies with it) and makes
  only its own folder writable. Isolation "process" (no bubblewrap here) keeps the environment,
  limits and output rules, runs as the worker's user with its file access, and can only detect
  afterwards that watched folders (the task data, the harness) changed. Since that user's files and
  processes are in reach, it refuses to start while a credential lies there, found by name or by value
  (``check_process_isolation``, ``security.credentials``), keeps the worker's own memory unreadable
  (``protect_memory``), sheds root's capabilities in the launcher, and refuses ``--no-network``, which it
  could not enforce.
"""

from __future__ import annotations

import collections
import contextlib
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from leaderboard.errors import BadInput
from leaderboard.security.credentials import findings, token_file_paths
from leaderboard.security.redaction import SECRET_NAME, token_kind

Isolation = Literal["bwrap", "process"]

# What a run may see of the worker's environment: locale, search path, device selection, offline flags.
SAFE_ENV = (
    "PATH",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TERM",
    "CUDA_VISIBLE_DEVICES",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "HF_HUB_OFFLINE",
    "HF_DATASETS_OFFLINE",
    "TRANSFORMERS_OFFLINE",
    "HF_HUB_DISABLE_TELEMETRY",
)

HEAD_LINES, TAIL_LINES, LINE_CHARS = 60, 240, 2000

# The launcher: set the limits, die with the worker, shed root's capabilities, exec the command.
# argv: address-space bytes, file-size bytes, the worker's pid, "1" to drop capabilities, the command...
# Dropping every capability from the bounding set (and the ambient set) leaves a process run as root
# with no capability after exec: without CAP_SYS_PTRACE it cannot read the worker's memory or environ
# (the worker is not dumpable), as bubblewrap's --cap-drop ALL does in its own isolation.
_LIMITS = """
import os, resource, sys
for name, value in (("RLIMIT_AS", sys.argv[1]), ("RLIMIT_FSIZE", sys.argv[2])):
    if int(value) > 0:
        resource.setrlimit(getattr(resource, name), (int(value), int(value)))
if sys.platform == "linux":
    import ctypes, signal
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: killed when the worker dies
    if os.getppid() != int(sys.argv[3]):
        sys.exit(137)  # the worker died before prctl took effect
    if sys.argv[4] == "1":
        last = int(open("/proc/sys/kernel/cap_last_cap").read())
        for cap in range(last + 1):
            if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
                sys.exit(f"cannot drop capability {cap}: errno {ctypes.get_errno()}")
        libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL
        status = open("/proc/self/status").read()
        if "CapInh:\t0000000000000000" not in status:
            sys.exit("cannot run without capabilities: this process inherits some (CapInh)")
try:
    os.execvp(sys.argv[5], sys.argv[5:])
except OSError as exc:
    sys.exit(f"cannot run {sys.argv[5]}: {exc}")
"""


@dataclass(frozen=True)
class Limits:
    seconds: float
    memory_bytes: int = 0  # 0: none
    file_bytes: int = 0

    def described(self) -> str:
        memory = f"{self.memory_bytes / 2**30:g} GiB of memory" if self.memory_bytes else "no memory limit"
        return f"{self.seconds:g} s, {memory}"


@dataclass
class Outcome:
    returncode: int | None
    reason: str | None  # None: it succeeded
    log: str
    changed: list[str] = field(default_factory=list)  # isolation "process": watched files that changed

    @property
    def ok(self) -> bool:
        return self.reason is None


def bwrap_available() -> bool:
    """bubblewrap is installed and can create its namespaces here (containers often forbid them)."""
    path = shutil.which("bwrap")
    if path is None:
        return False
    probe = [path, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc", "true"]
    try:
        return subprocess.run(probe, capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def choose_isolation(wanted: str) -> Isolation:
    if wanted == "process":
        return "process"  # the worker checks it can keep credentials out of reach (check_process_isolation)
    if bwrap_available():
        return "bwrap"
    raise BadInput(
        "--isolation bwrap: bubblewrap (bwrap) is not installed or cannot create user namespaces here. "
        "Install it (apt-get install bubblewrap), or pass --isolation process to run plugins with limits "
        "but with this user's file access, which refuses to start while this worker holds a credential "
        "(see docs/explanation/threat-model.md)."
    )


def check_process_isolation(network: bool, passed: Iterable[str] = ()) -> None:
    """BadInput unless isolation "process" can keep every credential out of a plugin's reach here.

    Without namespaces a plugin runs as the worker's user: it reads that user's files and the
    environment of that user's processes (/proc/<pid>/environ). So this mode refuses to start while
    a credential lies there (``security.credentials``): a variable that is secret-named or holds a
    token-shaped value, in the worker's environment or in a process it descends from, or a Hugging Face
    token file, the default one included. ``passed``: the values an operator passes to runs on purpose
    (``--pass-secret``). The token the worker writes with then comes on its standard input
    (``--token-stdin``) and stays in the worker's memory, which the worker makes unreadable to other
    processes (``protect_memory``). It cannot cut a plugin off the network either.
    """
    problems = [str(finding) for finding in findings(exempt=set(passed))]
    if not network:
        problems.append("--no-network cannot be enforced without bubblewrap's network namespace")
    if problems:
        raise BadInput(
            "--isolation process: a plugin runs as this user, and can read this user's files and the "
            "environment of its processes (/proc/<pid>/environ); refusing to start because of "
            + "; ".join(problems)
            + ". Use --isolation bwrap (the default; install bubblewrap), or start the worker from a shell that "
            "holds no credential (no secret-named or token-valued variable) and with no token file, giving the "
            "token with --token-stdin (and without --no-network)."
        )


def protect_memory() -> None:
    """Make this process non-dumpable (Linux): other processes of this user, and root without
    CAP_SYS_PTRACE, can then read neither its memory nor its /proc/<pid>/environ, nor trace it."""
    if sys.platform == "linux":
        import ctypes

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0


def checked_pass_env(
    names: Iterable[str], secrets: Iterable[str] = (), environ: Mapping[str, str] | None = None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(--pass-env names, --pass-secret names), checked: a name that looks like a secret, or a value shaped
    like a credential, is refused under --pass-env; --pass-secret passes it on purpose (and its forms are
    redacted from everything published, ``security.redaction.secret_forms``)."""
    environ = os.environ if environ is None else environ
    names, secrets = tuple(names), tuple(secrets)
    bad = [name for name in (*names, *secrets) if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name)]
    if bad:
        raise BadInput(f"--pass-env/--pass-secret {', '.join(bad)}: not an environment variable name.")
    refused = [name for name in names if SECRET_NAME.search(name)]
    if refused:
        raise BadInput(
            f"--pass-env {', '.join(refused)}: looks like a secret; a plugin's run never sees credentials unless "
            "you pass one on purpose with --pass-secret NAME."
        )
    shaped = [f"{name} (a {kind})" for name in names if (kind := token_kind(environ.get(name) or ""))]
    if shaped:
        raise BadInput(
            f"--pass-env {', '.join(shaped)}: its value has the shape of a credential; a plugin's run never sees "
            "one unless you mark it with --pass-secret NAME, which also redacts its encoded forms (base64, hex, "
            "reversed) from everything published about the run."
        )
    return names, secrets


def secret_values(secrets: Iterable[str], environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of the --pass-secret variables that are set."""
    environ = os.environ if environ is None else environ
    return [environ[name] for name in secrets if environ.get(name)]


def hidden_by_default() -> list[Path]:
    """Where a worker's credentials live: its home (token files, ~/.netrc, ~/.ssh), the HF folder, and the
    token files themselves (masked even where a folder a run reads holds them)."""
    from huggingface_hub import constants

    return [Path.home(), Path(constants.HF_HOME), Path(constants.HF_TOKEN_PATH).parent, *token_file_paths()]


def needed_by_python() -> list[Path]:
    """What a run of this harness reads: the interpreter, its libraries, and this checkout (editable installs)."""
    paths = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent]
    paths += [Path(p) for p in sys.path if p and Path(p).is_absolute()]
    paths.append(Path(__file__).resolve().parents[2])  # the folder holding leaderboard/
    return paths


class Sandbox:
    def __init__(
        self,
        folder: Path,
        isolation: Isolation,
        network: bool = True,
        *,
        pass_env: tuple[str, ...] = (),
        pass_secrets: tuple[str, ...] = (),
        readable: Iterable[Path] = (),
        watched: Iterable[Path] = (),
        hidden: Iterable[Path] | None = None,
        settings: dict[str, str] | None = None,
    ):
        self.folder = Path(folder).resolve()
        self.settings = dict(settings or {})  # variables the worker sets for the run (not taken from its own)
        self.isolation, self.network = isolation, network
        self.pass_env, self.pass_secrets = checked_pass_env(pass_env, pass_secrets)
        self.readable = [Path(p).resolve() for p in [*needed_by_python(), *readable]]
        self.watched = [Path(p).resolve() for p in watched]
        self.hidden = [Path(p).resolve() for p in (hidden_by_default() if hidden is None else hidden)]
        for name in ("home", "tmp", "cache", "config", "hf"):
            (self.folder / name).mkdir(parents=True, exist_ok=True)

    # -- what the command sees ---------------------------------------------------------------------
    def environment(self) -> dict[str, str]:
        passed = (*SAFE_ENV, *self.pass_env, *self.pass_secrets)
        env = {name: os.environ[name] for name in passed if name in os.environ}
        return (
            env
            | self.settings
            | {
                "HOME": str(self.folder / "home"),
                "TMPDIR": str(self.folder / "tmp"),
                "XDG_CACHE_HOME": str(self.folder / "cache"),
                "XDG_CONFIG_HOME": str(self.folder / "config"),
                "HF_HOME": str(self.folder / "hf"),
                "PYTHONNOUSERSITE": "1",
                "PYTHONDONTWRITEBYTECODE": "1",  # no .pyc beside the harness's sources: only its folder changes
                "PIP_NO_INPUT": "1",
                "PIP_DISABLE_PIP_VERSION_CHECK": "1",
                "GIT_TERMINAL_PROMPT": "0",
                "LEADERBOARD_DEBUG": "1",  # the traceback of a failing plugin goes into its log, for its author
            }
        )

    def bwrap_args(self, network: bool) -> list[str]:
        args = [shutil.which("bwrap") or "bwrap", "--unshare-all", "--die-with-parent", "--new-session"]
        args += ["--cap-drop", "ALL"] if os.geteuid() == 0 else []
        args += ["--share-net"] if network else []
        args += ["--ro-bind", "/", "/", "--dev", "/dev", "--tmpfs", "/dev/shm", "--proc", "/proc"]
        for device in sorted(glob.glob("/dev/nvidia*")):  # GPUs (untested here: this machine has none)
            args += ["--dev-bind", device, device]
        hidden = [h for h in self.hidden if h.is_dir() and h != Path("/")]
        for path in _outermost(hidden):
            args += ["--tmpfs", str(path)]
        for path in self.readable:
            if path.exists() and any(path == h or h in path.parents for h in hidden):
                args += ["--ro-bind", str(path), str(path)]
        # A secret file (the queue key, a token file) stays hidden even inside a folder bound back above
        # (the checkout, the venv, a data folder): masked last, so no later mount shows it again.
        for path in sorted({h for h in self.hidden if h.is_file()}):
            args += ["--ro-bind", "/dev/null", str(path)]
        return [*args, "--bind", str(self.folder), str(self.folder), "--chdir", str(self.folder), "--"]

    # -- running ------------------------------------------------------------------------------------
    def run(
        self, command: list[str], limits: Limits, network: bool | None = None, stop: threading.Event | None = None
    ) -> Outcome:
        """Run ``command`` in the folder; ``stop`` set by another thread (a lost lease) kills it early."""
        network = self.network if network is None else network
        wrapped = self.bwrap_args(network) + command if self.isolation == "bwrap" else list(command)
        launcher = [
            sys.executable,
            "-I",
            "-c",
            _LIMITS,
            str(limits.memory_bytes),
            str(limits.file_bytes),
            str(os.getpid()),
            "1" if self.isolation == "process" and os.geteuid() == 0 else "0",
        ]
        before = _fingerprint(self.watched) if self.isolation == "process" else {}
        output = _Output()
        started = time.monotonic()
        proc = subprocess.Popen(
            [*launcher, *wrapped],
            cwd=self.folder,
            env=self.environment(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: killed as one
        )
        reader = threading.Thread(target=output.read, args=(proc.stdout,), daemon=True)
        reader.start()
        reason = None
        while True:
            try:
                proc.wait(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                pass
            if time.monotonic() - started > limits.seconds:
                reason = f"time limit exceeded: stopped after {limits.seconds:g} s"
            elif stop is not None and stop.is_set():
                reason = "stopped: this worker lost the request's lease"
            if reason:
                _kill_group(proc)
                break
        proc.wait()
        reader.join(timeout=10)
        log = output.text()
        reason = reason or _failure(proc.returncode, log, limits)
        changed = _changes(before, _fingerprint(self.watched)) if self.isolation == "process" else []
        if changed and reason is None:
            shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
            reason = f"wrote outside its folder: changed {shown}"
        return Outcome(proc.returncode, reason, log, changed)


def _outermost(paths: list[Path]) -> list[Path]:
    ordered = sorted(set(paths), key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in ordered:
        if not any(k in path.parents for k in kept):
            kept.append(path)
    return kept


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def _failure(returncode: int, log: str, limits: Limits) -> str | None:
    """Why a finished command failed, in words, from its exit status and its last lines."""
    if returncode == 0:
        return None
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    if returncode < 0:
        name = signal.Signals(-returncode).name if -returncode in signal.Signals._value2member_map_ else returncode
        if -returncode == signal.SIGXFSZ:
            return f"killed by {name}: a file exceeded the size limit of {limits.file_bytes / 2**30:g} GiB"
        return f"killed by signal {name}"
    if any("MemoryError" in line for line in lines[-20:]):
        return f"ran out of memory: the limit is {limits.memory_bytes / 2**30:g} GiB (MemoryError)"
    # `leaderboard` prints one "Error: ..." or "Internal error: ..." line (then, with LEADERBOARD_DEBUG, the
    # traceback, which stays in the log for the plugin's author); other commands: their last error-like line.
    said = next((line for line in reversed(lines) if line.startswith(("Error:", "Internal error:"))), None)
    said = said or next((line for line in reversed(lines) if re.search(r"(?i)error|exception|exit", line)), None)
    said = re.sub(r"\s*\(set LEADERBOARD_DEBUG=1 for the traceback\)", "", said or "")
    return f"exited with code {returncode}" + (f": {said[:500]}" if said else "")


class _Output:
    """The first HEAD_LINES and the last TAIL_LINES lines of a stream, each cut to LINE_CHARS."""

    def __init__(self) -> None:
        self.head: list[str] = []
        self.tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
        self.dropped = 0

    def read(self, stream) -> None:
        for raw in iter(lambda: stream.readline(LINE_CHARS * 4), b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")[:LINE_CHARS]
            if len(self.head) < HEAD_LINES:
                self.head.append(line)
                continue
            if len(self.tail) == TAIL_LINES:
                self.dropped += 1
            self.tail.append(line)
        stream.close()

    def text(self) -> str:
        cut = [f"[... {self.dropped} lines cut ...]"] if self.dropped else []
        return "\n".join([*self.head, *cut, *self.tail])


MAX_WATCHED = 300_000


def _fingerprint(roots: list[Path]) -> dict[str, tuple[int, int]]:
    """path -> (size, mtime_ns) of every file under the watched folders (bounded)."""
    seen: dict[str, tuple[int, int]] = {}
    for root in roots:
        for folder, dirs, files in os.walk(root):
            for name in [*files, *dirs]:
                path = os.path.join(folder, name)
                try:
                    stat = os.lstat(path)
                except OSError:
                    continue
                seen[path] = (stat.st_size, stat.st_mtime_ns)
                if len(seen) >= MAX_WATCHED:
                    return seen
    return seen


def _changes(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
