"""Run a composite action's steps as a GitHub runner runs them, for the Action's tests.

A ``run:`` step runs in bash (``bash --noprofile --norc -eo pipefail``, the runner's
command for ``shell: bash``) in its ``working-directory``, with its ``env`` and a fresh
``GITHUB_OUTPUT`` file; a ``uses:`` step runs a stand-in given by the test (the real ones
are JavaScript actions that talk to GitHub). Each step's ``if`` is evaluated (no ``if``:
``success()``), its outcome recorded (``success``, ``failure``, ``skipped``), and
``continue-on-error`` makes a failure's conclusion a success, so the job goes on and passes.

Only the expressions action.yml uses are understood: contexts (``inputs``, ``github``,
``steps``, ``matrix``), string literals, ``==``, ``!=``, ``&&``, ``||``, ``!``,
parentheses and ``success()``; anything else raises, so a new kind of expression in
action.yml fails the tests instead of being read wrongly. Comparisons follow GitHub's for
strings: case-insensitive; a missing property is the empty string.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import ROOT

Value = str | bool
StandIn = Callable[[Mapping[str, str], Path], tuple[int, Mapping[str, str]]]
"""A ``uses:`` step: given its evaluated ``with`` and the workspace, the exit code and the
outputs."""

_TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<op>==|!=|&&|\|\||!|\(|\))"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)(?P<call>\(\))?)"
)


def _tokens(expression: str) -> list[tuple[str, str]]:
    tokens, at = [], 0
    expression = expression.strip()
    while at < len(expression):
        found = _TOKEN.match(expression, at)
        if found is None or found.end() == at:
            raise ValueError(f"not understood at {at}: {expression!r}")
        kind = next(k for k in ("string", "op", "name") if found.group(k) is not None)
        text = found.group(kind)
        if kind == "name" and found.group("call"):
            kind = "call"
        tokens.append((kind, text))
        at = found.end()
    return tokens


@dataclass
class _Parser:
    tokens: list[tuple[str, str]]
    lookup: Callable[[str], str]
    at: int = 0

    def _peek(self) -> str | None:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else None

    def parse(self) -> Value:
        value = self._or()
        if self.at != len(self.tokens):
            raise ValueError(f"trailing tokens: {self.tokens[self.at :]}")
        return value

    def _or(self) -> Value:
        value = self._and()
        while self._peek() == "||":
            self.at += 1
            right = self._and()
            value = value if _truthy(value) else right
        return value

    def _and(self) -> Value:
        value = self._compare()
        while self._peek() == "&&":
            self.at += 1
            right = self._compare()
            value = right if _truthy(value) else value
        return value

    def _compare(self) -> Value:
        value = self._unary()
        while self._peek() in ("==", "!="):
            op = self.tokens[self.at][1]
            self.at += 1
            right = self._unary()
            equal = _text(value).lower() == _text(right).lower()
            value = equal if op == "==" else not equal
        return value

    def _unary(self) -> Value:
        if self._peek() == "!":
            self.at += 1
            return not _truthy(self._unary())
        if self._peek() == "(":
            self.at += 1
            value = self._or()
            if self._peek() != ")":
                raise ValueError("unclosed parenthesis")
            self.at += 1
            return value
        kind, text = self.tokens[self.at]
        self.at += 1
        if kind == "string":
            return text[1:-1].replace("''", "'")
        if kind == "call":
            if text != "success":
                raise ValueError(f"function {text}() is not understood")
            return self.lookup("job.status") == "success"
        if kind == "name":
            return self.lookup(text)
        raise ValueError(f"unexpected {text!r}")


def _truthy(value: Value) -> bool:
    return value if isinstance(value, bool) else value != ""


def _text(value: Value) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else value


_EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)


@dataclass
class Step:
    """What one step did."""

    name: str
    outcome: str
    conclusion: str
    outputs: dict[str, str] = field(default_factory=dict)
    stdout: str = ""
    stderr: str = ""
    given: dict[str, str] = field(default_factory=dict)
    """A ``uses:`` step's evaluated ``with``."""


