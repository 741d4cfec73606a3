"""Every suggested patch verifies as stated, on generated schemas and calls.

For each keyword family: a schema with that keyword, calls (some breaking it), the audit's
patch for the group. When there is one, the patched schema no longer fails the keyword for
any call of the group; it accepts every instance the unpatched schema accepted; and written
into the schema's catalog, as JSON and as YAML with comments, the file parses to the patched
schema with the comments and the untouched lines kept. Every example checks that the newly
rejected calls are the ones the schema rejects, and the test asserts how many examples went
as far as verifying a patch.
"""

from __future__ import annotations

import difflib
import json
from collections import Counter
from typing import Any

import yaml
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from auditor import pointers
from auditor.aggregate.pipeline import ReportSettings
from auditor.api import replay
from auditor.models import JSON, Call, Location, OldRuntime, Outcome, PatchOp, ToolSchema
from auditor.schema.edit import patch_text
from auditor.schema.jsonpatch import apply_patch
from tests.aggregate.test_loosen_cases import Calls

_TEXT = st.text(alphabet="abcé x", max_size=8)
_NUMBER = st.one_of(st.integers(-20, 20), st.floats(-20, 20, allow_nan=False).map(float))
_VALUES: dict[str, Any] = {
    "maxLength": _TEXT,
    "minLength": _TEXT,
    "maxItems": st.lists(st.integers(0, 3), max_size=5),
    "minItems": st.lists(st.integers(0, 3), max_size=5),
    "maximum": _NUMBER,
    "minimum": _NUMBER,
    "exclusiveMaximum": st.integers(-20, 20),
    "exclusiveMinimum": st.integers(-20, 20),
    "enum": st.one_of(_TEXT, st.integers(0, 5), st.none(), st.booleans()),
}


@st.composite
def scenario(draw: st.DrawFn) -> tuple[str, Any, list[Any], list[Any]]:
    """(keyword, schema, calls, other instances): the keyword of one family, a schema with it,
    calls to audit, and more instances of the same shape to check that nothing is lost."""
    keyword = draw(st.sampled_from([*_VALUES, "additionalProperties", "required"]))
    if keyword in _VALUES:
        if keyword == "enum":
            bound: JSON = draw(st.lists(_VALUES["enum"], min_size=1, max_size=3, unique=True))
        elif keyword in ("maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"):
            bound = draw(st.integers(-5, 5))
        else:
            bound = draw(st.integers(0, 4))
        inner: dict[str, JSON] = {keyword: bound}
        if draw(st.booleans()):
            inner = {"anyOf": [inner, {"type": "null"}]} if keyword != "enum" else inner
        schema: dict[str, Any] = {"type": "object", "properties": {"v": inner}}
        if draw(st.booleans()):
            # A reference under `not`: loosening `v` would reject what passed before, so
            # no patch may be suggested here.
            ref = {"properties": {"w": {"$ref": "#/properties/v"}}, "required": ["w"]}
            schema["not"] = (
                {"allOf": [ref, {"required": ["never"]}]} if draw(st.booleans()) else ref
            )
        instance = st.fixed_dictionaries({"v": _VALUES[keyword]}, optional={"w": _VALUES[keyword]})
    elif keyword == "additionalProperties":
        schema = {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "additionalProperties": False,
        }
        names = st.sampled_from(["a", "b", "c"])
        instance = st.dictionaries(names, st.one_of(_TEXT, st.integers(0, 3), st.booleans()))
    else:
        wanted = draw(st.lists(st.sampled_from("abc"), min_size=1, unique=True))
        schema = {"type": "object", "required": wanted}
        instance = st.dictionaries(st.sampled_from("abcd"), st.integers(0, 1))
    calls = draw(st.lists(instance, min_size=1, max_size=6))
    others = draw(st.lists(instance, max_size=12))
    return keyword, schema, calls, others


def _errors_at(validator: Draft202012Validator, instance: JSON, keyword: str) -> list[str]:
    return [
        pointers.from_segments(error.absolute_schema_path)
        for error in validator.iter_errors(instance)
        if error.validator == keyword
    ]


