"""Counterexamples: the hand-reasoned case files, and properties on generated schemas."""

from __future__ import annotations

import json
import random
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
from auditor.replay.counterexamples import (
    MAX_CANDIDATES,
    MAX_SAMPLE_BYTES,
    MAX_SAMPLES,
    SearchBudget,
    apply_patch,
    bites,
    counterexample,
    minimal,
)
from auditor.replay.tool import ToolReplay
from auditor.report import Format, markdown, render
from auditor.schema.diff import compare
from auditor.schema.normalize import DEFAULT_RULES, normalize
from tests.conftest import load_cases
from tests.reporting import make_report
from tests.test_coverage import KEYED, walkable_schemas
from tests.test_engine import INSTANCES
from tests.test_normalize_properties import dialect


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
    for expected in case["expect"]:
        got = found[expected["change"]]
        assert got.status.value == expected["status"], (expected["change"], got)
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
            assert got.candidates <= MAX_CANDIDATES


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
    assert "Constraint coverage: 0 of 7 constraint keywords" in markdown
    report = make_report(tmp_path, CATALOG, [("tag", {"tags": ["a"]})])
    table = render(report, Format.TABLE)
    assert "Constraint coverage: 2 of 7 constraint keywords" in table
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
