"""What pyproject.toml declares about the package holds: the license it names ships as a file,
and the Python classifiers name every minor version that requires-python allows, from its
floor to the newest one listed. .ci/run checks that the built wheel and sdist carry LICENSE."""

from __future__ import annotations

import re
import sys
from typing import Any

from packaging.specifiers import SpecifierSet

from tests.conftest import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def _project() -> dict[str, Any]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert isinstance(project, dict)
    return project


def test_the_declared_license_ships_as_a_file() -> None:
    project = _project()
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) 2026 auditor contributors\n")
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text
    assert project["authors"] == [{"name": "auditor contributors"}]


def test_a_classifier_names_each_supported_python() -> None:
    project = _project()
    allowed = SpecifierSet(project["requires-python"])
    versions = re.findall(
        r"^Programming Language :: Python :: 3\.(\d+)$",
        "\n".join(project["classifiers"]),
        re.MULTILINE,
    )
    listed = sorted(int(minor) for minor in versions)
    assert listed, "no per-version classifier"
    # From the floor requires-python allows to the newest listed, none left out, none
    # outside the range.
    floor = next(minor for minor in range(0, 30) if f"3.{minor}" in allowed)
    assert listed == list(range(floor, listed[-1] + 1))
    assert all(f"3.{minor}" in allowed for minor in listed)
