"""RFC 6901 JSON pointers, and the URI-fragment form that local ``$ref`` values use.

``ref_target`` is the one decoder of a ``$ref``: every stage that follows a reference asks it
what the reference names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote

from auditor.models import JSON


def escape(segment: str | int) -> str:
    """One reference token: ``~`` -> ``~0``, ``/`` -> ``~1``."""
    text = str(segment)
    if "~" not in text and "/" not in text:  # nearly every token: no copies to make
        return text
    return text.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def join(pointer: str, *segments: str | int) -> str:
    """``join("/a", "b/c", 0)`` -> ``/a/b~1c/0``."""
    if len(segments) == 1:  # the schema walks' step: no generator to run
        return pointer + "/" + escape(segments[0])
    return pointer + "".join("/" + escape(segment) for segment in segments)


def from_segments(segments: Iterable[str | int]) -> str:
    return join("", *segments)


def split(pointer: str) -> list[str]:
    """``/a/b~1c`` -> ``["a", "b/c"]``; the root pointer ``""`` has no segments."""
    if not pointer:
        return []
    return [unescape(token) for token in pointer[1:].split("/")]


def parent(pointer: str) -> str:
    return pointer.rsplit("/", 1)[0] if pointer else ""


def is_within(pointer: str, ancestor: str) -> bool:
    """True when ``pointer`` is ``ancestor`` or below it."""
    return pointer == ancestor or pointer.startswith(ancestor + "/")


def fragment_tokens(ref: str) -> list[str] | None:
    """The raw tokens of a local JSON-pointer ``$ref`` (``#/a/b`` -> ``["a", "b"]``).

    Returns None for anything else: a remote reference, an anchor (``#name``), or the root
    (``#``), none of which passes through a keyword.
    """
    if not ref.startswith("#/"):
        return None
    return ref[2:].split("/")


def decode_token(raw: str) -> str:
    """A raw fragment token, percent-decoded and then unescaped as RFC 6901 says."""
    return unescape(unquote(raw))


@dataclass(frozen=True)
class Anchor:
    """What ``#name`` names: the schema whose ``$anchor`` (or ``$dynamicAnchor``) is ``name``."""

    name: str


def ref_target(ref: str) -> str | Anchor | None:
    """What a ``$ref`` names in its own document: the JSON pointer it spells, relative to the
    resource it stands in (``#`` -> ``""``, ``#/a~1b/c%25d`` -> ``/a~1b/c%d``: each token
    percent-decoded, then RFC 6901-unescaped, then escaped again as a pointer), an ``Anchor``
    for a plain-name fragment (``#name``, taken as written, as ``referencing`` looks it up),
    or None for a reference to another document (anything not starting with ``#``).
    """
    if not ref.startswith("#"):
        return None
    fragment = ref[1:]
    if fragment and not fragment.startswith("/"):
        return Anchor(fragment)
    return join("", *map(decode_token, fragment[1:].split("/"))) if fragment else ""


_ARRAY_INDEX: Final = re.compile(r"0|[1-9][0-9]*")
"""RFC 6901's ``array-index``: ``0`` or ASCII digits without a leading zero."""


def array_index(token: str, length: int | None = None) -> int | None:
    """The array index a reference token spells, or None: only ``0`` or ``[1-9][0-9]*`` in
    ASCII (``str.isdigit`` takes ``²`` and ``٣``, which ``int`` then refuses or reads, and
    ``01``, which RFC 6901 forbids); with ``length``, None too past the array's end."""
    if not _ARRAY_INDEX.fullmatch(token):
        return None
    index = int(token)
    return None if length is not None and index >= length else index


def resolve(document: JSON, pointer: str) -> tuple[bool, JSON]:
    """``(True, value)`` at ``pointer`` in ``document``, or ``(False, None)`` when absent."""
    node = document
    for segment in split(pointer):
        if isinstance(node, dict) and segment in node:
            node = node[segment]
        elif isinstance(node, list) and (index := array_index(segment, len(node))) is not None:
            node = node[index]
        else:
            return False, None
    return True, node
