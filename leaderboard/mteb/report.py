"""What an import did, counted: imported, replaced, unchanged, skipped by reason (with examples), other types."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

EXAMPLES = 3  # files named per skip reason in the summary


@dataclass
class TaskCounts:
    imported: int = 0  # written: new or replacing a changed file's import
    unchanged: int = 0
    skipped: int = 0


@dataclass
class ImportReport:
    source: str
    written: list[str] = field(default_factory=list)  # output paths, relative to the output folder
    replaced: int = 0  # of the written, how many replaced an earlier import of a changed file
    unchanged: int = 0
    skipped: Counter[str] = field(default_factory=Counter)  # reason -> files
    examples: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # reason -> [(path, detail)]
    other_types: Counter[str] = field(default_factory=Counter)  # mteb task type -> files never opened
    per_task: dict[str, TaskCounts] = field(default_factory=dict)  # the file's task name -> counts

    def task(self, name: str) -> TaskCounts:
        return self.per_task.setdefault(name, TaskCounts())

    def skip(self, path: str, reason: str, detail: str = "", task: str | None = None) -> None:
        self.skipped[reason] += 1
        found = self.examples.setdefault(reason, [])
        if len(found) < EXAMPLES:
            found.append((path, detail))
        if task is not None:
            self.task(task).skipped += 1

    @property
    def skipped_total(self) -> int:
        return sum(self.skipped.values())

    @property
    def other_total(self) -> int:
        return sum(self.other_types.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "imported": len(self.written),
            "replaced": self.replaced,
            "unchanged": self.unchanged,
            "skipped": dict(sorted(self.skipped.items())),
            "skipped_examples": {k: [list(e) for e in v] for k, v in sorted(self.examples.items())},
            "other_task_types": dict(sorted(self.other_types.items())),
            "per_task": {k: vars(v) for k, v in sorted(self.per_task.items())},
        }

    def lines(self) -> list[str]:
        """The summary, as printed at the end of ``leaderboard import``."""
        new = len(self.written) - self.replaced
        out = [
            f"Imported {len(self.written):,} result(s) from {self.source} ({new:,} new, {self.replaced:,} replacing "
            f"a changed file's import); {self.unchanged:,} unchanged (nothing written); "
            f"{self.skipped_total:,} skipped; {self.other_total:,} of other task types not read."
        ]
        if self.other_types:
            kinds = ", ".join(f"{kind} {count:,}" for kind, count in self.other_types.most_common())
            out.append(f"Not read (not text retrieval or reranking): {kinds}.")
        for reason, count in self.skipped.most_common():
            out.append(f"Skipped, {reason}: {count:,}")
            out += [f"    {path}" + (f": {detail}" if detail else "") for path, detail in self.examples.get(reason, [])]
        return out
