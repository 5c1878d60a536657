"""A results folder for the app tests: real runs, plus edited copies (another model, a hostile
name, an invalid file, a file from an unknown schema version)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from leaderboard.cli import cli

HOSTILE = "<img src=x onerror=alert(1)>"


def build_results(root: Path) -> Path:
    ran = CliRunner().invoke(
        cli,
        [
            "run",
            "-m",
            "bm25",
            "-t",
            "demo",
            "-t",
            "multiconir-demo-task1",
            "-t",
            "multiconir-demo-task2",
            "-t",
            "multiconir-demo-task3",
            "--output",
            str(root),
        ],
    )
    assert ran.exit_code == 0, ran.output
    for source in sorted(root.rglob("*.json")):
        for name, kind, params, scale in (
            ("tiny-dense-model", "dense", 5_000_000, 0.5),
            (HOSTILE, "dense", 50_000_000, 0.9),
        ):
            data = json.loads(source.read_text())
            data["model"].update(name=name, kind=kind, revision="r1")
            data["model"]["metadata"].update(name=name, kind=kind, n_parameters=params, reference=None)
            data["main_score"] *= scale
            for subsets in data["scores"].values():
                for values in subsets.values():
                    for key in values:
                        values[key] *= scale
            folder = root / name.replace("/", "_").replace("<", "_").replace(">", "_").replace(" ", "_") / "r1"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / source.name).write_text(json.dumps(data))
    (root / "broken.json").write_text("{ this is not json")
    future = json.loads(next(root.rglob("demo.json")).read_text())
    future["schema_version"] = "99"
    (root / "future.json").write_text(json.dumps(future))
    return root
