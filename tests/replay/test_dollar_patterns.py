"""A ``$``-ending ``pattern`` reaches the fast validator in every draft, with Python's reading.

jsonschema-rs checks a draft 4, 6 or 7 schema's regexes as ECMA 262 ones (``format: regex``
in those meta-schemas) and refused the ``(?=\\n?\\z)`` spelling of ``$`` it was given, so such
schemas never reached it. Expected verdicts are Python's: its ``$`` matches at the end and
before one final newline only.
"""

from __future__ import annotations

import pytest
from jsonschema import validators

from auditor.models import JSON
from auditor.replay.fast_validator import FastCheck
from auditor.replay.lenient_fast import COMPILED, compile_lenient
from auditor.replay.tool import _read_leniently
from auditor.schema.normalize import DEFAULT_RULES, normalize

DRAFTS = {
    "draft4": "http://json-schema.org/draft-04/schema#",
    "draft6": "http://json-schema.org/draft-06/schema#",
    "draft7": "http://json-schema.org/draft-07/schema#",
    "2019-09": "https://json-schema.org/draft/2019-09/schema",
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
}
REFERENCE = {
    "draft4": validators.Draft4Validator,
    "draft6": validators.Draft6Validator,
    "draft7": validators.Draft7Validator,
    "2019-09": validators.Draft201909Validator,
    "2020-12": validators.Draft202012Validator,
}
VERDICTS: list[tuple[JSON, bool]] = [
    ({"id": "ab_1"}, True),
    ({"id": "ab_1\n"}, True),  # before a final newline
    ({"id": "ab_1\n\n"}, False),
    ({"id": "ab_1\nx"}, False),
    ({"id": "AB_1"}, False),
    ({"id": "ab_1", "x_ok": 1}, True),
    ({"id": "ab_1", "x_ok\n": 1}, True),
    ({"id": "ab_1", "x_ok\n": "s"}, False),  # the key matches: its value must be an integer
    ({"id": "ab_1", "x_ok\n\n": "s"}, True),  # no key pattern matches it
]


def _schema(uri: str) -> dict[str, JSON]:
    return {
        "$schema": uri,
        "type": "object",
        "properties": {"id": {"type": "string", "pattern": "^[a-z]{2,8}_[0-9]{1,7}$"}},
        "patternProperties": {"^x_[a-z]+$": {"type": "integer"}},
    }


@pytest.mark.parametrize("draft", sorted(DRAFTS))
def test_the_new_side_reaches_the_fast_validator_with_pythons_verdicts(draft: str) -> None:
    schema = _schema(DRAFTS[draft])
    fast = FastCheck(normalize(schema, DEFAULT_RULES).schema)
    assert fast.validator is not None
    reference = REFERENCE[draft](schema)
    for arguments, accepts in VERDICTS:
        assert fast.validator.is_valid(arguments) is accepts, arguments
        assert reference.is_valid(arguments) is accepts, arguments


@pytest.mark.parametrize("draft", sorted(DRAFTS))
def test_the_lenient_old_side_is_compiled_with_pythons_verdicts(draft: str) -> None:
    dialect = _schema(DRAFTS[draft])
    dialect["type"] = "Object"  # not a JSON type name: enforces nothing before
    dialect["min_properties"] = 3  # not a keyword: enforces nothing before
    read, _ = _read_leniently(dialect)
    compiled = compile_lenient(read)
    assert compiled.path == COMPILED
    for arguments, accepts in [*VERDICTS, ("not an object", True)]:
        assert compiled.verdict(arguments) is accepts, arguments
