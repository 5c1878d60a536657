"""The import: list the source, read what is new or changed, convert, write only what differs; count everything.

* A file is chosen by its name first (mteb's ``ResultCache`` reads the task from the file name):
  a task of another type is counted and never opened.
* Incremental: ``<output>/.mteb-import.json`` (hidden: not a result) records, per source path, the
  blob ids of the file and its model_meta.json and where its import went. A file whose ids are
  unchanged is not read again (from the hub: not downloaded); a changed one is converted and written
  only if its record differs from the file already there, and an import it moved (its model's name
  or revision changed) is removed from the old place. Deleting the manifest costs speed, not
  correctness: every file is then converted and compared byte for byte.
* One bad file never stops the import: it is skipped with its reason. The records are validated by
  the readers' own check (``records.reader``) before writing; nothing is written half-way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any

from pydantic_core import to_json

from leaderboard.errors import BadInput, LeaderboardError
from leaderboard.fileio import atomic_open, write_bytes_atomic
from leaderboard.mteb.convert import Skip, Source, Target, convert, training_tasks
from leaderboard.mteb.layouts import LayoutError, ModelMetaFile, parse_result
from leaderboard.mteb.report import ImportReport
from leaderboard.mteb.sources import Listed, ResultSource, Unlisted, blob_of
from leaderboard.mteb.tasks import Registry, registry

MANIFEST = ".mteb-import.json"
# Bumped when the conversion changes: every file is then converted again (and rewritten only if its record differs).
CONVERTER_VERSION = "2"  # 2: the main score is the mean over every evaluation split


class ImportIncomplete(LeaderboardError):
    """Some files were skipped (each counted with its reason); every other file was imported."""

    exit_code = 4
    label = "Import incomplete"


class _Folder:
    """A model revision folder's model_meta.json, read once for all its files, and only when one is read
    (from the hub, its blob id comes with the listing: an unchanged folder downloads nothing)."""

    def __init__(self, source: ResultSource, model: str, revision: str):
        self.source, self.model, self.revision = source, model, revision
        self._blob = source.meta_oid(model, revision)  # None: not known before reading
        self._loaded = False
        self._meta: ModelMetaFile | None = None
        self._note: str | None = None

    @property
    def blob(self) -> str:
        """The git blob id of its model_meta.json ("" when there is none)."""
        if self._blob is None:
            self._load()
        return self._blob or ""

    @property
    def meta(self) -> ModelMetaFile | None:
        self._load()
        return self._meta

    @property
    def note(self) -> str | None:
        self._load()
        return self._note

    def training(self, tasks: Registry) -> list[str] | None:
        if not hasattr(self, "_training"):
            self._training = training_tasks(self.meta, tasks)
        return self._training

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        data = self.source.read_meta(self.model, self.revision)
        where = "the model's name and revision are its folder names; model columns unknown"
        if data is None:
            self._blob, self._note = "", f"no model_meta.json: {where}"
            return
        if isinstance(data, str):
            self._note = f"model_meta.json {data}: {where}"
            self._blob = self._blob or ""
            return
        self._blob = blob_of(data)
        try:
            self._meta = ModelMetaFile.model_validate_json(data)
        except ValueError as exc:
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            self._note = f"model_meta.json is not readable ({why}): {where}"


class TaskNaming:
    """An mteb task's name here: as a plugin registers it (with its declaration), else ``mteb:<Task>``."""

    def __init__(self, registered: Collection[str] = (), declare: Callable[[str], dict[str, Any] | None] | None = None):
        self.registered = set(registered)
        self._declare = declare
        self._declarations: dict[str, dict[str, Any] | None] = {}

    def name(self, mteb_name: str) -> str:
        return mteb_name if mteb_name in self.registered else f"mteb:{mteb_name}"

    def declaration(self, name: str) -> dict[str, Any] | None:
        if name not in self.registered or self._declare is None:
            return None
        if name not in self._declarations:
            self._declarations[name] = self._declare(name)
        return self._declarations[name]

    def key(self) -> str:
        return ",".join(sorted(self.registered))


