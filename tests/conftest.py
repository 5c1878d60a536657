"""Shared test helpers: CLI invocation, throwaway plugin distributions, real data locations."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from leaderboard import registry as plugins

# CI explores the same examples on every run (reproducible failures); locally each run explores new ones.
hypothesis_settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"
COMLQ = SHARED_DATA / "comlq"
NEGCONSTRAINT = SHARED_DATA / "negconstraint"

needs_comlq = pytest.mark.skipif(
    not COMLQ.is_dir(), reason=f"real ComLQ data not found at {COMLQ} (CI always has ../shared/data)"
)
needs_negconstraint = pytest.mark.skipif(
    not NEGCONSTRAINT.is_dir(), reason=f"real NegConstraint data not found at {NEGCONSTRAINT}"
)


@pytest.fixture(autouse=True)
def _fresh_registry(monkeypatch, tmp_path):
    """Each test discovers plugins afresh and keeps caches inside its own temporary folder."""
    plugins._cached = None
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    yield
    plugins._cached = None


# The stand-in hub (tests/hub_server.py) is local; huggingface_hub refuses every URL when offline.
HUB_ONLINE = {"HF_HUB_OFFLINE": "0"}
HUB_TOKEN = "hf_TestTokenThatMustNeverBePrinted123"


@pytest.fixture
def hub_online(monkeypatch):
    """huggingface_hub in this process may reach the local stand-in hub (the autouse fixture sets offline)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)


@pytest.fixture(scope="session")
def bm25_demo_template(tmp_path_factory) -> Path:
    """submissions/bm25's spec (model.json) with a fresh bm25 result on the bundled demo, made once per session.

    The repository's submissions hold complete real-data baselines only (issue 31 removed the demo
    result that lacked per-query values); tests that edit a result copy this (``bm25_demo_submission``).
    """
    import shutil

    folder = tmp_path_factory.mktemp("bm25-demo-submission") / "bm25"
    folder.mkdir()
    shutil.copy(REPO / "submissions" / "bm25" / "model.json", folder / "model.json")
    cache = tmp_path_factory.mktemp("bm25-demo-cache")
    made = run_cli(
        "run", "-m", "bm25", "-t", "demo", "--output", str(folder / "results"), env={"XDG_CACHE_HOME": str(cache)}
    )
    assert made.returncode == 0, made.stderr
    return folder


@pytest.fixture
def bm25_demo_submission(bm25_demo_template, tmp_path) -> Path:
    """A copy of ``bm25_demo_template`` at tmp_path/subs/bm25, free to edit."""
    import shutil

    return Path(shutil.copytree(bm25_demo_template, tmp_path / "subs" / "bm25"))


def run_cli(
    *args: str, env: dict | None = None, cwd: Path | None = None, python: str | None = None
) -> subprocess.CompletedProcess:
    """Run `leaderboard ARGS` in a fresh interpreter, as a user would."""
    full_env = {**os.environ, "HF_HUB_OFFLINE": "1", "COLUMNS": "250", **(env or {})}
    return subprocess.run(
        [python or sys.executable, "-m", "leaderboard", *args],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=cwd,
        timeout=600,
    )


def cold_show(results: Path, cache: Path, before: str = "", after: str = "", timeout: int = 120):
    """``leaderboard show RESULTS`` in a new interpreter (nothing imported yet), with ``before`` run first and
    ``after`` run once it has exited 0: what a cold ``show`` imports and checks. The finished process."""
    probe = (
        f"import sys\n{before}from leaderboard.cli.main import main\n"
        f"sys.argv = ['leaderboard', 'show', {str(results)!r}]\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    assert exc.code in (0, None), exc.code\n"
        f"{after}"
    )
    env = {"XDG_CACHE_HOME": str(cache), "COLUMNS": "250", "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=timeout)


def make_plugin_dist(
    root: Path, dist_name: str, module_name: str, source: str, entry_points: dict[str, str], version: str = "0.1.0"
) -> Path:
    """Lay out an importable module plus its *.dist-info on ``root``, exactly what an install leaves.

    Putting ``root`` on PYTHONPATH makes importlib.metadata discover its entry points.
    """
    root.mkdir(parents=True, exist_ok=True)
    (root / f"{module_name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    info = root / f"{dist_name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist_name}\nVersion: {version}\n", encoding="utf-8")
    lines = ["[leaderboard]"] + [f"{name} = {target}" for name, target in entry_points.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def write_beir(root: Path, corpus: dict[str, str], queries: dict[str, str], qrels: dict[str, dict[str, int]]) -> Path:
    from leaderboard.data.beir import write_beir as write

    return write(root, corpus, queries, qrels)


def read_result_dict(path: Path) -> dict:
    """A result file validated through the typed record, as plain JSON for assertions."""
    from leaderboard.records.files import read_result

    return read_result(path).to_json()


def similarity_matrix(queries, documents, similarity: str):
    """The full [queries x documents] similarity, computed independently of the engine (a test oracle)."""
    import numpy as np

    q, d = np.asarray(queries, dtype=np.float64), np.asarray(documents, dtype=np.float64)
    if similarity == "cosine":
        q = q / np.linalg.norm(q, axis=1, keepdims=True)
        d = d / np.linalg.norm(d, axis=1, keepdims=True)
    return (q @ d.T).astype(np.float32)


# The pyproject of the word-overlap plugin as a distribution (``word_overlap_plugin`` is its module).
WORD_OVERLAP_PYPROJECT = """
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "leaderboard-word-overlap"
version = "0.3.0"

[project.entry-points.leaderboard]
word-overlap = "leaderboard_word_overlap"
"""


def word_overlap_plugin(revision: str) -> str:
    """The source of a tiny third-party model plugin (a word-overlap retriever) on the public contract only."""
    return f'''"""A model author's plugin: a word-overlap retriever, written against the public contract only."""
from leaderboard import ModelKind, ModelMetadata, SparseModel, hookimpl


class WordOverlap(SparseModel):
    metadata = ModelMetadata("word-overlap", ModelKind.SPARSE, revision="{revision}", similarity="overlap")

    def score(self, query, documents):
        words = set(query.lower().split())
        return [float(len(words & set(d.lower().split()))) for d in documents]

    def search(self, corpus, queries, top_k):
        ids = list(corpus)
        run = {{}}
        for qid, text in queries.items():
            ranked = sorted(zip(ids, self.score(text, [corpus[d] for d in ids])), key=lambda x: (-x[1], x[0]))
            run[qid] = {{d: s for d, s in ranked[:top_k] if s > 0}}
        return run


@hookimpl
def register_models(register):
    register("word-overlap", lambda request: WordOverlap(), description="count of shared words")
'''


def negconstraint_query(qid: str, grades: dict) -> dict:
    """One NegConstraint query record: p1 satisfies the constraint, p0 violates it."""
    return {
        "query_id": qid,
        "query": "apples but not pears",
        "category": "A - a",
        "constraint_satisfying_doc_ids": ["p1"],
        "constraint_violating_doc_ids": ["p0"],
        "graded_relevance": grades,
    }
