"""The runtime models: how each reads a schema, and the changes a change of runtime makes.

Expected verdicts and causes are reasoned from the code each model follows (docs/runtimes.md):
mcp-ts-v2 asserts ajv-formats' formats and reads a schema without ``$schema`` as 2020-12;
mcp-ts-v1 reads every schema as draft-07; standard asserts no format.
"""

from __future__ import annotations

from auditor.api import replay
from auditor.models import (
    JSON,
    Call,
    FormatSides,
    Location,
    NewRuntime,
    OldRuntime,
    Outcome,
    Rule,
    ToolSchema,
)
from auditor.replay.runtimes import runtime_changes, runtimes_of, with_runtime_changes
from auditor.replay.tool import ToolReplay
from auditor.schema.keywords import Draft
from auditor.schema.normalize import normalize

BOOKING: JSON = {
    "type": "object",
    "properties": {
        "when": {"type": "string", "format": "date-time"},
        "pair": {"type": "array", "prefixItems": [{"type": "string"}]},
    },
}


def _replay(old: OldRuntime, new: NewRuntime, schema: JSON, **options: object) -> ToolReplay:
    runtimes = runtimes_of(old, new, **options)  # type: ignore[arg-type]
    tool = ToolSchema("book", schema, Location("tools.json"), "", "schema")
    normalized = with_runtime_changes(normalize(schema, ()), runtimes)
    return ToolReplay(tool, normalized, old_runtime=old, runtimes=runtimes)


def _outcome(replay_: ToolReplay, arguments: JSON) -> tuple[Outcome, list[str]]:
    result = replay_.replay(Call("calls.jsonl:1", "book", arguments))
    causes = [c.describe() for e in result.errors for c in e.causes]
    return result.outcome, causes


def test_the_defaults_are_today() -> None:
    assert runtimes_of(OldRuntime.LENIENT, NewRuntime.STANDARD) is None
    assert runtimes_of(OldRuntime.STANDARD, NewRuntime.STANDARD) is None
    assert runtimes_of(OldRuntime.NONE, NewRuntime.STANDARD) is None


def test_a_date_time_without_offset_breaks_under_mcp_ts_v2_and_names_it() -> None:
    replay_ = _replay(OldRuntime.LENIENT, NewRuntime.MCP_TS_V2, BOOKING)
    assert _outcome(replay_, {"when": "2026-01-05T10:00:00Z"}) == (Outcome.ACCEPTED, [])
    assert _outcome(replay_, {"when": "2026-01-05T10:00:00"}) == (
        Outcome.NEWLY_REJECTED,
        ["/properties/when/format: format: date-time asserted by mcp-ts-v2"],
    )
    # prefixItems was enforced before too: the standard runtime reads 2020-12 by default.
    assert _outcome(replay_, {"pair": [1]}) == (Outcome.STILL_REJECTED, [])


def test_prefix_items_wake_up_from_v1_to_v2() -> None:
    replay_ = _replay(OldRuntime.MCP_TS_V1, NewRuntime.MCP_TS_V2, BOOKING)
    assert _outcome(replay_, {"pair": [1]}) == (
        Outcome.NEWLY_REJECTED,
        [
            "/properties/pair/prefixItems: prefixItems enforced: draft 2020-12 by default in "
            "mcp-ts-v2"
        ],
    )
    # Both assert the same formats: no change there.
    assert _outcome(replay_, {"when": "2026-01-05T10:00:00"}) == (Outcome.STILL_REJECTED, [])


def test_an_unknown_dialect_is_an_unusable_schema_under_mcp_ts_v2() -> None:
    schema: JSON = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}
    replay_ = _replay(OldRuntime.LENIENT, NewRuntime.MCP_TS_V2, schema)
    assert replay_.new.problem is not None and "refuses" in replay_.new.problem
    assert _outcome(replay_, {})[0] is Outcome.SCHEMA_ERROR_AFTER


def test_assert_formats_and_default_dialect_are_options_of_a_side() -> None:
    assert runtimes_of(OldRuntime.LENIENT, NewRuntime.MCP_TS_V2, FormatSides.NEITHER) is not None
    quiet = _replay(
        OldRuntime.LENIENT, NewRuntime.MCP_TS_V2, BOOKING, assert_formats=FormatSides.NEITHER
    )
    assert _outcome(quiet, {"when": "yesterday"}) == (Outcome.ACCEPTED, [])
    draft7 = _replay(
        OldRuntime.STANDARD, NewRuntime.STANDARD, BOOKING, default_dialect=Draft.DRAFT7
    )
    # Read as draft-07 after, prefixItems enforces nothing any more.
    assert _outcome(draft7, {"pair": [1]}) == (Outcome.NEWLY_ACCEPTED, [])


def test_runtime_changes_are_rule_runtime_at_their_keyword() -> None:
    runtimes = runtimes_of(OldRuntime.MCP_TS_V1, NewRuntime.MCP_TS_V2)
    assert runtimes is not None
    changes = runtime_changes(BOOKING, runtimes)
    assert [(c.pointer, c.rule) for c in changes] == [
        ("/properties/pair/prefixItems", Rule.RUNTIME)
    ]
    siblings: dict[str, JSON] = {
        "$ref": "#/definitions/s",
        "minLength": 3,
        "definitions": {"s": {}},
    }
    declared: JSON = {"$schema": "http://json-schema.org/draft-07/schema#", **siblings}
    python_to_ajv = runtimes_of(OldRuntime.STANDARD, NewRuntime.MCP_TS_V2)
    assert python_to_ajv is not None
    assert [c.describe() for c in runtime_changes(declared, python_to_ajv)] == [
        "/minLength: minLength enforced beside $ref by mcp-ts-v2"
    ]


def test_the_api_replays_a_change_of_runtime_alone() -> None:
    tool = ToolSchema("book", BOOKING, Location("tools.json"), "", "schema")
    calls = [Call("calls.jsonl:1", "book", {"when": "2026-01-05T10:00:00"})]
    from auditor.request import AuditRequest, TheChange

    request = AuditRequest(change=TheChange(new_runtime=NewRuntime.MCP_TS_V2))
    report = replay([tool], calls, request)
    assert report.totals[Outcome.NEWLY_REJECTED] == 1
    before = replay([tool], calls)
    assert before.totals[Outcome.ACCEPTED] == 1


def test_the_json_report_names_each_sides_runtime_only_when_asked() -> None:
    import jsonschema

    from auditor.report.json_report import as_dict
    from auditor.report.schema import report_schema
    from auditor.request import AuditRequest, TheChange

    tool = ToolSchema("book", BOOKING, Location("tools.json"), "", "schema")
    calls = [Call("calls.jsonl:1", "book", {"when": "2026-01-05T10:00:00"})]
    request = AuditRequest(
        change=TheChange(old_runtime=OldRuntime.MCP_TS_V1, new_runtime=NewRuntime.MCP_TS_V2)
    )
    data = as_dict(replay([tool], calls, request))
    jsonschema.validate(data, report_schema())
    assert data["old_runtime"] == "mcp-ts-v1"
    assert [data["runtimes"][side]["name"] for side in ("old", "new")] == [
        "mcp-ts-v1",
        "mcp-ts-v2",
    ]
    assert data["runtimes"]["old"]["default_dialect"] == "draft-07"
    assert data["runtimes"]["new"]["formats"] == "ajv-formats"
    assert "runtimes" not in as_dict(replay([tool], calls))
