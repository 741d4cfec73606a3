"""Test-suite-style corpora for the runtime models: schemas, each with instances, in the
drafts the MCP TypeScript SDK reads (2020-12, and draft-07). The expected verdicts are not
written here: Ajv gives them (tests/replay/test_runtime_ajv.py), and the Python models must
agree.

Cases are chosen where runtimes differ: each ajv-formats format on strings at its edges (a
missing offset, a leap second, a final newline, non-ASCII digits), and the keywords whose
meaning depends on the draft the schema is read as.
"""

from __future__ import annotations

from typing import Final

from auditor.models import JSON

Case = tuple[JSON, tuple[JSON, ...]]

FORMAT_STRINGS: Final[dict[str, tuple[str, ...]]] = {
    "date": (
        "2026-02-28",
        "2024-02-29",
        "2026-02-29",
        "2026-13-01",
        "2026-1-01",
        "2026-01-01\n",
        "\u0662\u0660\u0662\u0666-01-01",
        "2026-00-10",
        "2026-04-31",
    ),
    "time": (
        "10:00:00Z",
        "10:00:00",
        "10:00:00+01:00",
        "10:00:00.5z",
        "23:59:60Z",
        "23:59:60+01:00",
        "00:59:60+01:00",
        "24:00:00Z",
        "10:00:00+2400",
        "10:00:00+0130",
    ),
    "date-time": (
        "2026-01-05T10:00:00Z",
        "2026-01-05T10:00:00",
        "2026-01-05 10:00:00Z",
        "2026-01-05t10:00:00z",
        "2026-01-05T10:00:00.123+05:30",
        "2026-01-05T10:00:00Z\n",
        "2026-01-05\u00a010:00:00Z",
        "2026-01-05",
        "2026-01-05T25:00:00Z",
        "2016-12-31T23:59:60Z",
    ),
    "iso-time": ("10:00:00", "10:00:00Z", "1:00:00"),
    "iso-date-time": ("2026-01-05T10:00:00", "2026-01-05 10:00:00", "2026-01-05T10:00"),
    "duration": ("P1D", "PT1H", "P", "PT", "P1W", "P1Y2M3DT4H5M6S", "P1DT", "1D"),
    "uri": (
        "https://example.com/a?b#c",
        "urn:isbn:0451450523",
        "example.com",
        "/relative",
        "http://[::1]:80/",
        "http://exa mple.com",
        "mailto:a@b.c",
        "a:b",
        "https://é.com",
    ),
    "uri-reference": (
        "/relative/path",
        "#frag",
        "?q=1",
        "",
        'http://x/"quoted"',
        "a b",
        "//host/path",
    ),
    "uri-template": ("http://example.com/{id}", "/a/{+path}/{x,y}", "{", "/a/{b", "plain"),
    "url": (
        "https://example.com/path",
        "ftp://example.com",
        "http://localhost",
        "http://10.0.0.1",
        "http://8.8.8.8",
        "https://exämple.com",
        "example.com",
    ),
    "email": (
        "a@example.com",
        "a.b+c@example.co.uk",
        "nobody",
        "a@b",
        "a..b@example.com",
        "a@example.com\n",
        "A@EXAMPLE.COM",
        "é@example.com",
    ),
    "hostname": (
        "example.com",
        "example.com.",
        "-bad.com",
        "a" * 64 + ".com",
        "exa_mple.com",
        "localhost",
    ),
    "ipv4": ("192.168.0.1", "256.0.0.1", "01.2.3.4", "1.2.3", "1.2.3.4\n", "\u0661.2.3.4"),
    "ipv6": ("::1", "2001:db8::1", "::ffff:192.168.0.1", "2001:db8:::1", "1:2:3:4:5:6:7:8", "g::1"),
    "regex": ("^a+$", "(", "a\\Z", "[a-z]", "(?P<x>a)", "\\p{L}"),
    "uuid": (
        "123e4567-e89b-12d3-a456-426614174000",
        "urn:uuid:123e4567-e89b-12d3-a456-426614174000",
        "123e4567e89b12d3a456426614174000",
        "123E4567-E89B-12D3-A456-426614174000",
    ),
    "json-pointer": ("", "/a/b", "a/b", "/a~2", "/a~0~1", "/a\nb"),
    "json-pointer-uri-fragment": ("#", "#/a/b", "#/a%20b", "/a"),
    "relative-json-pointer": ("0", "1/a", "0#", "-1", "01"),
    "byte": ("aGVsbG8=", "aGVsbG8", "", "abc\n", "aGVs\nbG8="),
    "password": ("anything",),
    "binary": ("anything",),
    "not-a-format": ("anything",),
}

NUMBER_FORMATS: Final[dict[str, tuple[JSON, ...]]] = {
    "int32": (1, 2**31 - 1, 2**31, -(2**31), 1.0, 1.5, "1", True),
    "int64": (1, 2**40, 1.5, 2.0),
    "float": (1.5, "x"),
    "double": (1.5,),
}


