"""Benchmark declarations for the board, from ``benchmarks.json`` or from the caller (never from a plugin).

``push`` writes every registered benchmark into the results dataset as ``benchmarks.json`` (a list
of ``Benchmark.to_json()``), so the app ranks without any task plugin installed. ``leaderboard
serve`` on a local folder may pass the registry's declarations instead. A declaration that does not
parse is listed with the reason (the Skipped tab), never raised.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from leaderboard.contract.benchmark import Benchmark, BenchmarkTask

BENCHMARKS_FILE = "benchmarks.json"
_MAX_BYTES = 16 * 2**20  # a declarations file is a few kilobytes; anything far larger is refused unread

_ADAPTER: TypeAdapter[Benchmark] | None = None


def _adapter() -> TypeAdapter[Benchmark]:
    global _ADAPTER
    if _ADAPTER is None:
        _ADAPTER = TypeAdapter(Benchmark)  # pydantic validates the contract's dataclass field by field
    return _ADAPTER


def parse(declaration: Any, where: str) -> tuple[Benchmark | None, str | None]:
    """One benchmark from its JSON form, or the reason it cannot be used."""
    if isinstance(declaration, Benchmark):
        benchmark = declaration
    else:
        try:
            benchmark = _adapter().validate_python(declaration)
        except ValidationError as exc:
            problems = "; ".join(f"{'/'.join(map(str, e['loc'])) or '<root>'}: {e['msg']}" for e in exc.errors()[:5])
            name = declaration.get("name") if isinstance(declaration, dict) else None
            return None, f"{where}: benchmark {name!r} is not a valid declaration: {problems}"
    benchmark = Benchmark(
        **{**vars(benchmark), "tasks": tuple(BenchmarkTask(**vars(t)) for t in benchmark.tasks)}  # hashable copy
    )
    if not benchmark.name.strip():
        return None, f"{where}: a benchmark has an empty name"
    ranked = [t for t in benchmark.tasks if t.in_aggregate]
    if not ranked:
        return None, f"{where}: benchmark {benchmark.name!r} has no task in its aggregate"
    if len({t.direction for t in ranked}) > 1:
        return None, (
            f"{where}: benchmark {benchmark.name!r} averages tasks of opposite directions "
            "(higher and lower is better); its aggregate cannot rank"
        )
    return benchmark, None


def read_file(path: Path) -> tuple[list[Benchmark], list[tuple[str, str]]]:
    """The declarations in a benchmarks.json, and (file, reason) for each that cannot be used."""
    where = path.name
    try:
        if not path.is_file():
            return [], []
        if path.stat().st_size > _MAX_BYTES:
            return [], [(where, f"larger than {_MAX_BYTES // 2**20} MiB; not read")]
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        return [], [(where, f"not readable as JSON: {exc}")]
    if not isinstance(data, list):
        return [], [(where, "expected a JSON list of benchmark declarations")]
    return collect(data, where)


def collect(declarations: Iterable[Any], where: str) -> tuple[list[Benchmark], list[tuple[str, str]]]:
    found: dict[str, Benchmark] = {}
    problems: list[tuple[str, str]] = []
    for declaration in declarations:
        benchmark, reason = parse(declaration, where)
        if benchmark is None:
            problems.append((where, reason or "invalid"))
        elif benchmark.name in found:
            problems.append((where, f"benchmark {benchmark.name!r} is declared twice; the first is used"))
        else:
            found[benchmark.name] = benchmark
    return list(found.values()), problems


def load(root: Path, given: Iterable[Any] | None = None) -> tuple[list[Benchmark], list[tuple[str, str]]]:
    """Declarations from ``root/benchmarks.json``, then the caller's for names the file does not declare."""
    from_file, problems = read_file(Path(root) / BENCHMARKS_FILE)
    names = {b.name for b in from_file}
    extra, more = collect(given or [], "installed plugins")
    return from_file + [b for b in extra if b.name not in names], problems + more
