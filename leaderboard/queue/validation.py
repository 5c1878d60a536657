"""`leaderboard validate`: checks a submission folder before it is merged.

submissions/<model>/model.json      the spec (``records.submission``, schema/submission-1.json)
submissions/<model>/results/...     optional result files the author produced

Every problem is collected and reported (file + what is wrong); nothing stops at the first, and
no file, however broken, makes the validator itself fail. A submission whose plugin package is
not installed here is reported as "not verifiable here: plugin not installed": a distinct status
that does not fail validation (`leaderboard verify` installs the plugin and re-runs it), unless
``require_plugins`` is set.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from leaderboard import safe_json
from leaderboard.engine.building import make_task
from leaderboard.engine.options import RunOptions
from leaderboard.errors import BadInput, LeaderboardError
from leaderboard.queue.placeholders import placeholder_problems
from leaderboard.records import reader
from leaderboard.records.files import identity, read_result_text
from leaderboard.records.listing import result_files
from leaderboard.records.submission import spec_problems
from leaderboard.registry import Registry

SPEC_FILE = "model.json"
NOT_VERIFIABLE = "not verifiable here: plugin not installed"


def submission_folders(paths: list[Path]) -> list[Path]:
    folders = []
    for path in paths:
        if (path / SPEC_FILE).is_file():
            folders.append(path)
        elif path.is_dir():
            folders += sorted(p.parent for p in path.glob(f"*/{SPEC_FILE}"))
    return folders


def normalized(distribution: str | None) -> str:
    """PEP 503 normalisation, so 'My_Plugin' and 'my-plugin' name the same distribution."""
    return (distribution or "").lower().replace("_", "-").replace(".", "-")


def _get(data: Any, *keys: str) -> Any:
    """data[k1][k2]... or None when any level is missing or not an object (broken files are common here)."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def read_json_file(path: Path, what: str = "a result file") -> Any:
    """Parsed JSON of a spec or result file; BadInput naming the file for anything unreadable."""
    try:
        text = read_result_text(path)  # a regular, bounded, UTF-8 file: never blocks, never crashes
    except BadInput as exc:
        raise BadInput(str(exc).replace("a result file", what)) from None
    try:
        return safe_json.loads(text, finite=True)
    except safe_json.UnsafeJSON as exc:
        raise BadInput(f"{path}: {exc}; expected {what}.") from None


def task_data_dirs(values: tuple[str, ...] | list[str]) -> dict[str, str]:
    """--data-dir TASK=DIR (repeatable) or DIR (for every task) -> {task or '*': folder}."""
    chosen: dict[str, str] = {}
    for value in values:
        name, sep, folder = value.partition("=")
        if sep and name and not Path(value).exists():
            chosen[name] = folder
        else:
            chosen["*"] = value
    return chosen


@dataclass
class Report:
    submissions: int
    problems: list[str] = field(default_factory=list)
    not_verifiable: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # valid, but worth saying (a result no public board shows)