def _catalogs(schema: JSON) -> list[tuple[str, str]]:
    """The schema in a JSON catalog and in a YAML catalog with comments."""
    as_json = json.dumps({"tools": [{"name": "t", "inputSchema": schema}]}, indent=2) + "\n"
    body = yaml.safe_dump({"tools": [{"name": "t", "inputSchema": schema}]}, sort_keys=False)
    lines = body.splitlines(keepends=True)
    as_yaml = "# a catalog\n" + "".join(
        f"{line.rstrip()}  # kept\n" if not line.rstrip().endswith(":") else line for line in lines
    )
    return [("tools.json", as_json), ("tools.yaml", as_yaml)]


MIN_VERIFIED_SHARE = 6
"""At least one example in this many applies a suggested patch and verifies it (measured: 103
of 301 derandomized, 81 to 140 in eight runs with random seeds; the others check that exactly
the rejected calls were rejected, and that a refused patch holds no operation)."""


def test_every_suggested_patch_verifies_as_stated() -> None:
    reached: Counter[str] = Counter()

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(scenario())
    # Found by this test: YAML 1.1 reads 1e-05 as a string, so the bound must be written 1.0e-05.
    @example(
        ("maximum", {"type": "object", "properties": {"v": {"maximum": 0}}}, [{"v": 1e-05}], [])
    )
    def check(drawn: tuple[str, Any, list[Any], list[Any]]) -> None:
        _, schema, calls, others = drawn
        tool = ToolSchema("t", schema, Location("tools.json"), "", "mapping")
        stream = Calls([Call(f"calls.jsonl:{i}", "t", c) for i, c in enumerate(calls, 1)])
        settings = ReportSettings(old_runtime=OldRuntime.NONE)
        report = replay([tool], stream, None, ["tools.json"], settings=settings)
        new = Draft202012Validator(schema)
        # With no old runtime every call passed before, and the schema is already canonical (it is
        # its own new schema): the newly rejected calls are exactly those the schema rejects.
        rejected = {f"calls.jsonl:{i}" for i, c in enumerate(calls, 1) if not new.is_valid(c)}
        assert {r.call.source for r in report.calls} == rejected
        assert all(r.outcome is Outcome.NEWLY_REJECTED for r in report.calls)
        checked = "nothing rejected" if not rejected else "no patch suggested"
        for group in report.groups:
            assert group.outcome is Outcome.NEWLY_REJECTED
            if group.patch is None:
                continue
            patch = group.patch
            if "not" in schema:
                # `v` is referenced from under `not`: a looser `v` could reject what passed.
                assert patch.problem is not None
            if patch.problem is not None:
                assert not patch.operations and not patch.file_operations
                checked = "verified" if checked == "verified" else "patch refused"
                continue
            checked = "verified"
            patched: Any = apply_patch(schema, patch.operations)
            loosened = Draft202012Validator(patched)
            # every call of the group passes the keyword now
            for call in calls:
                assert group.schema_pointer not in _errors_at(loosened, call, group.keyword)
            # nothing the unpatched schema accepted is rejected
            for instance in [*calls, *others]:
                if new.is_valid(instance):
                    assert loosened.is_valid(instance)
            # the file edit: parses to the patched schema, comments and other lines kept
            for path, text in _catalogs(schema):
                after = patch_text(path, text, "/tools/0/inputSchema", patch.file_operations)
                document = json.loads(after) if path.endswith(".json") else yaml.safe_load(after)
                assert document["tools"][0]["inputSchema"] == patched
                removals = sum(o.op is PatchOp.REMOVE for o in patch.file_operations)
                assert after.startswith("# a catalog\n") or path.endswith(".json")
                assert removals or after.count("# kept") == text.count("# kept")
                before_lines, after_lines = text.splitlines(), after.splitlines()
                matcher = difflib.SequenceMatcher(a=before_lines, b=after_lines, autojunk=False)
                changed = sum(
                    i2 - i1
                    for tag, i1, i2, _, _ in matcher.get_opcodes()
                    if tag in ("replace", "delete")
                )
                # an addition or a replacement touches one line (the one before it, for a comma);
                # a removal takes the lines of what it removes
                assert removals or changed <= len(patch.file_operations)
        event(checked)
        reached[checked] += 1

    check()
    # Every example checked the newly rejected calls; enough of them verified a patch that the
    # test is about patches, not about schemas nothing broke.
    examples = reached.total()
    assert examples >= 300, reached
    assert reached["verified"] * MIN_VERIFIED_SHARE >= examples, reached
