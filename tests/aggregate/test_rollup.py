"""What to do (the roll-up): every group in exactly one entry, one entry per hint kind and one
for the tools the change removed, with the callers, verified patches and schema errors a
reader acts on. Every expectation is reasoned from the groups given or from the hint rules
(auditor.aggregate.hints: at least half of a tool's calls failing, with 5 or more calls, is
loosen-schema; at most one in ten is fix-callers; too few calls is review)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from auditor.aggregate.rollup import KIND_OF_HINT, PATCH_COMMAND, ROLLUP_CALLERS, kind_of, roll_up
from auditor.models import (
    Change,
    DecisionHint,
    Edit,
    Group,
    HintKind,
    Location,
    Outcome,
    Prose,
    RollUpEntry,
    RollUpKind,
    Rule,
    SchemaPatch,
)
from auditor.report import Format, render
from auditor.report.common import _ROLLUP_TEXT, ROLLUP_LABELS, rollup_lines
from auditor.report.schema import report_schema
from tests.conftest import run_cli
from tests.samples import run, scenarios

RENAME = Change("/min_items", "min_items", "minItems", Rule.KEYWORD_CASE, "/minItems")
REMOVED = Change("", "legacy", "", Rule.EDIT, "", edit=Edit.REMOVE)
VERIFIED = SchemaPatch("lower minItems 1 → 0", location=Location("tools.yaml", 3, 5))
NOT_IN_FILE = SchemaPatch("raise maxLength 3 → 5", file_problem="the file is generated")
NONE = SchemaPatch(problem="no loosening rule for dependentRequired")


def _group(
    name: str,
    kind: HintKind,
    count: int = 1,
    outcome: Outcome = Outcome.NEWLY_REJECTED,
    **fields: Any,
) -> Group:
    """A group of ``count`` calls of tool ``t`` with the hint ``kind``; its fingerprint is
    ``name``."""
    values: dict[str, Any] = {
        "fingerprint": name,
        "outcome": outcome,
        "tool": "t",
        "causes": (RENAME,),
        "keyword": "minItems",
        "schema_pointer": "/minItems",
        "count": count,
        "tool_calls": 10,
        "first": "calls.jsonl:1",
        "last": "calls.jsonl:1",
        "error": "",
        "examples": (),
        "hint": DecisionHint(kind, Prose()),
    }
    return Group(**(values | fields))


def test_every_hint_kind_lands_in_an_entry_and_every_entry_has_its_words() -> None:
    # The extension point: a new hint kind needs an entry, a label and its sentence before
    # any group of it can be rolled up.
    assert set(KIND_OF_HINT) == set(HintKind)
    assert {*KIND_OF_HINT.values(), RollUpKind.TOOLS_REMOVED, RollUpKind.CONTRADICTED} == set(
        RollUpKind
    )
    assert set(ROLLUP_LABELS) == set(_ROLLUP_TEXT) == set(RollUpKind)
    groups = [_group(kind.value, kind) for kind in HintKind]
    groups.append(_group("gone", HintKind.REVIEW, causes=(REMOVED,)))
    groups.append(_group("ran", HintKind.REVIEW, contradicted=True))
    rollup = roll_up(groups)
    assert [entry.kind for entry in rollup.entries] == list(RollUpKind)
    assert all(entry.groups == 1 for entry in rollup.entries)


def test_a_removed_tool_asks_its_callers_to_move_whatever_its_hint() -> None:
    gone = _group("gone", HintKind.REVIEW, causes=(REMOVED,))
    kept = _group("kept", HintKind.REVIEW)
    assert kind_of(gone) is RollUpKind.TOOLS_REMOVED
    assert kind_of(kept) is RollUpKind.REVIEW


def test_a_group_the_log_contradicts_is_an_entry_of_its_own_whatever_its_hint() -> None:
    # No change explains its rejection: not a caller to fix nor a schema to loosen, but a
    # model of the old runtime to check; counted once, and said in the singular.
    ran = _group("ran", HintKind.FIX_CALLERS, 1, contradicted=True)
    fix = _group("fix", HintKind.FIX_CALLERS, 2)
    assert kind_of(ran) is RollUpKind.CONTRADICTED
    rollup = roll_up([fix, ran])
    assert rollup.entry(RollUpKind.CONTRADICTED).fingerprints == ("ran",)
    assert rollup.entry(RollUpKind.FIX_CALLERS).fingerprints == ("fix",)
    assert [line.plain() for line in rollup_lines(rollup)][-1] == (
        "Contradicted by the log: 1 group (1 call); the log shows this call ran where no "
        "change made the error possible: check the old-runtime model (--old-runtime) before "
        "counting it as a regression."
    )


def test_the_entries_hold_every_group_once_and_add_up() -> None:
    groups = [
        _group("a", HintKind.FIX_CALLERS, 3),
        _group("b", HintKind.FIX_CALLERS, 2),
        _group("c", HintKind.REVIEW, 4, outcome=Outcome.NEWLY_ACCEPTED),
        _group("d", HintKind.REVIEW, 1),
        _group("e", HintKind.FIX_SCHEMA, 5, outcome=Outcome.SCHEMA_ERROR_AFTER),
    ]
    rollup = roll_up(groups)
    assert rollup.groups == 5
    fix = rollup.entry(RollUpKind.FIX_CALLERS)
    assert (fix.fingerprints, fix.calls, fix.outcomes) == (
        ("a", "b"),
        5,
        ((Outcome.NEWLY_REJECTED, 2),),
    )
    review = rollup.entry(RollUpKind.REVIEW)
    # Outcomes in the order of Outcome: newly rejected before newly accepted.
    assert review.outcomes == ((Outcome.NEWLY_REJECTED, 1), (Outcome.NEWLY_ACCEPTED, 1))
    assert (review.fingerprints, review.calls) == (("c", "d"), 5)
    assert rollup.entry(RollUpKind.LOOSEN_SCHEMA) == RollUpEntry(RollUpKind.LOOSEN_SCHEMA)
    # An empty roll-up still has every entry, each empty.
    assert [e.groups for e in roll_up([]).entries] == [0] * len(RollUpKind)


def test_callers_add_up_across_groups_most_calls_first_and_the_rest_are_said_to_exist() -> None:
    a = _group("a", HintKind.FIX_CALLERS, 3, callers=(("x", 2), ("y", 1)))
    b = _group("b", HintKind.FIX_CALLERS, 2, callers=(("y", 2),))
    entry = roll_up([a, b]).entry(RollUpKind.FIX_CALLERS)
    # y: 1 + 2 calls; x: 2; ties by name.
    assert (entry.callers, entry.more_callers) == ((("y", 3), ("x", 2)), False)
    many = _group("m", HintKind.FIX_CALLERS, 7, callers=tuple((f"c{i}", 1) for i in range(7)))
    entry = roll_up([many]).entry(RollUpKind.FIX_CALLERS)
    assert entry.callers == tuple((f"c{i}", 1) for i in range(ROLLUP_CALLERS))
    assert entry.more_callers
    # A group that counted callers it does not list: there are more than those named.
    cut = _group("c", HintKind.FIX_CALLERS, 3, callers=(("x", 2),), more_callers=1)
    assert roll_up([cut]).entry(RollUpKind.FIX_CALLERS).more_callers


def test_patches_count_what_suggest_patch_writes_and_what_it_cannot() -> None:
    groups = [
        _group("a", HintKind.LOOSEN_SCHEMA, patch=VERIFIED),
        _group("b", HintKind.LOOSEN_SCHEMA, patch=NOT_IN_FILE),
        _group("c", HintKind.LOOSEN_SCHEMA, patch=NONE),
        _group("d", HintKind.LOOSEN_SCHEMA),
        _group("e", HintKind.REVIEW, patch=NONE),
    ]
    rollup = roll_up(groups)
    loosen = rollup.entry(RollUpKind.LOOSEN_SCHEMA)
    assert (loosen.patches, loosen.unwritable_patches, loosen.patch_command) == (
        1,
        1,
        PATCH_COMMAND,
    )
    review = rollup.entry(RollUpKind.REVIEW)
    assert (review.patches, review.unwritable_patches, review.patch_command) == (0, 0, None)


def test_unusable_schemas_are_named_once_each() -> None:
    problem = "$ref '#/$defs/x' points to nothing in the schema"
    groups = [
        _group("a", HintKind.FIX_SCHEMA, 2, Outcome.SCHEMA_ERROR_AFTER, error=problem),
        # --group-by caller: the same schema error in a second group.
        _group("b", HintKind.FIX_SCHEMA, 1, Outcome.SCHEMA_ERROR_AFTER, error=problem),
        _group("c", HintKind.FIX_SCHEMA, 1, Outcome.SCHEMA_ERROR_AFTER, tool="u", error="bad"),
    ]
    entry = roll_up(groups).entry(RollUpKind.FIX_SCHEMA)
    assert entry.errors == (("t", problem), ("u", "bad"))
    assert entry.calls == 4


@pytest.mark.parametrize("scenario", scenarios(), ids=lambda s: s.name)
def test_every_samples_roll_up_holds_each_of_its_groups_once(scenario: Any) -> None:
    report = run(scenario)
    assert report.rollup.groups == len(report.groups) > 0
    placed = [f for entry in report.rollup.entries for f in entry.fingerprints]
    assert sorted(placed) == sorted(g.fingerprint for g in report.groups)
    assert sum(e.calls for e in report.rollup.entries) == sum(g.count for g in report.groups)
    for entry in report.rollup.entries:
        assert sum(n for _, n in entry.outcomes) == entry.groups
    document = json.loads(render(report, Format.JSON))
    jsonschema.validate(document, report_schema())
    assert document["rollup"]["groups"] == len(document["groups"])
    assert sum(e["groups"] for e in document["rollup"]["entries"]) == len(document["groups"])


CATALOG = """\
search:
  type: object
  properties:
    tags: {type: array, min_items: 1}
