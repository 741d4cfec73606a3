"""Apply RFC 6902 JSON Patch operations (``add``, ``replace``, ``remove``) to a document.

The small subset the suggested loosenings use (``auditor.aggregate.loosen``): the edited
document is a new one, the given one is left as it was.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

from auditor.models import JSON, PatchOp, PatchOperation
from auditor.schema import pointers


class PatchError(ValueError):
    """An operation whose path does not name a place it can apply to."""


def apply_patch(document: JSON, operations: Iterable[PatchOperation]) -> JSON:
    """``document`` with ``operations`` applied in order, as RFC 6902 says."""
    result = copy.deepcopy(document)
    for operation in operations:
        result = _apply(result, operation)
    return result


def _apply(document: JSON, operation: PatchOperation) -> JSON:
    segments = pointers.split(operation.path)
    value = copy.deepcopy(operation.value)
    if not segments:
        if operation.op is PatchOp.REMOVE:
            raise PatchError("cannot remove the whole document")
        return value
    found, holder = pointers.resolve(document, pointers.from_segments(segments[:-1]))
    last = segments[-1]
    if not found:
        raise PatchError(f"no container at {operation.path}")
    if isinstance(holder, dict):
        if operation.op is not PatchOp.ADD and last not in holder:
            raise PatchError(f"nothing at {operation.path}")
        if operation.op is PatchOp.REMOVE:
            del holder[last]
        else:
            holder[last] = value
    elif isinstance(holder, list):
        index = len(holder) if last == "-" and operation.op is PatchOp.ADD else _index(last)
        if index > len(holder) or (operation.op is not PatchOp.ADD and index >= len(holder)):
            raise PatchError(f"index out of range at {operation.path}")
        if operation.op is PatchOp.ADD:
            holder.insert(index, value)
        elif operation.op is PatchOp.REMOVE:
            del holder[index]
        else:
            holder[index] = value
    else:
        raise PatchError(f"no container at {operation.path}")
    return document


def _index(segment: str) -> int:
    if not segment.isdigit() or (len(segment) > 1 and segment.startswith("0")):
        raise PatchError(f"not an array index: {segment!r}")
    return int(segment)
