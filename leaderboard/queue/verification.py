"""`leaderboard verify`: re-run a sample of a submission's results and compare the main scores.

The plugin is taken at the spec's version: when that exact version is already installed here,
this environment is reused (nothing to install, and the same code would be installed anyway);
otherwise a temporary virtual environment is made on top of this one (it sees the harness and
its dependencies through a .pth link, so only the plugin and what it adds are installed) and
``pip install <plugin.install or package==version>`` goes into it. Each sampled (model, task)
pair is re-run there with `leaderboard run`, with the submitted result's seed and task options,
and without the embedding cache, and its main score is compared within a stated tolerance.
"""

from __future__ import annotations

import random
import subprocess
import sys
import sysconfig
import tempfile
import venv
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from leaderboard.errors import BadInput, DataUnavailable
from leaderboard.queue.placeholders import placeholder_problems
from leaderboard.queue.validation import SPEC_FILE, read_json_file
from leaderboard.records.files import read_result
from leaderboard.records.listing import result_files
from leaderboard.records.result import Result

# Same data, settings and code give the same numbers up to floating-point noise: summation order
# in BLAS kernels differs between machines, and a near-tie may swap two documents. 1e-4 on a
# [0, 1] main score is far below any difference a leaderboard ranks by.
DEFAULT_TOLERANCE = 1e-4
DEFAULT_SAMPLE = 3
NO_DATA = "no data"  # a check whose task data could not be had here: neither a match nor a mismatch


@dataclass
class Check:
    path: Path
    task: str
    model: str
    submitted: float
    rerun: float | None = None
    status: str = "pending"  # "match", "mismatch", "no data" (could not be had here) or "error"
    detail: str = ""

    @property
    def difference(self) -> float | None:
        return None if self.rerun is None else abs(self.rerun - self.submitted)


@dataclass
class Environment:
    python: str
    note: str  # how the plugin was provided, for the report


def read_spec(folder: Path) -> dict[str, Any]:
    spec = read_json_file(Path(folder) / SPEC_FILE, "a submission spec")
    missing = [
        key
        for key, value in (
            ("plugin.package", (spec.get("plugin") or {}).get("package") if isinstance(spec, dict) else None),
            ("plugin.version", (spec.get("plugin") or {}).get("version") if isinstance(spec, dict) else None),
            ("model.id", (spec.get("model") or {}).get("id") if isinstance(spec, dict) else None),
        )
        if not isinstance(value, str) or not value
    ]
    if missing:
        raise BadInput(
            f"{Path(folder) / SPEC_FILE}: missing {', '.join(missing)}; run `leaderboard validate {folder}` first."
        )
    placeholders = placeholder_problems(spec)
    if placeholders:
        raise BadInput(f"{Path(folder) / SPEC_FILE}: " + "; ".join(placeholders))
    return spec


def submitted_results(folder: Path) -> list[tuple[Path, Result]]:
    """The submission's complete, readable results; a broken one stops verify (validate lists them all)."""
    root = Path(folder) / "results"
    pairs = [(path, read_result(path)) for path in (result_files(root) if root.is_dir() else [])]
    if not pairs:
        raise BadInput(f"{root}: no result files to verify; add them with `leaderboard run --output {root}`.")
    complete = [(path, result) for path, result in pairs if result.is_complete]
    if not complete:
        raise BadInput(f"{root}: only partial results (--limit); a submission holds complete runs.")
    return complete


def sample(pairs: list[tuple[Path, Result]], size: int | None, seed: int) -> list[tuple[Path, Result]]:
    """A seeded sample of ``size`` pairs (all of them when size is None or larger), in file order."""
    if size is None or size >= len(pairs):
        return pairs
    chosen = set(random.Random(seed).sample(range(len(pairs)), size))
    return [pair for i, pair in enumerate(pairs) if i in chosen]


def requirement(spec: dict[str, Any]) -> str:
    plugin = spec["plugin"]
    return plugin.get("install") or f"{plugin['package']}=={plugin['version']}"


