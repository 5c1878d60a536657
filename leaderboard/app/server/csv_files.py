"""The CSV files a reader downloads: one private folder, same content same file, old files pruned, removed at exit."""

from __future__ import annotations

import atexit
import hashlib
import shutil
import tempfile
from pathlib import Path
from typing import Any

CSV_KEEP = 32  # CSV files kept for download at once; older ones are deleted


class CsvFiles:
    """The CSV of each view shown, in one private folder: same content, same file; old files pruned; removed at exit."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="leaderboard-csv-"))
        atexit.register(shutil.rmtree, self.folder, True)

    def write(self, frame: Any, name: str) -> str:
        text = frame.to_csv(index=False)
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        target = self.folder / digest / f"{file_name(name)}.csv"
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            self._prune()
        return str(target)

    def _prune(self) -> None:
        entries = sorted(self.folder.iterdir(), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[CSV_KEEP:]:
            shutil.rmtree(old, ignore_errors=True)


def file_name(name: str) -> str:
    """A name safe as a file name or an element id: letters, digits and ``-_.``, others as ``-``."""
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name).strip("-.") or "leaderboard"
