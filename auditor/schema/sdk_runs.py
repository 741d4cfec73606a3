"""Run the SDK's own code for an upgrade profile where it is installed.

A profile names the SDK function it follows (``Profile.follows``). When that package is
importable where the audit runs, the new schema of a tool *is* that function's output
(``auditor.schema.sdk_adapters``), and what the function raises is a refusal
(``Normalized.refusal``: every call ``schema_error_after`` with the SDK's reason); the changes
are the structural difference between the old and the produced schema, as between two
catalogs (``auditor.schema.diff``). Where it is not installed, the profile's built-in model
runs (``auditor.schema.normalize``). ``choose`` decides once per audit, and the report says
which ran (``Report.profile_runs``), with the version found and the range the model was
checked against; a version outside the range still runs, and the report says so.

The spelling families chosen beside a profile (``keyword-case``, ``type-case``) model what the
user's runtime does before the SDK sees the schema: they apply first, and the SDK runs on
their output.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any, Final

from auditor.models import JSON, ProfileRun, Rule
from auditor.schema import sdk_adapters
from auditor.schema.normalize import Normalized, model_changes, normalize
from auditor.schema.profiles import PROFILES
from auditor.schema.refused import one_line
from auditor.schema.structure import same


def choose(rules: Collection[Rule]) -> tuple[ProfileRun, ...]:
    """For each profile among ``rules``, in the registry's order: its SDK function when the
    package is installed and importable here, its built-in model otherwise."""
    runs = []
    for rule, profile in PROFILES.items():
        if rule not in rules:
            continue
        follows = profile.follows
        if follows is None:
            runs.append(ProfileRun(rule.value))
            continue
        adapter = sdk_adapters.ADAPTERS.get(rule.value)
        found = None if adapter is None else _installed(adapter)
        runs.append(
            ProfileRun(
                rule.value,
                f"{follows.module}.{follows.call}",
                follows.package,
                follows.versions,
                found,
                found is None or within(found, follows.versions),
            )
        )
    return tuple(runs)


def upgrade(schema: JSON, rules: Collection[Rule], runs: Sequence[ProfileRun]) -> Normalized:
    """The new side of ``schema`` under ``rules``: the built-in normalization, except that
    each profile whose SDK ``runs`` says is installed is that SDK's own code, applied after
    the other families, in ``runs``' order.

    Its rewrites are the other families' rewrites, then, for each SDK, the structural
    difference between the schema it was given and the one it produced, under the profile's
    rule, each pointer carried back through the renames before it to where the key stands in
    the old schema; where the SDK's schema is the model's, the model's rewrites themselves."""
    sdks = [run for run in runs if run.sdk]
    if not sdks:
        return normalize(schema, rules)
    by_sdk = {Rule(run.profile) for run in sdks}
    before = normalize(schema, [rule for rule in rules if rule not in by_sdk])
    produced, rewrites = before.schema, list(before.rewrites)
    for run in sdks:
        try:
            after = sdk_adapters.call(sdk_adapters.ADAPTERS[run.profile], produced)
        except ImportError:
            raise  # the environment changed since ``choose``: not the schema's fault
        except Exception as error:  # whatever the SDK raises is its refusal
            return replace(
                before, schema=produced, rewrites=tuple(rewrites), refusal=refusal(run, error)
            )
        rewrites += model_changes(produced, after, Rule(run.profile), rewrites)
        produced = after
    model = normalize(schema, rules)
    if model.refusal is None and same(model.schema, produced):
        # The SDK made the model's schema: its changes are the model's, recorded once, so a
        # report (the order of the rewrites, each one's text, the groups' fingerprints) does
        # not depend on whether the SDK is installed; only the profile line says which ran.
        return model
    return Normalized(produced, tuple(rewrites), before.findings, before.draft)


def refusal(run: ProfileRun, error: Exception) -> str:
    """The SDK's reason for refusing a schema, on one line, worded as the profile's model
    words the same refusal (so a group's fingerprint does not depend on which ran; the
    version is on the report's profile line): ``google-genai refuses the schema: Extra inputs
    are not permitted (parameters.properties.e.const)``."""
    return f"{run.package} refuses the schema: {reason(error)}"


def reason(error: Exception) -> str:
    """What an SDK's exception says, on one line of at most ``MAX_REASON`` characters:
    pydantic's first error as ``message (location)`` (the input values it quotes left out),
    any other exception as ``Type: its first line``."""
    errors = getattr(error, "errors", None)
    text = ""
    if callable(errors) and type(error).__name__ == "ValidationError":
        try:
            found: list[dict[str, Any]] = errors(include_url=False, include_input=False)
        except TypeError:  # pydantic v1's errors() takes no arguments
            found = errors()
        text = _pydantic_error(found[0]) if found else ""
    if not text:
        message = str(error).strip().splitlines()
        text = f"{type(error).__name__}: {message[0]}" if message else type(error).__name__
    return one_line(text)


_WRAPPING: Final = ("function_declarations", 0)
"""Where google-genai's tool path puts the declaration: left out of the locations it
reports, which then start at ``parameters``."""


def _pydantic_error(entry: dict[str, Any]) -> str:
    location = tuple(entry.get("loc", ()))
    if location[: len(_WRAPPING)] == _WRAPPING:
        location = location[len(_WRAPPING) :]
    where = ".".join(str(part) for part in location)
    message = str(entry.get("msg", ""))
    return f"{message} ({where})" if where else message


def _installed(adapter: sdk_adapters.Adapter) -> str | None:
    """The installed version of the adapter's package, when its module imports here."""
    # Imported here: an audit without a profile never asks (importlib.metadata and
    # packaging cost about 10 ms to import).
    from importlib import metadata

    try:
        found = metadata.version(adapter.package)
        adapter.load()
    except Exception:  # absent, or broken on import: the model runs instead
        return None
    return found


def within(version: str, versions: str) -> bool:
    """Whether ``version`` satisfies the PEP 440 specifier ``versions`` (``>=1.71,<3``); an
    empty specifier admits every version, and a pre-release satisfies it as its release does
    (an SDK's rc is what a user upgrading to it runs). A version or specifier that does not
    parse is outside: never guess inside."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        return SpecifierSet(versions).contains(Version(version), prereleases=True)
    except (InvalidSpecifier, InvalidVersion):
        return False


def _padded(release: tuple[int, ...], width: int) -> tuple[int, ...]:
    return release + (0,) * (width - len(release))
