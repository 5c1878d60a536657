"""Reading MultiConIR's published CSV files (local folder or the hub) and checking them cell by cell."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from leaderboard import BadInput, DataUnavailable
from leaderboard.contract.task import DataSource

DOMAINS = ("Books", "Movies", "People", "Medical Case", "Legal Document")
K = range(1, 11)
ENV_VAR = "LEADERBOARD_MULTICONIR_DIR"
HUB_REPO = "Lux1997/MultiConIR"
REVISION_ENV = "LEADERBOARD_MULTICONIR_REVISION"


@dataclass(frozen=True)
class Variant:
    name: str
    folder: str
    file_pattern: str  # with {domain}
    columns: tuple[str, ...]
    description: str


TASK1_COLUMNS = tuple(f"Query{k}" for k in K) + ("Positive",) + tuple(f"HN{k}" for k in K)
# Tasks 2 and 4 read Query10 and the eleven documents; Task 3 also Natural_Query10. The Task 4 files
# need not have Natural_Query10; the Task2_&_3 files (TASK2_COLUMNS, as published) do.
ADJACENT_COLUMNS = ("Query10", "Positive") + tuple(f"HN{k}" for k in K)
TASK2_COLUMNS = ("Query10", "Natural_Query10", "Positive") + tuple(f"HN{k}" for k in K)
TASK4_COLUMNS = ADJACENT_COLUMNS
VARIANTS = {
    "task1": Variant(
        "multiconir-task1",
        "Task1",
        "{domain}_Task1.csv",
        TASK1_COLUMNS,
        "complexity robustness: win rate vs number of conditions (1-10)",
    ),
    "task2": Variant(
        "multiconir-task2",
        "Task2_&_3",
        "{domain}_Task2_&_3.csv",
        ADJACENT_COLUMNS,
        "relevance monotonicity: adjacent win rates d_k vs d_{k-1}, k = 1..10",
    ),
    "task3": Variant(
        "multiconir-task3",
        "Task2_&_3",
        "{domain}_Task2_&_3.csv",
        TASK2_COLUMNS,
        "format invariance: flip rate between instruction-style and descriptive queries",
    ),
    "task4-512": Variant(
        "multiconir-task4-512",
        "Task4",
        "{domain}_512.csv",
        TASK4_COLUMNS,
        "document length: adjacent win rates on documents padded to 512 words",
    ),
    "task4-1024": Variant(
        "multiconir-task4-1024",
        "Task4",
        "{domain}_1024.csv",
        TASK4_COLUMNS,
        "document length: adjacent win rates on documents padded to 1024 words",
    ),
}


def datasets_root(root: Path) -> Path:
    """Accept the repository root (holding datasets/) or the datasets/ folder itself."""
    return root / "datasets" if (root / "datasets").is_dir() else root


def read_table(path: Path, columns: tuple[str, ...]) -> pd.DataFrame:
    if not path.is_file():
        raise BadInput(f"Missing MultiConIR file {path}: expected a CSV with columns {', '.join(columns)}.")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: not a readable CSV ({exc}).") from None
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise BadInput(f"{path}: missing column {missing[0]!r}; expected columns {', '.join(columns)}.")
    for column in columns:
        empty = frame.index[frame[column].str.strip() == ""]
        if len(empty):
            row = int(empty[0]) + 1
            raise BadInput(
                f"{path}, data row {row} (after the header), column {column!r}: empty cell; "
                "every cell of this column must hold text."
            )
    if frame.empty:
        raise BadInput(f"{path}: no records.")
    return frame[list(columns)]


def fetch_from_hub() -> tuple[Path, DataSource]:
    from huggingface_hub import snapshot_download

    revision = os.environ.get(REVISION_ENV, "main")
    try:
        path = Path(snapshot_download(HUB_REPO, repo_type="dataset", revision=revision, allow_patterns=["*.csv"]))
    except Exception as exc:
        raise DataUnavailable(
            f"Could not fetch {HUB_REPO}@{revision} from the Hugging Face hub ({type(exc).__name__}: {exc}). "
            f"Point the task at a local copy with --data-dir or {ENV_VAR}."
        ) from None
    return path, DataSource(kind="hub", uri=f"hf://datasets/{HUB_REPO}", revision=path.name)  # snapshot folder = commit


def read_domains(root: Path, variant: Variant) -> tuple[dict[str, pd.DataFrame], list[Path]]:
    """Every domain's table of one variant, and the files read (for the content hash)."""
    base = datasets_root(root) / variant.folder
    tables, files = {}, []
    for domain in DOMAINS:
        path = base / variant.file_pattern.format(domain=domain)
        tables[domain] = read_table(path, variant.columns)
        files.append(path)
    return tables, files
