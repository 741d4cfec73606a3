"""Baselines: the groups a team has looked at and accepted, keyed by fingerprint.

``--generate-baseline FILE`` writes the current groups; ``--baseline FILE`` accepts them, so
only groups not in the file fail the run. The file is sorted JSON with a little context per
entry (tool, outcome, keyword, pointer, causes) so that its diff is reviewable.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from auditor.errors import AuditorError
from auditor.inputs.limits import readable_value_error
from auditor.json_text import json_text
from auditor.models import Group

FORMAT_VERSION: Final = 1


@dataclass(frozen=True)
class Baseline:
    """The fingerprints a baseline file accepts."""

    path: str
    fingerprints: frozenset[str]


class BaselineProblem(AuditorError):
    """A baseline file that cannot be used; the message names it."""


def render_baseline(groups: Iterable[Group]) -> str:
    """The baseline file for ``groups``: deterministic, one entry per fingerprint."""
    entries = sorted((_entry(g) for g in groups), key=lambda e: e["fingerprint"])
    document = {"auditor_baseline": FORMAT_VERSION, "groups": entries}
    text = json.dumps(document, indent=2, ensure_ascii=False, sort_keys=True, allow_nan=False)
    return json_text(text) + "\n"  # a surrogate in a catalog's tool name as its escape text


def _entry(group: Group) -> dict[str, Any]:
    return {
        "fingerprint": group.fingerprint,
        "tool": group.tool,
        "outcome": group.outcome.value,
        "keyword": group.keyword,
        "schema_pointer": group.schema_pointer,
        "causes": [r.describe() for r in group.causes],
    }


def parse_baseline(path: str, text: str) -> Baseline:
    """Read a baseline file's text; raises BaselineProblem naming ``path``."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise BaselineProblem(f"{path}:{error.lineno}: invalid JSON: {error.msg}") from error
    except ValueError as error:  # an integer of more digits than Python converts
        raise BaselineProblem(f"{path}: invalid JSON: {readable_value_error(error)}") from error
    except RecursionError as error:
        raise BaselineProblem(f"{path}: invalid JSON: nested too deeply") from error
    if not isinstance(document, dict):
        document = {}
    groups = document.get("groups")
    if document.get("auditor_baseline") != FORMAT_VERSION or not isinstance(groups, list):
        raise BaselineProblem(
            f"{path}: not an auditor baseline (write one with --generate-baseline)"
        )
    fingerprints = [g.get("fingerprint") if isinstance(g, dict) else None for g in groups]
    if not all(isinstance(f, str) for f in fingerprints):
        raise BaselineProblem(f"{path}: every group needs a string 'fingerprint'")
    return Baseline(path, frozenset(f for f in fingerprints if isinstance(f, str)))
