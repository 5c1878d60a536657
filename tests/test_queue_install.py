"""The worker installs the release a request names, even where a plugin of the same name and version is
already visible to the run's venv (an editable checkout or an older build beside the worker)."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import zipfile

import pytest
from conftest import make_plugin_dist

from leaderboard.queue.sandbox import Limits, Sandbox, bwrap_available
from leaderboard.queue.verification import make_child_venv
from leaderboard.queue.worker import install_plugin

ISOLATIONS = ["process", pytest.param("bwrap", marks=pytest.mark.skipif(not bwrap_available(), reason="no bwrap"))]


def _wheel(folder, name: str, version: str, source: str):
    """A pure-Python wheel, laid out as the wheel format says (PEP 427): module, METADATA, WHEEL, RECORD."""
    info = f"{name}-{version}.dist-info"
    files = {
        f"{name}.py": source,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }

    def digest(text: str) -> str:
        raw = hashlib.sha256(text.encode()).digest()
        return "sha256=" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    record = "".join(f"{path},{digest(text)},{len(text.encode())}\n" for path, text in files.items())
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
        archive.writestr(f"{info}/RECORD", record + f"{info}/RECORD,,\n")
    return wheel


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_the_submitted_release_is_installed_over_a_same_version_copy_beside_the_worker(tmp_path, isolation):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels, "lbfake_plugin", "0.1.0", 'WHO = "the submitted release"\n')
    python = make_child_venv(tmp_path / "run" / "venv")  # in the run's folder, as the worker makes it
    # The same distribution, same version, already visible to the venv (as the worker's own packages are).
    beside = make_plugin_dist(
        tmp_path / "beside", "lbfake_plugin", "lbfake_plugin", 'WHO = "a copy beside the worker"\n', {}
    )
    site = subprocess.check_output(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
    )
    (tmp_path / "run" / "venv" / site.strip().split("/venv/", 1)[1] / "zz_beside.pth").write_text(f"{beside}\n")
    who = [str(python), "-c", "import lbfake_plugin; print(lbfake_plugin.WHO)"]
    assert "beside the worker" in subprocess.check_output(who, text=True)

    sandbox = Sandbox(tmp_path / "run", isolation, readable=[wheels, beside])
    installed = install_plugin(
        sandbox, python, ["--no-index", f"--find-links={wheels}", "lbfake_plugin==0.1.0"], Limits(300)
    )

    assert installed.ok, installed.log
    assert subprocess.check_output(who, text=True).strip() == "the submitted release"
    assert (beside / "lbfake_plugin.py").read_text() == 'WHO = "a copy beside the worker"\n'  # left as it was