def _format_cases() -> list[Case]:
    cases: list[Case] = [({"format": name}, strings) for name, strings in FORMAT_STRINGS.items()]
    cases += [({"format": name}, values) for name, values in NUMBER_FORMATS.items()]
    cases.append(({"format": "date-time"}, (5, None, ["2026"], {"a": 1})))
    return cases


KEYWORD_CASES: Final[tuple[Case, ...]] = (
    (
        {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
        (["a", 1], [1, "a"], ["a"], [], ["a", 1, None]),
    ),
    (
        {"type": "array", "prefixItems": [{"type": "string"}], "items": False},
        (["a"], ["a", "b"], []),
    ),
    (
        {"type": "array", "items": [{"type": "string"}], "additionalItems": False},
        (["a"], ["a", "b"], [1]),
    ),
    ({"type": "array", "items": {"type": "integer"}}, ([1, 2], [1, "a"], [])),
    ({"type": "object", "dependentRequired": {"a": ["b"]}}, ({"a": 1}, {"a": 1, "b": 2}, {})),
    (
        {"type": "object", "dependentSchemas": {"a": {"required": ["b"]}}},
        ({"a": 1}, {"a": 1, "b": 2}, {"b": 1}),
    ),
    ({"type": "object", "dependencies": {"a": ["b"]}}, ({"a": 1}, {"a": 1, "b": 2})),
    (
        {"type": "object", "properties": {"a": {}}, "unevaluatedProperties": False},
        ({"a": 1}, {"a": 1, "b": 2}, {}),
    ),
    ({"allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": False}, ({"a": 1}, {"b": 1})),
    ({"type": "array", "prefixItems": [{}], "unevaluatedItems": False}, ([1], [1, 2])),
    ({"type": "array", "contains": {"type": "integer"}, "minContains": 2}, ([1], [1, 2], ["a"])),
    ({"type": "array", "contains": {"type": "integer"}, "maxContains": 1}, ([1], [1, 2])),
    ({"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "minLength": 3}, ("abcd", "ab", 5)),
    (
        {
            "definitions": {"s": {"type": "string"}},
            "properties": {"a": {"$ref": "#/definitions/s", "maxLength": 2}},
        },
        ({"a": "ab"}, {"a": "abc"}, {"a": 1}),
    ),
    (
        {"if": {"properties": {"k": {"const": "x"}}}, "then": {"required": ["v"]}},
        ({"k": "x"}, {"k": "x", "v": 1}, {"k": "y"}),
    ),
    ({"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}}, ({"ab": 1}, {"Ab": 1})),
    (
        {
            "type": "object",
            "patternProperties": {"^x-": {"type": "integer"}},
            "additionalProperties": False,
        },
        ({"x-a": 1}, {"x-a": "s"}, {"y": 1}),
    ),
    ({"enum": [1, "a", None]}, (1, 1.0, "a", None, "b")),
    ({"const": {"a": [1, 2]}}, ({"a": [1, 2]}, {"a": [2, 1]})),
    ({"type": "integer"}, (1, 1.0, 1.5, "1")),
    ({"type": ["string", "null"], "maxLength": 2}, ("ab", "abc", None, 1)),
    ({"type": "string", "format": "email", "maxLength": 10}, ("a@b.co", "nobody", "a@example.com")),
    (
        {
            "type": "object",
            "properties": {"when": {"type": "string", "format": "date-time"}},
            "required": ["when"],
            "additionalProperties": False,
        },
        ({"when": "2026-01-05T10:00:00Z"}, {"when": "2026-01-05T10:00:00"}, {"when": "x", "y": 1}),
    ),
)


def corpus(declared: str | None) -> list[Case]:
    """Every case, the schema declaring ``declared`` as ``$schema`` (None: none)."""
    cases = _format_cases() + list(KEYWORD_CASES)
    if declared is None:
        return cases
    return [({"$schema": declared, **schema}, instances) for schema, instances in cases]  # type: ignore[dict-item]


DRAFT_2020: Final = "https://json-schema.org/draft/2020-12/schema"
DRAFT_07: Final = "http://json-schema.org/draft-07/schema#"
DIALECT_CASES: Final[tuple[Case, ...]] = (
    ({"$schema": "http://json-schema.org/draft-04/schema#", "type": "string"}, ("a", 1)),
    (
        {
            "$schema": "http://json-schema.org/draft-06/schema#",
            "const": 1,
            "if": {"const": 1},
            "then": False,
        },
        (1, 2),
    ),
    (
        {
            "$schema": "https://json-schema.org/draft/2019-09/schema",
            "type": "array",
            "items": [{"type": "string"}],
            "additionalItems": False,
        },
        (["a"], ["a", 1]),
    ),
    ({"$schema": "https://example.com/my-dialect", "type": "string"}, ("a",)),
)
"""Declared dialects the two SDKs read differently: refused by v2 (draft-04, unknown), read
as draft-07 (draft-06), as 2019-09."""