def import_results(
    source: ResultSource,
    output: Path,
    naming: TaskNaming | None = None,
    tasks: Registry | None = None,
    advance: Callable[[int], None] | None = None,
) -> ImportReport:
    """Import every text retrieval and reranking result ``source`` holds into ``output``."""
    output = Path(output)
    naming = naming or TaskNaming()
    tasks = tasks or registry()
    report = ImportReport(source.label)
    manifest = _Manifest(output, f"{CONVERTER_VERSION}/{tasks.mteb_version}/{naming.key()}")
    chosen: list[tuple[Listed, Any]] = []
    stray: list[str] = []  # .json files outside the layout
    listed = 0
    for item in source.listing():
        if isinstance(item, Unlisted):
            if "experiment" in item.reason:
                report.other_types["mteb experiments (non-default settings)"] += 1
            else:
                report.skip(item.path, item.reason)
                stray.append(item.path)
            continue
        listed += 1
        task = tasks.find(item.name)
        if task is None:
            report.skip(item.path, f"a task unknown to mteb {tasks.mteb_version}", item.name, item.name)
        elif not task.imported:
            report.other_types[task.type if task.text else f"{task.type} (not text only)"] += 1
        else:
            chosen.append((item, task))
    if not listed and not report.other_types:  # not a results folder at all: say what one looks like
        raise BadInput(_no_results(source.label, stray))
    targets: dict[str, str] = {}  # output path -> the source file written there in this run
    try:
        _import_chosen(
            source, output, chosen, naming=naming, tasks=tasks, report=report, manifest=manifest, targets=targets,
            advance=advance,
        )  # fmt: skip
    finally:  # what was written before a failure (the hub went away) is not read again next time
        manifest.save()
    return report


def _no_results(label: str, stray: list[str]) -> str:
    found = f"; found only {len(stray)} other .json file(s), e.g. {stray[0]}" if stray else ""
    return (
        f"{label}: no mteb results found{found}. Expected mteb's results layout "
        "results/<org>__<model>/<revision>/<Task>.json: give the results repository, its results/ folder, "
        "or a folder laid out like it (or --repo ORG/NAME for the hub dataset)."
    )


def _import_chosen(
    source: ResultSource,
    output: Path,
    chosen: list[tuple[Listed, Any]],
    *,
    naming: TaskNaming,
    tasks: Registry,
    report: ImportReport,
    manifest: _Manifest,
    targets: dict[str, str],
    advance: Callable[[int], None] | None,
) -> None:
    for folder, files in _by_folder(source, chosen):
        todo = []
        for item, task in files:
            entry = manifest.unchanged(item.path, item.oid, folder.blob)
            if entry:
                report.unchanged += 1
                report.task(task.name).unchanged += 1
                targets[entry] = item.path
                if advance:
                    advance(1)
            else:
                todo.append((item, task))
        by_path = {item.path: (item, task) for item, task in todo}
        for path, data in source.read_many(list(by_path)):
            item, task = by_path[path]
            if advance:
                advance(1)
            if isinstance(data, str):
                report.skip(path, "unreadable", data, task.name)
                continue
            blob = blob_of(data)
            entry = manifest.unchanged(path, blob, folder.blob)
            if entry:
                report.unchanged += 1
                report.task(task.name).unchanged += 1
                targets[entry] = path
                continue
            try:
                record = _record(source, item, task, data=data, blob=blob, folder=folder, naming=naming, tasks=tasks)
                _write(
                    output, record, path, blob=blob, meta_blob=folder.blob, manifest=manifest, targets=targets,
                    report=report, task=task.name,
                )  # fmt: skip
            except Skip as skip:
                report.skip(path, skip.reason, skip.detail, task.name)


def _by_folder(source: ResultSource, chosen: list[tuple[Listed, Any]]) -> Iterator[tuple[_Folder, list[Any]]]:
    """The chosen files grouped by model revision folder (listing order)."""
    group: list[tuple[Listed, Any]] = []
    for item, task in chosen:
        if group and (group[0][0].model, group[0][0].revision) != (item.model, item.revision):
            yield _Folder(source, group[0][0].model, group[0][0].revision), group
            group = []
        group.append((item, task))
    if group:
        yield _Folder(source, group[0][0].model, group[0][0].revision), group


