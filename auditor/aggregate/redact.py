"""What of the logs a report may show: values truncated by default, or only their shape.

Reports travel (change reviews, CI artifacts, chat). With ``redact`` every logged value is
replaced by its shape (type and length), keeping object keys, so a reviewer still sees which
property was extra or missing; error messages that quote a value get the same treatment.
Without it, strings are cut to ``limit`` characters.
"""

from __future__ import annotations

import hashlib
import json
import operator
from dataclasses import dataclass, replace
from typing import Final

from auditor import pointers
from auditor.models import JSON, CallResult, Observation, Unparsed, ValidationIssue
from auditor.replay.tool import json_value

DEFAULT_LIMIT: Final = 80
MAX_TOOL_NAME: Final = 200
"""Characters of a tool name kept: a longer one (an unknown tool's: catalogs name theirs far
shorter) is shown and counted under its start."""
"""Characters of a logged string shown in reports: enough to recognize it, not to leak a page."""
MAX_ITEMS: Final = 20
"""Items of a logged list shown; the rest is counted."""
MAX_KEYS: Final = 100
"""Keys of a logged object shown; the rest is counted under the key ``…``."""


@dataclass(frozen=True)
class Sanitizer:
    """Applies the report's redaction settings to logged data."""

    redact: bool = False
    limit: int = DEFAULT_LIMIT

    def value(self, value: JSON) -> JSON:
        """A logged value as reports may show it: ``value`` itself where nothing of it is cut
        or masked (most arguments: rebuilding them was most of sanitizing a result)."""
        if not self.redact and self._shown_whole(value):
            return value
        return self._rebuilt(value)

    def _shown_whole(self, value: JSON) -> bool:
        """Whether ``value`` is shown as it is: no string or key longer than the limit, no
        list or object longer than shown."""
        if isinstance(value, str):
            return len(value) <= self.limit
        if isinstance(value, dict):
            return len(value) <= MAX_KEYS and all(
                len(key) <= self.limit and self._shown_whole(item) for key, item in value.items()
            )
        if isinstance(value, list):
            return len(value) <= MAX_ITEMS and all(self._shown_whole(item) for item in value)
        return True

    def _rebuilt(self, value: JSON) -> JSON:
        if isinstance(value, dict):
            # Keys are logged data too: a long one is cut like a string, even under redaction.
            shown_object: dict[str, JSON] = {}
            for key, item in value.items():
                if len(shown_object) == MAX_KEYS:
                    shown_object["…"] = f"<{len(value) - MAX_KEYS} more keys>"
                    break
                shown_object.setdefault(self.key(key), self._rebuilt(item))
            return shown_object
        if isinstance(value, list):
            shown: list[JSON] = [self._rebuilt(item) for item in value[:MAX_ITEMS]]
            if len(value) > MAX_ITEMS:
                shown.append(f"<{len(value) - MAX_ITEMS} more items>")
            return shown
        if self.redact:
            return shape(value)
        if isinstance(value, str):
            return _cut(value, self.limit)
        return value

    def key(self, key: str) -> str:
        """A logged object key as reports may show it: cut to the limit, never masked."""
        return _cut(key, self.limit)

    def caller(self, caller: str) -> str:
        """A caller's name: an identity, cut like a key; under redaction a stable stand-in
        (``caller-1a2b3c4d``), since an end user's id is personal data."""
        if self.redact:
            return "caller-" + hashlib.blake2b(caller.encode(), digest_size=4).hexdigest()
        return self.key(caller)

    def text(self, raw: str) -> str:
        """Log text that did not parse."""
        if self.redact:
            return f"<{len(raw)} chars>"
        return raw if len(raw) <= self.limit else f"{raw[: self.limit]}… (+{len(raw) - self.limit})"

    def message(self, message: str, value: JSON, keyword: str, where: str) -> str:
        """An error message that may quote ``value`` (python-jsonschema quotes its repr)."""
        shown = shape_text(value) if self.redact else self.value(value)
        if not self.redact and shown == value:
            return message
        quoted = json_value(value)  # how replay quoted it in the message
        if quoted is not None and quoted in message:
            return message.replace(
                quoted, shown if isinstance(shown, str) and self.redact else json_value(shown) or ""
            )
        if self.redact:
            # The quote was clipped or formatted differently: say only what failed.
            return f"the value at '{where or '/'}' fails '{keyword}'"
        if quoted is not None and message.endswith("…") and quoted.startswith(message[:-1]):
            # Clipped inside the quote itself: the rest of the message was lost anyway.
            return f"{json_value(shown)} fails '{keyword}'"
        return message

    def observation(self, observation: Observation) -> Observation:
        detail = observation.detail
        if observation.detail_is_value:
            shown = self.value(detail)
        elif isinstance(detail, str):  # a property name: a key
            shown = self.key(detail)
        else:
            return observation
        return observation if shown is detail else replace(observation, detail=shown)

    # Each record below is the one given where sanitizing changed nothing in it: most results
    # are, and ``dataclasses.replace`` was half the cost of sanitizing one.

    def result(self, result: CallResult) -> CallResult:
        """A call result with every logged value in it sanitized."""
        call = result.call
        unparsed = call.unparsed
        if unparsed is not None:
            unparsed = Unparsed(self.text(unparsed.raw), unparsed.reason)
        # Not cut like a key: groups look their tool up by this name.
        tool = None if call.tool is None else tool_name(call.tool)
        caller = None if call.caller is None else self.caller(call.caller)
        arguments = self.value(call.arguments)
        if (
            tool != call.tool
            or caller != call.caller
            or arguments is not call.arguments
            or unparsed != call.unparsed
        ):
            call = replace(call, tool=tool, caller=caller, arguments=arguments, unparsed=unparsed)
        errors = tuple(self.issue(issue, result.call.arguments) for issue in result.errors)
        if call is result.call and all(map(operator.is_, errors, result.errors)):
            return result
        return replace(result, call=call, errors=errors)

    def issue(self, issue: ValidationIssue, arguments: JSON) -> ValidationIssue:
        _, value = pointers.resolve(arguments, issue.instance_pointer)
        where = pointers.from_segments(
            self.key(segment) for segment in pointers.split(issue.instance_pointer)
        )
        message = self.message(issue.message, value, issue.keyword, issue.instance_pointer)
        observed = tuple(self.observation(o) for o in issue.observed)
        if (
            where == issue.instance_pointer
            and message == issue.message
            and all(map(operator.is_, observed, issue.observed))
        ):
            return issue
        return replace(issue, instance_pointer=where, message=message, observed=observed)


