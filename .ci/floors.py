"""Print the runtime dependencies of pyproject.toml pinned at their floors (``>=X`` -> ``==X``),
one per line, skipping those whose environment marker does not hold here.

Used by .ci/run to test the lowest versions the package allows. Only pip's own vendored
libraries are used, so it runs on any Python that has pip, before anything is installed.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    from pip._vendor import tomli as tomllib
from pip._vendor.packaging.requirements import Requirement


def floors(pyproject: Path) -> list[str]:
    """``name==floor`` for every runtime dependency that applies to this interpreter."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    pinned = []
    for text in project["dependencies"]:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        lows = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        if len(lows) != 1:
            sys.exit(f"{text}: expected exactly one '>=' floor")
        pinned.append(f"{requirement.name}=={lows[0]}")
    return pinned


if __name__ == "__main__":
    print("\n".join(floors(Path(sys.argv[1] if len(sys.argv) > 1 else "pyproject.toml"))))
