"""Ajv itself, as the MCP TypeScript SDK runs it: the reference of the ``mcp-ts`` models.

``ajv_runner.js`` (shipped beside this module) builds the SDK's engines (``strict: false``,
``validateFormats: true``, ``validateSchema: false``, ``allErrors: true``, ``addFormats``) and
dispatches on ``$schema`` as ``AjvJsonSchemaValidator._engineFor`` does. It is driven in
batches over a pipe, one JSON line per instance each way. Nothing is ever installed here:
``node`` must be on the PATH and ``ajv`` and ``ajv-formats`` in a ``node_modules`` folder the
caller names (``AUDITOR_NODE_MODULES``, ``--node-modules``); without them ``find_ajv`` says
why.

At audit time (``--runtime-validator ajv``), ``AjvLocation.verdict`` asks one process per
auditor process (a worker forked from the driver starts its own) for each call's verdict.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from auditor.models import JSON

RUNNER: Final = Path(__file__).with_name("ajv_runner.js")
NODE_MODULES_VARIABLE: Final = "AUDITOR_NODE_MODULES"
_PACKAGES: Final = ("ajv", "ajv-formats")


@dataclass(frozen=True)
class AjvVerdict:
    """What Ajv said of one instance: valid or not with its errors, or why the runtime cannot
    use the schema at all (``unusable``)."""

    valid: bool
    errors: tuple[dict[str, Any], ...] = ()
    unusable: str | None = None


@dataclass(frozen=True)
class AjvRequest:
    runtime: str
    schema: JSON
    instance: JSON


@dataclass(frozen=True)
class AjvLocation:
    """Where Ajv runs: ``node`` and the ``node_modules`` folder, with the versions found there
    (for the report); plain text, so that it travels to worker processes."""

    node: str
    node_modules: str
    versions: str
    """``ajv 8.20.0, ajv-formats 3.0.1, node v20.20.2``."""

    def verdict(self, runtime: str, schema: JSON, instance: JSON) -> AjvVerdict:
        """Ajv's verdict on one instance, from this process's Ajv (started on first use)."""
        key = (os.getpid(), self.node, self.node_modules)
        process = _PROCESSES.get(key)
        if process is None:
            process = _PROCESSES[key] = AjvProcess(self.node, Path(self.node_modules))
        return process.verdicts([AjvRequest(runtime, schema, instance)])[0]


_PROCESSES: dict[tuple[int, str, str], AjvProcess] = {}
"""The Ajv process of each auditor process: a forked worker must not share its parent's pipes."""


def close_runners() -> None:
    """Close the Ajv processes this process started (run at exit). Those recorded under
    another pid are left alone: a forked child holds copies of its parent's entries, and
    closing one would end a runner the parent is still using."""
    pid = os.getpid()
    for key in [key for key in _PROCESSES if key[0] == pid]:
        _PROCESSES.pop(key).close()


atexit.register(close_runners)


def locate_ajv(node_modules: str | None = None) -> AjvLocation | str:
    """Where Ajv runs, with its versions, or why it cannot run here (a sentence)."""
    found = find_ajv(node_modules)
    if isinstance(found, str):
        return found
    node, folder = found
    versions = [
        f"{name} {json.loads((folder / name / 'package.json').read_text('utf-8'))['version']}"
        for name in _PACKAGES
    ]
    try:
        done = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30, check=True
        )
    except (OSError, subprocess.SubprocessError) as error:
        return f"{node} --version failed: {error}"
    return AjvLocation(node, str(folder), ", ".join([*versions, f"node {done.stdout.strip()}"]))


def find_ajv(node_modules: str | None = None) -> tuple[str, Path] | str:
    """``node`` and the ``node_modules`` holding ajv and ajv-formats, or why they are not
    there (a sentence)."""
    node = shutil.which("node")
    if node is None:
        return "node is not on the PATH"
    folder = node_modules or os.environ.get(NODE_MODULES_VARIABLE)
    if not folder:
        return f"{NODE_MODULES_VARIABLE} names no node_modules folder"
    path = Path(folder)
    missing = [name for name in _PACKAGES if not (path / name / "package.json").is_file()]
    if missing:
        return f"{path} holds no {', '.join(missing)}"
    return node, path


class AjvProcess:
    """One ``node ajv_runner.js`` process; ``verdicts`` sends a batch and reads its answers."""

    def __init__(self, node: str, node_modules: Path) -> None:
        env = {**os.environ, "NODE_PATH": str(node_modules)}
        self._process = subprocess.Popen(
            [node, str(RUNNER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
            encoding="utf-8",
        )

    def verdicts(self, requests: Sequence[AjvRequest]) -> list[AjvVerdict]:
        """Ajv's verdict on each request, in order."""
        stdin, stdout = self._process.stdin, self._process.stdout
        if stdin is None or stdout is None:
            raise RuntimeError("the Ajv process has no pipes")
        lines = [
            json.dumps({"id": i, "runtime": r.runtime, "schema": r.schema, "instance": r.instance})
            + "\n"
            for i, r in enumerate(requests)
        ]

        def write() -> None:  # apart from the reads: a full pipe each way would deadlock
            stdin.writelines(lines)
            stdin.flush()

        writer = threading.Thread(target=write)
        writer.start()
        answers: list[AjvVerdict] = []
        for i in range(len(requests)):
            answer = json.loads(stdout.readline())
            if answer.get("id") != i:
                raise RuntimeError(f"Ajv answered {answer.get('id')} for request {i}")
            if "unusable" in answer:
                answers.append(AjvVerdict(False, unusable=str(answer["unusable"])))
            else:
                answers.append(AjvVerdict(bool(answer["valid"]), tuple(answer["errors"])))
        writer.join()
        return answers

    def close(self, timeout: float = 5.0) -> None:
        """End the process without ever hanging: close its pipes (at the end of its input the
        runner exits), wait ``timeout`` seconds, then terminate it, and at last kill it."""
        process = self._process
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):  # a flush into a runner already gone
                    pipe.close()
        for stop in (process.terminate, process.kill, None):
            try:
                process.wait(timeout=timeout)
                return
            except subprocess.TimeoutExpired:
                if stop is not None:
                    stop()

    def __enter__(self) -> AjvProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
