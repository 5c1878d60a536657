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


# A FollowIR-style folder on which BM25 (which reads each query's text with its instruction appended, as mteb
# gives it) moves the changed-away documents both down and up. Every document holds "energy", the query text,
# and has four tokens, so every document is in every run and BM25's ranks follow from the instruction words
# alone (idf: a word in one document outweighs a word in two; equal scores rank by document id, descending).
MOVING_DOCS = {
    "d1": "energy from solar panels",
    "d2": "energy from wind turbines",
    "d3": "energy from solar wind",
    "d4": "energy from hydro dams",
}
MOVING_INSTRUCTIONS = {
    "q1-og": "solar panels",  # d1 (solar, panels) 1, d3 (solar) 2, then d4, d2 (tied on energy)
    "q1-changed": "wind turbines",  # d2 1, d3 (wind) 2, then d4, d1 (tied)
    "q2-og": "hydro dams",  # d4 1, then d3, d2, d1 (tied)
    "q2-changed": "hydro dams not solar panels",  # d4 1, d1 (solar, panels) 2, d3 (solar) 3, d2 4
}
MOVING_CHANGED = {"q1": ["d1", "d3"], "q2": ["d1", "d3"]}  # made non-relevant by the changed instruction


def followir_moving_folder(root: Path) -> Path:
    """FollowIR-style: the changed instruction moves documents down (q1: d1) and up (q2: d1) under BM25."""
    qrels = {
        "q1-og": {"d1": 1, "d3": 1},
        "q1-changed": {"d2": 1, "d1": 0, "d3": 0},
        "q2-og": {"d4": 1, "d1": 1, "d3": 1},
        "q2-changed": {"d4": 1, "d1": 0, "d3": 0},
    }
    return write_mteb_folder(
        root,
        {
            "corpus": [{"_id": d, "title": "", "text": t} for d, t in MOVING_DOCS.items()],
            "queries": [{"_id": q, "text": "energy"} for q in MOVING_INSTRUCTIONS],
            "instruction": [{"query-id": q, "instruction": i} for q, i in MOVING_INSTRUCTIONS.items()],
            "default": [
                {"query-id": q, "corpus-id": d, "score": g} for q, docs in qrels.items() for d, g in docs.items()
            ],
            "top_ranked": [{"query-id": q, "corpus-ids": list(MOVING_DOCS)} for q in MOVING_INSTRUCTIONS],
            "qrel_diff": [{"query-id": q, "corpus-ids": docs} for q, docs in MOVING_CHANGED.items()],
        },
    )


def ifir_folder(root: Path) -> Path:
    """IFIR-style (retrieval with instructions at three levels v1-v3; scored by an IFIR task, nDCG@20).

    Query texts differ in length so that the complexity strata have more than one bucket, and BM25
    misses on two of them, so that the per-query values vary.
    """
    docs = {
        "a1": "A contract is void when signed under duress.",
        "a2": "The tenant must pay rent on the first day of the month.",
        "a3": "Patents protect inventions for twenty years.",
        "a4": "A will must be signed before two witnesses.",
        "a5": "Copyright protects original works of authorship.",
        "a6": "Employers must pay overtime for extra hours.",
    }
    queries = {
        "c_v1": ("contract duress", "Find rules on contracts.", "a1"),
        "c_v2": ("contract signed under duress void", "Only rules on void contracts.", "a1"),
        "c_v3": ("is a contract signed under duress void or voidable", "Only statutes, no commentary.", "a1"),
        "r_v1": ("overtime pay", "Find lease rules.", "a2"),  # the words of a6
        "r_v2": ("when must the tenant pay rent", "Only rules on payment dates.", "a2"),
        "r_v3": ("tenant rent payment first day month", "Only residential tenancies.", "a2"),
        "w_v1": ("witness", "Find succession rules.", "a4"),  # only a stemmer matches "witnesses."
        "w_v2": ("how many witnesses must sign a will", "Only formal requirements.", "a4"),
        "w_v3": ("protect original inventions", "Only labour statutes.", "a6"),  # the words of a3 and a5
    }
    return write_mteb_folder(
        root,
        {
            "corpus": [{"_id": d, "title": "", "text": t} for d, t in docs.items()],
            "queries": [{"_id": q, "text": text} for q, (text, _, _) in queries.items()],
            "instruction": [{"query-id": q, "instruction": instr} for q, (_, instr, _) in queries.items()],
            "default": [{"query-id": q, "corpus-id": doc, "score": 1} for q, (_, _, doc) in queries.items()],
        },
    )


def nevir_folder(root: Path) -> Path:
    """NevIR-style: pairs of contrasting questions (<key>_q1, <key>_q2) over the same two passages, reranked.

    Pair p1's questions share their words with their own passage, pair p2's q2 shares its words with
    q1's passage, so BM25 gets p1 right and p2 wrong: paired accuracy 1/2.
    """
    docs = {
        "p1_a": "The bridge was opened in spring.",
        "p1_b": "The tunnel was closed in winter.",
        "p2_a": "The cat sleeps on the warm sofa.",
        "p2_b": "The dog never sleeps indoors.",
    }
    queries = {
        "p1_q1": ("when was the bridge opened", "p1_a"),
        "p1_q2": ("when was the tunnel closed", "p1_b"),
        "p2_q1": ("where does the cat sleep on a warm sofa", "p2_a"),
        "p2_q2": ("which animal does not sleep on the warm sofa", "p2_b"),  # worded like p2_a
    }
    return write_mteb_folder(
        root,
        {
            "corpus": [{"_id": d, "title": "", "text": t} for d, t in docs.items()],
            "queries": [{"_id": q, "text": text} for q, (text, _) in queries.items()],
            "default": [{"query-id": q, "corpus-id": doc, "score": 1} for q, (_, doc) in queries.items()],
            "top_ranked": [
                {"query-id": q, "corpus-ids": [d for d in docs if d.split("_")[0] == q.split("_")[0]]} for q in queries
            ],
        },
    )
