"""Nothing changed, nothing newly rejected: the official JSON-Schema-Test-Suite's reference
groups (draft 2020-12: ``$ref``, remote references, ``$anchor``, ``$defs``, ``$dynamicRef``,
``$id``), each group's schema a tool whose old and new schema are the same (no rule family
rewrites anything), each test's data one call of it.

The suite ships in python-jsonschema's sdist; it is not committed here. ``.ci/run`` downloads
it and runs this module in a step of its own with ``AUDITOR_JSON_SCHEMA_SUITE`` naming its
``json/tests/draft2020-12`` folder, where a missing file fails and a skip fails the step.
Without the variable (the main suite) the module skips, saying so.

The replay validates whatever JSON the arguments are (a number, a list: the schema decides,
as ``auditor audit`` does with such a logged call), so each test's data is given as it is,
unwrapped: a wrapper would move the root that ``"$ref": "#"`` names and change the test.

What must hold, reasoned from the models (docs/architecture.md, "old runtime"):

- ``lenient`` and ``standard``: the old runtime reads an unchanged, usable schema as the new
  side does, references included (the lenient reading resolves every ``$ref`` the new side
  resolves, with the same registry), so no call is newly rejected or newly accepted, and the
  two models give the same outcome to every call. A reference to another document is never
  fetched: a call that reaches one meets a schema the new side cannot use
  (``schema_error_after``) on both models alike. Every other call is accepted exactly when the
  suite says its data is valid.
- ``none``: nothing validated the calls before, so the runtime does change (validation is
  switched on): the calls the new schema rejects are newly rejected, and they are exactly the
  suite's invalid data among the calls the new side could evaluate; no valid datum is.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from auditor.aggregate.pipeline import evaluate_call, prepare
from auditor.models import Call, Location, OldRuntime, Outcome, ToolSchema

SUITE = "AUDITOR_JSON_SCHEMA_SUITE"
FILES = (
    "ref.json",
    "refRemote.json",
    "anchor.json",
    "defs.json",
    "dynamicRef.json",
    "optional/id.json",
    "optional/anchor.json",
    "optional/dynamicRef.json",
    "optional/refOfUnknownKeyword.json",
)
UNREACHABLE = "cannot resolve $ref"
"""How a reference to a document the registry does not hold is reported (never fetched)."""

if not os.environ.get(SUITE):
    pytest.skip(
        f"{SUITE} is not set: .ci/run downloads the suite and runs this module in its own step",
        allow_module_level=True,
    )


def _suite() -> Path:
    given = os.environ.get(SUITE, "")
    folder = Path(given)
    missing = [name for name in FILES if not (folder / name).is_file()]
    if missing:
        pytest.fail(f"{SUITE}={given} lacks {', '.join(missing)}")
    return folder


def _outcomes(name: str, runtime: OldRuntime) -> list[tuple[str, bool, Outcome, str]]:
    """(description, the suite's verdict, outcome, schema problem) of every test of ``name``."""
    groups: list[dict[str, Any]] = json.loads((_suite() / name).read_text("utf-8"))
    tools = [
        ToolSchema(f"group {i}", group["schema"], Location(name), "", "mapping")
        for i, group in enumerate(groups)
    ]
    replays = prepare(tools, frozenset(), old_runtime=runtime)
    found = []
    for i, group in enumerate(groups):
        tool = f"group {i}"
        assert replays[tool].normalized.rewrites == (), "old and new must be the same schema"
        assert replays[tool].normalized.schema == group["schema"]
        for j, test in enumerate(group["tests"]):
            call = Call(f"{name}:{i}:{j}", tool, test["data"])
            result = evaluate_call(replays, call)[0]
            what = f"{group['description']}: {test['description']}"
            found.append((what, bool(test["valid"]), result.outcome, result.schema_problem or ""))
    return found


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("runtime", [OldRuntime.LENIENT, OldRuntime.STANDARD])
def test_an_unchanged_schema_rejects_nothing_newly(name: str, runtime: OldRuntime) -> None:
    found = _outcomes(name, runtime)
    assert found
    for what, valid, outcome, problem in found:
        if outcome is Outcome.SCHEMA_ERROR_AFTER:
            assert problem.startswith(UNREACHABLE), (what, problem)
            continue
        want = Outcome.ACCEPTED if valid else Outcome.STILL_REJECTED
        assert outcome is want, what


@pytest.mark.parametrize("name", FILES)
def test_both_models_give_every_call_the_same_outcome(name: str) -> None:
    lenient = _outcomes(name, OldRuntime.LENIENT)
    assert lenient == _outcomes(name, OldRuntime.STANDARD)


@pytest.mark.parametrize("name", FILES)
def test_switching_validation_on_rejects_newly_exactly_the_invalid_data(name: str) -> None:
    for what, valid, outcome, problem in _outcomes(name, OldRuntime.NONE):
        if outcome is Outcome.SCHEMA_ERROR_AFTER:
            assert problem.startswith(UNREACHABLE), (what, problem)
            continue
        assert outcome is (Outcome.ACCEPTED if valid else Outcome.NEWLY_REJECTED), what


def test_the_remote_references_are_never_fetched_and_some_are_reached() -> None:
    """refRemote.json names documents only the suite's own server holds: none is in the
    registry, so the calls reaching them are schema errors after, on every model alike."""
    for runtime in OldRuntime:
        outcomes = [outcome for _, _, outcome, _ in _outcomes("refRemote.json", runtime)]
        assert Outcome.SCHEMA_ERROR_AFTER in outcomes, runtime