@dataclass
class Job:
    """A job that runs the Action once: its inputs (unset ones take their default), the
    ``github`` and ``matrix`` contexts, and a stand-in for each action it uses."""

    workspace: Path
    inputs: Mapping[str, str]
    stand_ins: Mapping[str, StandIn]
    github: Mapping[str, str] = field(default_factory=dict)
    matrix: Mapping[str, str] = field(default_factory=dict)
    path: str = "/usr/bin:/bin"
    """PATH for the ``run:`` steps; the test puts its stand-in tools first."""
    steps: list[Step] = field(default_factory=list)
    status: str = "success"
    outputs: dict[str, str] = field(default_factory=dict)
    resolved: dict[str, str] = field(default_factory=dict)
    """The inputs with their defaults, once run."""

    def step(self, name: str) -> Step:
        return next(step for step in self.steps if step.name == name)

    def run(self) -> Job:
        action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
        declared = action["inputs"]
        unknown = set(self.inputs) - set(declared)
        assert not unknown, f"no such inputs: {unknown}"
        self.resolved = {
            name: self.inputs.get(name, self._expand(str(spec.get("default", ""))))
            for name, spec in declared.items()
        }
        summary = self.workspace / "summary.md"
        for number, spec in enumerate(action["runs"]["steps"]):
            name = spec.get("name") or spec.get("id") or spec["uses"]
            condition = spec.get("if", "success()")
            if not _truthy(self._evaluate(str(condition))):
                self._record(spec, Step(name, "skipped", "skipped"))
                continue
            if "uses" in spec:
                action_name = spec["uses"].split("@")[0]
                given = {k: self._expand(str(v)) for k, v in (spec.get("with") or {}).items()}
                code, outputs = self.stand_ins[action_name](given, self.workspace)
                step = Step(name, "", "", dict(outputs), given=given)
            else:
                step, code = self._run(number, spec, name, summary)
            step.outcome = "success" if code == 0 else "failure"
            failed = code != 0 and not spec.get("continue-on-error", False)
            step.conclusion = "failure" if failed else "success"
            if failed:
                self.status = "failure"
            self._record(spec, step)
        self.outputs = {
            name: self._expand(str(spec["value"])) for name, spec in action["outputs"].items()
        }
        return self

    def _run(self, number: int, spec: dict[str, Any], name: str, summary: Path) -> tuple[Step, int]:
        output = self.workspace / f"output-{number}"
        output.write_text("")
        env = {k: self._expand(str(v)) for k, v in (spec.get("env") or {}).items()}
        env |= {"PATH": self.path, "GITHUB_OUTPUT": str(output)}
        env |= {"GITHUB_STEP_SUMMARY": str(summary), "HOME": os.environ.get("HOME", "/root")}
        script = self.workspace / f"step-{number}.sh"
        script.write_text(self._expand(spec["run"]))
        where = self.workspace / self._expand(str(spec.get("working-directory", ".")))
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            env=env,
            cwd=where,
            capture_output=True,
            text=True,
        )
        outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if line)
        return Step(name, "", "", outputs, done.stdout, done.stderr), done.returncode

    def _record(self, spec: dict[str, Any], step: Step) -> None:
        self.steps.append(step)
        if "id" in spec:
            self._by_id[spec["id"]] = step

    def __post_init__(self) -> None:
        self._by_id: dict[str, Step] = {}

    def _lookup(self, path: str) -> str:
        context, _, rest = path.partition(".")
        if context == "inputs":
            return self.resolved[rest]
        if context == "github":
            return {"action_path": str(ROOT), **self.github}.get(rest, "")
        if context == "matrix":
            return self.matrix.get(rest, "")
        if context == "job" and rest == "status":
            return self.status
        if context == "steps":
            step_id, _, what = rest.partition(".")
            step = self._by_id.get(step_id)
            if step is None:
                return ""
            if what in ("outcome", "conclusion"):
                return str(getattr(step, what))
            kind, _, key = what.partition(".")
            assert kind == "outputs", path
            return step.outputs.get(key, "")
        raise ValueError(f"context {context!r} is not understood")

    def _evaluate(self, condition: str) -> Value:
        condition = condition.strip()
        whole = _EXPRESSION.fullmatch(condition)
        text = whole.group(1) if whole else condition
        return _Parser(_tokens(text), self._lookup).parse()

    def _expand(self, text: str) -> str:
        """``text`` with each ``${{ expression }}`` replaced by its value."""
        return _EXPRESSION.sub(
            lambda m: _text(_Parser(_tokens(m.group(1)), self._lookup).parse()), text
        )