class Validator:
    def __init__(self, registry: Registry, data_dirs: dict[str, str] | None = None, require_plugins: bool = False):
        self.registry = registry
        self.data_dirs = data_dirs or {}
        self.require_plugins = require_plugins
        self.problems: list[str] = []
        self.not_verifiable: list[str] = []
        self.notes: list[str] = []
        self._public_tasks: set[str] | None = None
        self.seen: dict[str, Path] = {}  # result identity -> first file
        self.data_hashes: dict[str, tuple[str | None, str] | LeaderboardError] = {}

    def problem(self, where: Path | str, message: str) -> None:
        self.problems.append(f"{where}: {message}")

    # -- the spec ------------------------------------------------------------------------
    def check_folder(self, folder: Path) -> None:
        spec_path = folder / SPEC_FILE
        spec: dict[str, Any] = {}
        try:
            loaded = read_json_file(spec_path, "a submission spec")
        except BadInput as exc:
            self.problems.append(str(exc))
        else:
            if isinstance(loaded, dict):
                spec = loaded
            for message in spec_problems(loaded):
                self.problem(spec_path, message)
            for message in placeholder_problems(loaded):
                self.problem(spec_path, message)
        installed = self.check_plugin(spec_path, spec)
        expected_name = self.expected_model_name(spec, installed)
        for path in result_files(folder / "results") if (folder / "results").is_dir() else []:
            self.check_result(path, spec, installed, expected_name)

    def check_plugin(self, where: Path, spec: dict) -> bool:
        """Is the spec's plugin package installed here (whatever its version)? Problems are recorded."""
        package, wanted = _get(spec, "plugin", "package"), _get(spec, "plugin", "version")
        if not isinstance(package, str) or not package:
            return False
        try:
            installed = version(package)
        except PackageNotFoundError:
            install = _get(spec, "plugin", "install") or f"{package}=={wanted}"
            message = (
                f"{NOT_VERIFIABLE} ({package}); `pip install {install}` and validate again, "
                "or `leaderboard verify` the submission"
            )
            if self.require_plugins:
                self.problem(where, message)
            else:
                self.not_verifiable.append(f"{where}: {message}")
            return False
        if installed != wanted:
            self.problem(
                where, f"plugin package {package} is installed at version {installed}, but the spec says {wanted}"
            )
        model_id = _get(spec, "model", "id")
        if not isinstance(model_id, str) or not model_id:
            return True
        try:
            resolved = self.registry.resolve("model", model_id)
        except BadInput as exc:
            self.problem(where, f"model id {model_id!r} is not discoverable: {exc}")
            return True
        info = self.registry.plugins.get(resolved.registration.plugin)
        if info is None or normalized(info.distribution) != normalized(package):
            self.problem(
                where,
                f"model id {model_id!r} is registered by {info.distribution if info else '?'}, not by {package}",
            )
        return True

    def expected_model_name(self, spec: dict, installed: bool) -> str | None:
        """The model.name results must carry: the spec's ``model.name``, else what the installed plugin's
        model calls itself (built, not loaded), else the model id."""
        declared, model_id = _get(spec, "model", "name"), _get(spec, "model", "id")
        if isinstance(declared, str):
            return declared
        if installed and isinstance(model_id, str):
            from leaderboard.contract.model import ModelRequest

            try:
                resolved = self.registry.resolve("model", model_id)
                built = resolved.registration.factory(ModelRequest(model_id, resolved.argument))
                return str(built.metadata.name)
            except Exception:  # a model that cannot even be built is reported by check_plugin or verify
                return model_id
        return model_id if isinstance(model_id, str) else None

    # -- each result ---------------------------------------------------------------------
    def check_result(self, path: Path, spec: dict, installed: bool, expected_name: str | None) -> None:
        try:
            data = read_json_file(path)
        except BadInput as exc:
            return self.problems.append(str(exc))
        try:
            record, errors = reader.checked(data)
        except Exception as exc:  # a validator must never crash on a file
            record, errors = None, [f"cannot be validated ({type(exc).__name__})"]
        for error in errors:
            self.problem(path, error)
        if not isinstance(data, dict):
            return
        self.check_against_spec(path, data, spec, installed, expected_name)
        self.check_task(path, data)
        if record is None:
            return
        typed = reader.typed(record)
        if not typed.is_complete:
            reason = (typed.coverage.reason if typed.coverage else None) or f"--limit {typed.settings.limit}"
            self.problem(path, f"partial result ({reason}); submit complete runs only")
        key = identity(typed)
        if key in self.seen:
            self.problem(path, f"duplicate of {self.seen[key]} (same model, revision, task, data and settings)")
        else:
            self.seen[key] = path

    def check_against_spec(self, path: Path, data: dict, spec: dict, installed: bool, expected: str | None) -> None:
        model = data.get("model")
        comparisons = [
            ("model revision", _get(model, "revision"), _get(spec, "model", "revision")),
            ("plugin version", _get(model, "plugin_version"), _get(spec, "plugin", "version")),
            ("model name", _get(model, "name"), expected),
        ]
        for what, found, wanted in comparisons:
            if wanted is not None and found != wanted:
                self.problem(path, f"{what} {found!r} differs from the spec's {wanted!r}")
        plugin, package = _get(model, "plugin"), _get(spec, "plugin", "package")
        if installed and isinstance(package, str):
            info = self.registry.plugins.get(plugin) if isinstance(plugin, str) else None
            if info is None or normalized(info.distribution) != normalized(package):
                owner = info.distribution if info else "no installed distribution"
                self.problem(path, f"model plugin {plugin!r} is from {owner}, not from the spec's package {package}")

    def current_data(self, task_name: str) -> tuple[str | None, str] | LeaderboardError:
        """(content hash, task version) of the data this machine has for the task, or why it cannot tell."""
        if task_name not in self.data_hashes:
            folder = self.data_dirs.get(task_name) or self.data_dirs.get("*")
            options = RunOptions(data_dirs={task_name: folder} if folder else {})
            try:
                task, _ = make_task(self.registry, task_name, options)
                self.data_hashes[task_name] = (task.load().source.content_hash, task.metadata.version)
            except LeaderboardError as exc:  # bad input or a failing plugin: reported, not raised
                self.data_hashes[task_name] = exc
            except Exception as exc:  # a task plugin's own crash is reported the same way
                self.data_hashes[task_name] = LeaderboardError(f"{type(exc).__name__}: {exc}")
        return self.data_hashes[task_name]

    def public_tasks(self) -> set[str]:
        """The tasks of the installed public benchmarks (``Benchmark.public``): what the public board can show."""
        if self._public_tasks is None:
            from leaderboard.registry import installed_benchmarks

            public = [b for b in installed_benchmarks() if getattr(b, "public", False)]
            self._public_tasks = {t.task for b in public for t in b.tasks}
        return self._public_tasks

    def check_task(self, path: Path, data: dict) -> None:
        task = _get(data, "task", "name")
        if not isinstance(task, str):
            return
        if task not in self.registry.names("task"):
            return self.problem(path, f"unknown task {task!r} (not registered by any installed plugin)")
        if task not in self.public_tasks():
            note = "is in no public benchmark: the public board never shows this result"
            self.notes.append(f"{path}: task {task} {note}")
        current = self.current_data(task)
        if isinstance(current, LeaderboardError):
            return self.problem(
                path, f"cannot verify the data of task {task}: {current} (give it with --data-dir {task}=DIR)"
            )
        data_hash, task_version = current
        if _get(data, "task", "version") != task_version:
            self.problem(
                path,
                f"task {task} is at version {task_version}, the result is for version {_get(data, 'task', 'version')}",
            )
        used = _get(data, "task", "source", "content_hash")
        if used != data_hash:
            self.problem(path, f"stale data hash for {task}: the result used {used}, the current data is {data_hash}")


def validate(
    paths: list[Path], registry: Registry, data_dirs: dict[str, str] | None = None, require_plugins: bool = False
) -> Report:
    folders = submission_folders(paths)
    validator = Validator(registry, data_dirs, require_plugins)
    if not folders:
        validator.problem(", ".join(map(str, paths)), f"no submission found (a folder holding {SPEC_FILE})")
    for folder in folders:
        validator.check_folder(folder)
    return Report(len(folders), validator.problems, validator.not_verifiable, validator.notes)


def validate_paths(paths: list[Path], registry: Registry) -> tuple[int, list[str]]:
    """The earlier interface: (submissions, problems)."""
    report = validate(paths, registry)
    return report.submissions, report.problems
