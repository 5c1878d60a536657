"""A throwaway virtual environment that sees this environment's packages and installs offline."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
from pathlib import Path


def make_child_venv(root: Path) -> Path:
    """Create a venv whose site-packages chains to the current one; return its python."""
    venv.EnvBuilder(with_pip=False).create(root)
    python = root / "bin" / "python"
    child_site = Path(
        subprocess.check_output(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
        ).strip()
    )
    parent_site = sysconfig.get_paths()["purelib"]
    # addsitedir (not a bare path line) so the parent's own .pth files, editable installs included, run too
    (child_site / "_parent_env.pth").write_text(f"import site; site.addsitedir({parent_site!r})\n")
    return python


def pip_install_offline(python: Path, project: Path) -> subprocess.CompletedProcess:
    """Install a local project into the child venv: no index, no build isolation, no network."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-index",
            "--no-build-isolation",
            "--no-deps",
            "--no-cache-dir",
            str(project),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
