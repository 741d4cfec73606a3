"""`auditor audit --suggest-patch`: a diff `git apply` accepts that turns the loosen groups into
accepted calls; the patch in every part of the pipeline (jobs, redaction, catalog changes)."""

from __future__ import annotations

import json
import os
import pickle
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from auditor import pointers
from auditor.aggregate.loosen import MAX_VALUES, FileSide, Witness, positive, suggest
from auditor.aggregate.pipeline import ReportSettings, build_report, count_calls, prepare
from auditor.inputs.paths import STDIN_NAME
from auditor.models import (
    JSON,
    Call,
    HintKind,
    Location,
    OldRuntime,
    PatchOp,
    PatchOperation,
    Rule,
    SchemaPatch,
    ToolSchema,
)
from auditor.report import Format, render
from auditor.schema import edit
from auditor.schema.diffs import changed_lines, git_quoted
from auditor.schema.edit import (
    EditError,
    FilePatch,
    catalog_edits,
    patch_catalogs,
    patch_text,
    unified_diff,
)
from auditor.schema.jsonpatch import PatchError, apply_patch
from auditor.schema.normalize import DEFAULT_RULES, normalize
from tests.aggregate.test_loosen_cases import Calls
from tests.conftest import ROOT, run_cli

FIXTURE = ROOT / "tests" / "fixtures" / "loosen"
REVIEW = ("--suggest-patch-kinds", "loosen-schema,review")
"""A group of one call (or of a tool with few) is hinted review, which --suggest-patch writes
only when asked."""


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)