lookup:
  type: object
  properties:
    q: {type: string, max_length: 3}
notes:
  type: object
  properties:
    text: {type: string, min_length: 2}
broken:
  type: object
  properties:
    ref: {$ref: "#/$defs/missing"}
"""


def _call(tool: str, arguments: dict[str, Any], caller: str | None = None) -> str:
    record: dict[str, Any] = {"tool": tool, "arguments": arguments}
    if caller is not None:
        record["caller"] = caller
    return json.dumps(record) + "\n"


CALLS = (
    # search: 1 of 10 calls sends an empty list: fix the callers (agent-b).
    [_call("search", {"tags": ["a"]}, "agent-a")] * 9
    + [_call("search", {"tags": []}, "agent-b")]
    # lookup: 6 of 10 calls send 5 characters to maxLength 3: loosen it (raise it to 5).
    + [_call("lookup", {"q": "abc"})] * 4
    + [_call("lookup", {"q": "abcde"}, "agent-a")] * 4
    + [_call("lookup", {"q": "abcde"}, "agent-c")] * 2
    # notes: 2 calls of the tool are too few to tell: review (lower minLength to 1).
    + [_call("notes", {"text": "ok"}), _call("notes", {"text": "x"})]
    # broken: the $ref points nowhere: every call meets an unusable schema.
    + [_call("broken", {"ref": 1})] * 2
)


def _audit(tmp_path: Path, *extra: str) -> list[str]:
    (tmp_path / "tools.yaml").write_text(CATALOG, encoding="utf-8")
    (tmp_path / "calls.jsonl").write_text("".join(CALLS), encoding="utf-8")
    return ["audit", "--schemas", "tools.yaml", "--logs", "calls.jsonl", *extra]


def test_the_roll_up_of_each_kind_of_decision_in_the_json_and_on_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run_cli(_audit(tmp_path), capsys)
    assert code == 1
    document = json.loads((tmp_path / "reports" / "audit.json").read_text(encoding="utf-8"))
    entries = {e["kind"]: e for e in document["rollup"]["entries"]}
    assert list(entries) == [kind.value for kind in RollUpKind]
    assert entries["fix-callers"] | {"fingerprints": []} == {
        "kind": "fix-callers",
        "groups": 1,
        "calls": 1,
        "fingerprints": [],
        "outcomes": {"newly_rejected": 1},
        "tools": ["search"],
        "callers": [{"caller": "agent-b", "calls": 1}],
        "more_callers": False,
        "patches": 0,
        "unwritable_patches": 0,
        "patch_command": None,
        "errors": [],
    }
    loosen = entries["loosen-schema"]
    assert (loosen["groups"], loosen["calls"], loosen["tools"]) == (1, 6, ["lookup"])
    assert loosen["callers"] == [
        {"caller": "agent-a", "calls": 4},
        {"caller": "agent-c", "calls": 2},
    ]
    assert (loosen["patches"], loosen["patch_command"]) == (1, "--suggest-patch PATH")
    review = entries["review"]
    assert (review["groups"], review["calls"], review["tools"], review["patches"]) == (
        1,
        1,
        ["notes"],
        1,
    )
    assert entries["tools-removed"]["groups"] == 0
    unusable = entries["fix-schema"]
    assert (unusable["groups"], unusable["calls"]) == (1, 2)
    [error] = unusable["errors"]
    assert error["tool"] == "broken" and "#/$defs/missing" in error["error"]
    assert document["rollup"]["groups"] == len(document["groups"]) == 4
    # The terminal says the same, one line an entry, in the roll-up's order.
    todo = out.split("\n\n")[-2].splitlines()
    assert todo == [
        "What to do:",
        "  Fix the callers: 1 group (1 call); callers: agent-b (1 call).",
        "  Loosen the schema: 1 group (6 calls); 1 with a verified patch: --suggest-patch PATH.",
        "  Review by hand: 1 group (1 call); 1 with a verified patch: --suggest-patch PATH "
        "--suggest-patch-kinds review.",
        f"  Fix the schema: 1 group (2 calls) will fail on an unusable schema: broken "
        f"({error['error']}).",
    ]


def test_a_removed_tool_names_the_callers_still_using_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    (tmp_path / "new.yaml").write_text(CATALOG.split("lookup:")[0], encoding="utf-8")
    code, out, _ = run_cli([*_audit(tmp_path), "--new-schemas", "new.yaml"], capsys)
    assert code == 1
    document = json.loads((tmp_path / "reports" / "audit.json").read_text(encoding="utf-8"))
    entries = {e["kind"]: e for e in document["rollup"]["entries"]}
    removed = entries["tools-removed"]
    # lookup, notes and broken are gone: every call of theirs (10, 2, 2) is newly rejected.
    assert (removed["groups"], removed["calls"]) == (3, 14)
    # Largest first, then by name.
    assert removed["tools"] == ["lookup", "broken", "notes"]
    assert removed["callers"] == [
        {"caller": "agent-a", "calls": 4},
        {"caller": "agent-c", "calls": 2},
    ]
    assert (
        "  Tools removed: 3 groups (14 calls) name a tool the change removed: lookup, broken, "
        "notes; callers still using them: agent-a (4 calls), agent-c (2 calls)."
    ) in out.splitlines()


def test_the_roll_up_words_say_every_count_in_the_singular_and_plural() -> None:
    groups = [
        _group("a", HintKind.LOOSEN_SCHEMA, 2, patch=VERIFIED),
        _group("b", HintKind.LOOSEN_SCHEMA, 3, patch=VERIFIED),
        _group("c", HintKind.LOOSEN_SCHEMA, 1, patch=NOT_IN_FILE),
        _group("d", HintKind.FIX_CALLERS, 1),
    ]
    lines = [line.plain() for line in rollup_lines(roll_up(groups))]
    assert lines == [
        "Fix the callers: 1 group (1 call); the log names no caller.",
        "Loosen the schema: 3 groups (6 calls); 2 with a verified patch: --suggest-patch PATH "
        "(1 more verified but not writable into the catalog file: see the group).",
    ]


def test_the_roll_up_says_when_no_patch_is_verified_and_counts_the_schemas_it_does_not_name() -> (
    None
):
    groups = [_group("a", HintKind.LOOSEN_SCHEMA, 2, patch=NONE)]
    groups += [
        _group(
            f"e{i}", HintKind.FIX_SCHEMA, 1, Outcome.SCHEMA_ERROR_AFTER, tool=f"u{i}", error="bad"
        )
        for i in range(5)
    ]
    assert [line.plain() for line in rollup_lines(roll_up(groups))] == [
        "Loosen the schema: 1 group (2 calls); none with a verified patch.",
        # Three named, the other two counted.
        "Fix the schema: 5 groups (5 calls) will fail on an unusable schema: u0 (bad), u1 "
        "(bad), u2 (bad) and 2 more.",
    ]


def test_the_tools_removed_line_names_five_and_counts_the_rest() -> None:
    groups = [
        _group(f"g{i}", HintKind.REVIEW, 1, tool=f"tool{i}", causes=(REMOVED,)) for i in range(7)
    ]
    [line] = [line.plain() for line in rollup_lines(roll_up(groups))]
    assert line == (
        "Tools removed: 7 groups (7 calls) name a tool the change removed: tool0, tool1, tool2, "
        "tool3, tool4 and 2 more; the log names no caller."
    )
