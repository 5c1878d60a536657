"""Shared test helpers: CLI invocation, throwaway plugin distributions, real data locations."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_server import CliServer
from hypothesis import settings as hypothesis_settings

try:  # the test id's type since pytest 9.2 (the groups in pytest_collection_modifyitems)
    from _pytest.nodeid import coerce_node_id
except ImportError:  # an earlier pytest, where pytest-xdist's own group suffix works
    coerce_node_id = None

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


# What a user's home gives a program: its folders, and the hub's token and settings. Every test, and every
# fixture of a wider scope, sees folders of its own instead (``home_folders``): a fresh machine and a
# developer's with years of caches see the same thing.
# Variables that would point a test elsewhere are dropped: the hub's folders and token then follow HF_HOME.
DROPPED = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH", "HF_HUB_CACHE", "HF_DATASETS_CACHE")
DROPPED += ("HF_ASSETS_CACHE", "HF_XET_CACHE", "HF_ENDPOINT", "TRANSFORMERS_CACHE", "SENTENCE_TRANSFORMERS_HOME")
DROPPED += ("TORCH_HOME", "LEADERBOARD_JUDGMENTS_DIR", "LEADERBOARD_PLUGINS", "RAY_ADDRESS")
# The terminal's size too (pytest-xdist sets COLUMNS=80 in its workers): tables are drawn at the width a
# piped output gets, unless a test asks for another.
DROPPED += ("COLUMNS", "LINES")


def home_folders(root: Path) -> dict[str, str]:
    """HOME and every folder derived from it, all under ``root``."""
    cache, config = root / "xdg-cache", root / "xdg-config"
    return {
        "HOME": str(root / "home"),
        "XDG_CACHE_HOME": str(cache),
        "XDG_CONFIG_HOME": str(config),
        "XDG_DATA_HOME": str(root / "xdg-data"),
        "XDG_STATE_HOME": str(root / "xdg-state"),
        "HF_HOME": str(cache / "huggingface"),
        "MPLCONFIGDIR": str(config / "matplotlib"),
        "GRADIO_TEMP_DIR": str(cache / "gradio"),
    }


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own, which starts the workers
def pytest_configure(config):
    """The run's own home, before any fixture: session and module fixtures (servers, browsers, clusters) see
    it; each test then gets its own (``_fresh_registry``). One per xdist worker."""
    import tempfile

    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    root = Path(tempfile.mkdtemp(prefix=f"leaderboard-tests-{worker}-"))
    config.stash[_HOME] = root
    for name in DROPPED:
        os.environ.pop(name, None)
    os.environ.update(home_folders(root))
    os.environ["HF_HUB_OFFLINE"] = "1"
    Path(os.environ["HOME"]).mkdir(parents=True, exist_ok=True)
    config.addinivalue_line("markers", "xdist_group(name): tests that run in one pytest-xdist worker together")
    # Compiled bytecode is written and reused (pytest's rewritten test modules, the project's modules in every
    # subprocess a test starts), even where PYTHONDONTWRITEBYTECODE is set: each would compile the same
    # source again. Python checks each file's size and time against its source, so none is ever stale.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    if worker == "main":  # pytest itself, or pytest-xdist's controller before it starts the workers
        compile_harness()
    # Under -n: pytest-xdist's "loadgroup" with the groups and order of ``pytest_collection_modifyitems``
    # (instead of its "load", where a module's tests, and so its fixtures, would be spread over the workers).
    if getattr(config.option, "dist", "no") == "load":
        config.option.dist = "loadgroup"
        config.option.loadscopereorder = False
    # A worker reads "loadgroup" from its own command line, where -n alone means "load", before this hook runs:
    # the controller's word (``pytest_configure_node``) tells it the run groups its tests.
    if getattr(config, "workerinput", {}).get("leaderboard_loadgroup"):
        config.option.loadgroup = True


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist's controller, for each worker it starts: whether the run groups its tests (loadgroup)."""
    node.workerinput["leaderboard_loadgroup"] = node.config.getvalue("dist") == "loadgroup"


_HOME = pytest.StashKey[Path]()

HARNESS = ("leaderboard", "tasks", "plugins", "judges", "mteb_builtin")  # the project's importable packages


def compile_harness() -> None:
    """The project's bytecode, written once before any test runs. A queue worker in process isolation fails a
    run that changed a file of the harness (a plugin writing there is an attack): no test may write one, not
    even a ``.pyc`` that an interpreter in another pytest-xdist worker compiles at the same moment."""
    import compileall

    for name in HARNESS:
        compileall.compile_dir(REPO / name, quiet=1)


def pytest_unconfigure(config):
    import shutil

    CLI_SERVER.stop()
    if _HOME in config.stash:
        shutil.rmtree(config.stash[_HOME], ignore_errors=True)


# What a test needs beyond the interpreter; each is also ``slow``, so ``-m "not slow"`` is the quick subset.
NEEDS = {"browser": 10, "real_model": 10, "venv": 30, "ray": 20}  # mark -> its weight when ordering work (below)


