"""Counterexamples: the hand-reasoned case files, and properties on generated schemas."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.aggregate import pipeline
from auditor.aggregate.pipeline import ReportSettings, count_calls, prepare
from auditor.models import (
    JSON,
    Call,
    Counterexample,
    CounterexampleStatus,
    Location,
    Rule,
    ToolSchema,
)
from auditor.replay import counterexamples
from auditor.replay.budget import CallBudget, SearchCeiling
from auditor.replay.counterexamples import (
    MAX_BUILT_SIZE,
    MAX_CANDIDATES,
    MAX_GENERATED,
    MAX_NAME_MATCHES,
    MAX_SAMPLE_BYTES,
    MAX_SAMPLES,
    SearchBudget,
    apply_patch,
    bites,
    counterexample,
    harmless,
    minimal,
)
from auditor.replay.tool import ToolReplay
from auditor.report import Format, markdown, render
from auditor.schema.diff import compare
from auditor.schema.normalize import DEFAULT_RULES, normalize
from tests.conftest import cpu_seconds, load_cases, seconds
from tests.replay.test_coverage import KEYED, walkable_schemas
from tests.replay.test_fast_validator import INSTANCES
from tests.reporting import make_report
from tests.schema.test_normalize_properties import dialect


def _replay(case: dict[str, Any]) -> ToolReplay:
    tool = ToolSchema("t", case["schema"], Location("tools.json"), "", "mapping")
    if "new_schema" in case:
        new = ToolSchema("t", case["new_schema"], Location("new.json"), "", "mapping")
        return ToolReplay(tool, compare(tool, new, frozenset()))
    rules = frozenset(Rule(r) for r in case["rules"]) if "rules" in case else DEFAULT_RULES
    return ToolReplay(tool, normalize(case["schema"], rules))


def _search(case: dict[str, Any]) -> dict[str, Counterexample]:
    replay = _replay(case)
    samples = [(s["source"], s["arguments"]) for s in case["samples"]]
    budget = SearchBudget()
    return {
        rewrite.pointer: counterexample(replay, index, samples, budget)
        for index, rewrite in enumerate(replay.normalized.rewrites)
    }


@pytest.mark.parametrize("case", load_cases("counterexamples"))
def test_each_keyword_family_has_its_reasoned_counterexample(case: dict[str, Any]) -> None:
    found = _search(case)
    replay = _replay(case)
    assert case["expect"], "a case expects at least one change's answer"
    for expected in case["expect"]:
        got = found[expected["change"]]
        assert got.status.value == expected["status"], (expected["change"], got)
        if "candidates" in expected:
            assert got.candidates == expected["candidates"], (expected["change"], got)
        assert got.candidates <= expected.get("at_most", MAX_CANDIDATES), got
        if got.status is CounterexampleStatus.FOUND:
            assert got.arguments == expected["arguments"]
            assert got.derived_from == expected["derived_from"]
            if "patch" in expected:
                assert list(got.patch) == expected["patch"]
            # Verified on both sides, and the patch turns the logged call into it.
            assert bites(replay, got.change, got.arguments)
            if got.derived_from is not None:
                start = next(s for s in case["samples"] if s["source"] == got.derived_from)
                assert apply_patch(start["arguments"], got.patch) == got.arguments
        else:
            assert got.arguments is None and got.reason
            assert expected.get("reason", "") in got.reason


def test_every_counterexample_found_on_generated_schemas_verifies_as_stated() -> None:
    stats = {"searched": 0, "found": 0, "harmless": 0}

    # Derandomized: the shares asserted below are a property of the draws, which must not
    # change from run to run (a random seed once drew 3 found in 679).
    @settings(
        max_examples=80,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(
        walkable_schemas,
        st.randoms(use_true_random=False),
        st.lists(KEYED | INSTANCES, max_size=4),
    )
    def verifies(schema: Any, rng: random.Random, calls: list[Any]) -> None:
        tool = ToolSchema("t", dialect(schema, rng), Location("x"), "", "mapping")
        replay = ToolReplay(tool, normalize(tool.schema, DEFAULT_RULES))
        samples = [(f"log:{i}", c) for i, c in enumerate(calls)]
        budget = SearchBudget(2_000)
        for index in range(len(replay.normalized.rewrites)):
            found = counterexample(replay, index, samples, budget)
            stats["searched"] += 1
            if found.status is CounterexampleStatus.FOUND:
                stats["found"] += 1
                # The old runtime accepts it, the new schema rejects it because of the change,
                # and it is the logged call with the patch applied (or generated).
                old, new = replay.verdicts(found.arguments)
                assert old is not None and old.accepts and new.usable and not new.accepts
                assert any(found.change in issue.causes for issue in new.errors)
                if found.derived_from is not None:
                    start = dict(samples)[found.derived_from]
                    assert apply_patch(start, found.patch) == found.arguments
                    assert len(found.patch) == 1
                else:
                    assert found.patch == ()
            elif found.status is CounterexampleStatus.HARMLESS:
                stats["harmless"] += 1
                # Nothing any logged call or its edits gave bites either.
                for _, call in samples:
                    assert not bites(replay, found.change, call)
            elif found.status is CounterexampleStatus.UNUSABLE:
                # Blocked by a schema error: no logged call is rejected because of it.
                for _, call in samples:
                    assert not bites(replay, found.change, call)
            assert found.candidates <= MAX_CANDIDATES

    verifies()
    # Generated dialects are odd (keywords under `default`, schemas no call can satisfy,
    # schemas that fail their meta-schema): most changes there cannot bite. Enough do for
    # the verification above to be exercised (the draws are fixed: 7 found when written).
    assert stats["found"] >= 5, stats
    assert stats["harmless"] >= 0.02 * stats["searched"], stats


CATALOG = """
tag:
  type: object
  properties:
    tags: {type: array, items: {type: string}, min_items: 1}
    label: {type: string, max_length: 5}
  additional_properties: false
