"""What a result records so that it can be reproduced: code, libraries, hardware."""

from __future__ import annotations

import os
import platform
import subprocess
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

LIBRARIES = (
    "torch",
    "sentence-transformers",
    "transformers",
    "bm25s",
    "PyStemmer",
    "pytrec-eval-terrier",
    "numpy",
    "mteb",
    "pluggy",
    "datasets",
    "huggingface-hub",
)


def library_versions() -> dict[str, str | None]:
    return dict(_library_versions())


@cache
def _library_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = None
    return versions


@cache
def harness_version() -> str:
    """This harness's installed version (``leaderboard.__version__``)."""
    try:
        return version("retrieval-leaderboard")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


def _git(*args: str) -> str | None:
    root = Path(__file__).resolve().parent.parent
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def harness_info() -> dict[str, Any]:
    """Harness name, version and git commit (None when installed from a wheel, not a checkout)."""
    return dict(_harness_info())


@cache
def _harness_info() -> dict[str, Any]:
    commit = _git("rev-parse", "HEAD")
    dirty = None
    if commit:
        status = _git("status", "--porcelain", "--untracked-files=no")
        dirty = bool(status) if status is not None else None
    return {"name": "retrieval-leaderboard", "version": harness_version(), "git_commit": commit, "git_dirty": dirty}


def hardware_info(device: str | None = None) -> dict[str, Any]:
    info = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or None,
        "cpu_count": os.cpu_count(),
        "device": device or "cpu",
        "accelerator": None,
    }
    try:
        import sys

        torch = sys.modules.get("torch")
        # Probing CUDA on a CPU machine costs about a second; ask only if a model initialised it.
        if torch is not None and torch.cuda.is_initialized():
            info["accelerator"] = torch.cuda.get_device_name(torch.cuda.current_device())
    except Exception:  # hardware details are best-effort, never a reason to fail a run
        pass
    return info
