"""A synthetic MTEB results repository of the real one's scale, built from the real files (../shared/data).

The real repository (embeddings-benchmark/results) holds about 105,000 result files over about a
thousand tasks, about 35,000 of them text retrieval or reranking. This writes a folder in its
layout, ``results/<org>__<model>/<revision>/<Task>.json`` with ``model_meta.json``:

* retrieval/reranking files: the 1,317 real files, byte for byte, in copies of their model folders
  under new model names and revisions (model_meta.json rewritten to name the copy, as mteb would);
* other task types: files named after real mteb tasks of other types (Classification, STS, ...)
  holding a TaskResult of the size and shape mteb writes for them (the importer never opens them,
  but ``json.load`` of the whole repository does).

    python perf/mteb_replica.py OUT [--files 105000] [--retrieval 35000]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
from pathlib import Path

REAL = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "mteb-results" / "results"
MARKER = ".replica.json"


def _other_tasks() -> list[str]:
    from leaderboard.mteb.tasks import registry

    return sorted(name for name, task in registry().tasks.items() if not task.imported)


def _other_result(task: str, revision: str, seed: int) -> bytes:
    """A TaskResult of another type, shaped like mteb's (a few hundred bytes to tens of kB per language)."""
    languages = ["en", "de", "fr", "es", "ja", "zh", "ru", "ar"][: 1 + seed % 8]
    entries = []
    for i, language in enumerate(languages):
        value = ((seed * 7919 + i * 104729) % 10000) / 10000
        scores = {f"accuracy_{k}": round(value * (1 - k / 100), 6) for k in range(12)}
        scores.update(f1=value, f1_weighted=value, main_score=value, hf_subset=language, languages=[f"{language}-Latn"])
        scores["scores_per_experiment"] = [{"accuracy": value, "f1": value} for _ in range(10)]
        entries.append(scores)
    data = {
        "dataset_revision": hashlib.sha1(task.encode()).hexdigest(),
        "task_name": task,
        "mteb_version": "1.12.75",
        "scores": {"test": entries},
        "evaluation_time": 12.5 + seed % 100,
        "kg_co2_emissions": None,
    }
    return json.dumps(data, indent=2).encode()


def build(out: Path, files: int = 105_000, retrieval: int = 35_000, real: Path = REAL) -> dict[str, int]:
    """Write the replica into ``out/results`` (reused when ``out`` already holds one of this size)."""
    out = Path(out)
    wanted = {"files": files, "retrieval": retrieval}
    marker = out / MARKER
    if marker.is_file() and json.loads(marker.read_text()) == wanted:
        return wanted
    if out.exists():
        shutil.rmtree(out)
    results = out / "results"
    folders = sorted(p for p in real.glob("*/*") if p.is_dir())
    written = 0
    copy = 0
    while written < retrieval:  # copies of every real model revision folder, under new names
        for folder in folders:
            if written >= retrieval:
                break
            model, revision = folder.parent.name, folder.name
            name = model if copy == 0 else f"{model}-copy{copy}"
            rev = revision if copy == 0 else hashlib.sha1(f"{revision}{copy}".encode()).hexdigest()
            target = results / name / rev
            target.mkdir(parents=True, exist_ok=True)
            for path in sorted(folder.iterdir()):
                if path.name == "model_meta.json":
                    meta = json.loads(path.read_bytes())
                    meta["name"], meta["revision"] = name.replace("__", "/"), rev
                    (target / path.name).write_text(json.dumps(meta, indent=2))
                elif written < retrieval:
                    (target / path.name).write_bytes(path.read_bytes())
                    written += 1
        copy += 1
    others = _other_tasks()
    models = sorted(p for p in results.glob("*/*") if p.is_dir())
    made, step = 0, 0
    while written + made < files:  # every model folder gets files of other task types
        folder = models[step % len(models)]
        task = others[(step * 31 + step // len(models)) % len(others)]
        target = folder / f"{task}.json"
        if not target.exists():
            target.write_bytes(_other_result(task, folder.name, step))
            made += 1
        step += 1
    marker.write_text(json.dumps(wanted))
    return wanted


def json_files(root: Path) -> list[Path]:
    found = []
    for folder, _, names in os.walk(root):
        found += [Path(folder) / n for n in names if n.endswith(".json") and n != "model_meta.json"]
    return sorted(found)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", type=int, default=105_000)
    parser.add_argument("--retrieval", type=int, default=35_000)
    args = parser.parse_args()
    print(build(args.out, args.files, args.retrieval))
