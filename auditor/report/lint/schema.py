"""The JSON Schema of `auditor lint --format json`, shipped with the package.

``lint.schema.json`` (beside the report's schema) holds the shape: a JSON array, one object
per finding. Its closed sets (the finding codes, their names, the severities) are filled from
the code's registry when the schema is loaded, as ``auditor.report.schema`` does for the
report; a test keeps the committed file equal to the filled schema.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from auditor.models import Severity
from auditor.report.rules import LINT_RULES


def lint_schema() -> dict[str, Any]:
    """The shipped schema with its enums filled from the rule registry."""
    schema: dict[str, Any] = json.loads(
        resources.files("auditor.report").joinpath("lint.schema.json").read_text("utf-8")
    )
    finding = schema["$defs"]["finding"]["properties"]
    finding["code"]["enum"] = list(LINT_RULES)
    finding["name"]["enum"] = sorted({rule.name for rule in LINT_RULES.values()})
    finding["severity"]["enum"] = [severity.value for severity in Severity]
    return schema


def lint_schema_text() -> str:
    """The schema as ``auditor schema --lint`` prints it (and as ``lint.schema.json`` holds it)."""
    return json.dumps(lint_schema(), indent=2, ensure_ascii=False) + "\n"
