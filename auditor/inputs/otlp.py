"""OTLP JSON, the shape OpenTelemetry exports take in files: spans and log records -> items.

An export is ``{"resourceSpans": [...]}`` (traces) or ``{"resourceLogs": [...]}`` (logs), as
the OTLP/JSON encoding of ``ExportTraceServiceRequest`` / ``ExportLogsServiceRequest`` writes
them (opentelemetry-proto, ``opentelemetry/proto/{trace,logs}/v1``): attributes are lists of
``{"key", "value"}`` with an ``AnyValue`` each, ids are hex strings, 64-bit integers are
strings. Nothing here knows what a tool call is (``auditor.inputs.otel_calls`` does).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

from auditor.models import JSON

At = tuple[str | int, ...]
"""Where a value stands inside its record: keys and indexes from the record's root."""

SPANS: Final = ("resourceSpans", "scopeSpans", "spans")
LOGS: Final = ("resourceLogs", "scopeLogs", "logRecords")
EVENT_NAME_ATTRIBUTE: Final = "event.name"
"""Where log records name their event before the ``eventName`` field (OTLP 1.5) existed."""


@dataclass(frozen=True)
class Item:
    """One span or log record of an export, with its attributes decoded."""

    at: At
    attributes: dict[str, JSON]
    positions: dict[str, int] = field(default_factory=dict)
    """Each attribute key's index in the item's ``attributes`` list (for positions)."""
    trace_id: str = ""
    span_id: str = ""
    parent_id: str = ""
    name: str = ""
    """The span's name, or the log record's event name."""
    status_code: JSON = None
    """The span's ``status.code`` (``2`` or ``"STATUS_CODE_ERROR"`` is an error)."""
    body: JSON = None
    """A log record's body, decoded."""
    service: JSON = None
    """The resource's ``service.name``."""


def is_export(record: JSON) -> bool:
    """Whether ``record`` is an OTLP JSON traces or logs export."""
    return isinstance(record, dict) and (
        isinstance(record.get(SPANS[0]), list) or isinstance(record.get(LOGS[0]), list)
    )


def items(record: JSON) -> Iterator[Item]:
    """Every span, then every log record, of an export, in document order."""
    for kinds in (SPANS, LOGS):
        for i, resource in each(record, kinds[0]):
            service = _service(resource)
            for j, scope in each(resource, kinds[1]):
                for k, entry in each(scope, kinds[2]):
                    yield _item((kinds[0], i, kinds[1], j, kinds[2], k), entry, service)


def _item(at: At, entry: dict[str, JSON], service: JSON) -> Item:
    decoded: dict[str, JSON] = {}
    positions: dict[str, int] = {}
    for index, attribute in each(entry, "attributes"):
        key = str(attribute.get("key"))
        decoded[key] = any_value(attribute.get("value"))
        positions[key] = index
    status = entry.get("status")
    name = entry.get("name", entry.get("eventName"))
    if not isinstance(name, str) or not name:
        name = decoded.get(EVENT_NAME_ATTRIBUTE)
    return Item(
        at,
        decoded,
        positions,
        _text(entry.get("traceId")),
        _text(entry.get("spanId")),
        _text(entry.get("parentSpanId")),
        name if isinstance(name, str) else "",
        status.get("code") if isinstance(status, dict) else None,
        any_value(entry.get("body")) if "body" in entry else None,
        service,
    )


def _text(value: JSON) -> str:
    return value if isinstance(value, str) else ""


def _service(resource: dict[str, JSON]) -> JSON:
    """The resource's ``service.name``: the process that ran the agent."""
    for _, attribute in each(resource.get("resource"), "attributes"):
        if attribute.get("key") == "service.name":
            return any_value(attribute.get("value"))
    return None


def each(holder: JSON, key: str) -> Iterator[tuple[int, dict[str, JSON]]]:
    """The object items of the list ``holder[key]``, with their indexes; nothing otherwise."""
    found = holder.get(key) if isinstance(holder, dict) else None
    if isinstance(found, list):
        for i, item in enumerate(found):
            if isinstance(item, dict):
                yield i, item


_SCALARS: Final = ("stringValue", "boolValue", "doubleValue")


def any_value(value: JSON) -> JSON:
    """An OTLP JSON ``AnyValue`` as plain JSON (OTLP writes 64-bit integers as strings)."""
    if not isinstance(value, dict):
        return None
    for key in _SCALARS:
        if key in value:
            return value[key]
    if "intValue" in value:
        number = value["intValue"]
        try:
            return int(number) if isinstance(number, (str, int)) else number
        except ValueError:
            return number
    if isinstance(array := value.get("arrayValue"), dict):
        values = array.get("values")
        return [any_value(v) for v in values] if isinstance(values, list) else []
    if isinstance(kvlist := value.get("kvlistValue"), dict):
        return {str(kv.get("key")): any_value(kv.get("value")) for _, kv in each(kvlist, "values")}
    return None
