"""The JSON report: the contract every other format renders a view of.

Its JSON Schema is ``report.schema.json`` next to this module (``auditor schema`` prints it).
Fields are only ever added, never renamed or removed; ``schema_version`` says which contract a
report follows.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Final

from auditor.json_text import json_text
from auditor.models import (
    BaselineUse,
    CallResult,
    Change,
    Counterexample,
    Finding,
    Group,
    Outcome,
    ProfileRun,
    RemovedPropertyCalls,
    Report,
    RollUp,
    SchemaPatch,
    Subject,
    ToolSummary,
    ValidationIssue,
)
from auditor.report import prose
from auditor.report.common import runtime_note
from auditor.report.json_dump import dumps_indented

SCHEMA_VERSION: Final = 1
"""The contract's version, the report's first key: raised by one on an incompatible change
(a field renamed, removed or given another meaning or type), never for an added field."""


def render(report: Report) -> str:
    """Strict JSON: a non-finite number is refused (the readers never let one in), and a
    surrogate of a non-UTF-8 file name is written as the escape text of its byte."""
    text = dumps_indented(as_dict(report))  # what json.dumps(indent=2) writes, faster
    return json_text(text) + "\n"


def as_dict(report: Report) -> dict[str, Any]:
    """The report as plain JSON data, in the documented order."""
    document: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "auditor_version": report.version,
        "generated_at": report.generated_at,
        "redacted": report.redacted,
        "old_runtime": report.old_runtime.value,
        **_runtimes(report),
        "group_by": report.group_by.value,
        "change": _change(report),
        "inputs": _inputs(report),
        "totals": {"calls": report.call_count, **_counts(report.totals)},
        "proven_regressions": report.proven_count,
        "contradictions": report.contradiction_count,
        "overrides": [
            {"tool": o.tool, "kept": str(o.kept), "replaced": str(o.replaced)}
            for o in report.overrides
        ],
        "unknown_tools": dict(report.unknown_tools),
        "unknown_tools_other_calls": report.unknown_tools_other,
        "calls_naming_no_tool": report.nameless_calls,
        "calls_over_budget": report.calls_over_budget,
        "coverage": {
            "rewrites": report.rewrite_count,
            "never_exercised": report.unexercised_count,
        },
        "baseline": _baseline(report.baseline),
        "gate": {
            "fail_on": report.fail_on.value,
            "fail_min_calls": report.fail_min_calls,
            "fail_min_share": report.fail_min_share,
            "failing_groups": [g.fingerprint for g in report.failing_groups()],
            "failing_outcomes": [o.value for o in Outcome if o in report.gate.failing_outcomes],
            "contradicted_groups_fail": report.gate.contradicted_fail,
        },
        "rollup": _rollup(report.rollup),
        "tools": [_tool(tool) for tool in report.tools],
        "groups": [_group(group, report.gate.below_threshold(group)) for group in report.groups],
        "calls": [_call(result) for result in report.calls],
        "calls_omitted": report.calls_omitted,
        "counterexamples": [_counterexample(c) for c in report.counterexamples],
        **_subject(report),
    }
    if report.removed_properties:  # only then: the reports of other changes stay as they were
        document["removed_properties"] = [_removed_property(r) for r in report.removed_properties]
    return document


def _subject(report: Report) -> dict[str, Any]:
    """A report of results says so and counts what it did not validate; a report with
    results holds theirs as a report of its own. Neither key is there otherwise: a report
    of arguments alone is as before."""
    added: dict[str, Any] = {}
    if report.subject is Subject.RESULTS:
        added["subject"] = report.subject.value
    if (counted := report.not_validated) is not None:
        added["not_validated"] = {
            "results": counted.total,
            "error_results": counted.error_results,
            "unstructured": counted.unstructured,
            "without_output_schema": counted.without_output_schema,
        }
    if report.results is not None:
        added["results"] = as_dict(report.results)
    return added


def _rollup(rollup: RollUp) -> dict[str, Any]:
    """What to do: every entry, empty ones included, so that the shape never varies."""
    return {
        "groups": rollup.groups,
        "entries": [
            {
                "kind": entry.kind.value,
                "groups": entry.groups,
                "calls": entry.calls,
                "fingerprints": list(entry.fingerprints),
                "outcomes": {outcome.value: count for outcome, count in entry.outcomes},
                "tools": list(entry.tools),
                "callers": [{"caller": name, "calls": calls} for name, calls in entry.callers],
                "more_callers": entry.more_callers,
                "patches": entry.patches,
                "unwritable_patches": entry.unwritable_patches,
                "patch_command": entry.patch_command,
                "errors": [{"tool": tool, "error": error} for tool, error in entry.errors],
            }
            for entry in rollup.entries
        ],
    }


def _counterexample(found: Counterexample) -> dict[str, Any]:
    return {
        "tool": found.tool,
        "change": found.change.pointer,
        "rewrite": rewrite_dict(found.change),
        "status": found.status.value,
        "arguments": found.arguments,
        "derived_from": found.derived_from,
        "patch": list(found.patch),
        "reason": found.reason,
        "candidates": found.candidates,
    }


def _removed_property(removed: RemovedPropertyCalls) -> dict[str, Any]:
    return {
        "tool": removed.tool,
        "property": removed.name,
        "pointer": removed.pointer,
        "change": rewrite_dict(removed.change),
        "objects_open": removed.ignored,
        "calls": removed.calls,
        "newly_rejected": removed.newly_rejected,
        "callers": [{"caller": name, "calls": calls} for name, calls in removed.callers],
        "more_callers": removed.more_callers,
        "examples": list(removed.examples),
    }


def _baseline(baseline: BaselineUse | None) -> dict[str, Any] | None:
    if baseline is None:
        return None
    return {
        "path": baseline.path,
        "accepted_groups": baseline.accepted_groups,
        "accepted_calls": baseline.accepted_calls,
        "stale": list(baseline.stale),
    }


def _group(group: Group, below: str | None) -> dict[str, Any]:
    return {
        "fingerprint": group.fingerprint,
        "outcome": group.outcome.value,
        "tool": group.tool,
        "keyword": group.keyword,
        "schema_pointer": group.schema_pointer,
        "causes": [rewrite_dict(r) for r in group.causes],
        "count": group.count,
        "tool_calls": group.tool_calls,
        "share": round(group.share, 4),
        "first": group.first,
        "last": group.last,
        "error": group.error,
        "hint": {"kind": group.hint.kind.value, "text": prose.markdown(group.hint.text)},
        "evidence": prose.markdown(group.evidence),
        "offending_values": [
            {"value": o.value, "calls": o.calls, "first": o.first, "last": o.last}
            for o in group.offending
        ],
        "baselined": group.baselined,
        "below_threshold": below,
        "proven": group.proven,
        "contradicted": group.contradicted,
        "caller": group.caller,
        "callers": [{"caller": name, "calls": calls} for name, calls in group.callers],
        "more_callers": group.more_callers,
        "examples": [
            {
                "source": e.source,
                "instance_pointer": e.instance_pointer,
                "arguments": e.arguments,
                "evidence": None if e.evidence is None else e.evidence.value,
            }
            for e in group.examples
        ],
        "patch": _patch(group.patch),
        "patch_problem": None if group.patch is None else group.patch.problem,
    }


def _patch(patch: SchemaPatch | None) -> dict[str, Any] | None:
    """The suggested loosening: RFC 6902 operations on the tool's new schema, and the place of
    the catalog file they edit (null where it cannot be edited in place: ``file_problem``)."""
    if patch is None or patch.problem is not None:
        return None
    where = patch.location
    return {
        "summary": patch.summary,
        "operations": [operation.as_json() for operation in patch.operations],
        "file": None if where is None else where.path,
        "line": None if where is None else where.line,
        "column": None if where is None else where.column,
        "file_operations": [operation.as_json() for operation in patch.file_operations],
        "file_problem": patch.file_problem,
    }


def _change(report: Report) -> dict[str, Any]:
    change: dict[str, Any] = {
        "kind": report.change_kind.value,
        "new_schemas": list(report.new_schema_inputs),
        "against": report.against,
        "added_tools": list(report.added_tools),
        "removed_tools": list(report.removed_tools),
        "text_only_edits": report.text_edit_count,
    }
    if report.profile_runs:  # only then: a report without a profile reads as it always did
        change["profiles"] = [_profile_run(run) for run in report.profile_runs]
    return change


def _profile_run(run: ProfileRun) -> dict[str, Any]:
    return {
        "profile": run.profile,
        "ran": run.ran.value,
        "function": run.function,
        "package": run.package,
        "versions": run.versions,
        "installed": run.installed,
        "in_range": run.in_range,
    }


def _counts(counts: dict[Outcome, int]) -> dict[str, int]:
    return {outcome.value: counts.get(outcome, 0) for outcome in Outcome}


def _tool(tool: ToolSummary) -> dict[str, Any]:
    note = runtime_note(tool)
    return {
        "name": tool.name,
        "source": str(tool.location),
        "pointer": tool.pointer,
        "shape": tool.shape,
        "old_schema_problem": tool.old_schema_problem,
        "new_schema_problem": tool.new_schema_problem,
        "old_runtime_note": None if note is None else prose.markdown(note),
        "lenient_readings": [
            {"pointer": r.pointer, "value": r.value, "reason": r.reason}
            for r in tool.lenient_readings
        ],
        "rewrites": [
            {
                **rewrite_dict(rewrite),
                "location": None if location is None else str(location),
                "reached": reached,
            }
            for rewrite, location, reached in zip(
                tool.rewrites, tool.rewrite_locations, tool.reached, strict=True
            )
        ],
        "text_only_edits": tool.text_edits,
        "findings": [_finding(f) for f in tool.findings],
        "outcomes": {"calls": sum(tool.counts.values()), **_counts(tool.counts)},
        "proven_regressions": tool.proven,
        "contradictions": tool.contradictions,
        "constraints": [
            {"pointer": c.pointer, "keyword": c.keyword, "reached": c.reached, "failed": c.failed}
            for c in tool.constraints
        ],
    }


def rewrite_dict(rewrite: Change) -> dict[str, str]:
    return {
        "pointer": rewrite.pointer,
        "old": rewrite.old,
        "new": rewrite.new,
        "rule": rewrite.rule.value,
        "new_pointer": rewrite.new_pointer,
        "change": rewrite.edit.value,
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
    if call.evidence is not None:
        entry["evidence"] = call.evidence.value
    if result.contradicts:
        entry["contradicts_old_runtime"] = True
    if call.unparsed is not None:
        entry["unparsed"] = {
            "kind": call.unparsed.kind.value,
            "reason": call.unparsed.reason,
            "raw": call.unparsed.raw,
        }
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


def _runtimes(report: Report) -> dict[str, Any]:
    """``runtimes``, only when either side's runtime is not today's default: the reports of
    a default audit stay as they were."""
    if report.runtimes is None:
        return {}
    old, new = report.runtimes
    return {"runtimes": {"old": asdict(old), "new": asdict(new)}}


def _inputs(report: Report) -> dict[str, Any]:
    """The catalogs and logs read; ``skipped`` only when a catalog folder held files that
    are no catalog (so a report of a run that skipped nothing is as it always was)."""
    inputs: dict[str, Any] = {
        "schemas": list(report.schema_inputs),
        "logs": [asdict(stats) for stats in report.log_inputs],
    }
    if report.skipped_inputs:
        inputs["skipped"] = [asdict(skip) for skip in report.skipped_inputs]
    return inputs