def _record(
    source: ResultSource,
    item: Listed,
    task: Any,
    *,
    data: bytes,
    blob: str,
    folder: _Folder,
    naming: TaskNaming,
    tasks: Registry,
) -> dict[str, Any]:
    try:
        layout = parse_result(data)
    except LayoutError as exc:
        reason = "broken JSON" if str(exc).startswith("not JSON") else "not an mteb TaskResult"
        raise Skip(reason, str(exc)) from None
    named = tasks.find(layout.task_name)
    if named is None or named.name != task.name:
        raise Skip("the file name and its task_name differ", f"{item.name}.json holds {layout.task_name!r}")
    commit, url = source.url(item.path, blob)
    name = naming.name(task.name)
    target = Target(task, name, naming.declaration(name))
    if layout.task_name != task.name:
        target.notes.append(f"mteb renamed {layout.task_name} to {task.name}")
    origin = Source(item.path, blob, source.repository, commit, url)
    return convert(
        layout,
        folder.meta,
        item.model,
        item.revision,
        origin,
        target,
        training=folder.training(tasks),
        meta_note=folder.note,
    )


def _write(
    output: Path,
    record: dict[str, Any],
    path: str,
    *,
    blob: str,
    meta_blob: str,
    manifest: _Manifest,
    targets: dict[str, str],
    report: ImportReport,
    task: str,
) -> None:
    from leaderboard.records.files import result_path
    from leaderboard.records.reader import record_of

    try:
        record_of(record, "the converted record")  # the readers' own verdict and words
    except Exception as exc:
        raise Skip("not a valid result once converted", str(exc)) from None
    target = result_path(output, record["model"]["name"], record["model"]["revision"], record["task"]["name"])
    rel = target.relative_to(output).as_posix()
    if rel in targets:
        raise Skip("another file is the same model, revision and task", f"as {targets[rel]}")
    text = to_json(record, indent=2) + b"\n"  # Rust: json.dumps with an indent is pure Python, 10x slower
    existing = _existing(target)
    if existing is not None and existing != text and not _imported_from(existing, path):
        raise Skip("the output already holds another result there", f"{rel} is not an import of this file")
    targets[rel] = path
    previous = manifest.target_of(path)
    if existing == text:
        report.unchanged += 1
        report.task(task).unchanged += 1
    else:
        write_bytes_atomic(target, text, durable=False)  # thousands of files: checked by size on the next run
        report.written.append(rel)
        report.task(task).imported += 1
        if previous is not None or existing is not None:
            report.replaced += 1
    if previous is not None and previous != rel:  # the model's name or revision changed: the old import goes
        old = output / previous
        old_text = _existing(old)
        if old_text is not None and _imported_from(old_text, path):
            old.unlink()
    manifest.record(path, blob, meta_blob, rel, len(text))


def _existing(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _imported_from(text: bytes, path: str) -> bool:
    try:
        found = json.loads(text).get("imported_from") or {}
    except (ValueError, AttributeError, RecursionError):
        return False
    return isinstance(found, dict) and found.get("file") == path


class _Manifest:
    """What the last imports into this folder read: source path -> [blob, model_meta blob, output path, size]."""

    def __init__(self, output: Path, converter: str):
        self.path = output / MANIFEST
        self.converter = converter
        self.entries: dict[str, list[Any]] = {}
        self.current = False  # the stored entries were written by this converter
        self.changed = False
        self.output = output
        try:
            data = json.loads(self.path.read_text("utf-8"))
            entries = data.get("files", {})
            if isinstance(entries, dict):
                self.entries = {k: v for k, v in entries.items() if isinstance(v, list) and len(v) == 4}
            self.current = data.get("converter") == converter
        except (OSError, ValueError, AttributeError, RecursionError):
            pass  # none yet, or damaged: every file is converted and compared

    def unchanged(self, path: str, blob: str | None, meta_blob: str) -> str | None:
        """The output path of an import of exactly these bytes (and model_meta.json) still in place, else None."""
        entry = self.entries.get(path)
        if not self.current or entry is None or blob is None or entry[0] != blob or entry[1] != meta_blob:
            return None
        try:
            size = (self.output / entry[2]).stat().st_size
        except (OSError, TypeError):
            return None
        return str(entry[2]) if size == entry[3] else None

    def target_of(self, path: str) -> str | None:
        entry = self.entries.get(path)
        return str(entry[2]) if entry else None

    def record(self, path: str, blob: str, meta_blob: str, target: str, size: int) -> None:
        entry = [blob, meta_blob, target, size]
        if self.entries.get(path) != entry:
            self.entries[path] = entry
            self.changed = True

    def save(self) -> None:
        if not (self.changed or (self.entries and not self.current)):
            return
        self.output.mkdir(parents=True, exist_ok=True)
        with atomic_open(self.path) as handle:
            json.dump({"converter": self.converter, "files": self.entries}, handle, separators=(",", ":"))
