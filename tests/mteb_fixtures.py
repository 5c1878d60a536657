"""Tiny local datasets in the layout mteb 2.x reads: a README.md whose YAML declares the configs."""

from __future__ import annotations

import json
from pathlib import Path

CONFIGS = {  # config name -> (file, split)
    "corpus": ("corpus.jsonl", "test"),
    "queries": ("queries.jsonl", "test"),
    "default": ("qrels.jsonl", "test"),
    "instruction": ("instruction.jsonl", "test"),
    "top_ranked": ("top_ranked.jsonl", "test"),
    "qrel_diff": ("qrel_diff.jsonl", "qrel_diff"),
}


def write_mteb_folder(root: Path, parts: dict[str, list[dict]]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    yaml = ["---", "configs:"]
    for config, rows in parts.items():
        file, split = CONFIGS[config]
        (root / file).write_text("".join(json.dumps(r) + "\n" for r in rows))
        yaml += [f"- config_name: {config}", "  data_files:", f"  - split: {split}", f"    path: {file}"]
    (root / "README.md").write_text("\n".join(yaml + ["---", ""]))
    return root


def followir_folder(root: Path) -> Path:
    """Two queries, each as an -og / -changed pair; the changed instruction narrows what is relevant.

    qrel_diff lists the documents whose relevance the changed instruction removed. The -changed
    top-ranked list of q2 leaves out 'docC', so that document is missing from one run.
    """
    docs = {
        "docA": "Mars has two small moons, Phobos and Deimos.",
        "docB": "The Mars rover landed in Jezero crater.",
        "docC": "Venus is the hottest planet.",
        "docX": "Jupiter has a great red spot.",
        "docY": "Saturn has rings of ice.",
        "docZ": "Neptune has strong winds.",
    }
    return write_mteb_folder(
        root,
        {
            "corpus": [{"_id": d, "title": "", "text": t} for d, t in docs.items()],
            "queries": [
                {"_id": "q1-og", "text": "q1 original"},
                {"_id": "q1-changed", "text": "q1 changed"},
                {"_id": "q2-og", "text": "q2 original"},
                {"_id": "q2-changed", "text": "q2 changed"},
            ],
            "instruction": [
                {"query-id": "q1-og", "instruction": "documents about Mars are relevant"},
                {"query-id": "q1-changed", "instruction": "only documents about the moons of Mars are relevant"},
                {"query-id": "q2-og", "instruction": "documents about hot planets are relevant"},
                {"query-id": "q2-changed", "instruction": "only documents about gas giants are relevant"},
            ],
            "default": [
                {"query-id": "q1-og", "corpus-id": "docA", "score": 1},
                {"query-id": "q1-og", "corpus-id": "docB", "score": 1},
                {"query-id": "q1-changed", "corpus-id": "docA", "score": 1},
                {"query-id": "q1-changed", "corpus-id": "docB", "score": 0},
                {"query-id": "q2-og", "corpus-id": "docC", "score": 1},
                {"query-id": "q2-changed", "corpus-id": "docY", "score": 1},
                {"query-id": "q2-changed", "corpus-id": "docC", "score": 0},
            ],
            "top_ranked": [
                {"query-id": "q1-og", "corpus-ids": ["docA", "docX", "docB"]},
                {"query-id": "q1-changed", "corpus-ids": ["docA", "docX", "docB"]},
                {"query-id": "q2-og", "corpus-ids": ["docC", "docY"]},
                {"query-id": "q2-changed", "corpus-ids": ["docY", "docZ"]},
            ],
            "qrel_diff": [
                {"query-id": "q1", "corpus-ids": ["docA", "docB"]},
                {"query-id": "q2", "corpus-ids": ["docC"]},
            ],
        },
    )


def instructir_folder(root: Path) -> Path:
    """InstructIR-style: each base query (id before '_') appears with several instructions."""
    docs = {
        "d1": "A guide to baking sourdough bread at home.",
        "d2": "The history of bread in ancient Egypt.",
        "d3": "How to repair a bicycle tyre.",
        "d4": "Choosing a road bike for commuting.",
    }
    return write_mteb_folder(
        root,
        {
            "corpus": [{"_id": d, "title": "", "text": t} for d, t in docs.items()],
            "queries": [
                {"_id": "b_0", "text": "bread"},
                {"_id": "b_1", "text": "bread"},
                {"_id": "c_0", "text": "bicycle"},
                {"_id": "c_1", "text": "bicycle"},
            ],
            "instruction": [
                {"query-id": "b_0", "instruction": "I am a home baker."},
                {"query-id": "b_1", "instruction": "I am a historian."},
                {"query-id": "c_0", "instruction": "I have a flat tyre."},
                {"query-id": "c_1", "instruction": "I want to buy a bike."},
            ],
            "default": [
                {"query-id": "b_0", "corpus-id": "d1", "score": 1},
                {"query-id": "b_1", "corpus-id": "d2", "score": 1},
                {"query-id": "c_0", "corpus-id": "d3", "score": 1},
                {"query-id": "c_1", "corpus-id": "d4", "score": 1},
            ],
        },
    )
