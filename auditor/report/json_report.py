"""The JSON report: the contract every other format renders a view of."""

from __future__ import annotations

import json
from typing import Any

from auditor.models import (
    CallResult,
    Finding,
    Outcome,
    Report,
    Rewrite,
    ToolSummary,
    ValidationIssue,
)


def render(report: Report) -> str:
    return json.dumps(as_dict(report), indent=2, ensure_ascii=False) + "\n"


def as_dict(report: Report) -> dict[str, Any]:
    return {
        "auditor_version": report.version,
        "inputs": {
            "schemas": list(report.schema_inputs),
            "logs": [
                {
                    "path": s.path,
                    "format": s.format,
                    "lines": s.lines,
                    "blank": s.blank,
                    "records": s.records,
                    "records_without_calls": s.records_without_calls,
                    "repeated_calls": s.repeated_calls,
                    "calls": s.calls,
                }
                for s in report.log_inputs
            ],
        },
        "totals": {"calls": report.call_count, **_counts(report.totals)},
        "overrides": [
            {"tool": o.tool, "kept": str(o.kept), "replaced": str(o.replaced)}
            for o in report.overrides
        ],
        "unknown_tools": dict(report.unknown_tools),
        "calls_naming_no_tool": report.nameless_calls,
        "tools": [_tool(tool) for tool in report.tools],
        "calls": [_call(result) for result in report.calls],
    }


def _counts(counts: dict[Outcome, int]) -> dict[str, int]:
    return {outcome.value: counts.get(outcome, 0) for outcome in Outcome}


def _tool(tool: ToolSummary) -> dict[str, Any]:
    return {
        "name": tool.name,
        "source": str(tool.location),
        "pointer": tool.pointer,
        "shape": tool.shape,
        "old_schema_problem": tool.old_schema_problem,
        "new_schema_problem": tool.new_schema_problem,
        "rewrites": [rewrite_dict(r) for r in tool.rewrites],
        "findings": [_finding(f) for f in tool.findings],
        "outcomes": {"calls": sum(tool.counts.values()), **_counts(tool.counts)},
    }


def rewrite_dict(rewrite: Rewrite) -> dict[str, str]:
    return {
        "pointer": rewrite.pointer,
        "old": rewrite.old,
        "new": rewrite.new,
        "rule": rewrite.rule.value,
        "new_pointer": rewrite.new_pointer,
    }


def _finding(finding: Finding) -> dict[str, Any]:
    return {
        "code": finding.code,
        "name": finding.name,
        "severity": finding.severity.value,
        "pointer": finding.pointer,
        "message": finding.message,
        "fix": finding.fix,
    }


def _call(result: CallResult) -> dict[str, Any]:
    call = result.call
    entry: dict[str, Any] = {
        "source": call.source,
        "tool": call.tool,
        "outcome": result.outcome.value,
        "arguments": call.arguments,
    }
    if call.unparsed is not None:
        entry["unparsed"] = {"reason": call.unparsed.reason, "raw": call.unparsed.raw}
    if result.schema_problem is not None:
        entry["schema_problem"] = result.schema_problem
    if result.errors:
        entry["errors"] = [_error(e) for e in result.errors]
    return entry


def _error(issue: ValidationIssue) -> dict[str, Any]:
    return {
        "instance_pointer": issue.instance_pointer,
        "keyword": issue.keyword,
        "schema_pointer": issue.schema_pointer,
        "message": issue.message,
        "cause": [rewrite_dict(r) for r in issue.causes],
    }
