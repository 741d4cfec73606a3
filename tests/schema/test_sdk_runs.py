"""Running the SDK a profile follows where it is installed (``auditor.schema.sdk_runs``).

No SDK is needed: a stand-in adapter of an installed distribution (PyYAML, which the package
depends on) plays the SDK, so the choice, the run, the refusal and the changes are tested in
the main suite; the real SDKs are the differential test's (test_sdk_differential.py).
"""

from __future__ import annotations

import dataclasses
import json
from importlib import metadata
from typing import Any

import jsonschema
import pytest

from auditor.api import replay
from auditor.models import JSON, Call, Edit, Location, Outcome, Rule, ToolSchema
from auditor.report import Format, render
from auditor.report.schema import report_schema
from auditor.request import AuditRequest, TheChange
from auditor.schema import sdk_adapters
from auditor.schema.normalize import carried, normalize
from auditor.schema.profiles import PROFILES, SdkFunction
from auditor.schema.sdk_adapters import Adapter, gemini_reading
from auditor.schema.sdk_runs import choose, reason, upgrade, within
from tests.conftest import ROOT

YAML = metadata.version("PyYAML")
PROFILE = Rule.OPENAI_STRICT


def _close(schema: dict[str, Any]) -> JSON:
    """The stand-in SDK: closes the root object, refuses ``$schema`` as an SDK would."""
    if "no-such-distribution-27" in schema:
        raise AssertionError("the stand-in of an absent package ran")
    if "$schema" in schema:
        raise ValueError("Unsupported keyword $schema\nin the schema {...}")
    schema["additionalProperties"] = False
    schema.pop("default", None)
    return schema


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> Adapter:
    """openai-strict follows the stand-in, whose package (PyYAML) is installed."""
    adapter = Adapter("PyYAML", "yaml", "safe_load", _close)
    monkeypatch.setitem(sdk_adapters.ADAPTERS, PROFILE.value, adapter)
    follows = SdkFunction("PyYAML", "yaml", "safe_load", ">=5,<99")
    monkeypatch.setitem(PROFILES, PROFILE, dataclasses.replace(PROFILES[PROFILE], follows=follows))
    return adapter


def test_an_installed_sdk_is_chosen_with_its_version(stand_in: Adapter) -> None:
    (run,) = choose({Rule.KEYWORD_CASE, PROFILE})
    assert (run.profile, run.package, run.installed, run.in_range) == (
        "openai-strict",
        "PyYAML",
        YAML,
        True,
    )
    assert run.function == "yaml.safe_load" and run.sdk


def test_a_version_outside_the_checked_range_still_runs_and_says_so(
    stand_in: Adapter, monkeypatch: pytest.MonkeyPatch
) -> None:
    follows = SdkFunction("PyYAML", "yaml", "safe_load", "<1")
    monkeypatch.setitem(PROFILES, PROFILE, dataclasses.replace(PROFILES[PROFILE], follows=follows))
    (run,) = choose({PROFILE})
    assert run.sdk and not run.in_range


def test_an_absent_package_leaves_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    absent = Adapter("no-such-distribution-27", "no_such_module_27", "f", _close)
    monkeypatch.setitem(sdk_adapters.ADAPTERS, PROFILE.value, absent)
    follows = SdkFunction("no-such-distribution-27", "no_such_module_27", "f", ">=1")
    monkeypatch.setitem(PROFILES, PROFILE, dataclasses.replace(PROFILES[PROFILE], follows=follows))
    (run,) = choose({PROFILE})
    assert not run.sdk and run.installed is None
    assert run.function == "no_such_module_27.f" and run.versions == ">=1"
    schema: JSON = {"type": "object", "properties": {"a": {"type": "string"}}}
    # The model of openai-strict runs, whatever it does: the stand-in is never called.
    assert upgrade(schema, {PROFILE}, [run]) == normalize(schema, {PROFILE})


