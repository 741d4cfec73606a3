"""``auditor.api`` as a user's notebook or test suite uses it: a request in, a result out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditor.api import InputError, audit, lint, normalize, replay
from auditor.errors import EXIT_FOUND, EXIT_OK, EXIT_UNUSABLE
from auditor.inputs.log_files import TooFewCalls
from auditor.models import JSON, Call, FailOn, HintKind, Outcome, Rule
from auditor.report import Format, render
from auditor.request import AuditRequest, Gating, Inputs, Keep, PatchKind, TheChange

CATALOG = {"search": {"type": "object", "properties": {"tags": {"type": "array", "min_items": 2}}}}
"""``min_items`` is no keyword of JSON Schema: the old schema accepts any list of tags;
normalized to ``minItems``, it rejects a list of one."""
CALLS: list[JSON] = [{"tags": ["a"]}, {"tags": ["a", "b"]}, {"tags": []}]
"""One tag, two, none: the first and the last are rejected by ``minItems: 2``."""


def _inputs(folder: Path, calls: list[JSON] = CALLS) -> Inputs:
    catalog = folder / "tools.json"
    catalog.write_text(json.dumps(CATALOG), encoding="utf-8")
    log = folder / "calls.jsonl"
    log.write_text(
        "".join(json.dumps({"tool": "search", "arguments": a}) + "\n" for a in calls), "utf-8"
    )
    return Inputs(schemas=(str(catalog),), logs=(str(log),))


def test_an_audit_says_which_calls_the_normalization_newly_rejects(tmp_path: Path) -> None:
    result = audit(AuditRequest(_inputs(tmp_path)))
    report = result.report
    assert report.call_count == 3
    assert report.totals[Outcome.NEWLY_REJECTED] == 2 and report.totals[Outcome.ACCEPTED] == 1
    (group,) = report.groups
    assert (group.tool, group.keyword, group.count) == ("search", "minItems", 2)
    assert result.exit_code == EXIT_FOUND and result.warnings == ()
    assert json.loads(render(report, Format.JSON))["totals"]["newly_rejected"] == 2


def test_the_request_gates_as_the_command_line_would(tmp_path: Path) -> None:
    never = AuditRequest(_inputs(tmp_path), gating=Gating(fail_on=FailOn.NEVER))
    assert audit(never).exit_code == EXIT_OK
    # Only what --rules names is applied: type names alone leave min_items dormant.
    only_types = AuditRequest(_inputs(tmp_path), TheChange(rules=frozenset({Rule.TYPE_CASE})))
    result = audit(only_types)
    assert result.report.totals[Outcome.NEWLY_REJECTED] == 0 and result.exit_code == EXIT_OK


def test_calls_in_memory_give_the_report_of_the_same_calls_in_a_log(tmp_path: Path) -> None:
    from auditor.inputs.catalogs import load_catalogs

    inputs = _inputs(tmp_path)
    tools = load_catalogs(inputs.schemas).tools
    calls = [Call(f"calls.jsonl:{n}", "search", a) for n, a in enumerate(CALLS, 1)]
    in_memory = replay(tools, calls)
    from_log = audit(AuditRequest(inputs)).report
    assert in_memory.totals == from_log.totals
    assert [g.fingerprint for g in in_memory.groups] == [g.fingerprint for g in from_log.groups]


def test_unusable_input_is_an_error_with_its_exit_code_and_empty_logs_a_warning(
    tmp_path: Path,
) -> None:
    inputs = _inputs(tmp_path, calls=[])
    with pytest.raises(TooFewCalls) as refused:
        audit(AuditRequest(inputs))
    assert refused.value.exit_code == EXIT_UNUSABLE
    allowed = audit(AuditRequest(inputs, gating=Gating(allow_empty=True)))
    assert allowed.exit_code == EXIT_OK and allowed.report.call_count == 0
    assert allowed.warnings == ("no call read from the logs: nothing was audited (--allow-empty)",)
    missing = Inputs(schemas=inputs.schemas, logs=(str(tmp_path / "absent.jsonl"),))
    with pytest.raises(InputError) as unreadable:
        audit(AuditRequest(missing))
    assert unreadable.value.exit_code == EXIT_UNUSABLE and "absent.jsonl" in str(unreadable.value)


def test_lint_and_normalize_read_the_catalog_and_write_nothing(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    before = Path(inputs.schemas[0]).read_text("utf-8")
    found = lint(inputs.schemas)
    assert [f.finding.pointer for f in found.findings] == ["/properties/tags/min_items"]
    assert not found.problems
    normalized = normalize(inputs.schemas)
    (changed,) = normalized.changed
    assert '"minItems": 2' in changed.after and '"min_items"' not in changed.after
    assert Path(inputs.schemas[0]).read_text("utf-8") == before  # nothing written
    # A file that cannot be read is a problem of the result, as lint's and audit's are.
    absent = normalize([str(tmp_path / "absent.json")])
    assert (absent.files, absent.problems) == ((), (f"{tmp_path / 'absent.json'}: no such file",))


def test_the_loosenings_are_written_into_the_catalog_as_the_audit_read_it(
    tmp_path: Path,
) -> None:
    # additionalProperties: false is dormant as additional_properties; normalized, it rejects
    # the extra property every call sends: a loosening (allow "limit") lets them through.
    catalog = tmp_path / "tools.json"
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    catalog.write_text(json.dumps({"find": {**schema, "additional_properties": False}}))
    log = tmp_path / "calls.jsonl"
    calls = [{"tool": "find", "arguments": {"q": "x", "limit": n}} for n in range(3)]
    log.write_text("".join(json.dumps(call) + "\n" for call in calls))
    inputs = Inputs(schemas=(str(catalog),), logs=(str(log),))
    # 3 calls are too few to tell: the group is hinted review, which the loosenings written
    # leave out unless asked for (--suggest-patch-kinds).
    assert audit(AuditRequest(inputs)).loosenings.files == ()
    kinds = Keep(suggest_patch_kinds=frozenset({PatchKind.REVIEW}))
    result = audit(AuditRequest(inputs, keep=kinds))
    (group,) = result.report.groups
    assert group.hint.kind is HintKind.REVIEW
    assert group.patch is not None and group.patch.file_operations
    audited = catalog.read_text()
    catalog.write_text(json.dumps({"find": schema}))  # changed on disk after the audit
    (edited,) = result.loosenings.files
    assert edited.before == audited and edited.after != audited
    assert '"limit"' in edited.after
    assert result.loosenings is result.loosenings  # built once
