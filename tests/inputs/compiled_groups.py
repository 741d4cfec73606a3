"""The compiled payload grouping, for tests that hold it to its Python twin.

Imported where it was built (``pip install``, or ``setup.py build_ext --inplace``), else
compiled here from ``auditor/inputs/_payload_groups.c`` with this Python's compiler and
headers, as setuptools would: the tests compare both whatever ``AUDITOR_PURE_PYTHON`` says.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import shlex
import subprocess
import sysconfig
import tempfile
from functools import cache
from pathlib import Path
from types import ModuleType

from auditor.inputs.payload_groups import GroupFunction

SOURCE = Path(__file__).resolve().parents[2] / "auditor" / "inputs" / "_payload_groups.c"


@cache
def compiled_module() -> ModuleType:
    """``auditor.inputs._payload_groups``, built or compiled now."""
    try:
        return importlib.import_module("auditor.inputs._payload_groups")
    except ImportError:
        pass
    folder = Path(tempfile.mkdtemp(prefix="payload-groups-"))
    target = folder / ("_payload_groups" + str(sysconfig.get_config_var("EXT_SUFFIX")))
    compiler = shlex.split(str(sysconfig.get_config_var("CC") or "cc"))
    include = sysconfig.get_paths()["include"]
    command = [*compiler, "-O2", "-shared", "-fPIC", f"-I{include}", str(SOURCE), "-o"]
    subprocess.run([*command, str(target)], check=True)
    loader = importlib.machinery.ExtensionFileLoader("auditor.inputs._payload_groups", str(target))
    spec = importlib.util.spec_from_file_location(
        "auditor.inputs._payload_groups", target, loader=loader
    )
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def compiled_function() -> GroupFunction:
    function: GroupFunction = compiled_module().group_payloads
    return function