@pytest.hookimpl(wrapper=True)  # before every other implementation: pytest-xdist's worker reads the groups
def pytest_collection_modifyitems(config, items):
    """Marks and order.

    - A test that uses the ``browser`` fixture is marked ``browser``; every test marked ``browser``,
      ``real_model``, ``venv`` or ``ray`` is also ``slow``.
    - Under pytest-xdist (``--dist loadgroup``) a module's tests run in one worker, so its module and session
      fixtures are built once (a test marked ``xdist_group(NAME)`` runs with every other test of that group).
    - The heaviest groups come first, so that no worker is left with a long one at the end.
    """
    weights: dict[str, int] = {}
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.browser)
        needs = [name for name in NEEDS if item.get_closest_marker(name)]
        if needs and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
        group = item.get_closest_marker("xdist_group")
        if group is None:
            name = item.nodeid.split("::")[0]
            item.add_marker(pytest.mark.xdist_group(name))
        else:
            name = str(group.args[0] if group.args else group.kwargs.get("name", "default"))
        if coerce_node_id is not None and getattr(config.option, "loadgroup", False):
            # pytest-xdist's worker adds the group to the test's id for its controller (``@NAME``), but by an
            # attribute (``_nodeid``) that pytest >= 9.2 no longer reads: without the group in the id, the
            # controller would spread a module's tests, and build its fixtures, on every worker.
            item._id = coerce_node_id(f"{item.nodeid}@{name}")
        weight = max([NEEDS[n] for n in needs], default=3 if item.get_closest_marker("slow") else 1)
        weights[name] = weights.get(name, 0) + weight
        item.stash[_GROUP] = name
    first = {}
    for index, item in enumerate(items):
        first.setdefault(item.stash[_GROUP], index)
    items.sort(key=lambda item: (-weights[item.stash[_GROUP]], first[item.stash[_GROUP]]))
    return (yield)


_GROUP = pytest.StashKey[str]()


_PAGES_BEFORE = pytest.StashKey[set]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if "browser_helpers" in sys.modules:
        item.stash[_PAGES_BEFORE] = {id(page) for page in sys.modules["browser_helpers"].OPEN_PAGES}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing browser test saves a screenshot of each page it opened and left open, and the log of the server
    behind each, under its own temporary folder; its report names them."""
    report = yield
    if report.failed and call.when == "call" and "browser_helpers" in sys.modules:
        from browser_helpers import OPEN_PAGES, save_failure

        before = item.stash.get(_PAGES_BEFORE, set())
        pages = [page for page in OPEN_PAGES if id(page) not in before]
        if pages:
            tmp_path = item.funcargs.get("tmp_path")
            folder = Path(tmp_path) if tmp_path else Path(item.config._tmp_path_factory.mktemp("failure"))
            lines = save_failure(pages, folder / "browser-failure")
            report.sections.append(("browser failure: screenshots and server logs", "\n".join(lines)))
    return report


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium (``browser_helpers.shared_browser``), stopped after the module: Playwright's sync API
    keeps an event loop running in this thread meanwhile, and a later module's ``asyncio.run`` needs none."""
    from browser_helpers import chromium_missing, shared_browser, stop_shared_browser

    if chromium_missing():
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    yield shared_browser()
    stop_shared_browser()


def pytest_sessionfinish(session):
    if "browser_helpers" in sys.modules:
        sys.modules["browser_helpers"].stop_shared_browser()


@pytest.fixture(autouse=True)
def _fresh_registry(monkeypatch, tmp_path):
    """Each test discovers plugins afresh and keeps its home, caches and settings in a temporary folder of its
    own (``home_folders``), beside its ``tmp_path``."""
    plugins._cached = None
    home = tmp_path.with_name(f"{tmp_path.name}-home")  # beside tmp_path: a test may check that it stays empty
    for name, value in home_folders(home).items():
        monkeypatch.setenv(name, value)
    (home / "home").mkdir(parents=True, exist_ok=True)
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
    """Run `leaderboard ARGS` in a process of its own, as a user would.

    The process is forked from the tests' command server (``cli_server``: the heavy libraries already imported,
    nothing of the project), unless ``python`` names another interpreter or ``env`` changes what an interpreter
    reads as it starts: then it is a fresh interpreter. LEADERBOARD_TESTS_FRESH_INTERPRETERS=1: always fresh."""
    full_env = {**os.environ, "HF_HUB_OFFLINE": "1", "COLUMNS": "250", **(env or {})}
    if python is None and not os.environ.get("LEADERBOARD_TESTS_FRESH_INTERPRETERS") and CLI_SERVER.takes(full_env):
        return CLI_SERVER.run(list(args), full_env, str(cwd) if cwd else None, timeout=600)
    return subprocess.run(
        [python or sys.executable, "-m", "leaderboard", *args],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=cwd,
        timeout=600,
    )


CLI_SERVER = CliServer()  # started by its first command; stopped with the session (pytest_unconfigure)


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
