"""The profiles' built-in models against the real SDKs (``tests.schema.sdk_differential``).

For every profile that follows an SDK function: on the corpus (``tests.schema.sdk_corpus``),
the model's schema equals the SDK's, or both refuse, or the difference is documented in
docs/profile-differences.yaml. A profile whose SDK is not installed is skipped, with the
package named: .ci/run's differential step installs the ``sdks`` extra and fails on any skip.
A model broken on purpose (its transform stopped at the root) is caught.
"""

from __future__ import annotations

import fnmatch
import importlib.metadata
from typing import Final

import pytest

from auditor.models import JSON, Rule
from auditor.schema import normalize as normalize_module
from auditor.schema import profile_gemini_mcp, profile_litellm, profile_pydantic_ai, sdk_adapters
from auditor.schema.profiles import PROFILES
from tests.schema import sdk_corpus
from tests.schema.sdk_differential import (
    differential,
    documented,
    followed,
    installed,
    model_side,
    sdk_side,
)

FOLLOWING = sorted(rule.value for rule, profile in PROFILES.items() if profile.follows)
"""Every profile that follows an SDK function (an adapter for a profile not defined yet
waits for it, and is no skip)."""


def _profile(name: str) -> Rule:
    """The profile, when its SDK is installed (a skip otherwise)."""
    rule = Rule(name)
    adapter = sdk_adapters.ADAPTERS.get(name)
    assert adapter is not None, f"{name} follows an SDK function no adapter runs"
    if installed(rule) is None:
        pytest.skip(f"{adapter.package} is not installed: the differential of {name} needs it")
    return rule


@pytest.mark.parametrize("name", FOLLOWING)
def test_the_model_gives_the_sdks_schema_or_both_refuse(name: str) -> None:
    counts = differential(_profile(name))
    print(counts.line())
    if counts.undocumented:
        shown = [f"{c.name}: model {c.model} | sdk {c.sdk}" for c in counts.undocumented[:10]]
        pytest.fail(f"{counts.line()}\n" + "\n".join(shown), pytrace=False)
    if counts.stale:
        pytest.fail(f"documented differences that no longer occur: {counts.stale}")


def test_a_model_broken_on_purpose_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each profile's transform goes on into the subschemas its SDK reaches
    (``auditor.schema.profiles.descends``); stopped at the root, the model leaves nested
    objects as they were, and the differential must name those cases."""
    rules = [rule for rule in followed() if installed(rule) is not None]
    if not rules:
        pytest.skip("no SDK a profile follows is installed")
    before = {rule: differential(rule) for rule in rules}
    monkeypatch.setattr(normalize_module, "descends", lambda *args, **kwargs: frozenset())
    after = {rule: differential(rule) for rule in rules}
    caught = [
        rule
        for rule in rules
        if {c.name for c in after[rule].undocumented} - {c.name for c in before[rule].undocumented}
    ]
    assert caught, "no differential noticed a model that never descends below the root"


_CAMEL_LENGTHS: Final = {
    "minLength": "min_length",
    "maxLength": "max_length",
    "minItems": "min_items",
    "maxItems": "max_items",
}


def test_the_mcp_model_broken_on_purpose_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The likeliest slip in google-genai-mcp's model: reading camelCase length keywords as
    their snake fields, as google-genai's tool path does (tightening where the SDK loosens).
    The differential must name the cases where a camelCase bound then survives."""
    rule = _profile(Rule.GOOGLE_GENAI_MCP.value)
    before = {case.name for case in differential(rule).undocumented}
    aliases = {**profile_gemini_mcp._ALIASES, **_CAMEL_LENGTHS}
    monkeypatch.setattr(profile_gemini_mcp, "_ALIASES", aliases)
    monkeypatch.setattr(
        profile_gemini_mcp, "_SUPPORTED", profile_gemini_mcp._SUPPORTED | set(aliases)
    )
    caught = {case.name for case in differential(rule).undocumented} - before
    assert {"string-bounds/as-written", "array-bounds/as-written"} <= caught, caught


def test_the_pydantic_ai_model_broken_on_purpose_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """pydantic-ai-google's walk stopped at the root (an object's properties left as
    written): the differential must name the cases whose properties the SDK transforms."""
    rule = _profile(Rule.PYDANTIC_AI_GOOGLE.value)
    before = {case.name for case in differential(rule).undocumented}
    monkeypatch.setattr(profile_pydantic_ai, "_handle_object", lambda schema: schema)
    caught = {case.name for case in differential(rule).undocumented} - before
    # A property's exclusiveMinimum and a string's format stay: the SDK removes the one
    # and moves the other into the description.
    assert {"number-bounds/as-written", "format/as-written"} <= caught, caught


