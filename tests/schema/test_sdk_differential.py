"""The profiles' built-in models against the real SDKs (``tests.schema.sdk_differential``).

For every profile that follows an SDK function: on the corpus (``tests.schema.sdk_corpus``),
the model's schema equals the SDK's, or both refuse, or the difference is documented in
docs/profile-differences.yaml. A profile whose SDK is not installed is skipped, with the
package named: .ci/run's differential step installs the ``sdks`` extra and fails on any skip.
A model broken on purpose (its transform stopped at the root) is caught.
"""

from __future__ import annotations

import fnmatch

import pytest

from auditor.models import Rule
from auditor.schema import normalize as normalize_module
from auditor.schema import sdk_adapters
from auditor.schema.profiles import PROFILES
from tests.schema import sdk_corpus
from tests.schema.sdk_differential import differential, documented, followed, installed

RULES = {rule.value: rule for rule in Rule}


def _profile(name: str) -> Rule:
    """The profile of an adapter, when its SDK is installed (a skip otherwise)."""
    package = sdk_adapters.ADAPTERS[name].package
    rule = RULES.get(name)
    if rule is None:
        pytest.skip(f"no profile is named {name}: its adapter waits for it")
    if installed(rule) is None:
        pytest.skip(f"{package} is not installed: the differential of {name} needs it")
    follows = PROFILES[rule].follows if rule in PROFILES else None
    assert follows is not None, f"{name} has an SDK adapter but says no function it follows"
    return rule


@pytest.mark.parametrize("name", sorted(sdk_adapters.ADAPTERS))
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