def compact_json(value: JSON, limit: int) -> str:
    """``value`` as one line of JSON, cut at ``limit`` characters (an ellipsis the last)."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tool_name(name: str) -> str:
    """A logged tool name as reports and counts keep it: whole up to ``MAX_TOOL_NAME``."""
    return _cut(name, MAX_TOOL_NAME)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… (+{len(text) - limit} chars)"


def shape(value: JSON) -> JSON:
    """A scalar's shape: ``"<string, 12 chars>"``, ``"<number>"``; containers keep structure."""
    if isinstance(value, dict):
        return {_cut(key, DEFAULT_LIMIT): shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return shape_text(value)


def shape_text(value: object) -> str:
    """One string naming a value's type and size, never its content."""
    if isinstance(value, str):
        return f"<string, {len(value)} chars>"
    if isinstance(value, bool):
        return "<boolean>"
    if isinstance(value, (int, float)):
        return "<number>"
    if value is None:
        return "<null>"
    if isinstance(value, list):
        return f"<list, {len(value)} items>"
    if isinstance(value, dict):
        names = [_cut(key, DEFAULT_LIMIT) for key in sorted(value)[:MAX_KEYS]]
        if len(value) > MAX_KEYS:
            names.append(f"<{len(value) - MAX_KEYS} more keys>")
        keys = json.dumps(names, ensure_ascii=False)
        return f"<object, keys {keys}>"
    return f"<{type(value).__name__}>"
