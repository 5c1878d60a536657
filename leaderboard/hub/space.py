"""Build and deploy the public leaderboard's Hugging Face Space from this checkout.

``build(DIR)`` writes a self-contained Space folder:
    README.md        front matter (sdk gradio, sdk_version, python_version, app_file) and what it serves
    app.py           the Space entry point (a copy of space/app.py)
    space.json       the results dataset it serves and the harness it was built from
    requirements.txt ./<wheel>[app]: the harness at the running version with its app extra
    <wheel>          built from this checkout

Why a wheel in the folder, not a git URL or the package index: the Space must run exactly the code
that wrote and checked the results (the running version, uncommitted edits included, recorded in
space.json), and nothing is published on an index yet. The wheel is built by pip (``pip wheel
--no-deps --no-build-isolation``, the PyPA tool every venv has) from a temporary copy of the files
the project's setuptools configuration packages, so a stale ``build/`` folder in the checkout can
never leak removed modules into it, and the checkout is left untouched.

``deploy`` uploads that folder as a Space repo with huggingface_hub and sets ``RESULTS_REPO`` as a
Space variable (the Space settings show and edit it); space.json carries the same value so a copy of
the folder also runs elsewhere. ``--requests`` sets ``REQUESTS_REPO`` (the evaluation queue's
requests dataset: the Submit and Queue tabs) the same way. The write token the Submit tab needs is
never sent: the owner sets it as the Space secret ``HF_TOKEN`` (README, "Submitting a model").
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from leaderboard.errors import BadInput
from leaderboard.hub.repo_names import repo_id as checked_repo_id

DIST = "retrieval-leaderboard"
TEMPLATE = "space"  # the checkout's folder holding app.py and README.md.tmpl
PYTHON_VERSION = "3.11"


@dataclass
class SpaceFolder:
    path: Path
    wheel: str
    version: str
    results_repo: str | None
    requests_repo: str | None = None


def checkout_root(source: Path | None = None) -> Path:
    """The source checkout of the running harness (the folder with its pyproject.toml and space/)."""
    root = Path(source) if source else Path(__file__).resolve().parents[2]
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file() or not (root / TEMPLATE / "app.py").is_file():
        raise BadInput(
            f"{root}: not a retrieval-leaderboard source checkout (needs pyproject.toml and {TEMPLATE}/app.py); "
            "`leaderboard space build` builds the harness wheel from a checkout: run it from an editable install "
            "(pip install -e .) or pass --source DIR."
        )
    name = tomllib.loads(pyproject.read_text("utf-8")).get("project", {}).get("name")
    if name != DIST:
        raise BadInput(f"{pyproject}: project {name!r} is not {DIST}.")
    return root


def results_repo_id(value: str) -> str:
    """ORG/NAME from ORG/NAME, hf://ORG/NAME or hf://datasets/ORG/NAME, checked as the hub checks it."""
    return checked_repo_id(value, "--results", "the results dataset", prefixed=True)


def running_version() -> str:
    try:
        return version(DIST)
    except PackageNotFoundError:
        raise BadInput(f"{DIST} is not installed; install this checkout with `pip install -e .`.") from None


def _packaged_copy(root: Path, dest: Path) -> None:
    """Copy what the setuptools configuration packages: pyproject, readme, license files, package folders."""
    config = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))
    project = config.get("project", {})
    names = {"pyproject.toml"}
    readme = project.get("readme")
    names.add(readme if isinstance(readme, str) else (readme or {}).get("file", "README.md"))
    names.update(p.name for p in root.glob("LICEN[CS]E*"))
    folders = set(config.get("tool", {}).get("setuptools", {}).get("package-dir", {}).values())
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")
    dest.mkdir(parents=True)
    for name in sorted(names):
        if (root / name).is_file():
            shutil.copy2(root / name, dest / name)
    for folder in sorted(folders):
        if (root / folder).is_dir():
            shutil.copytree(root / folder, dest / folder, ignore=ignore)


def build_wheel(root: Path, wheel_dir: Path) -> Path:
    """The harness wheel of this checkout, built offline by pip from a clean copy; its version must be ours."""
    with tempfile.TemporaryDirectory(prefix="leaderboard-wheel-") as tmp:
        source = Path(tmp) / "source"
        _packaged_copy(root, source)
        built = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--no-build-isolation",
                "--disable-pip-version-check",
                "--quiet",
                "--wheel-dir",
                str(Path(tmp) / "wheel"),
                str(source),
            ],
            capture_output=True,
            text=True,
        )
        wheels = sorted((Path(tmp) / "wheel").glob("*.whl"))
        if built.returncode != 0 or len(wheels) != 1:
            detail = (built.stderr or built.stdout).strip()[-2000:]
            raise BadInput(f"Building the harness wheel with pip failed (exit {built.returncode}): {detail}")
        wheel_dir.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copy2(wheels[0], wheel_dir / wheels[0].name))


def _wheel_version(wheel: Path) -> str:
    # A wheel's file name is {distribution}-{version}-...: PEP 427.
    return wheel.name.split("-")[1]