def test_a_profile_that_follows_no_sdk_is_its_model() -> None:
    (run,) = choose({Rule.CLOSE_OBJECTS})
    assert (run.profile, run.function, run.installed) == ("close-objects", "", None)
    assert choose({Rule.KEYWORD_CASE, Rule.TYPE_CASE}) == ()


def test_the_sdks_output_is_the_new_schema_and_its_difference_the_changes(
    stand_in: Adapter,
) -> None:
    old: JSON = {"type": "object", "properties": {"a": {"min_length": 2}}, "default": None}
    runs = choose({Rule.KEYWORD_CASE, PROFILE})
    new = upgrade(old, {Rule.KEYWORD_CASE, PROFILE}, runs)
    # keyword-case renames first; the stand-in then closes the root and drops `default`.
    assert new.schema == {
        "type": "object",
        "properties": {"a": {"minLength": 2}},
        "additionalProperties": False,
    }
    assert new.refusal is None
    found = {(c.pointer, c.edit, c.rule, c.old, c.new) for c in new.rewrites}
    assert found == {
        ("/properties/a/min_length", Edit.RENAME, Rule.KEYWORD_CASE, "min_length", "minLength"),
        ("/additionalProperties", Edit.ADD, PROFILE, "", "false"),
        ("/default", Edit.REMOVE, PROFILE, "null", ""),
    }


