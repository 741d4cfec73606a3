"""Apply RFC 6902 JSON Patch operations (``add``, ``replace``, ``remove``) to a document.

The small subset the suggested loosenings use (``auditor.aggregate.loosen``): the edited
document is a new one, the given one is left as it was.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

from auditor import pointers
from auditor.models import JSON, PatchOp, PatchOperation


class PatchError(ValueError):
    """An operation whose path does not name a place it can apply to."""


def apply_patch(document: JSON, operations: Iterable[PatchOperation], share: bool = False) -> JSON:
    """``document`` with ``operations`` applied in order, as RFC 6902 says.

    ``share``: copy only the containers on each operation's way, the rest of the result being
    ``document``'s own (for callers that edit neither afterwards): a patch of one keyword of
    a large schema then costs the depth of its place, not the schema's size."""
    result = document if share else copy.deepcopy(document)
    copied: set[int] = set()  # containers of the result already copied from ``document``
    for operation in operations:
        if share:
            result = _copy_way(result, operation.path, copied)
        result = _apply(result, operation)
    return result


def _copy_way(document: JSON, path: str, copied: set[int]) -> JSON:
    """``document`` with every container ``_apply`` would enter to reach ``path``'s holder
    (found as ``pointers.resolve`` finds it) a copy of its own, made once (``copied``)."""
    top = _own(document, copied)
    node = top
    for segment in pointers.split(path)[:-1]:
        if isinstance(node, dict) and segment in node:
            node[segment] = child = _own(node[segment], copied)
        elif (
            isinstance(node, list)
            and (index := pointers.array_index(segment, len(node))) is not None
        ):
            node[index] = child = _own(node[index], copied)
        else:
            break  # nothing there: _apply refuses it before editing anything
        node = child
    return top


def _own(value: JSON, copied: set[int]) -> JSON:
    if id(value) in copied or not isinstance(value, (dict, list)):
        return value
    mine: JSON = dict(value) if isinstance(value, dict) else list(value)
    copied.add(id(mine))
    return mine


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
    index = pointers.array_index(segment)
    if index is None:
        raise PatchError(f"not an array index: {segment!r}")
    return index
