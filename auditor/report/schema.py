"""The JSON Schema of the JSON report, shipped with the package.

``report.schema.json`` holds the shape; every closed set of values in it (rule families,
outcomes, ``--fail-on`` levels, hint kinds, roll-up kinds, old runtimes, evidence,
severities, and the outcome keys of the counts) is filled from the code's own enums when the
schema is loaded, so that a value the code can write is never one the schema refuses. A test
keeps the committed file equal to the filled schema, for whoever reads the file itself.
"""

from __future__ import annotations

import json
from enum import Enum
from importlib import resources
from typing import Any, Final

from auditor.models import (
    ChangeKind,
    CounterexampleStatus,
    Edit,
    Evidence,
    FailOn,
    GroupBy,
    HintKind,
    OldRuntime,
    Outcome,
    PatchOp,
    ProfileCode,
    RollUpKind,
    Rule,
    Severity,
    UnparsedKind,
)

ENUMS: Final[dict[str, type[Enum]]] = {
    "/properties/old_runtime": OldRuntime,
    "/properties/change/properties/kind": ChangeKind,
    "/properties/change/properties/profiles/items/properties/ran": ProfileCode,
    "/properties/group_by": GroupBy,
    "/properties/gate/properties/fail_on": FailOn,
    "/$defs/outcome": Outcome,
    "/$defs/rewrite/properties/rule": Rule,
    "/$defs/rewrite/properties/change": Edit,
    "/$defs/finding/properties/severity": Severity,
    "/$defs/group/properties/hint/properties/kind": HintKind,
    "/$defs/evidence": Evidence,
    "/$defs/call/properties/unparsed/properties/kind": UnparsedKind,
    "/$defs/patch_operation/properties/op": PatchOp,
    "/$defs/counterexample/properties/status": CounterexampleStatus,
    "/$defs/rollup_entry/properties/kind": RollUpKind,
}
"""Where each enum of the report schema stands (a JSON pointer), and the code's enum."""

COUNTS: Final = "/$defs/counts"
"""The outcome totals: ``calls`` and one count per outcome, every one required."""


def report_schema() -> dict[str, Any]:
    """The shipped schema with its enums filled from the code."""
    schema: dict[str, Any] = json.loads(
        resources.files("auditor.report").joinpath("report.schema.json").read_text("utf-8")
    )
    for pointer, enum in ENUMS.items():
        _node(schema, pointer)["enum"] = [member.value for member in enum]
    counts = _node(schema, COUNTS)
    count = {"type": "integer", "minimum": 0}
    counts["required"] = ["calls", *(outcome.value for outcome in Outcome)]
    counts["properties"] = {name: dict(count) for name in counts["required"]}
    return schema


def schema_text() -> str:
    """The schema as ``auditor schema`` prints it (and as ``report.schema.json`` holds it)."""
    return json.dumps(report_schema(), indent=2, ensure_ascii=False) + "\n"


def _node(schema: dict[str, Any], pointer: str) -> dict[str, Any]:
    # The pointers above are the module's own: plain names, no "~" escapes. A missing one is
    # a KeyError, which the tests turn into a failure naming it.
    node = schema
    for name in pointer.split("/")[1:]:
        node = node[name]
    return node