"""


def test_the_report_lists_counterexamples_apart_from_the_logged_calls(tmp_path: Path) -> None:
    calls = [("tag", {"tags": ["a"], "label": "ok"}), ("tag", {"tags": ["a"], "extra": 1})]
    report = make_report(tmp_path, CATALOG, calls)
    # additional_properties failed a call: only the other two changes are searched.
    by_change = {c.change.pointer: c for c in report.counterexamples}
    assert sorted(by_change) == ["/properties/label/max_length", "/properties/tags/min_items"]
    tags = by_change["/properties/tags/min_items"]
    assert tags.arguments == {"tags": [], "label": "ok"}
    assert tags.derived_from == f"{tmp_path / 'calls.jsonl'}:1"
    assert report.call_count == 2  # never counted among the logged calls
    listed = json.loads(render(report, Format.JSON))["counterexamples"]
    entry = next(e for e in listed if e["change"].endswith("min_items"))
    assert entry["tool"] == "tag" and entry["change"] == "/properties/tags/min_items"
    assert entry["arguments"] == {"tags": [], "label": "ok"}
    assert entry["patch"] == [{"op": "replace", "path": "/tags", "value": []}]
    markdown = render(report, Format.MARKDOWN)
    assert "## Counterexamples: what the logs never tried" in markdown
    assert '{"tags": [], "label": "ok"}' in markdown
    assert "2 shown to bite by a counterexample" in render(report, Format.TABLE)


def test_counterexamples_from_logged_calls_are_redacted_and_escaped(tmp_path: Path) -> None:
    hostile = "</details><script>x</script>`|\u202e"
    calls = [("tag", {"tags": [hostile], hostile: "secret value"})]
    catalog = CATALOG.replace("additional_properties: false", "")
    report = make_report(tmp_path, catalog, calls, ReportSettings(redact=True))
    tags = next(c for c in report.counterexamples if c.change.pointer.endswith("min_items"))
    # The logged value is masked, its key kept (cut like any key); the edit is shown.
    assert tags.arguments == {"tags": [], hostile: "<string, 12 chars>"}
    assert tags.patch == ({"op": "replace", "path": "/tags", "value": []},)
    for form in (Format.MARKDOWN, Format.HTML, Format.TABLE):
        text = render(report, form)
        assert "secret value" not in text and "\u202e" not in text
    # Markdown shows arguments in fenced code (inert); HTML escapes them.
    assert "<script>" not in render(report, Format.HTML)
    assert "secret value" not in render(report, Format.JSON)


def test_a_tool_no_call_named_is_searched_from_its_schema(tmp_path: Path) -> None:
    report = make_report(tmp_path, CATALOG, [("other", {})])
    found = {c.change.pointer: c for c in report.counterexamples}
    assert found["/properties/tags/min_items"].derived_from is None
    assert found["/properties/tags/min_items"].arguments == {"tags": []}
    assert found["/additional_properties"].arguments == {"unexpected": None}
    assert all(c.status is CounterexampleStatus.FOUND for c in found.values())
    assert report.tools[0].constraints == ()  # constraint coverage: called tools only


def test_constraint_coverage_counts_reached_and_failed_calls(tmp_path: Path) -> None:
    calls = [
        ("tag", {"tags": ["a"]}),
        ("tag", {"tags": []}),
        ("tag", {"tags": [], "label": "too long"}),
    ]
    report = make_report(tmp_path, CATALOG, calls)
    uses = {c.pointer: (c.keyword, c.reached, c.failed) for c in report.tools[0].constraints}
    assert uses == {
        "/additionalProperties": ("additionalProperties", 3, 0),
        "/properties/label/maxLength": ("maxLength", 1, 1),
        "/properties/label/type": ("type", 1, 0),
        "/properties/tags/items/type": ("type", 1, 0),
        "/properties/tags/minItems": ("minItems", 3, 2),
        "/properties/tags/type": ("type", 3, 0),
        "/type": ("type", 3, 0),
    }
    markdown = render(report, Format.MARKDOWN)
    # Every one was reached (by 1 to 3 calls), minItems and maxLength rejected calls.
    assert (
        "Constraint coverage: every one of the 7 constraint keywords of the called tools' new "
        "schemas was reached by a logged call, 2 of them rejecting at least one."
    ) in markdown
    report = make_report(tmp_path, CATALOG, [("tag", {"tags": ["a"]})])
    table = " ".join(render(report, Format.TABLE).split())
    # No call sends a label: its maxLength and type are the 2 blind spots of 7.
    assert (
        "Constraint coverage: 5 of 7 constraint keywords of the called tools' new schemas were "
        "reached by a logged call, 0 of them rejecting at least one; 2 were not reached by any "
        "(blind spots)."
    ) in table
    markdown = render(report, Format.MARKDOWN)
    assert "`tag`: `/properties/label/maxLength`, `/properties/label/type`" in markdown
    assert "/properties/label/maxLength" in render(report, Format.HTML)


def test_samples_merge_in_log_order_like_one_pass() -> None:
    tool = ToolSchema("t", {"type": "object"}, Location("x"), "", "mapping")
    replays = prepare([tool], DEFAULT_RULES)
    calls = [Call(f"log:{i}", "t", {"n": i % 7}) for i in range(60)]
    calls += [Call(f"log:{60 + i}", "t", {"n": i}) for i in range(40)]
    calls.append(Call("log:big", "t", {"s": "x" * (MAX_SAMPLE_BYTES + 1)}))
    whole = count_calls(replays, calls, ReportSettings())
    assert len(whole.samples["t"]) == MAX_SAMPLES
    for cut in (1, 5, 30, 61, 75):
        first = count_calls(replays, calls[:cut], ReportSettings())
        first.merge(count_calls(replays, calls[cut:], ReportSettings()))
        assert list(first.samples["t"].values()) == list(whole.samples["t"].values())
    assert [s for s, _ in whole.samples["t"].values()][:8] == [
        "log:0", "log:1", "log:2", "log:3", "log:4", "log:5", "log:6", "log:67",
    ]  # fmt: skip


def test_the_search_is_bounded_per_change_and_per_audit(monkeypatch: pytest.MonkeyPatch) -> None:
    # A pattern nothing short matches: every candidate is tried, none bites.
    case: dict[str, Any] = {
        "schema": {"type": "object", "properties": {"a": {"type": "string"}}},
        "new_schema": {
            "type": "object",
            "properties": {"a": {"type": "string", "pattern": "^(?!x{5000}$)"}},
        },
    }
    replay = _replay(case)
    samples: list[tuple[str, JSON]] = [(f"log:{i}", {"a": "b" * i, "n": i}) for i in range(40)]
    tried = counterexample(replay, 0, samples, SearchBudget()).candidates
    assert 50 < tried <= MAX_CANDIDATES
    budget = SearchBudget(tried + 10)
    first = counterexample(replay, 0, samples, budget)
    assert first.status is CounterexampleStatus.NOT_FOUND and "not a proof" in first.reason
    assert first.candidates == tried and budget.left == 10
    assert counterexample(replay, 0, samples, budget).candidates == 10
    spent = counterexample(replay, 0, samples, budget)
    assert spent.candidates == 0 and spent.reason.startswith("not searched")
    monkeypatch.setattr(counterexamples, "MAX_CANDIDATES", 50)
    assert counterexample(replay, 0, samples, SearchBudget()).candidates == 50


def test_minimal_arguments_meet_the_schema_they_are_built_from() -> None:
    root: JSON = {
        "type": "object",
        "required": ["a", "b", "c", "d", "e", "f", "g"],
        "properties": {
            "a": {"$ref": "#/$defs/n"},
            "b": {"type": "array", "minItems": 2, "items": {"type": "boolean"}},
            "c": {"const": 3},
            "d": {"anyOf": [{"type": "string", "minLength": 2}, {"type": "null"}]},
            "e": {"type": "number", "exclusiveMinimum": 1.5},
            "f": {"required": ["x"]},
            "g": {"type": "null"},
        },
        "$defs": {"n": {"type": "integer", "minimum": 4}},
    }
    assert minimal(root, root) == {
        "a": 5, "b": [False, False], "c": 3, "d": "aa", "e": 2.5, "f": {"x": None}, "g": None,
    }  # fmt: skip


def test_minimal_strings_match_their_pattern_within_the_searches_ceiling() -> None:
    # An id a pattern governs: "" never matched it, so every argument built from the schema
    # was refused on both sides. With the searches' ceiling, the pattern's built example: the
    # literal, then one digit for [0-9]+.
    root: JSON = {
        "type": "object",
        "required": ["id", "short", "odd"],
        "properties": {
            "id": {"type": "string", "pattern": "^ab_[0-9]+$"},
            # The example "abc" is longer than maxLength 2: the length wins, as without one.
            "short": {"type": "string", "pattern": "^abc", "maxLength": 2, "minLength": 1},
            # A back reference: no example is built.
            "odd": {"type": "string", "pattern": "^(a)\\1$"},
        },
    }
    ceiling = SearchCeiling()
    assert minimal(root, root, ceiling=ceiling) == {"id": "ab_0", "short": "a", "odd": ""}
    assert minimal(root, root) == {"id": "", "short": "a", "odd": ""}  # no ceiling, no match


def test_apply_patch_follows_rfc_6902_on_lists_and_the_root() -> None:
    document: JSON = {"a": [1, 2, 3], "b": {"c": 1}}
    patch: list[JSON] = [
        {"op": "add", "path": "/a/-", "value": 4},
        {"op": "add", "path": "/a/0", "value": 0},
        {"op": "remove", "path": "/a/1"},
        {"op": "replace", "path": "/a/0", "value": 9},
        {"op": "remove", "path": "/b/c"},
        "not an operation",
    ]
    assert apply_patch(document, patch) == {"a": [9, 2, 3, 4], "b": {}}
    assert document == {"a": [1, 2, 3], "b": {"c": 1}}  # a copy is patched
    assert apply_patch(document, [{"op": "replace", "path": "", "value": 1}]) == 1


def test_markdown_cuts_counterexamples_to_fit_and_still_closes_the_fold(tmp_path: Path) -> None:
    report = make_report(tmp_path, CATALOG, [("tag", {"tags": ["a"], "label": "ok"})])
    full = markdown.render(report)
    start = full.index("## Counterexamples")
    end = full.index("</details>", start)
    assert full[start:end].count("**bites**") == 3
    cut = 0
    for limit in range(start, end + 800, 25):
        text = markdown.render(report, limit)
        assert len(text) <= limit
        notice = next((line for line in text.splitlines() if "Cut to fit" in line), "")
        cut += "counterexample" in notice
        if "## Counterexamples" in text:
            section = text[text.index("## Counterexamples") :]
            assert section.count("<details>") == section.count("</details>")
    assert cut


def test_samples_are_kept_for_the_first_tool_names_whatever_the_parts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pipeline, "MAX_SAMPLED_TOOLS", 3)
    names = [f"t{i}" for i in range(8)]
    tools = [ToolSchema(n, {"type": "object"}, Location("x"), "", "mapping") for n in names]
    replays = prepare(tools, DEFAULT_RULES)
    order = [7, 2, 5, 0, 6, 1, 3, 4, 2, 0, 7, 1]
    calls = [Call(f"log:{i}", f"t{n}", {"i": i}) for i, n in enumerate(order)]
    whole = count_calls(replays, calls, ReportSettings())
    assert sorted(whole.samples) == ["t0", "t1", "t2"]
    for cut in range(1, len(calls)):
        first = count_calls(replays, calls[:cut], ReportSettings())
        first.merge(count_calls(replays, calls[cut:], ReportSettings()))
        assert first.samples == whole.samples, cut


def _dormant_under(pattern: str) -> dict[str, Any]:
    """A schema whose one change (``min_length`` to ``minLength``) sits under ``pattern``."""
    return {
        "type": "object",
        "patternProperties": {pattern: {"type": "string", "min_length": 2}},
    }


def test_a_pattern_whose_example_backtracks_costs_one_step_and_the_report_says_so() -> None:
    # The name built for "^(a|a){40}$b" is forty "a" then "b" ("$" dropped): checking it tried
    # 2^40 ways (days). Within the step (0.2 s here) no name is built, so no candidate reaches
    # the place; the reason says which bound was met.
    budget = SearchBudget(ceiling=SearchCeiling(0.2))
    started = cpu_seconds()
    found = counterexample(_replay({"schema": _dormant_under("^(a|a){40}$b")}), 0, [], budget)
    assert cpu_seconds() - started < seconds(2)
    assert found.status is CounterexampleStatus.NOT_FOUND
    assert found.reason == (
        "no candidate argument reaches the changed keyword's place (not a proof); matching 1 "
        "pattern ran past the 0.2 s budget of a call (--call-timeout, CPU time): no name or "
        "value was built from it"
    )
    # An ordinary pattern in the same place gives its name: {"x-a": "a"} is accepted before
    # (min_length enforced nothing) and rejected by minLength 2 after.
    ordinary = counterexample(_replay({"schema": _dormant_under("^x-[a-z]+$")}), 0, [], budget)
    assert ordinary.status is CounterexampleStatus.FOUND
    assert ordinary.arguments == {"x-a": "a"} and ordinary.derived_from is None


def test_the_searches_of_an_audit_stop_at_their_ceiling_and_say_so() -> None:
    # Five changes, each under a pattern of its own whose example backtracks: each costs a
    # step (0.2 s) of the 0.5 s ceiling, and the changes past it are not searched.
    patterns = [f"^({c}|{c}){{40}}$b" for c in "cdefg"]
    schema = {
        "type": "object",
        "properties": {"n": {"type": "string", "min_length": 2}},
        "patternProperties": {p: {"type": "string", "min_length": 2} for p in patterns},
    }
    replay = _replay({"schema": schema})
    budget = SearchBudget(ceiling=SearchCeiling(0.2, seconds=0.5))
    started = cpu_seconds()
    found = [counterexample(replay, i, [], budget) for i in range(len(patterns) + 1)]
    assert cpu_seconds() - started < seconds(3)
    # The ordinary change comes first and is found within the ceiling: {"n": "a"}.
    assert found[0].status is CounterexampleStatus.FOUND and found[0].arguments == {"n": "a"}
    hostile = found[1:]
    assert all(c.status is CounterexampleStatus.NOT_FOUND for c in hostile)
    assert "ran past the 0.2 s budget of a call" in hostile[0].reason
    assert hostile[-1].reason == (
        "not searched: the audit's searches had spent the 0.5 s of CPU time the searches of "
        "an audit may take"
    )
    assert all("ran past" in c.reason or c.reason == hostile[-1].reason for c in hostile)


def test_the_edits_of_an_argument_stop_at_the_first_past_the_call_budget() -> None:
    # Every edit of the logged call keeps "k", which the pattern backtracks on (30 "a", then
    # "!"): its first candidate runs out of the call's budget, and so would each of its other
    # edits. They are skipped; the argument built from the schema has no "k" and bites:
    # {"m": "aa"} passed before (min_length enforced nothing) and fails minLength 3 after.
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "k": {"type": "string", "pattern": "^(a|a)*$"},
            "m": {"type": "string", "min_length": 3},
        },
    }
    tool = ToolSchema("t", schema, Location("tools.json"), "", "mapping")
    replay = ToolReplay(tool, normalize(schema, DEFAULT_RULES), budget=CallBudget(0.05))
    samples: list[tuple[str, JSON]] = [("log:1", {"k": "a" * 30 + "!", "m": "abc"})]
    started = cpu_seconds()
    found = counterexample(replay, 0, samples, SearchBudget(ceiling=SearchCeiling(0.05)))
    assert cpu_seconds() - started < seconds(1)
    assert found.status is CounterexampleStatus.FOUND
    assert found.arguments == {"m": "aa"} and found.derived_from is None
    assert found.candidates == 2  # the logged call's first edit, then the built argument's

    # The change inside a definition reached by an anchor: its place is unknown (a pointer
    # reference would have said "m"), so the edits go everywhere, and no argument built from
    # the schema reaches "m". The logged call's edits that drop "k" (replacing the whole
    # argument) run and miss; the first that keeps it (an added key) runs out of the budget,
    # and the rest of that call's edits are not tried.
    held: dict[str, Any] = {
        "type": "object",
        "properties": {
            "k": {"type": "string", "pattern": "^(a|a)*$"},
            "m": {"$ref": "#s"},
        },
        "$defs": {"s": {"$anchor": "s", "type": "string", "min_length": 2}},
    }
    tool = ToolSchema("t", held, Location("tools.json"), "", "mapping")
    replay = ToolReplay(tool, normalize(held, DEFAULT_RULES), budget=CallBudget(0.05))
    started = cpu_seconds()
    missed = counterexample(replay, 0, samples, SearchBudget(ceiling=SearchCeiling(0.05)))
    assert cpu_seconds() - started < seconds(1)
    assert missed.status is CounterexampleStatus.NOT_FOUND
    assert missed.reason.endswith(
        "(not a proof); 1 of them ran past the 0.05 s budget of a call (--call-timeout, CPU "
        "time): the other edits of that argument were not tried"
    )


def _spend_cpu(amount: float) -> None:
    until = time.thread_time() + amount
    while time.thread_time() < until:
        pass


def test_a_proof_does_not_depend_on_how_long_ago_the_last_call_ran() -> None:
    # The sibling enum admits only "ab", which the added pattern matches: harmless. The proof
    # evaluates the pattern; it used to do so on the budget the last call had opened, so a
    # search starting long after that call (a slow report, a slow machine) found no proof.
    tool = ToolSchema("t", {"properties": {"a": {"enum": ["ab"]}}}, Location("x"), "", "mapping")
    new = ToolSchema(
        "t", {"properties": {"a": {"enum": ["ab"], "pattern": "^a"}}}, Location("y"), "", "mapping"
    )
    call_budget = CallBudget(0.05)
    replay = ToolReplay(tool, compare(tool, new, frozenset()), budget=call_budget)
    call_budget.start()
    _spend_cpu(0.1)  # the last call's budget is spent by now
    rewrite = replay.normalized.rewrites[0]
    assert harmless(replay, rewrite) == "the sibling 'enum' admits only values that pass it"
    # With the searches' ceiling reached, no proof is evaluated at all.
    assert harmless(replay, rewrite, SearchCeiling(2.0, seconds=0.0)) is None


def _chain(levels: int, fan: int) -> dict[str, Any]:
    """Definitions d0..d{levels}, each object of d{i} referring to d{i+1} from ``fan``
    properties: fan**levels ways from the root to the last, which holds the change beside
    a type it cannot apply to."""
    defs: dict[str, Any] = {
        f"d{i}": {
            "type": "object",
            "properties": {f"p{j}": {"$ref": f"#/$defs/d{i + 1}"} for j in range(fan)},
        }
        for i in range(levels)
    }
    defs[f"d{levels}"] = {"type": "integer", "min_length": 2}
    return {"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs}


def test_the_ways_a_proof_follows_through_references_are_bounded() -> None:
    replay = _replay({"schema": _chain(3, 4)})  # 64 ways: walked, and the proof holds
    assert counterexample(replay, 0, [], SearchBudget()).reason == (
        "the sibling 'type: \"integer\"' admits no value 'minLength' applies to"
    )
    # 4^10 ways (over a million, each a walk of the references): past MAX_WAYS the proof is
    # not made, and the change is searched instead (it took 29 CPU s, 4^20 would take years).
    replay = _replay({"schema": _chain(10, 4)})
    started = cpu_seconds()
    deep = counterexample(replay, 0, [], SearchBudget())
    assert cpu_seconds() - started < seconds(3)
    assert deep.status is CounterexampleStatus.NOT_FOUND and "not a proof" in deep.reason


def _values_in(value: JSON) -> int:
    if isinstance(value, list):
        return 1 + sum(_values_in(v) for v in value)
    if isinstance(value, dict):
        return 1 + sum(_values_in(v) for v in value.values())
    return 1


def test_an_argument_built_from_the_schema_is_bounded_in_size() -> None:
    def nested(levels: int) -> JSON:
        schema: JSON = {"type": "string", "minLength": 1}
        for _ in range(levels):
            schema = {"type": "array", "minItems": 100, "items": schema}
        return schema

    # Two levels: 1 + 100 lists + 10,000 one-letter strings (each a value and a character),
    # within the bound: built whole.
    two = nested(2)
    assert minimal(two, two) == [["a"] * 100] * 100
    # Three levels would be a million strings (100 times more per level; four took minutes).
    # The bound holds the values and characters built; what finds no room is null, at most a
    # list's length (100) per level of the one being built when the room ran out.
    three = nested(3)
    started = cpu_seconds()
    built = minimal(three, three)
    assert cpu_seconds() - started < seconds(1)
    assert _values_in(built) <= MAX_BUILT_SIZE + 3 * 100
    assert isinstance(built, list) and built[0] == [["a"] * 100] * 100


def test_repeated_edits_do_not_keep_a_search_going() -> None:
    # The old enum lists "zz" 100,000 times: each is the same edit, tried once, the rest
    # skipped as repeats, up to MAX_GENERATED edits. The new enum admits what the old did
    # and more: no counterexample exists.
    old = ToolSchema(
        "t", {"properties": {"e": {"enum": ["zz"] * 100_000}}}, Location("x"), "", "mapping"
    )
    new = ToolSchema(
        "t", {"properties": {"e": {"enum": ["zz", "q"]}}}, Location("y"), "", "mapping"
    )
    replay = ToolReplay(old, compare(old, new, frozenset()))
    found = counterexample(replay, 0, [("log:1", {"e": "zz"})], SearchBudget())
    assert found.status is CounterexampleStatus.NOT_FOUND
    assert found.reason.endswith(
        f"; the search stopped after {MAX_GENERATED:,} edits (most of them repeats)"
    )


def test_a_search_cut_by_the_ceiling_says_where_it_stopped() -> None:
    # additionalProperties: false, turned on: the search adds keys, first one built from each
    # pattern. Each of these backtracks, and takes a step (0.2 s) of a 0.5 s ceiling: past
    # it, the search stops before its first candidate.
    patterns: dict[str, Any] = {f"^({c}|{c}){{40}}$b": {} for c in "cdefg"}
    schema = {"type": "object", "patternProperties": patterns, "additional_properties": False}
    budget = SearchBudget(ceiling=SearchCeiling(0.2, seconds=0.5))
    started = cpu_seconds()
    found = counterexample(_replay({"schema": schema}), 0, [], budget)
    assert cpu_seconds() - started < seconds(2)
    assert found.status is CounterexampleStatus.NOT_FOUND and found.candidates == 0
    assert found.reason.startswith("no candidate argument was tried (not a proof); matching ")
    assert found.reason.endswith(
        "; the search stopped there: the audit's searches had spent the 0.5 s of CPU time the "
        "searches of an audit may take"
    )


def test_proofs_that_would_spend_the_ceiling_are_cut_short() -> None:
    # 4^10 ways through the definitions: the proof walks until the ceiling (2 ms here) is
    # reached, and the change is then not searched either.
    replay = _replay({"schema": _chain(10, 4)})
    budget = SearchBudget(ceiling=SearchCeiling(2.0, seconds=0.002))
    found = counterexample(replay, 0, [], budget)
    assert found.reason == (
        "not searched: the audit's searches had spent the 0.002 s of CPU time the searches of "
        "an audit may take"
    )


def _members(names: list[str], patterns: list[str]) -> ToolReplay:
    """Old: ``names`` declared and nothing else allowed; new: ``patterns`` added."""
    old: dict[str, Any] = {"properties": {n: {} for n in names}, "additionalProperties": False}
    new: JSON = {**old, "patternProperties": {p: {"type": "string"} for p in patterns}}
    before = ToolSchema("t", old, Location("x"), "", "mapping")
    return ToolReplay(
        before, compare(before, ToolSchema("t", new, Location("y"), "", "mapping"), frozenset())
    )


def test_names_matched_against_patterns_in_a_proof_are_bounded() -> None:
    # No old name starts with "x-": every member the new patterns govern was refused before.
    names = [f"n{i}" for i in range(10)]
    patterns = [f"^x-{i}" for i in range(10)]
    replay = _members(names, patterns)
    [rewrite] = replay.normalized.rewrites
    assert (harmless(replay, rewrite) or "").startswith("the old schema at '/' had")
    # An old name a pattern matches was allowed, and governed now: no proof.
    replay = _members(["x-0a"], patterns)
    assert harmless(replay, replay.normalized.rewrites[0]) is None
    # A name the pattern cannot be matched against within a step: no proof either.
    replay = _members(["a" * 30 + "!"], ["^(a|a)*$"])
    assert harmless(replay, replay.normalized.rewrites[0], SearchCeiling(0.1)) is None
    # 317 names against 317 patterns pass MAX_NAME_MATCHES pairs: not matched, no proof.
    assert MAX_NAME_MATCHES < 317 * 317
    replay = _members([f"n{i}" for i in range(317)], [f"^x-{i}" for i in range(317)])
    assert harmless(replay, replay.normalized.rewrites[0]) is None


def test_a_list_of_copies_stays_small() -> None:
    # maxItems: 9999 added; the logged list holds one 200-letter string. Ten thousand copies
    # of it would be 2 MB of JSON: past MAX_REPEATED_BYTES the copies are null, which the
    # old schema accepted (no items schema) and maxItems refuses.
    old = ToolSchema("t", {"properties": {"l": {"type": "array"}}}, Location("x"), "", "mapping")
    new_schema: JSON = {"properties": {"l": {"type": "array", "maxItems": 9999}}}
    new = ToolSchema("t", new_schema, Location("y"), "", "mapping")
    replay = ToolReplay(old, compare(old, new, frozenset()))
    found = counterexample(replay, 0, [("log:1", {"l": ["x" * 200]})], SearchBudget())
    assert found.status is CounterexampleStatus.FOUND
    assert found.arguments == {"l": [None] * 10_000} and found.derived_from == "log:1"


def _definitions(count: int, **extra: Any) -> dict[str, Any]:
    """``count`` properties, each referring to a definition of its own with a dormant
    ``min_length``, and one definition nothing refers to, with a dormant ``max_length``."""
    defs: dict[str, Any] = {f"d{i}": {"type": "string", "min_length": 1} for i in range(count)}
    defs["unused"] = {"type": "string", "max_length": 3}
    properties = {f"p{i}": {"$ref": f"#/$defs/d{i}"} for i in range(count)}
    return {"type": "object", "properties": properties, "$defs": defs, **extra}


def test_the_proofs_of_a_large_tool_take_time_in_proportion_to_it() -> None:
    # 2,001 changes, each proof asking which references lead into its definition and whether
    # a change stands on the way: answered from indexes built once, where each proof walked
    # the schema and every other change (the square of the tool's size: 2,000 took 50 s).
    replay = _replay({"schema": _definitions(2_000)})
    started = cpu_seconds()
    reasons = {r.pointer: harmless(replay, r) for r in replay.normalized.rewrites}
    assert cpu_seconds() - started < seconds(3)
    unused = "it lies in the definition '/$defs/unused', which no $ref refers to: never evaluated"
    assert reasons.pop("/$defs/unused/max_length") == unused
    assert set(reasons.values()) == {None}  # each of the others is referred to
    # An embedded resource or a reference by anchor may lead into any definition: no proof.
    for extra in ({"$id": "https://example.com/t"}, {"properties": {"a": {"$ref": "#here"}}}):
        replay = _replay({"schema": {**_definitions(3), **extra}})
        change = next(r for r in replay.normalized.rewrites if "unused" in r.pointer)
        assert harmless(replay, change) is None, extra