@contextmanager
def plugin_environment(
    spec: dict[str, Any], workdir: Path, log: Callable[[str], None], pip_args: tuple[str, ...] = ()
) -> Iterator[Environment]:
    package, wanted = spec["plugin"]["package"], spec["plugin"]["version"]
    try:
        installed = version(package)
    except PackageNotFoundError:
        installed = None
    if installed == wanted:
        yield Environment(sys.executable, f"{package}=={wanted} is installed here: re-run in this environment")
        return
    log(f"installing {requirement(spec)} into a temporary virtual environment")
    python = make_child_venv(workdir / "venv")
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", *pip_args, requirement(spec)],
        capture_output=True,
        text=True,
    )
    if install.returncode != 0:
        raise BadInput(
            f"Could not install the plugin ({requirement(spec)}) into a temporary environment: "
            + _tail(install.stderr or install.stdout)
        )
    got = subprocess.run(
        [str(python), "-c", f"from importlib.metadata import version; print(version({package!r}))"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    if got != wanted:
        raise BadInput(f"Installing {requirement(spec)} gave {package} {got or 'nothing'}, not the spec's {wanted}.")
    yield Environment(str(python), f"{package}=={wanted} installed into a temporary virtual environment")


def make_child_venv(root: Path) -> Path:
    """A venv whose site-packages chains to this environment's: the harness is there, the plugin goes on top."""
    venv.EnvBuilder(with_pip=False).create(root)
    python = root / "bin" / "python"
    child_site = subprocess.check_output(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
    ).strip()
    parent_site = sysconfig.get_paths()["purelib"]
    # site.addsitedir (not a bare path line) so the parent's own .pth files (editable installs) run too
    (Path(child_site) / "_parent_env.pth").write_text(f"import site; site.addsitedir({parent_site!r})\n")
    return python


def _tail(text: str, lines: int = 6) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:] if line.strip())


def rerun(
    env: Environment, spec: dict[str, Any], path: Path, result: Result, output: Path, data_dirs: tuple[str, ...]
) -> Result:
    """Re-run one submitted (model, task) pair with its recorded seed and task options; the new result."""
    command = [
        env.python,
        "-m",
        "leaderboard",
        "run",
        "--model",
        spec["model"]["id"],
        "--task",
        result.task.name,
        "--output",
        str(output),
        "--seed",
        str(result.settings.seed),
        "--no-cache",
        "--quiet",  # its stderr's last lines are the error a failure reports, not progress
    ]
    for key, value in (result.settings.model_extra or {}).get("task_options", {}).items():
        command += ["--task-option", f"{key}={value}"]
    for value in data_dirs:
        # `run` refuses TASK=DIR for a task it is not running: pass only this task's (and bare DIRs).
        task, sep, _ = value.partition("=")
        if not sep or task == result.task.name:
            command += ["--data-dir", value]
    ran = subprocess.run(command, capture_output=True, text=True)
    if ran.returncode != 0:
        said = _tail(ran.stderr or ran.stdout)
        if f"{DataUnavailable.label}:" in ran.stderr:  # the run's own heading: a download failed, nothing was scored
            raise DataUnavailable(
                said[said.find(f"{DataUnavailable.label}:") + len(DataUnavailable.label) + 1 :].strip()
            )
        raise BadInput(f"`leaderboard run` exited {ran.returncode}: {said}")
    found = [p for p in result_files(output) if read_result(p).task.name == result.task.name]
    if len(found) != 1:
        raise BadInput(f"expected one result for {result.task.name} under {output}, found {len(found)}")
    return read_result(found[0])


def compare(check: Check, submitted: Result, fresh: Result, tolerance: float) -> Check:
    check.rerun = fresh.main_score
    differences = []
    if fresh.task.source.content_hash != submitted.task.source.content_hash:
        differences.append(
            f"data differs: submitted {submitted.task.source.content_hash}, here {fresh.task.source.content_hash}"
        )
    if fresh.model.revision != submitted.model.revision:
        differences.append(f"model revision differs: submitted {submitted.model.revision}, here {fresh.model.revision}")
    if check.difference is not None and check.difference > tolerance:
        differences.append(f"main score differs by {check.difference:.3g} > {tolerance:g}")
    check.status = "mismatch" if differences else "match"
    check.detail = "; ".join(differences)
    return check


def verify(
    folder: Path,
    *,
    sample_size: int | None = DEFAULT_SAMPLE,
    seed: int = 0,
    tolerance: float = DEFAULT_TOLERANCE,
    data_dirs: tuple[str, ...] = (),
    log: Callable[[str], None] = lambda message: None,
    pip_args: tuple[str, ...] = (),
) -> tuple[Environment, list[Check]]:
    spec = read_spec(folder)
    chosen = sample(submitted_results(folder), sample_size, seed)
    checks = []
    with (
        tempfile.TemporaryDirectory(prefix="leaderboard-verify-") as tmp,
        plugin_environment(spec, Path(tmp), log) as env,
    ):
        for i, (path, submitted) in enumerate(chosen):
            check = Check(path, submitted.task.name, spec["model"]["id"], submitted.main_score)
            log(f"re-running {check.model} on {check.task} ({i + 1}/{len(chosen)})")
            try:
                fresh = rerun(env, spec, path, submitted, Path(tmp) / f"rerun-{i}", data_dirs)
            except DataUnavailable as exc:
                check.status, check.detail = NO_DATA, str(exc)
            except BadInput as exc:
                check.status, check.detail = "error", str(exc)
            else:
                compare(check, submitted, fresh, tolerance)
            checks.append(check)
    return env, checks
