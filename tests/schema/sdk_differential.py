"""The differential check of the profiles' built-in models against the real SDKs.

For a profile whose SDK is installed, each schema of the corpus (``tests.schema.sdk_corpus``)
goes through the SDK function the profile follows (``auditor.schema.sdk_adapters``) and
through the profile's model (``normalize(schema, {profile})``). They agree when the model's
schema equals the SDK's (JSON equality), or when both refuse it. A disagreement is either
listed in docs/profile-differences.yaml (by profile, a glob of case names and why the model
differs) or a failure of the test.

``python -m tests.schema.sdk_differential`` prints the counts per profile (what .ci/run's
differential step reports).
"""

from __future__ import annotations

import fnmatch
import importlib.metadata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import yaml

from auditor.models import JSON, Rule
from auditor.schema import sdk_adapters
from auditor.schema.diff import same
from auditor.schema.normalize import normalize
from auditor.schema.profiles import PROFILES
from auditor.schema.sdk_runs import reason
from tests.schema.sdk_corpus import corpus

DIFFERENCES: Final = Path(__file__).resolve().parents[2] / "docs" / "profile-differences.yaml"
"""The repository's, found from here: the script runs without the test extra."""


@dataclass(frozen=True)
class Side:
    """What one side made of a schema: the schema, or why it refused it."""

    schema: JSON = None
    refusal: str | None = None


@dataclass(frozen=True)
class Case:
    name: str
    model: Side
    sdk: Side

    @property
    def equal(self) -> bool:
        both = self.model.refusal is None and self.sdk.refusal is None
        return both and same(self.model.schema, self.sdk.schema)

    @property
    def both_refused(self) -> bool:
        return self.model.refusal is not None and self.sdk.refusal is not None

    @property
    def agrees(self) -> bool:
        return self.equal or self.both_refused


@dataclass
class Counts:
    """One profile's figures: every case is equal, both refused, documented or undocumented."""

    profile: str
    version: str
    compared: int = 0
    equal: int = 0
    both_refused: int = 0
    documented: int = 0
    undocumented: list[Case] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    """Documented globs no disagreement matched: the difference is gone, so is the entry."""

    def line(self) -> str:
        return (
            f"{self.profile} ({self.version}): {self.compared} compared, {self.equal} equal, "
            f"{self.both_refused} both refused, {self.documented} documented differences, "
            f"{len(self.undocumented)} undocumented"
        )


def model_side(rule: Rule, schema: JSON) -> Side:
    """The profile's built-in model alone on ``schema``."""
    try:
        normalized = normalize(schema, {rule})
    except RecursionError as error:  # pragma: no cover - the corpus is shallow
        return Side(refusal=reason(error))
    if normalized.refusal is not None:
        return Side(refusal=normalized.refusal)
    return Side(normalized.schema)


def sdk_side(adapter: sdk_adapters.Adapter, schema: JSON) -> Side:
    """The SDK function the profile follows on ``schema``."""
    try:
        return Side(sdk_adapters.call(adapter, schema))
    except ImportError:
        raise
    except Exception as error:  # whatever the SDK raises is its refusal
        return Side(refusal=reason(error))


def installed(rule: Rule) -> str | None:
    """The version of the SDK ``rule``'s profile follows, when installed and importable."""
    adapter = sdk_adapters.ADAPTERS[rule.value]
    try:
        found = importlib.metadata.version(adapter.package)
        adapter.load()
    except Exception:  # absent or broken: the profile is skipped, and says why
        return None
    return found


def documented() -> dict[str, list[dict[str, str]]]:
    """The documented differences, by profile: each ``{"cases": glob, "why": text}``."""
    loaded: dict[str, Any] = yaml.safe_load(DIFFERENCES.read_text("utf-8")) or {}
    return {profile: list(entries or []) for profile, entries in loaded.items()}


def differential(rule: Rule, cases: Iterable[tuple[str, JSON]] | None = None) -> Counts:
    """Every case of the corpus (or ``cases``) through the SDK and the model of ``rule``."""
    adapter = sdk_adapters.ADAPTERS[rule.value]
    entries = documented().get(rule.value, [])
    counts = Counts(rule.value, f"{adapter.package} {installed(rule)}")
    matched: set[str] = set()
    for name, schema in corpus() if cases is None else cases:
        case = Case(name, model_side(rule, schema), sdk_side(adapter, schema))
        counts.compared += 1
        if case.equal:
            counts.equal += 1
        elif case.both_refused:
            counts.both_refused += 1
        else:
            globs = [e["cases"] for e in entries if fnmatch.fnmatchcase(name, e["cases"])]
            if globs:
                counts.documented += 1
                matched.update(globs)
            else:
                counts.undocumented.append(case)
    counts.stale = [e["cases"] for e in entries if e["cases"] not in matched]
    return counts


def followed() -> list[Rule]:
    """The profiles that follow an SDK function there is an adapter for."""
    return [
        rule
        for rule, profile in PROFILES.items()
        if profile.follows is not None and rule.value in sdk_adapters.ADAPTERS
    ]


def main() -> None:
    for rule in followed():
        if installed(rule) is None:
            print(f"{rule.value}: {sdk_adapters.ADAPTERS[rule.value].package} is not installed")
            continue
        counts = differential(rule)
        print(counts.line())
        for case in counts.undocumented:
            print(f"  undocumented {case.name}: model {case.model} | sdk {case.sdk}")
        for glob in counts.stale:
            print(f"  stale documented entry: {glob}")


if __name__ == "__main__":
    main()
