"""Finding result files in a folder: results, not bookkeeping (hidden folders, model cards, caches).

Every entry named ``*.json`` is listed, whatever it is (a directory, a broken link, a FIFO), and
nothing is opened here: the reader (``files.read_result``) refuses what is not a regular file,
so listings show it as skipped, with the reason, instead of crashing or blocking on it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

BOOKKEEPING = ("model_card.json", "model_meta.json", "spec.json")
TOP_LEVEL_BOOKKEEPING = ("benchmarks.json",)  # the results dataset's benchmark declarations, beside results/
# A queue worker's signed word beside the result it attests (queue/attestation.py): bookkeeping, not a result.
ATTESTATION_SUFFIX = ".attestation.json"
REPORTED_FOLDER = "reported"  # scores copied from papers (records/reported.py), beside results/: not results


def attestation_path(result: str) -> str:
    """``.../<task>.json`` -> ``.../<task>.attestation.json`` (a path in the dataset or on disk)."""
    return result.removesuffix(".json") + ATTESTATION_SUFFIX


def holds_reported_scores(folder: Path) -> bool:
    """<root>/reported with no subfolder: the papers' files (a model's folder holds revision folders)."""
    try:
        with os.scandir(folder) as entries:
            return not any(entry.is_dir(follow_symlinks=False) for entry in entries)
    except OSError:
        return False


def result_files(root: Path) -> Iterator[Path]:
    """Every ``*.json`` under ``root`` outside hidden folders, sorted; links to folders are not followed."""
    root = Path(root)
    found = []
    for folder, dirs, names in os.walk(root, onerror=None, followlinks=False):
        dirs[:] = [d for d in dirs if not d.startswith(".")]  # hidden folders are never walked
        if folder == str(root) and REPORTED_FOLDER in dirs and holds_reported_scores(root / REPORTED_FOLDER):
            dirs.remove(REPORTED_FOLDER)
        for name in names + dirs:  # a folder named *.json is listed (and refused by the reader) too
            if name.endswith(".json") and not name.startswith(".") and name not in BOOKKEEPING:
                if name.endswith(ATTESTATION_SUFFIX):
                    continue
                if folder == str(root) and name in TOP_LEVEL_BOOKKEEPING:
                    continue
                found.append(Path(folder) / name)
    yield from sorted(found, key=lambda path: path.parts)  # Path's order, by its parts (no Path.__lt__ per pair)
