"""`leaderboard validate`: checks a submission folder before it is merged.

submissions/<model>/model.json      the spec (schema: leaderboard/schema/submission-1.json)
submissions/<model>/results/...     optional result files the author produced

Every problem is collected and reported (file + what is wrong); nothing stops at the first.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import jsonschema

from leaderboard.engine.runner import RunOptions, make_task
from leaderboard.errors import BadInput, LeaderboardError
from leaderboard.metrics.bounds import bounds
from leaderboard.records.files import identity, read_result
from leaderboard.records.listing import result_files
from leaderboard.registry import Registry

SPEC_FILE = "model.json"


def spec_schema() -> dict:
    return json.loads(resources.files("leaderboard.records").joinpath("schema", "submission-1.json").read_text("utf-8"))


def submission_folders(paths: list[Path]) -> list[Path]:
    folders = []
    for path in paths:
        if (path / SPEC_FILE).is_file():
            folders.append(path)
        elif path.is_dir():
            folders += sorted(p.parent for p in path.glob(f"*/{SPEC_FILE}"))
    return folders


class Validator:
    def __init__(self, registry: Registry):
        self.registry = registry
        self.problems: list[str] = []
        self.seen: dict[str, Path] = {}  # result identity -> first file
        self.data_hashes: dict[str, str | BadInput] = {}

    def problem(self, where: Path | str, message: str) -> None:
        self.problems.append(f"{where}: {message}")

    def check_folder(self, folder: Path) -> None:
        spec_path = folder / SPEC_FILE
        try:
            spec = json.loads(spec_path.read_text("utf-8"))
        except json.JSONDecodeError as exc:
            return self.problem(spec_path, f"not valid JSON ({exc.msg}, line {exc.lineno})")
        errors = sorted(
            jsonschema.Draft202012Validator(spec_schema()).iter_errors(spec),
            key=lambda e: list(map(str, e.absolute_path)),
        )
        for err in errors:
            self.problem(spec_path, f"{'/'.join(map(str, err.absolute_path)) or '<root>'}: {err.message}")
        if errors:
            return
        self.check_plugin(spec_path, spec)
        for path in result_files(folder / "results") if (folder / "results").is_dir() else []:
            self.check_result(path, spec)

    def check_plugin(self, where: Path, spec: dict) -> None:
        package, wanted = spec["plugin"]["package"], spec["plugin"]["version"]
        try:
            installed = version(package)
        except PackageNotFoundError:
            return self.problem(
                where,
                f"plugin package {package!r} is not installed; install it (pip install {spec['plugin'].get('install') or f'{package}=={wanted}'}) and validate again",
            )
        if installed != wanted:
            self.problem(
                where, f"plugin package {package} is installed at version {installed}, but the spec says {wanted}"
            )
        try:
            resolved = self.registry.resolve("model", spec["model"]["id"])
        except BadInput as exc:
            return self.problem(where, f"model id {spec['model']['id']!r} is not discoverable: {exc}")
        info = self.registry.plugins.get(resolved.registration.plugin)
        if info is None or (info.distribution or "").lower().replace("_", "-") != package.lower().replace("_", "-"):
            self.problem(
                where,
                f"model id {spec['model']['id']!r} is registered by {info.distribution if info else '?'}, not by {package}",
            )

    def current_data_hash(self, task_name: str):
        if task_name not in self.data_hashes:
            try:
                task, _ = make_task(self.registry, task_name, RunOptions())
                self.data_hashes[task_name] = (task.load().source.content_hash, task.metadata.version)
            except LeaderboardError as exc:  # bad input or a failing plugin: reported, not raised
                self.data_hashes[task_name] = exc
        return self.data_hashes[task_name]

    def check_result(self, path: Path, spec: dict) -> None:
        try:
            typed = read_result(path)  # schema, known version, no NaN/inf
            result = typed.to_json()
        except BadInput as exc:
            return self.problem(path, str(exc))
        task = result["task"]["name"]
        if task not in self.registry.names("task"):
            self.problem(path, f"unknown task {task!r} (not registered by any installed plugin)")
        else:
            current = self.current_data_hash(task)
            if isinstance(current, LeaderboardError):
                self.problem(path, f"cannot verify the data of task {task}: {current}")
            else:
                data_hash, task_version = current
                if result["task"]["version"] != task_version:
                    self.problem(
                        path,
                        f"task {task} is at version {task_version}, the result is for version {result['task']['version']}",
                    )
                if result["task"]["source"]["content_hash"] != data_hash:
                    self.problem(
                        path,
                        f"stale data hash for {task}: the result used {result['task']['source']['content_hash']}, the current data is {data_hash}",
                    )
        if result["model"]["revision"] != spec["model"]["revision"]:
            self.problem(
                path,
                f"model revision {result['model']['revision']!r} differs from the spec's {spec['model']['revision']!r}",
            )
        for split, subsets in result["scores"].items():
            for subset, values in subsets.items():
                for name, value in values.items():
                    low, high = bounds(name)
                    if (
                        not math.isfinite(value)
                        or (low is not None and value < low)
                        or (high is not None and value > high)
                    ):
                        self.problem(path, f"score {split}/{subset}/{name} = {value} is outside [{low}, {high}]")
        key = identity(typed)
        if key in self.seen:
            self.problem(path, f"duplicate of {self.seen[key]} (same model, revision, task, data and settings)")
        else:
            self.seen[key] = path


def validate_paths(paths: list[Path], registry: Registry) -> tuple[int, list[str]]:
    folders = submission_folders(paths)
    validator = Validator(registry)
    if not folders:
        validator.problem(", ".join(map(str, paths)), f"no submission found (a folder holding {SPEC_FILE})")
    for folder in folders:
        validator.check_folder(folder)
    return len(folders), validator.problems
