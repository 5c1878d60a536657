"""Finding result files in a folder: results, not bookkeeping (hidden folders, model cards, caches)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path


def result_files(root: Path) -> Iterator[Path]:
    root = Path(root)
    for path in sorted(root.rglob("*.json")):
        rel = path.relative_to(root).parts
        if any(part.startswith(".") for part in rel) or path.name in (
            "model_card.json",
            "model_meta.json",
            "spec.json",
        ):
            continue
        yield path