@pytest.fixture
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository holding the loosen fixture at its root, the working directory."""
    if shutil.which("git") is None:
        pytest.fail("git is needed to check the diff (and is on every CI runner)")
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo / "catalogs")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.email=ci@example.com", "-c", "user.name=ci", "commit", "-qm", "base")
    monkeypatch.chdir(repo)
    return repo


AUDIT = [
    "audit",
    # Some of the fixture's groups are hinted review (3 and 1 of 9 calls of book_flight):
    # --suggest-patch leaves them out unless asked (tests/aggregate/test_patch_kinds.py).
    "--suggest-patch-kinds",
    "loosen-schema,review",
    "--schemas",
    "catalogs/tools.yaml",
    "catalogs/tools.json",
    "--logs",
    "catalogs/calls.jsonl",
    "--no-report-files",
    "--old-runtime",
    "none",
]


def test_git_apply_accepts_the_diff_and_it_turns_the_loosen_groups_into_accepted_calls(
    repository: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _ = run_cli([*AUDIT, "--suggest-patch", "loosen.diff", "-q"], capsys)
    assert code == 1
    diff = (repository / "loosen.diff").read_text(encoding="utf-8")
    assert diff.startswith("--- a/catalogs/tools.yaml\n+++ b/catalogs/tools.yaml\n")
    assert "-          max_length: 8  # IATA names were short\n" in diff
    assert "+          max_length: 13  # IATA names were short\n" in diff
    _git(repository, "apply", "--check", "loosen.diff")
    _git(repository, "apply", "loosen.diff")
    code, _, _ = run_cli([*AUDIT, "--format", "json", "--output", "after.json", "-q"], capsys)
    after = json.loads((repository / "after.json").read_text(encoding="utf-8"))
    assert code == 0 and after["totals"]["newly_rejected"] == 0
    # once applied, nothing is left to suggest: the diff is empty
    run_cli([*AUDIT, "--suggest-patch", "again.diff", "-q"], capsys)
    assert (repository / "again.diff").read_text(encoding="utf-8") == ""


def test_the_diff_names_the_patch_on_the_terminal_and_a_patch_it_cannot_write(
    repository: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = repository / "catalogs" / "tools.yaml"
    # An anchor: the alias shares the bound, so editing one place edits two.
    text = catalog.read_text(encoding="utf-8")
    text = text.replace("max_length: 8  # IATA", "max_length: &short 8  # IATA")
    text = text.replace("note: {type: string}", "note: {type: string, max_length: *short}")
    catalog.write_text(text, encoding="utf-8")
    # The terminal's detail (--verbose) names each group's patch and where it goes.
    code, out, err = run_cli([*AUDIT, "--suggest-patch", "loosen.diff", "--verbose"], capsys)
    assert code == 1
    assert "patch: raise maxLength 8 → 13 at catalogs/tools.yaml:9:11" in out
    assert "auditor: not in the patch: book_flight: raise maxLength 8 → 13:" in err
    assert "auditor: wrote loosen.diff\n" in err
    _git(repository, "apply", "--check", "loosen.diff")


def test_a_config_file_cannot_send_the_patch_outside_the_working_directory(
    repository: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repository / "auditor.toml").write_text('suggest_patch = "../outside.diff"\n')
    code, _, err = run_cli(AUDIT, capsys)
    assert code == 2 and "outside.diff: cannot write" in err
    assert not (repository.parent / "outside.diff").exists()


def _tools() -> list[ToolSchema]:
    schema: JSON = {
        "type": "object",
        "properties": {"cabin": {"enum": ["economy"]}, "city": {"max_length": 3}},
    }
    return [ToolSchema("t", schema, Location("tools.json", 1, 1), "", "mapping")]


def _calls() -> list[Call]:
    return [
        Call(f"calls.jsonl:{i}", "t", {"cabin": f"c{i % 7}", "city": "x" * (i % 11)})
        for i in range(1, 41)
    ]


def test_witnesses_merge_exactly_across_parts() -> None:
    settings = ReportSettings(old_runtime=OldRuntime.NONE)
    replays = prepare(_tools(), DEFAULT_RULES, old_runtime=OldRuntime.NONE)
    calls = _calls()
    whole = count_calls(replays, calls, settings)
    parts = [count_calls(replays, calls[i : i + 7], settings) for i in range(0, len(calls), 7)]
    merged = parts[0]
    for part in parts[1:]:
        merged.merge(part)
    stats = Calls(calls).stats()
    one = build_report(replays, whole, stats, ["tools.json"], (), settings)
    other = build_report(replays, merged, stats, ["tools.json"], (), settings)
    assert render(one, Format.JSON) == render(other, Format.JSON)
    patches = {g.keyword: g.patch for g in one.groups}
    assert patches["maxLength"] is not None and patches["maxLength"].summary == (
        "raise maxLength 3 → 10"
    )
    assert patches["enum"] is not None and len(patches["enum"].operations) == 7


def test_redaction_hides_a_patch_that_holds_logged_values_and_keeps_one_that_does_not() -> None:
    settings = ReportSettings(old_runtime=OldRuntime.NONE, redact=True)
    replays = prepare(_tools(), DEFAULT_RULES, old_runtime=OldRuntime.NONE)
    tally = count_calls(replays, _calls(), settings)
    report = build_report(replays, tally, Calls(_calls()).stats(), ["t"], (), settings)
    patches = {g.keyword: g.patch for g in report.groups}
    assert patches["enum"] is not None and patches["enum"].problem is not None
    assert "--redact" in patches["enum"].problem
    assert patches["maxLength"] is not None and patches["maxLength"].problem is None
    assert '"patch_problem": "the patch would hold logged values' in render(report, Format.JSON)


def test_too_many_values_outside_an_enum_get_no_patch() -> None:
    tool = _tools()[0]
    calls = [Call(f"c:{i}", "t", {"cabin": f"v{i}"}) for i in range(MAX_VALUES + 1)]
    settings = ReportSettings(old_runtime=OldRuntime.NONE)
    replays = prepare([tool], DEFAULT_RULES, old_runtime=OldRuntime.NONE)
    tally = count_calls(replays, calls, settings)
    report = build_report(replays, tally, Calls(calls).stats(), ["t"], (), settings)
    [group] = report.groups
    assert group.hint.kind is HintKind.LOOSEN_SCHEMA
    assert group.patch is not None and group.patch.problem is not None
    assert group.patch.problem.startswith(f"more than {MAX_VALUES} distinct values")


def test_a_catalog_change_is_patched_in_the_new_catalog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("old.json").write_text('{"t": {"type": "object"}}\n')
    Path("new.json").write_text('{"t": {"type": "object", "maxProperties": 1}}\n')
    Path("calls.jsonl").write_text('{"tool": "t", "arguments": {"a": 1, "b": 2}}\n')
    args = ["audit", "--schemas", "old.json", "--new-schemas", "new.json", "--logs"]
    code, _, _ = run_cli(
        [*args, "calls.jsonl", "-q", "--no-report-files", "--suggest-patch", "p", *REVIEW], capsys
    )
    assert code == 1
    assert Path("p").read_text() == (
        "--- a/new.json\n+++ b/new.json\n@@ -1 +1 @@\n"
        '-{"t": {"type": "object", "maxProperties": 1}}\n'
        '+{"t": {"type": "object", "maxProperties": 2}}\n'
    )


def test_a_catalog_read_from_standard_input_is_not_written() -> None:
    tool = ToolSchema("t", {"maxLength": 1}, Location(STDIN_NAME), "", "mapping")
    witness = Witness(longest=3, shortest=3)
    patch = suggest("maxLength", "/maxLength", {"maxLength": 1}, witness, side=FileSide(tool))
    assert patch.problem is None and patch.location is None
    assert patch.file_problem == "the catalog was read from standard input"
    assert suggest("maxLength", "/maxLength", {"maxLength": 1}, witness).file_problem
    assert patch_catalogs([("t", patch)]) == ()


def test_what_cannot_be_suggested_says_why() -> None:
    witness = Witness()
    assert suggest("maxLength", "/nowhere/maxLength", {}, witness).problem == (
        "no maxLength at /nowhere/maxLength in the new schema"
    )
    assert suggest("maxLength", "/maxLength", {"maxLength": 1}, witness).problem == (
        "no single change makes every call of the group pass"
    )
    schema: JSON = {"additionalProperties": {"type": "integer"}}
    problem = suggest("additionalProperties", "/additionalProperties", schema, witness).problem
    assert problem is not None and problem.endswith("additionalProperties is a schema, not false")
    assert not positive({}, "/properties/q/oneOf/0/maxLength")
    assert positive({}, "/properties/not/maxLength")
    assert positive({}, "/prefixItems/0/items/maxLength")


def test_edits_that_cannot_be_made_in_place_are_refused() -> None:
    replace: list[tuple[PatchOp, str, JSON]] = [(PatchOp.REPLACE, "/maxLength", 2)]

    def patch(text: str, ops: list[tuple[PatchOp, str, JSON]]) -> str:
        return patch_text("t.yaml", text, "", [PatchOperation(o, p, v) for o, p, v in ops])

    # Where the operation does not apply, the reason is the user's, not the JSON Patch's.
    with pytest.raises(EditError, match=re.escape(edit.NOT_THERE)):
        patch("{}", replace)
    with pytest.raises(EditError):
        patch("a: [", replace)
    with pytest.raises(EditError, match=re.escape(edit.NOT_THERE)):
        patch("a: 1\n", [(PatchOp.ADD, "/a/b", 1)])
    with pytest.raises(EditError, match="cannot add at /a"):
        patch("a: 1\n", [(PatchOp.ADD, "/a", 2)])
    with pytest.raises(EditError, match="the item does not start its line"):
        patch("r: [a, b]\nq:\n  - x\n  - - y\n", [(PatchOp.REMOVE, "/q/1/0", None)])


def test_a_file_without_a_final_newline_gets_the_marker_git_expects() -> None:
    diff = unified_diff("t.json", '{"a": 1}', '{"a": 2}')
    assert diff.endswith('+{"a": 2}\n\\ No newline at end of file\n')


def test_a_witness_that_overflows_stays_overflowed_in_any_merge_order() -> None:
    many = Witness()
    # an overflowing part turns the values into None at once
    many.merge(Witness(values={str(i): i for i in range(MAX_VALUES + 1)}))
    few = Witness(values={"1": 1}, extras={"a": {"string"}})
    long_name = Witness()
    long_name.merge(Witness(extras={"x" * 300: {"string"}}))
    long_value = Witness()
    long_value.merge(Witness(values={"x" * 300: "x"}))
    assert long_name.extras is None and long_value.values is None
    for first, second in ((few, long_name), (long_name, few)):
        merged = Witness()
        merged.merge(first)
        merged.merge(second)
        assert merged.extras is None and merged.values == {"1": 1}
    merged = Witness()
    merged.merge(long_value)
    merged.merge(few)
    assert merged.values is None
    assert many.values is None


def test_a_part_tally_pickles_without_the_compiled_tools() -> None:
    settings = ReportSettings(old_runtime=OldRuntime.NONE)
    replays = prepare(_tools(), DEFAULT_RULES, old_runtime=OldRuntime.NONE)
    tally = count_calls(replays, _calls()[:3], settings)
    pickled = pickle.dumps(tally)
    assert b"ToolReplay" not in pickled  # (a compiled tool does not even pickle)
    assert pickle.loads(pickled).totals == tally.totals


def test_a_rule_whose_change_does_not_pass_says_no_single_change() -> None:
    draft4 = "http://json-schema.org/draft-04/schema#"
    schema: JSON = {"$schema": draft4, "maximum": 5, "exclusiveMaximum": True}
    patch = suggest("maximum", "/maximum", schema, Witness(largest=7, smallest=7))
    assert patch.problem == "no single change makes every call of the group pass"


def test_a_patch_the_normalization_would_change_is_not_offered_unchecked() -> None:
    written: JSON = {"type": "object", "properties": {"a": {"type": "string"}}}
    tool = ToolSchema("t", written, Location("tools.json", 1, 1), "", "mapping")
    rules = frozenset({Rule.OPENAI_STRICT})
    new = normalize(written, rules).schema
    witness = Witness(extras={"b": {"integer"}})
    patch = suggest(
        "additionalProperties", "/additionalProperties", new, witness, side=FileSide(tool, rules)
    )
    # Strict mode makes the added `b` required: the edited file does not normalize to the
    # patched schema, and without the tool's logged calls nothing shows that harmless.
    assert patch.location is None and patch.file_problem is None
    assert patch.problem == (
        "add property b (integer): not offered, the catalog edited so gives another schema "
        "once normalized with --rules openai-strict, and no logged call was at hand to check "
        "it against"
    )


def test_json_patch_applies_as_rfc_6902_says() -> None:
    document: JSON = {"a": [1, 2], "b": {"c": 1}}
    ops = [
        PatchOperation(PatchOp.ADD, "/a/0", 0),
        PatchOperation(PatchOp.REPLACE, "/a/2", 3),
        PatchOperation(PatchOp.REMOVE, "/b/c"),
    ]
    assert apply_patch(document, ops) == {"a": [0, 1, 3], "b": {}}
    assert document == {"a": [1, 2], "b": {"c": 1}}
    assert apply_patch(document, [PatchOperation(PatchOp.REPLACE, "", 5)]) == 5
    for bad in (
        PatchOperation(PatchOp.REMOVE, ""),
        PatchOperation(PatchOp.REPLACE, "/b/x", 1),
        PatchOperation(PatchOp.REMOVE, "/a/5"),
        PatchOperation(PatchOp.REPLACE, "/a/01", 1),
        PatchOperation(PatchOp.ADD, "/b/c/d", 1),
    ):
        with pytest.raises(PatchError):
            apply_patch(document, [bad])


def test_the_patch_can_go_to_stdout_alone(
    repository: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli([*AUDIT, "--suggest-patch", "-"], capsys)
    assert code == 1 and out.startswith("--- a/catalogs/tools.yaml\n")
    assert "newly rejected" not in out
    code, _, err = run_cli([*AUDIT, "--suggest-patch", "-", "--format", "json"], capsys)
    assert code == 2 and "both go to stdout" in err


def test_a_catalog_that_cannot_be_read_is_named_and_left_out(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_text('{"maxLength": 1}\n')
    operation = PatchOperation(PatchOp.REPLACE, "/maxLength", 2)
    patches = [
        ("t", SchemaPatch("raise", (operation,), Location(str(path), 1, 1), "", (operation,)))
        for path in (tmp_path / "gone.json", big)
    ]
    missing, large = patch_catalogs(patches, max_bytes=4)
    assert missing.after == "" and "cannot read" in missing.problems[0]
    assert large.after == "" and "larger than 4 bytes" in large.problems[0]
    [written] = patch_catalogs(patches[1:])
    assert written.after == '{"maxLength": 2}\n'


def test_an_item_that_shares_its_line_with_another_dash_is_not_appended_to() -> None:
    operation = PatchOperation(PatchOp.ADD, "/q/0/-", "z")
    with pytest.raises(EditError, match="does not start its line"):
        patch_text("t.yaml", "q:\n  - - y\n", "", [operation])
    only = PatchOperation(PatchOp.REMOVE, "/q/0")
    assert patch_text("t.yaml", "q: [a]\n", "", [only]) == "q: []\n"


# Loosenings written into a file once: each file read, parsed and composed once, each edit
# made in the node that holds it, and the result the same as patching the whole text.

_IRREGULAR: list[tuple[str, str, str, list[tuple[str, str, JSON]]]] = [
    # Block mappings as sequence items (each starts after "- "), a comment after the value.
    (
        "tools.yaml",
        "/tools/0/parameters",
        "tools:\n  - name: a\n    parameters:\n      properties:\n        q:\n"
        "          type: string\n          max_length: 8  # short\n      required: [q, r]\n"
        "  - name: b\n    parameters: {properties: {p: {type: string, max_length: 2}}}\n",
        [("replace", "/properties/q/max_length", 13), ("remove", "/required/1", None)],
    ),
    # An anchor the edit would change in two places: refused, as on the whole text.
    (
        "tools.yaml",
        "/t",
        "t:\n  properties:\n    a: {type: string, max_length: &n 8}\n"
        "    b: {type: string, max_length: *n}\n    c: {type: string, max_length: 3}\n",
        [("replace", "/properties/a/max_length", 13), ("replace", "/properties/c/max_length", 4)],
    ),
    # A repeated key: the document holds the last one, the text's first is not it.
    (
        "tools.yaml",
        "/t",
        "t:\n  properties:\n    a: {max_length: 8}\n    a: {max_length: 8}\n"
        "    b: {max_length: 1}\n",
        [("replace", "/properties/a/max_length", 13), ("replace", "/properties/b/max_length", 2)],
    ),
    # A merge key, and flow collections side by side on one line.
    (
        "tools.yaml",
        "",
        "base: &b {type: string}\nt:\n  <<: *b\n  props: {p: {maxLength: 1}, q: {maxLength: 2}}\n",
        [("replace", "/t/props/p/maxLength", 5), ("replace", "/t/props/q/maxLength", 6)],
    ),
    # Nothing where the patch points, and an entry added then edited by the next patch.
    (
        "tools.json",
        "/t",
        '\ufeff{\n  "t": {\n    "properties": {\n      "a": {"maxLength": 1}\n    }\n  }\n}',
        [
            ("replace", "/properties/zz/maxLength", 2),
            ("add", "/properties/n", {"maxLength": 1}),
            ("replace", "/properties/n/maxLength", 3),
            ("replace", "/properties/a/maxLength", 4),
        ],
    ),
    # A document that does not parse; one that parses (libyaml takes the tab) but that the
    # composer the edits use refuses; an empty one.
    ("tools.json", "", '{"maxLength": 1,}', [("replace", "/maxLength", 2)]),
    (
        "tools.yaml",
        "/t",
        "t:\n  properties:\n    q: {type: string, max_length:\t3}\n",
        [("replace", "/properties/q/max_length", 4), ("replace", "/nowhere/x", 1)],
    ),
    ("tools.yaml", "", "", [("replace", "/maxLength", 2)]),
    # A repeated key at the top: no node can be taken alone. A patch that changes nothing.
    ("tools.yaml", "", "t: {a: 1}\nt: {a: 2}\n", [("replace", "/t/a", 3)]),
    ("tools.json", "", '{"t": {"a": 1}}', [("replace", "/t/a", 1)]),
    # The whole document replaced: no node holds it.
    (
        "tools.json",
        "",
        '{"t": {"a": 1}}',
        [("replace", "", {"t": {"a": 2}}), ("remove", "/t/a", None)],
    ),
]


def _case_files() -> list[tuple[str, str, str, list[tuple[str, str, JSON]]]]:
    from tests.conftest import load_cases

    found = []
    for param in load_cases("patch_edit"):
        (case,) = param.values
        operations = [(o["op"], o["path"], o.get("value")) for o in case["operations"]]
        found.append((case["file"], case["pointer"], case["text"], operations))
    return [*found, *_IRREGULAR]


def _patch(path: Path, pointer: str, ops: list[tuple[str, str, JSON]], name: str) -> SchemaPatch:
    operations = tuple(PatchOperation(PatchOp(op), at, value) for op, at, value in ops)
    return SchemaPatch(name, operations, Location(str(path), 1, 1), pointer, operations)


@pytest.mark.parametrize("number", range(len(_case_files())))
def test_edits_made_once_per_file_are_the_edits_made_on_the_whole_text(
    tmp_path: Path, number: int
) -> None:
    name, pointer, text, ops = _case_files()[number]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    # Every operation as its own group, then all of them as one, then the first again (as
    # --group-by caller makes one group per caller for the same constraint).
    patches = [_patch(path, pointer, [op], f"op {i}") for i, op in enumerate(ops)]
    patches += [_patch(path, pointer, ops, "all"), _patch(path, pointer, ops[:1], "again")]
    keyed = [(str(i), f"tool{i}", patch) for i, patch in enumerate(patches)]
    edits = catalog_edits(keyed)
    # What patching the whole text gives: each patch on the text the previous ones left...
    after, problems = text, []
    for _, tool, patch in keyed:
        try:
            after = patch_text(str(path), after, pointer, patch.file_operations)
        except EditError as error:
            problems.append(f"{tool}: {patch.summary}: {error}")
    assert edits.files == (FilePatch(str(path), text, after, tuple(problems)),)
    # ... and each by itself on the text as it is.
    for key, _, patch in keyed:
        try:
            alone = patch_text(str(path), text, pointer, patch.file_operations)
        except EditError:
            alone = text
        expected = None if alone == text else changed_lines(str(path), text, alone)
        assert edits.alone.get(key) == expected, patch.summary


_LEAF = st.one_of(st.integers(-3, 30), st.text(alphabet="ab é#:-", max_size=4), st.booleans())
_DOCUMENT = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.text(alphabet="abc", min_size=1, max_size=2), inner, max_size=3),
    ),
    max_leaves=12,
)


def _places(document: JSON, at: str = "") -> list[tuple[str, JSON]]:
    found = [(at, document)]
    if isinstance(document, dict):
        for key, value in document.items():
            found += _places(value, pointers.join(at, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found += _places(value, pointers.join(at, index))
    return found


@st.composite
def _catalog(draw: st.DrawFn) -> tuple[str, str, list[list[PatchOperation]]]:
    """A document written as JSON or YAML in some layout, and patches of a few operations
    on places it has (or that the patches before add)."""
    document = draw(st.dictionaries(st.sampled_from(["t", "u", "v"]), _DOCUMENT, min_size=1))
    layout = draw(st.sampled_from(["json", "json-indented", "yaml-block", "yaml-flow", "yaml"]))
    if layout.startswith("json"):
        text = json.dumps(document, indent=2 if layout == "json-indented" else None)
    else:
        flow = {"yaml-block": False, "yaml-flow": True, "yaml": None}[layout]
        text = yaml.safe_dump(document, default_flow_style=flow, sort_keys=False, width=40)
    places = _places(document)[1:]
    patches = []
    for _ in range(draw(st.integers(1, 6))):
        operations = []
        for _ in range(draw(st.integers(1, 2))):
            at, value = draw(st.sampled_from(places))
            kind = draw(st.sampled_from(["replace", "remove", "add"]))
            if kind == "add" and isinstance(value, list):
                operations.append(PatchOperation(PatchOp.ADD, at + "/-", draw(_LEAF)))
            elif kind == "add" and isinstance(value, dict):
                operations.append(PatchOperation(PatchOp.ADD, at + "/zz", draw(_LEAF)))
            elif kind == "remove":
                operations.append(PatchOperation(PatchOp.REMOVE, at))
            else:
                operations.append(PatchOperation(PatchOp.REPLACE, at, draw(_LEAF)))
        patches.append(operations)
    return ("tools.json" if layout.startswith("json") else "tools.yaml"), text, patches


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(_catalog())
# Found by Hypothesis: a sequence emptied in its node is no text at all, where the whole file
# holds a null; the add after it must fail as it fails on the whole text.
@example(
    (
        "tools.yaml",
        "t:\n- 0\n",
        [[PatchOperation(PatchOp.REMOVE, "/t/0"), PatchOperation(PatchOp.ADD, "/t/-", 1)]],
    )
)
def test_edits_made_node_by_node_agree_with_the_whole_text_on_generated_catalogs(
    tmp_path: Path, catalog: tuple[str, str, list[list[PatchOperation]]]
) -> None:
    name, text, operation_lists = catalog
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    keyed = [
        (str(i), "t", SchemaPatch(f"p{i}", tuple(ops), Location(str(path), 1, 1), "", tuple(ops)))
        for i, ops in enumerate(operation_lists)
    ]
    edits = catalog_edits(keyed)
    after, problems = text, []
    for _, tool, patch in keyed:
        try:
            after = patch_text(str(path), after, "", patch.file_operations)
        except EditError as error:
            problems.append(f"{tool}: {patch.summary}: {error}")
    assert edits.files == (FilePatch(str(path), text, after, tuple(problems)),)
    for key, _, patch in keyed:
        try:
            alone = patch_text(str(path), text, "", patch.file_operations)
        except EditError:
            alone = text
        expected = None if alone == text else changed_lines(str(path), text, alone)
        assert edits.alone.get(key) == expected


# A file name is data: the diff names it as git does, and no name writes a header or a hunk.

_HOSTILE_NAME = "tools.yaml\n+++ pwned\n@@ -0,0 +1 @@\n+owned"
_LOOSEN_CATALOG = "search:\n  type: object\n  properties:\n    q: {type: string, max_length: 3}\n"
_LOOSEN_CALLS = [("search", {"q": q}) for q in ["", "a", "abcdef", "abcdefg", "abcdefgh", "x" * 9]]


def _run(tool: str, *args: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    if shutil.which(tool) is None:
        pytest.fail(f"{tool} is needed to check the diff (and is on every CI runner)")
    return subprocess.run([tool, *args], cwd=cwd, input=stdin, capture_output=True, text=True)


@pytest.mark.parametrize(
    ("name", "header"),
    [
        (_HOSTILE_NAME, '"{}/tools.yaml\\n+++ pwned\\n@@ -0,0 +1 @@\\n+owned"'),
        ("tools.yaml", "{}/tools.yaml"),  # acceptance: an ordinary name as git writes it
    ],
)
def test_a_catalog_name_cannot_add_headers_or_hunks_to_the_diff(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    header: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    Path(name).write_text(_LOOSEN_CATALOG, encoding="utf-8")
    Path("calls.jsonl").write_text(
        "".join(json.dumps({"tool": t, "arguments": a}) + "\n" for t, a in _LOOSEN_CALLS)
    )
    args = ["audit", "--schemas", name, "--logs", "calls.jsonl", "--no-report-files", "-q"]
    code, _, _ = run_cli(
        [*args, "--old-runtime", "none", "--suggest-patch", "p.diff", *REVIEW], capsys
    )
    assert code == 1
    diff = Path("p.diff").read_text(encoding="utf-8")
    lines = diff.split("\n")
    assert lines[:3] == [
        f"--- {header.format('a')}",
        f"+++ {header.format('b')}",
        "@@ -1,4 +1,4 @@",
    ]
    assert [line[:3] for line in lines if line[:3] in ("---", "+++", "@@ ")] == [
        "---",
        "+++",
        "@@ ",
    ]
    before = sorted(os.listdir())
    # Neither patch nor git makes a file the name chose: with -p0 the name is a/..., which
    # is not there; git reads the quoted name back and patches the catalog, and only it.
    _run("patch", "-p0", "-f", "--dry-run", cwd=tmp_path, stdin=diff)
    _run("patch", "-p0", "-f", cwd=tmp_path, stdin=diff)
    assert not Path("pwned").exists()
    for leftover in set(os.listdir()) - set(before):  # a reject file patch -p0 may leave
        assert leftover.endswith((".rej", ".orig")), leftover
        os.remove(leftover)
    assert sorted(os.listdir()) == before
    _run("git", "init", "-q", cwd=tmp_path)
    assert _run("patch", "-p1", "--dry-run", cwd=tmp_path, stdin=diff).returncode == 0
    checked = _run("git", "apply", "--check", "p.diff", cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert _run("git", "apply", "p.diff", cwd=tmp_path).returncode == 0
    assert sorted(p for p in os.listdir() if p != ".git") == before
    assert Path(name).read_text(encoding="utf-8") == _LOOSEN_CATALOG.replace("3}", "9}")


@pytest.mark.parametrize(
    "name",
    ["tab\there", 'quote"d', "back\\slash", "é.json", "del\x7f", "sp ace.json", "bell\x07\x01"],
)
def test_a_file_name_is_quoted_as_git_quotes_it(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text("x\n")
    _run("git", "init", "-q", cwd=tmp_path)
    _run("git", "add", "--", name, cwd=tmp_path)
    listed = _run("git", "-c", "core.quotePath=true", "ls-files", cwd=tmp_path).stdout
    assert git_quoted(name) == listed.rstrip("\n")
    assert (git_quoted(name) == name) == (name == "sp ace.json")


def test_a_name_that_is_not_utf8_is_quoted_by_its_bytes(tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9.json")  # a byte that is not UTF-8, as the OS hands it over
    (tmp_path / name).write_text("x\n")
    _run("git", "init", "-q", cwd=tmp_path)
    _run("git", "add", "--", name, cwd=tmp_path)
    listed = _run("git", "ls-files", cwd=tmp_path).stdout
    assert git_quoted(name) == listed.rstrip("\n") == '"caf\\351.json"'
    # Not a name the OS hands over, but one that reached us all the same: its UTF-8 bytes.
    assert git_quoted("a\ud800") == '"a\\355\\240\\200"'


def test_edits_that_do_not_check_out_against_the_whole_document_are_made_again_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Should the edits made node by node ever not give the document the whole file must parse
    # to, every edit of the file is made again on the whole text: the same as patching it.
    path = tmp_path / "tools.yaml"
    text = "t:\n  properties:\n    a: {max_length: 1}\n    b: {max_length: 2}\n"
    path.write_text(text)
    patches = [_patch(path, "/t", [("replace", f"/properties/{p}/max_length", 9)], p) for p in "ab"]
    patches.append(_patch(path, "/t", [("replace", "/properties/c/max_length", 9)], "c"))
    after = text.replace("1}", "9}").replace("2}", "9}")
    parse = edit.parse_document
    forged: list[str] = []

    def once_wrong(name: str, body: str, as_json: bool) -> tuple[JSON, Any]:
        if body == after and not forged:
            forged.append(body)
            return {"not": "it"}, None
        return parse(name, body, as_json)

    monkeypatch.setattr(edit, "parse_document", once_wrong)
    edits = catalog_edits([(p.summary, "t", p) for p in patches])
    nowhere = f"t: c: {edit.NOT_THERE}"
    assert forged and edits.files == (FilePatch(str(path), text, after, (nowhere,)),)
    for key, line in (("a", "    a: {max_length: 9}"), ("b", "    b: {max_length: 9}")):
        change = edits.alone[key]
        assert (change.first, change.text) == (3 if key == "a" else 4, line)


def test_a_catalog_nested_thousands_of_levels_deep_does_not_end_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # One tool nested 3,000 levels (unusable, but loaded) beside one with a loosening: the
    # edits compose, copy and compare the whole file, which recurses once per level.
    monkeypatch.chdir(tmp_path)
    levels = 3_000
    deep = '{"type": "object", "properties": {"x": ' * levels + "{}" + "}}" * levels
    search = '{"type": "object", "properties": {"q": {"type": "string", "max_length": 3}}}'
    Path("tools.json").write_text(f'{{"deep": {deep},\n "search": {search}}}\n')
    Path("calls.jsonl").write_text(
        "".join(json.dumps({"tool": t, "arguments": a}) + "\n" for t, a in _LOOSEN_CALLS)
    )
    args = ["audit", "--schemas", "tools.json", "--logs", "calls.jsonl", "--no-report-files"]
    args += ["-q", "--old-runtime", "none", "--format", "sarif", "--output", "a.sarif"]
    code, _, err = run_cli([*args, "--suggest-patch", "p.diff", *REVIEW], capsys)
    assert code == 1, err
    assert (
        '+ "search": {"type": "object", "properties": {"q": {"type": "string", "max_length": 9}'
        in (Path("p.diff").read_text())
    )
    results = json.loads(Path("a.sarif").read_text())["runs"][0]["results"]
    assert sum("fixes" in r for r in results) == 1
