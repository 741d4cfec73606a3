"""JUnit: the run's time or no timestamp at all, failing cases for calls that break, and the
decision (evidence, patch, values to fix) in each failure.

The scenario, reasoned from the schema: ``q`` gets ``maxLength 3`` by the normalizer (the
lenient old runtime ignored ``max_length``), so the six calls sending 5 to 10 characters are
newly rejected, 6 of 7 calls of ``t``: a loosening (raise to 10, the longest sent). ``s``
gets ``minLength 1``; the one call sending ``""`` is 1 of 7: a caller bug, with ``""`` the
value to fix. ``u`` is called once, validly: one passing case.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
import xmlschema

from auditor.aggregate.pipeline import ReportSettings
from auditor.models import FailOn, Report
from auditor.report import Format, render
from tests.reporting import make_report

XSD = Path(__file__).resolve().parents[1] / "schemas" / "junit.xsd"
CATALOG = """\
t:
  type: object
  properties:
    q: {type: string, max_length: 3}
    s: {type: string, min_length: 1}
u:
  type: object
  properties:
    n: {type: integer}
"""
CALLS: list[tuple[str, dict[str, object]]] = [("t", {"q": "abcde" + "x" * i}) for i in range(6)]
CALLS += [("t", {"q": "ab", "s": ""}), ("u", {"n": 1})]


def _report(folder: Path, settings: ReportSettings | None = None) -> Report:
    return make_report(folder, CATALOG, CALLS, settings)


def _cases(text: str) -> dict[str, ET.Element]:
    """Test cases by the failing keyword in their name (or their whole name)."""
    cases = {}
    for case in ET.fromstring(text).iter("testcase"):
        name = case.get("name", "")
        key = next((k for k in ("maxLength", "minLength") if k in name), name)
        cases[key] = case
    return cases


def _optional_timestamp_schema() -> xmlschema.XMLSchema:
    """Ant's schema as JUnit readers apply it: ``timestamp`` optional (Jenkins, GitLab and
    JUnit 5's legacy reporter accept a suite without one)."""
    text = XSD.read_text(encoding="utf-8")
    required = 'name="timestamp" type="ISO8601_DATETIME_PATTERN" use="required"'
    assert required in text
    return xmlschema.XMLSchema(text.replace(required, required.replace("required", "optional")))


def test_failures_carry_the_evidence_and_the_patch_or_the_values(tmp_path: Path) -> None:
    cases = _cases(render(_report(tmp_path), Format.JUNIT))
    assert set(cases) == {"maxLength", "minLength", "no changed calls"}
    loosen = cases["maxLength"].find("failure")
    assert loosen is not None
    message = loosen.get("message", "")
    assert message.startswith("evidence: maxLength 3; sent 5 to 10 characters (median 7.5); ")
    assert "patch: raise maxLength 3 → 10 at " in message
    assert '"path": "/properties/q/maxLength", "value": 10' in message
    assert "values to fix" not in message
    assert "patch: raise maxLength 3 → 10" in (loosen.text or "")

    fix = cases["minLength"].find("failure")
    assert fix is not None
    message = fix.get("message", "")
    assert message.startswith("evidence: minLength 1; ")
    assert 'values to fix: "" (1 call, first ' in message and "calls.jsonl:7)" in message
    assert "patch:" not in message
    assert cases["no changed calls"].find("failure") is None


def test_without_timestamp_no_timestamp_and_never_1970(tmp_path: Path) -> None:
    text = render(_report(tmp_path), Format.JUNIT)
    assert "1970" not in text
    suites = list(ET.fromstring(text).iter("testsuite"))
    assert len(suites) == 2 and all("timestamp" not in s.attrib for s in suites)
    _optional_timestamp_schema().validate(text)
    # Ant's schema as written requires one: the only thing it finds missing.
    errors = list(xmlschema.XMLSchema(str(XSD)).iter_errors(text))
    assert errors and all("timestamp" in str(e.reason) for e in errors)


def test_with_timestamp_the_runs_time_valid_as_written(tmp_path: Path) -> None:
    report = dataclasses.replace(_report(tmp_path), generated_at="2026-12-01T03:20:59Z")
    text = render(report, Format.JUNIT)
    xmlschema.XMLSchema(str(XSD)).validate(text)
    stamps = {s.get("timestamp") for s in ET.fromstring(text).iter("testsuite")}
    assert stamps == {"2026-12-01T03:20:59"}


def test_cases_that_break_fail_whatever_fail_on_says(tmp_path: Path) -> None:
    text = render(_report(tmp_path, ReportSettings(fail_on=FailOn.NEVER)), Format.JUNIT)
    cases = _cases(text)
    assert cases["maxLength"].find("failure") is not None
    assert cases["minLength"].find("failure") is not None
    suite = next(ET.fromstring(text).iter("testsuite"))
    assert (suite.get("failures"), suite.get("skipped"), suite.get("tests")) == ("2", "0", "2")


def test_a_group_below_a_usage_threshold_is_skipped_not_failed(tmp_path: Path) -> None:
    text = render(_report(tmp_path, ReportSettings(fail_min_calls=2)), Format.JUNIT)
    cases = _cases(text)
    assert cases["maxLength"].find("failure") is not None
    below = cases["minLength"]
    assert below.find("failure") is None
    skipped = below.find("skipped")
    assert skipped is not None and "--fail-min-calls 2" in skipped.get("message", "")
    suite = next(ET.fromstring(text).iter("testsuite"))
    assert (suite.get("failures"), suite.get("skipped")) == ("1", "1")


@pytest.mark.parametrize("limit", [40, 1_000])
def test_a_long_failure_message_is_cut_but_its_text_is_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    monkeypatch.setattr("auditor.report.junit.MAX_MESSAGE", limit)
    failure = _cases(render(_report(tmp_path), Format.JUNIT))["maxLength"].find("failure")
    assert failure is not None
    message = failure.get("message", "")
    assert len(message) <= limit
    assert message.endswith("…") == (limit == 40)
    assert '"value": 10}]' in (failure.text or "")


def test_calls_the_new_schema_cannot_check_fail_under_the_default_gate(tmp_path: Path) -> None:
    # The $ref points to nothing: the new schema cannot evaluate the call (schema error
    # after), which the default --fail-on newly_rejected counts as breaking; the test case
    # fails, and its message is the hint (there is no evidence, patch or value for a broken
    # schema).
    catalog = "v:\n  type: object\n  properties:\n    a: {$ref: '#/$defs/missing'}\n"
    report = make_report(tmp_path, catalog, [("v", {"a": 1})])
    assert [g.outcome.value for g in report.groups] == ["schema_error_after"]
    suite = next(ET.fromstring(render(report, Format.JUNIT)).iter("testsuite"))
    failure = suite.find("testcase/failure")
    assert failure is not None and suite.get("failures") == "1"
    assert failure.get("message", "").startswith(
        "These calls will fail after the change: the new schema cannot be used ($ref "
    )
    assert failure.get("type") == "schema_error_after"
