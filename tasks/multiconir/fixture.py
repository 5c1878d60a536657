"""A small MultiConIR dataset in the exact published layout, written by the project itself.

Three records per domain, generated from condition templates: Query_k lists the first k
conditions; Positive states all ten; HN_k (Task 1) changes condition k; HN_i (Tasks 2-4) changes
the first i conditions; Task 4 pads every document to 512 / 1024 words. Used by tests and by the
offline demo tasks (multiconir-demo-*). The texts are synthetic: scores on them mean nothing.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from leaderboard.toolkit import atomic_open

from .loading import DOMAINS, TASK1_COLUMNS, TASK2_COLUMNS, TASK4_COLUMNS, K

ATTRIBUTES = {
    "Books": ("genre", "setting", "narrator", "decade", "theme", "ending", "award", "length", "publisher", "series"),
    "Movies": ("genre", "director", "country", "decade", "lead", "score", "ending", "runtime", "studio", "rating"),
    "People": (
        "profession",
        "birthplace",
        "era",
        "education",
        "field",
        "award",
        "language",
        "spouse",
        "hobby",
        "legacy",
    ),
    "Medical Case": (
        "age",
        "sex",
        "symptom",
        "duration",
        "history",
        "finding",
        "test",
        "diagnosis",
        "treatment",
        "outcome",
    ),
    "Legal Document": (
        "court",
        "jurisdiction",
        "year",
        "party",
        "claim",
        "statute",
        "remedy",
        "ruling",
        "appeal",
        "judge",
    ),
}
VALUES = (
    "amber",
    "basalt",
    "cedar",
    "delta",
    "ember",
    "fjord",
    "garnet",
    "harbor",
    "indigo",
    "juniper",
    "kestrel",
    "lagoon",
    "meadow",
)
RECORDS_PER_DOMAIN = 3
FILLER = "This sentence pads the document without adding any condition."


def conditions(domain: str, record: int, changed: frozenset[int] | set[int] = frozenset()) -> list[str]:
    out = []
    for i, attribute in enumerate(ATTRIBUTES[domain]):
        value = VALUES[(record * 3 + i + (5 if i in changed else 0)) % len(VALUES)]
        out.append(f"The {attribute} is {value}.")
    return out


def _document(sentences: list[str], words: int | None = None) -> str:
    text = " ".join(sentences)
    while words and len(text.split()) < words:
        text += " " + FILLER
    return " ".join(text.split()[:words]) if words else text


def _noun(domain: str) -> str:
    return {
        "Books": "book",
        "Movies": "movie",
        "People": "person",
        "Medical Case": "case",
        "Legal Document": "document",
    }[domain]


def task1_rows(domain: str) -> list[dict[str, str]]:
    rows = []
    for r in range(RECORDS_PER_DOMAIN):
        conds = conditions(domain, r)
        row = {f"Query{k}": f"Find a {_noun(domain)} where: " + " ".join(conds[:k]) for k in K}
        row["Positive"] = _document(conds)
        row.update({f"HN{k}": _document(conditions(domain, r, {k - 1})) for k in K})
        rows.append(row)
    return rows


def task2_rows(domain: str, words: int | None = None) -> list[dict[str, str]]:
    rows = []
    for r in range(RECORDS_PER_DOMAIN):
        conds = conditions(domain, r)
        row = {
            "Query10": f"Find a {_noun(domain)} where: " + " ".join(conds),
            "Natural_Query10": f"I am looking for a {_noun(domain)} in which "
            + ", and ".join(c.rstrip(".").lower() for c in conds)
            + ".",
            "Positive": _document(conds, words),
        }
        row.update({f"HN{i}": _document(conditions(domain, r, set(range(i))), words) for i in K})
        rows.append(row)
    return rows


def write_table(path: Path, rows: list[dict[str, str]], columns: tuple[str, ...]) -> None:
    with atomic_open(path, "w") as handle:
        pd.DataFrame(rows, columns=list(columns)).to_csv(handle, index=False)


def write_fixture(root: Path) -> Path:
    """Write datasets/Task1, datasets/Task2_&_3 and datasets/Task4 under root; return root."""
    base = Path(root) / "datasets"
    for domain in DOMAINS:
        write_table(base / "Task1" / f"{domain}_Task1.csv", task1_rows(domain), TASK1_COLUMNS)
        write_table(base / "Task2_&_3" / f"{domain}_Task2_&_3.csv", task2_rows(domain), TASK2_COLUMNS)
        for words in (512, 1024):
            # as published: the length files carry no Natural_Query10
            write_table(base / "Task4" / f"{domain}_{words}.csv", task2_rows(domain, words), TASK4_COLUMNS)
    return Path(root)
