"""JSON pointers and the one ``$ref`` decoder. Expectations are worked out from RFC 6901
(``~0`` is ``~``, ``~1`` is ``/``), RFC 3986 (percent-encoding of a URI fragment) and the
JSON Schema core spec (``#name`` is a plain-name fragment, found by ``$anchor``)."""

from __future__ import annotations

import pytest

from auditor import pointers
from auditor.models import JSON
from auditor.pointers import Anchor, ref_target

REFS: list[tuple[str, str | Anchor | None]] = [
    ("#", ""),
    ("#/", "/"),  # the key "" of the root
    ("#/$defs/name", "/$defs/name"),
    ("#/items/0", "/items/0"),
    ("#/a~1b", "/a~1b"),  # the key "a/b": still one token once a pointer again
    ("#/a~0b", "/a~0b"),  # the key "a~b"
    ("#/a~01", "/a~01"),  # "~0" then "1": the key "a~1", not "a/"
    ("#/a%20b", "/a b"),
    ("#/a%25b", "/a%b"),
    ("#/a%7E1b", "/a~1b"),  # a percent-encoded "~1" is an escape after decoding
    ("#/a%2Fb", "/a~1b"),  # a percent-encoded "/" stays inside its token
    ("#/caf%C3%A9", "/café"),
    ("#/$defs/a~1b/properties/c%22d", '/$defs/a~1b/properties/c"d'),
    ("#name", Anchor("name")),
    ("#my-anchor.v2", Anchor("my-anchor.v2")),
    ("#%2Fa", Anchor("%2Fa")),  # not a pointer: it does not start with "/" as written
    ("https://example.com/s.json", None),
    ("https://example.com/s.json#/a", None),
    ("other.json#name", None),
]


@pytest.mark.parametrize(("ref", "expected"), REFS, ids=[ref or "<empty>" for ref, _ in REFS])
def test_ref_target(ref: str, expected: str | Anchor | None) -> None:
    assert ref_target(ref) == expected


def test_a_decoded_pointer_resolves_to_the_key_it_names() -> None:
    document: JSON = {"a/b": {"c~d": {"e f": [10, 20]}}, "": 1}
    for ref, value in [("#/a~1b/c~0d/e%20f/1", 20), ("#/", 1), ("#", document)]:
        target = ref_target(ref)
        assert isinstance(target, str)
        assert pointers.resolve(document, target) == (True, value)
    target = ref_target("#/a~0b")  # the key "a~b", which the document does not have
    assert isinstance(target, str)
    assert pointers.resolve(document, target) == (False, None)


@pytest.mark.parametrize("segment", ["plain", "a/b", "a~b", "~1", "/~0/", "", "0"])
def test_join_then_split_gives_the_segment_back(segment: str) -> None:
    pointer = pointers.join("/x", segment)
    assert pointers.split(pointer) == ["x", segment]
    assert pointers.parent(pointer) == "/x"


# RFC 6901: array-index = %x30 / ( %x31-39 *(%x30-39) ): ASCII digits, no leading zero.
INDEXES: list[tuple[str, int | None]] = [
    ("0", 0),
    ("1", 1),
    ("10", 10),
    ("01", None),  # a leading zero
    ("00", None),
    ("²", None),  # SUPERSCRIPT TWO: str.isdigit() says yes, int() raises
    ("٣", None),  # ARABIC-INDIC DIGIT THREE: int() reads 3
    ("\uff13", None),  # FULLWIDTH DIGIT THREE
    ("-1", None),
    ("+1", None),
    (" 1", None),
    ("1 ", None),
    ("", None),
    ("-", None),  # the past-the-end token is no index of an existing member
]


@pytest.mark.parametrize(("token", "expected"), INDEXES)
def test_array_index_takes_only_rfc_6901_indexes(token: str, expected: int | None) -> None:
    assert pointers.array_index(token) == expected


def test_array_index_past_the_end_is_none() -> None:
    assert pointers.array_index("2", 3) == 2
    assert pointers.array_index("3", 3) is None


@pytest.mark.parametrize("token", ["01", "²", "٣"])
def test_a_token_that_is_no_index_resolves_to_nothing(token: str) -> None:
    document: JSON = {"prefixItems": [{"type": "string"}, {"type": "integer"}, {}, {}]}
    assert pointers.resolve(document, f"/prefixItems/{token}") == (False, None)
    assert pointers.resolve(document, "/prefixItems/1") == (True, {"type": "integer"})
