"""The release files agree: one version (pyproject.toml) that the package, `leaderboard --version`, the
changelog's newest entry and CITATION.cff all state; `leaderboard cite`'s software entry is CITATION.cff's;
the license is Apache-2.0's text and goes into the wheel."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version

import yaml
from conftest import REPO, run_cli

from leaderboard.cli.cite import HARNESS_AUTHOR, HARNESS_NOTE, HARNESS_TITLE, harness_bibtex

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
CITATION = yaml.safe_load((REPO / "CITATION.cff").read_text("utf-8"))
# A released version's heading, as Keep a Changelog writes it: "## [1.0.0] - 2026-11-28".
RELEASED = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", re.M)


def test_the_version_is_written_once_and_the_package_and_cli_report_it():
    assert version("retrieval-leaderboard") == PYPROJECT["version"], "reinstall: pip install -e ."
    ran = run_cli("--version")
    assert ran.returncode == 0 and ran.stdout.strip() == f"leaderboard, version {PYPROJECT['version']}"
    import leaderboard

    assert leaderboard.__version__ == PYPROJECT["version"]


def test_the_changelogs_newest_release_is_the_version_and_citation_cff_names_it():
    text = (REPO / "CHANGELOG.md").read_text("utf-8")
    newest_entry = RELEASED.search(text)
    assert newest_entry is not None, "CHANGELOG.md has no released version"
    assert 0 <= text.find("## [Unreleased]") < newest_entry.start(), "'Unreleased' heads the changelog"
    newest, released_on = newest_entry.groups()
    assert newest == PYPROJECT["version"]
    assert CITATION["version"] == newest and str(CITATION["date-released"]) == released_on


def test_citation_cff_is_the_software_entry_cite_prints():
    assert CITATION["title"] == HARNESS_TITLE
    assert [a["name"] for a in CITATION["authors"]] == [HARNESS_AUTHOR]
    assert CITATION["abstract"] == HARNESS_NOTE
    assert CITATION["license"] == PYPROJECT["license"]
    entry = harness_bibtex()
    assert f"title = {{{HARNESS_TITLE}}}" in entry and f"author = {{{{{HARNESS_AUTHOR}}}}}" in entry
    assert f"version = {{{CITATION['version']}}}" in entry
    printed = run_cli("cite", "demo")
    assert printed.returncode == 0 and entry in printed.stdout


def test_the_license_is_apache_2_and_the_wheel_carries_it(tmp_path):
    from leaderboard.hub.space import build_wheel

    text = (REPO / "LICENSE").read_text("utf-8")
    assert PYPROJECT["license"] == "Apache-2.0" and PYPROJECT["license-files"] == ["LICENSE"]
    assert "Apache License\n                           Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text and "APPENDIX: How to apply the Apache License" in text
    import zipfile

    wheel = build_wheel(REPO, tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        licenses = [n for n in names if re.fullmatch(r"[^/]+\.dist-info/licenses/LICENSE", n)]
        assert len(licenses) == 1, names
        assert archive.read(licenses[0]).decode("utf-8") == text
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode("utf-8")
    assert "License-Expression: Apache-2.0" in metadata and f"Version: {PYPROJECT['version']}" in metadata