_OPTIONAL: JSON = {
    "type": "object",
    "properties": {"a": {"type": "string"}, "b": {"type": "string", "default": None}},
    "required": ["a"],
}
_STRICT_OPTIONAL: JSON = {
    "type": "object",
    "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}
"""What openai's _ensure_strict_json_schema makes of ``_OPTIONAL`` (read from 3.57.0: the
root closed, every property required, ``default: null`` dropped): the model's schema too."""


def test_an_sdk_that_makes_the_models_schema_gives_the_models_changes_and_report(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tool = ToolSchema("search", _OPTIONAL, Location("tools.json"), "", "mapping")
    calls = [Call("calls.jsonl:1", "search", {"a": "x"})]
    request = AuditRequest(change=TheChange(rules=frozenset({PROFILE})))
    absent = Adapter("no-such-distribution-27", "no_such_module_27", "f", _close)
    monkeypatch.setitem(sdk_adapters.ADAPTERS, PROFILE.value, absent)
    by_model = render(replay([tool], calls, request), Format.JSON)
    plays_the_sdk = Adapter("PyYAML", "yaml", "safe_load", lambda schema: _STRICT_OPTIONAL)
    monkeypatch.setitem(sdk_adapters.ADAPTERS, PROFILE.value, plays_the_sdk)
    by_sdk = render(replay([tool], calls, request), Format.JSON)
    model = normalize(_OPTIONAL, {PROFILE})
    assert model.schema == _STRICT_OPTIONAL
    assert upgrade(_OPTIONAL, {PROFILE}, choose({PROFILE})).rewrites == model.rewrites
    # The walk and the structural diff write a value in the same JSON text (no spaces).
    (required,) = [r for r in model.rewrites if r.pointer == "/required"]
    assert (required.old, required.new) == ('["a"]', '["a","b"]')
    # Byte for byte, but for the line that says which code ran.
    model_json, sdk_json = json.loads(by_model), json.loads(by_sdk)
    assert [
        p["ran"] for p in (*model_json["change"]["profiles"], *sdk_json["change"]["profiles"])
    ] == [
        "model",
        "sdk",
    ]
    del model_json["change"]["profiles"], sdk_json["change"]["profiles"]
    assert model_json == sdk_json


def test_an_sdks_change_below_a_renamed_key_points_where_the_key_stands_in_the_old_schema() -> None:
    renamed = {"/anyOf": "/any_of", "/anyOf/0/minLength": "/any_of/0/min_length"}
    assert carried("/anyOf/0/minLength", renamed) == "/any_of/0/min_length"
    assert carried("/anyOf/1/type", renamed) == "/any_of/1/type"
    assert carried("/properties/anyOf", renamed) == "/properties/anyOf"  # a name, not the key
    assert carried("", renamed) == ""


def test_what_the_sdk_raises_is_a_refusal_on_one_line(stand_in: Adapter) -> None:
    old: JSON = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}
    new = upgrade(old, {PROFILE}, choose({PROFILE}))
    assert new.refusal == "PyYAML refuses the schema: ValueError: Unsupported keyword $schema"
    assert new.rewrites == ()


def test_a_refused_schema_makes_every_call_a_schema_error_after(stand_in: Adapter) -> None:
    tool = ToolSchema(
        "search",
        {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"},
        Location("tools.json"),
        "",
        "mapping",
    )
    request = AuditRequest(change=TheChange(rules=frozenset({PROFILE})))
    report = replay([tool], [Call("calls.jsonl:1", "search", {"q": 1})], request)
    assert report.totals[Outcome.SCHEMA_ERROR_AFTER] == 1
    assert report.profile_runs == choose({PROFILE})


class ValidationError(Exception):
    """pydantic's shape: ``errors()`` lists each location and message."""

    def errors(self, include_url: bool = True, include_input: bool = True) -> list[dict[str, Any]]:
        assert not include_url and not include_input  # the values a schema holds stay out
        return [
            {"loc": ("function_declarations", 0, "parameters", "$schema"), "msg": "Extra"},
            {"loc": ("function_declarations", 0, "parameters", "properties", "a"), "msg": "Bad"},
        ]


class WholeValidationError(ValidationError):
    def errors(self, include_url: bool = True, include_input: bool = True) -> list[dict[str, Any]]:
        return [{"loc": (), "msg": "Not an object"}]


WholeValidationError.__name__ = "ValidationError"


def test_a_pydantic_refusal_is_its_first_error_and_where_in_the_schema() -> None:
    # Worded as the models word a refusal: the message, then the place, from `parameters`.
    assert reason(ValidationError("4 validation errors")) == "Extra (parameters.$schema)"


def test_a_refusal_of_the_whole_schema_names_no_place() -> None:
    assert reason(WholeValidationError()) == "Not an object"


def test_a_reason_is_one_printable_line_of_bounded_length() -> None:
    assert reason(KeyError("parameters")) == "KeyError: 'parameters'"
    assert reason(ValueError("first\tline\nsecond line")) == "ValueError: first line"
    assert reason(RuntimeError()) == "RuntimeError"
    long = reason(ValueError("x" * 1000))
    assert len(long) == 240 and long.endswith("…")


@pytest.mark.parametrize(
    ("version", "versions", "inside"),
    [
        ("2.34.0", ">=1.71,<3", True),
        ("3.6.1", ">=1.71,<3", False),
        ("1.70.9", ">=1.71,<3", False),
        ("1.71", ">=1.71.0", True),
        ("2.0.0rc1", "<2", False),  # a pre-release compares as its release
        ("3.57.0", "==3.57.0", True),
        ("3.57.1", "==3.57.*", True),
        ("3.58.0", "==3.57.*", False),
        ("3.58.0", "!=3.57.*", True),
        ("1.4.2", "~=1.4", True),
        ("2.0", "~=1.4", False),
        ("0.24.0", "", True),
        ("1.0", "latest", False),  # a specifier it cannot read is never taken as met
    ],
)
def test_a_version_is_checked_against_the_range(version: str, versions: str, inside: bool) -> None:
    assert within(version, versions) is inside


def test_the_gemini_schema_is_read_as_the_json_schema_the_api_evaluates() -> None:
    wire: JSON = {
        "type": "OBJECT",
        "properties": {
            "a": {"type": "STRING", "nullable": True, "minLength": "2"},
            "b": {"anyOf": [{"type": "INTEGER"}, {"type": "NULL", "nullable": True}]},
            "c": {"ref": "#/defs/C"},
            "d": {"type": "ARRAY", "items": {"type": "NUMBER"}, "nullable": False},
            "e": {"nullable": True},
        },
        "defs": {"C": {"type": "BOOLEAN"}},
        "additionalProperties": {"type": "INTEGER"},
        "propertyOrdering": ["a"],
    }
    assert gemini_reading(wire) == {
        "type": "object",
        "properties": {
            "a": {"type": ["string", "null"], "minLength": "2"},
            "b": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "c": {"$ref": "#/$defs/C"},
            "d": {"type": "array", "items": {"type": "number"}},
            "e": {"type": "null"},
        },
        "$defs": {"C": {"type": "boolean"}},
        "additionalProperties": {"type": "INTEGER"},  # the SDK passes it on unvalidated
        "propertyOrdering": ["a"],
    }
    assert gemini_reading({"type": "TYPE_UNSPECIFIED", "additionalProperties": False}) == {
        "additionalProperties": False
    }


SAYS_WHICH_RAN = [fmt for fmt in Format if fmt is not Format.GITLAB]
"""GitLab's Code Quality report is a bare list of issues, with no place for the audit's
profile line (merged from main with the format: its renderer is not this test's to change)."""


@pytest.mark.parametrize("fmt", SAYS_WHICH_RAN)
def test_every_format_says_which_code_made_the_profiles_schemas(
    stand_in: Adapter, fmt: Format
) -> None:
    tool = ToolSchema("search", {"type": "object"}, Location("tools.json"), "", "mapping")
    request = AuditRequest(change=TheChange(rules=frozenset({PROFILE})))
    report = replay([tool], [Call("calls.jsonl:1", "search", {"q": 1})], request)
    text = render(report, fmt)
    assert "openai-strict" in text and "yaml.safe_load" in text and YAML in text, fmt
    if fmt is Format.JSON:
        jsonschema.validate(json.loads(text), report_schema())  # the contract holds the field
        assert json.loads(text)["change"]["profiles"] == [
            {
                "profile": "openai-strict",
                "ran": "sdk",
                "function": "yaml.safe_load",
                "package": "PyYAML",
                "versions": ">=5,<99",
                "installed": YAML,
                "in_range": True,
            }
        ]
    else:
        assert "within the versions the model was checked against" in text, fmt


def test_without_a_profile_no_format_mentions_one() -> None:
    tool = ToolSchema("search", {"type": "object"}, Location("tools.json"), "", "mapping")
    report = replay([tool], [Call("calls.jsonl:1", "search", {})])
    assert report.profile_runs == ()
    for fmt in Format:
        assert "Profile " not in render(report, fmt), fmt


def test_a_schema_that_is_not_an_object_is_refused_before_the_sdk_runs(stand_in: Adapter) -> None:
    assert stand_in.function == "yaml.safe_load"
    with pytest.raises(TypeError, match="the schema is a bool, not an object"):
        sdk_adapters.call(stand_in, True)
    # The SDK works on a copy: the audit's own schema is never modified.
    schema: JSON = {"type": "object", "default": None}
    assert sdk_adapters.call(stand_in, schema) == {"type": "object", "additionalProperties": False}
    assert schema == {"type": "object", "default": None}


def test_ci_checks_each_model_against_a_release_inside_its_range() -> None:
    # .ci/run's differential step installs .ci/sdk-versions.txt: each pin must be a release
    # the profile claims (a pin outside would check the model against code it disowns), and
    # every package a profile follows must be pinned.
    pins = {}
    for line in (ROOT / ".ci" / "sdk-versions.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            package, _, version = line.partition("==")
            pins[package.strip()] = version.strip()
    followed = [p.follows for p in PROFILES.values() if p.follows is not None]
    assert followed, "no profile follows an SDK function"
    for follows in followed:
        assert follows.package in pins, f"{follows.package} is not pinned for CI"
        assert within(pins[follows.package], follows.versions), (follows.package, pins)
    assert set(pins) == {f.package for f in followed}, "a pin no profile follows"