def _gradio_version(root: Path) -> str:
    """The Space's sdk_version: the gradio installed here (the one the app is tested with), else the extra's floor."""
    try:
        return version("gradio")
    except PackageNotFoundError:
        extra = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"]["app"]
        floor = next((re.search(r">=\s*([\d.]+)", r) for r in extra if r.startswith("gradio")), None)
        if floor is None:
            raise BadInput("Cannot tell the Space's gradio version: install the app extra.") from None
        return floor.group(1)


def _readme(root: Path, values: dict[str, str]) -> str:
    from string import Template

    return Template((root / TEMPLATE / "README.md.tmpl").read_text("utf-8")).substitute(values)


def requests_repo_id(value: str) -> str:
    """The evaluation queue's requests dataset, checked as --results is."""
    return checked_repo_id(value, "--requests", "the requests dataset", prefixed=True)


def build(
    dest: Path,
    results: str | None = None,
    source: Path | None = None,
    title: str = "Retrieval Leaderboard",
    requests: str | None = None,
) -> SpaceFolder:
    """Write the Space folder at ``dest`` (which must not exist or be empty); all or nothing."""
    from leaderboard.provenance import harness_info

    dest = Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise BadInput(f"{dest}: exists and is not an empty folder; the Space is written into a new folder.")
    blocked = next((p for p in dest.parents if p.exists() and not p.is_dir()), None)
    if blocked is not None:  # checked before the wheel is built: no folder can be made below a file
        raise BadInput(f"{dest}: {blocked} is a file, not a folder; the Space is written into a new folder.")
    root = checkout_root(source)
    repo = results_repo_id(results) if results else None
    queue = requests_repo_id(requests) if requests else None
    running = running_version()
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".space-", dir=dest.parent))
    except OSError as exc:  # not writable, or a file appeared on the way
        raise BadInput(f"{dest}: cannot make the folder ({exc.strerror or exc}); choose a writable path.") from None
    try:
        wheel = build_wheel(root, staging)
        if _wheel_version(wheel) != running:
            raise BadInput(
                f"The checkout builds version {_wheel_version(wheel)} but {running} is running: "
                "reinstall it (pip install -e .) so the Space serves the harness you run."
            )
        shutil.copy2(root / TEMPLATE / "app.py", staging / "app.py")
        (staging / "requirements.txt").write_text(
            "# The harness at the version that built this Space, with its app extra (no torch, mteb or\n"
            "# sentence-transformers); the wheel was built from its checkout by `leaderboard space build`.\n"
            f"./{wheel.name}[app]\n",
            encoding="utf-8",
        )
        harness = harness_info()
        config = {"results_repo": repo, "requests_repo": queue, "harness": harness, "wheel": wheel.name}
        (staging / "space.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        values = {
            "title": title,
            "sdk_version": _gradio_version(root),
            "python_version": PYTHON_VERSION,
            "datasets": f"datasets:\n- {repo}\n" if repo else "",
            "results_repo": repo or "(not set: set the RESULTS_REPO variable)",
            "version": running,
            "commit": harness.get("git_commit") or "unknown",
            "dirty": " (with uncommitted changes)" if harness.get("git_dirty") else "",
            "wheel": wheel.name,
        }
        (staging / "README.md").write_text(_readme(root, values), encoding="utf-8")
        if dest.exists():
            dest.rmdir()
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)  # mkdtemp made it private; the Space folder follows the umask
        staging.rename(dest)  # the folder appears whole or not at all
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return SpaceFolder(dest, wheel.name, running, repo, queue)


def deploy(
    repo_id: str,
    results: str,
    *,
    endpoint: str | None = None,
    token: str | None = None,
    source: Path | None = None,
    private: bool = False,
    requests: str | None = None,
) -> str:
    """Build the Space and upload it as a Space repo in one commit, with RESULTS_REPO (and REQUESTS_REPO) set.

    Returns the commit URL. Without ``requests`` an existing Space's REQUESTS_REPO is left as it is.
    """
    from leaderboard.hub.store import HubStore

    repo_id = checked_repo_id(repo_id, "--repo", "the Space")
    results = results_repo_id(results)
    queue = requests_repo_id(requests) if requests else None
    hub = HubStore(repo_id, endpoint, token)  # its error translation: endpoint named, token redacted
    if not hub.token:
        raise BadInput(
            "No Hugging Face token: set HF_TOKEN or log in with `hf auth login` (the token is never printed)."
        )
    with tempfile.TemporaryDirectory(prefix="leaderboard-space-") as tmp:
        folder = build(Path(tmp) / "space", results, source, requests=queue)
        with hub._hub_errors("deploy the Space to", committing=True):
            hub.api.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
            # create_repo leaves an existing Space's variables alone: set it explicitly every time.
            hub.api.add_space_variable(
                repo_id, "RESULTS_REPO", results, description="the results dataset this leaderboard serves"
            )
            if queue:  # the write token is the HF_TOKEN secret, set by the owner: never a variable, never sent
                hub.api.add_space_variable(
                    repo_id, "REQUESTS_REPO", queue, description="the evaluation queue: Submit and Queue tabs"
                )
            info = hub.api.upload_folder(
                repo_id=repo_id,
                repo_type="space",
                folder_path=folder.path,
                commit_message=f"Deploy retrieval-leaderboard {folder.version} serving {results}",
                delete_patterns=["*.whl"],  # an older harness wheel would otherwise stay beside the new one
            )
    return str(info.commit_url if hasattr(info, "commit_url") else info)
