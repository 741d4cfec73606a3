"""JSON text as every file auditor writes holds it: one line for a shown value, and valid
UTF-8 whatever a file name held.

The baseline file (aggregation) and the JSON, SARIF and lint reports (renderers) write JSON;
evidence lines (aggregation) and the reports quote values as one line of JSON. Both stages
use this module, which knows no output format.
"""

from __future__ import annotations

import json
import re
from typing import Final

from auditor.models import JSON

_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def compact_json(value: JSON, limit: int) -> str:
    """``value`` as one line of JSON, cut at ``limit`` characters (an ellipsis the last)."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def json_text(document: str) -> str:
    """JSON text with any surrogate left by a non-UTF-8 file name written as the escape text
    of its byte: a JSON string may hold any character but a lone surrogate, which is not
    UTF-8. Everything else is the data as it was (the JSON encoder escaped the controls)."""
    if not _SURROGATE.search(document):
        return document
    return _SURROGATE.sub(lambda m: _escape_text(m.group()).replace("\\", "\\\\"), document)


def _escape_text(char: str) -> str:
    """A lone surrogate as ``auditor.report.escape.visible`` shows it: ``\\xe9`` for a byte
    that was not UTF-8 (carried by ``surrogateescape``), ``\\ud800`` for any other."""
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"