def test_the_litellm_model_broken_on_purpose_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """litellm-gemini without its last step (only the Vertex Schema's keys kept): the
    differential must name the cases whose other keywords litellm drops."""
    rule = _profile(Rule.LITELLM_GEMINI.value)
    before = {case.name for case in differential(rule).undocumented}
    monkeypatch.setattr(profile_litellm, "_filter_fields", lambda schema: schema)
    caught = {case.name for case in differential(rule).undocumented} - before
    # additionalProperties: false and uniqueItems stay: litellm drops both.
    assert {"closed-object/as-written", "unique-items/as-written"} <= caught, caught


def test_litellm_is_told_to_keep_off_the_network() -> None:
    # Importing litellm fetches its model cost map unless this is set: the adapter sets it
    # before the import (checked in a network namespace: no fetch is tried).
    adapter = sdk_adapters.ADAPTERS[Rule.LITELLM_GEMINI.value]
    assert ("LITELLM_LOCAL_MODEL_COST_MAP", "True") in adapter.environment


WORDED_AS_THE_SDK = [
    "google-genai-mcp",
    "openai-strict",
    "openai-agents",
    "anthropic-strict",
    "litellm-gemini",
    "pydantic-ai-google",
]
"""Profiles whose model words every refusal of the corpus as the SDK's own run does, so that
a report is byte-identical with and without the SDK. google-genai's two may name another of
pydantic's errors first (docs/profiles.md); langchain-strict refuses nothing here."""


@pytest.mark.parametrize("name", WORDED_AS_THE_SDK)
def test_the_models_refusal_is_worded_as_the_sdks(name: str) -> None:
    rule = _profile(name)
    adapter = sdk_adapters.ADAPTERS[name]
    worded = 0
    for case, schema in sdk_corpus.corpus():
        model, sdk = model_side(rule, schema), sdk_side(adapter, schema)
        if model.refusal is not None and sdk.refusal is not None:
            assert model.refusal == f"{adapter.package} refuses the schema: {sdk.refusal}", case
            worded += 1
    assert worded, f"no case of the corpus is refused by {name}"


def test_every_adapter_runs_the_package_its_profile_follows() -> None:
    for rule, profile in PROFILES.items():
        adapter = sdk_adapters.ADAPTERS.get(rule.value)
        if profile.follows is None or adapter is None:
            continue
        assert adapter.package == profile.follows.package, rule.value


def test_every_documented_difference_names_a_profile_and_says_why() -> None:
    for profile, entries in documented().items():
        assert profile in sdk_adapters.ADAPTERS, profile
        for entry in entries:
            assert set(entry) == {"cases", "why"}, entry
            assert entry["why"].strip(), entry
            names = [name for name, _ in sdk_corpus.corpus()]
            assert fnmatch.filter(names, entry["cases"]), f"{entry['cases']} matches no case"


def test_the_corpus_spells_each_base_in_each_dialect() -> None:
    names = [name for name, _ in sdk_corpus.corpus()]
    assert len(names) == len(set(names)) == len(sdk_corpus.BASES) * len(sdk_corpus.SPELLINGS)
    spelled = dict(sdk_corpus.corpus())
    # min_length is the snake spelling of minLength; the property name q is data, never spelled.
    assert spelled["string-bounds/snake"] == {
        "type": "object",
        "properties": {"q": {"type": "string", "min_length": 1, "max_length": 5, "pattern": "^a"}},
        "required": ["q"],
    }
    assert spelled["type-list/gemini"] == {
        "type": "OBJECT",
        "properties": {"a": {"type": ["STRING", "NULL"]}},
    }
    with_schema = spelled["empty/with-$schema"]
    assert with_schema == {"$schema": "https://json-schema.org/draft/2020-12/schema"}


@pytest.mark.parametrize("name", sorted(sdk_adapters.ADAPTERS))
def test_every_adapter_runs_its_sdk_on_a_tools_schema(name: str) -> None:
    adapter = sdk_adapters.ADAPTERS[name]
    try:
        importlib.metadata.version(adapter.package)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{adapter.package} is not installed")
    schema: JSON = {"type": "object", "properties": {"city": {"type": "string"}}}
    produced = sdk_adapters.call(adapter, schema)
    # Every one of these SDKs keeps an object of one string property an object with it.
    assert isinstance(produced, dict), produced
    assert produced.get("type") == "object", produced
    properties = produced.get("properties")
    assert isinstance(properties, dict) and properties["city"] == {"type": "string"}, produced
