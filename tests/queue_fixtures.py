"""The evaluation queue's test world: a stand-in hub with a requests and a results dataset, plugin wheels
in a local package index (a --find-links folder, as pip reads one), and small NegConstraint data.

Plugins are real wheels built by pip from a source folder, installed by the worker into its sandboxed
venv exactly as a released plugin would be. The hostile ones misbehave inside their model's ``search``
(the evaluation), after a clean install.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from conftest import HUB_TOKEN, word_overlap_plugin

REQUESTS, RESULTS = "lb/requests", "lb/results"
BENCHMARK = "NegConstraint"
# What the worker and submit need to reach the stand-in hub and the local index, and nothing else.
INDEX_ONLY = ("--pip-arg=--no-index", "--pip-arg=--no-build-isolation")


def build_wheel(source_root: Path, wheels: Path, dist: str, module: str, source: str, version: str) -> Path:
    """A wheel of a one-module plugin distribution registering the ``leaderboard`` entry point."""
    folder = source_root / f"{dist}-{version}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    (folder / "pyproject.toml").write_text(
        textwrap.dedent(f"""
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "{dist}"
        version = "{version}"

        [project.entry-points.leaderboard]
        {dist} = "{module}"
        """),
        encoding="utf-8",
    )
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
         "-w", str(wheels), str(folder)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    return next(wheels.glob(f"{dist.replace('-', '_')}-{version}-*.whl"))


def hostile_plugin(name: str, body: str) -> str:
    """A model plugin whose search runs ``body`` (then searches like word-overlap)."""
    return f'''
from leaderboard import ModelKind, ModelMetadata, SparseModel, hookimpl


class Hostile(SparseModel):
    metadata = ModelMetadata("{name}", ModelKind.SPARSE, revision="1.0.0", similarity="overlap")

    def score(self, query, documents):
        words = set(query.split())
        return [float(len(words & set(d.split()))) for d in documents]

    def search(self, corpus, queries, top_k):
{textwrap.indent(textwrap.dedent(body).strip(), " " * 8)}
        ids = list(corpus)
        run = {{}}
        for qid, text in queries.items():
            scored = dict(zip(ids, self.score(text, [corpus[d] for d in ids])))
            run[qid] = dict(sorted(scored.items(), key=lambda x: -x[1])[:top_k])
        return run


@hookimpl
def register_models(register):
    register("{name}", lambda request: Hostile(), description="a hostile test plugin")
'''


WORD_OVERLAP = word_overlap_plugin("0.3.0")


def hub_env(endpoint: str, **extra: str) -> dict[str, str]:
    """A CLI's environment: the stand-in hub online, the token, no stray plugin selection."""
    env = {**os.environ, "HF_HUB_OFFLINE": "0", "HF_TOKEN": HUB_TOKEN, "HF_ENDPOINT": endpoint, **extra}
    env.pop("LEADERBOARD_PLUGINS", None)
    return env
