"""Local-or-download data locations, with downloads verified against pinned sha256 hashes."""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import urllib.request
import zipfile
from pathlib import Path

from leaderboard.data.hashing import sha256_file
from leaderboard.errors import BadInput, DataUnavailable
from leaderboard.fileio import cache_home
from leaderboard.progress import step


def cache_root() -> Path:
    return cache_home() / "data"


def local_dir(option: str | None, env_var: str) -> Path | None:
    """The folder named by --data-dir, else by the task's environment variable, else None."""
    chosen = option or os.environ.get(env_var)
    if not chosen:
        return None
    path = Path(chosen).expanduser()
    if not path.is_dir():
        where = "--data-dir" if option else env_var
        raise BadInput(f"{where} points to {path}, which is not a directory.")
    return path


def _verify(root: Path, expected: dict[str, str]) -> list[str]:
    return [rel for rel, digest in expected.items() if not (root / rel).is_file() or sha256_file(root / rel) != digest]


def _download(url: str, env_var: str | None) -> bytes:
    try:
        with step(f"downloading {url}"), urllib.request.urlopen(url, timeout=60) as response:
            body: bytes = response.read()
            return body
    except OSError as exc:
        variable = f"the environment variable {env_var}" if env_var else "its environment variable"
        raise DataUnavailable(
            f"Could not download {url} ({exc}). Point the task at a local copy with --data-dir or {variable}."
        ) from None


def fetch_zip(name: str, url: str, expected: dict[str, str], env_var: str | None = None) -> Path:
    """Download a zip once, find the folder holding the expected files, verify every hash, cache it.

    ``env_var``: the variable the task reads its local copy from, named in the message when the download fails."""
    target = cache_root() / name
    if target.is_dir() and not _verify(target, expected):
        return target
    archive = zipfile.ZipFile(io.BytesIO(_download(url, env_var)))
    with tempfile.TemporaryDirectory() as tmp:
        archive.extractall(tmp)
        anchor = next(iter(expected))
        candidates = [
            p
            for p in Path(tmp).rglob(Path(anchor).name)
            if not _verify(p.parents[len(Path(anchor).parts) - 1], expected)
        ]
        if not candidates:
            raise BadInput(
                f"{url}: no folder in the archive matches the pinned sha256 hashes of {', '.join(expected)}; "
                "the upstream data changed."
            )
        found = candidates[0].parents[len(Path(anchor).parts) - 1]
        _install(found, target, expected)
    return target


def fetch_files(name: str, base_url: str, expected: dict[str, str], env_var: str | None = None) -> Path:
    """Download each expected file from base_url/<relative path>, verify, cache (``env_var``: as fetch_zip)."""
    target = cache_root() / name
    if target.is_dir() and not _verify(target, expected):
        return target
    with tempfile.TemporaryDirectory() as tmp:
        for rel in expected:
            (Path(tmp) / rel).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / rel).write_bytes(_download(f"{base_url.rstrip('/')}/{rel}", env_var))
        bad = _verify(Path(tmp), expected)
        if bad:
            raise BadInput(
                f"{base_url}: {', '.join(bad)} do not match the pinned sha256 hashes; the upstream data changed."
            )
        _install(Path(tmp), target, expected)
    return target


def _install(source: Path, target: Path, expected: dict[str, str]) -> None:
    staging = target.with_name(target.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    for rel in expected:
        (staging / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / rel, staging / rel)
    shutil.rmtree(target, ignore_errors=True)
    os.replace(staging, target)
