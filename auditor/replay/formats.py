"""``format`` as the runtimes assert it: ajv-formats' checks, and python-jsonschema's.

A runtime that asserts ``format`` rejects ``"2026-01-05T10:00:00"`` (a date-time without an
offset) where one that treats it as an annotation accepts it. Which strings pass is the
checker's, not the specification's, so each runtime model uses the checker of the code it
follows:

- ``ajv-formats`` (the MCP TypeScript SDK's ``addFormats(ajv)``, "full" mode): its checks are
  ported here one for one from ``ajv-formats/dist/formats.js`` 3.0.1, regular expressions
  included. JavaScript's ``$`` ends the string where Python's also matches before a final
  newline, so every match must cover the whole string; JavaScript's ``\\s`` and ``\\d`` are
  spelled out as the classes they are there (``JS_SPACE``, ``[0-9]``). A format ajv-formats
  does not define is ignored, as Ajv ignores it with ``strict: false``.
- ``python-jsonschema`` (``jsonschema.FormatChecker``): python-jsonschema's own checker, as
  installed; several of its formats (``date-time``, ``uri``, ``hostname``, …) are checked
  only when their optional libraries are (the ``format`` extra), exactly as in a Python
  runtime that asserts formats.

The differences between the port and Ajv are listed in docs/runtimes.md; the differential
test (tests/replay/test_runtime_ajv.py) runs both on the same strings.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from jsonschema import FormatChecker

JS_SPACE: Final = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
"""The characters JavaScript's ``\\s`` matches (WhiteSpace and LineTerminator)."""

Check = Callable[[object], bool]


def _whole(pattern: str, flags: int = re.ASCII) -> Callable[[str], bool]:
    """A JavaScript ``/^…$/`` test (``pattern`` without its anchors): the match must reach
    the end of the string, where Python's ``$`` also matches before a final newline.
    Compiled on its first test: these patterns cost about 25 ms to compile, and most audits
    check no format at all."""
    compiled: re.Pattern[str] | None = None

    def test(text: str) -> bool:
        nonlocal compiled
        if compiled is None:
            compiled = re.compile(pattern + r"\Z", flags)  # \Z: the very end, as JavaScript's $
        return compiled.match(text) is not None

    return test


_I: Final = re.ASCII | re.IGNORECASE

_DATE: Final = re.compile(r"(\d\d\d\d)-(\d\d)-(\d\d)", re.ASCII)
_DAYS: Final = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_TIME: Final = re.compile(r"(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?", _I)
_DATE_TIME_SEPARATOR: Final = re.compile(f"[tT{JS_SPACE}]")


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _date(text: str) -> bool:
    found = _DATE.fullmatch(text)
    if found is None:
        return False
    year, month, day = (int(part) for part in found.groups())
    if not 1 <= month <= 12:
        return False
    return 1 <= day <= (29 if month == 2 and _leap(year) else _DAYS[month])


def _time(strict_zone: bool) -> Callable[[str], bool]:
    """ajv-formats' ``getTime``: ``strict_zone`` requires an offset (``time``, and the time
    of ``date-time``); ``iso-time`` does not."""

    def time(text: str) -> bool:
        found = _TIME.fullmatch(text)
        if found is None:
            return False
        hour, minute, second = int(found[1]), int(found[2]), float(found[3])
        zone, sign = found[4], -1 if found[5] == "-" else 1
        zone_hours, zone_minutes = int(found[6] or 0), int(found[7] or 0)
        if zone_hours > 23 or zone_minutes > 59 or (strict_zone and not zone):
            return False
        if hour <= 23 and minute <= 59 and second < 60:
            return True
        # A leap second: 23:59:60 in UTC only.
        utc_minute = minute - zone_minutes * sign
        utc_hour = hour - zone_hours * sign - (1 if utc_minute < 0 else 0)
        return utc_hour in (23, -1) and utc_minute in (59, -1) and second < 61

    return time


def _date_time(strict_zone: bool) -> Callable[[str], bool]:
    time = _time(strict_zone)

    def date_time(text: str) -> bool:
        parts = _DATE_TIME_SEPARATOR.split(text)
        return len(parts) == 2 and _date(parts[0]) and time(parts[1])

    return date_time


_URI_BODY: Final = (
    r"(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:(?:(?:(?:[0-9a-f]{1,4}:)"
    r"{6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}"
    r":){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::"
    r"(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:"
    r"[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]"
    r"\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]"
    r"{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\.[a-z0-9"
    r"\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?"
    r"\d\d?)|(?:[a-z0-9\-._~!$&'{Q}()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'{Q}()"
    r"*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'{Q}()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:"
    r"[a-z0-9\-._~!$&'{Q}()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'{Q}()*+,;=:@]|%[0-9a-f]"
    r"{2})+(?:\/(?:[a-z0-9\-._~!$&'{Q}()*+,;=:@]|%[0-9a-f]{2})*)*){OPT}(?:\?(?:[a-z0-9\-._~!$&'"
    r"{Q}()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'{Q}()*+,;=:@/?]|%[0-9a-f]{2})*)?"
)
"""The authority, path, query and fragment of ajv-formats' ``URI`` and ``uri-reference``:
the same text but for a double quote ``{Q}`` that ``uri-reference`` allows and ``uri`` does
not, and the ``?`` ``{OPT}`` that makes the whole part optional in ``uri-reference``."""

_URI: Final = _whole(
    r"(?:[a-z][a-z0-9+\-.]*:)" + _URI_BODY.replace("{Q}", "").replace("{OPT}", ""), _I
)
_URI_REFERENCE: Final = _whole(
    r"(?:[a-z][a-z0-9+\-.]*:)?" + _URI_BODY.replace("{Q}", '"').replace("{OPT}", "?"), _I
)
_NOT_URI_FRAGMENT: Final = re.compile(r"\/|:")


def _uri(text: str) -> bool:
    return _NOT_URI_FRAGMENT.search(text) is not None and _URI(text)


_NOT_SPACE: Final = f"[^{JS_SPACE}]"
_URL_LABEL: Final = "[a-z0-9\u00a1-\uffff]"
_URL: Final = _whole(
    r"(?:https?|ftp):\/\/(?:S+(?::S*)?@)?(?:(?!(?:10|127)(?:\.[0-9]{1,3}){3})(?!(?:169\.254|"
    r"192\.168)(?:\.[0-9]{1,3}){2})(?!172\.(?:1[6-9]|2[0-9]|3[0-1])(?:\.[0-9]{1,3}){2})(?:[1-9]"
    r"[0-9]?|1[0-9][0-9]|2[01][0-9]|22[0-3])(?:\.(?:1?[0-9]{1,2}|2[0-4][0-9]|25[0-5])){2}(?:\.(?:"
    r"[1-9][0-9]?|1[0-9][0-9]|2[0-4][0-9]|25[0-4]))|(?:(?:L+-)*L+)(?:\.(?:L+-)*L+)*(?:\.(?:"
    r"[a-z\u00a1-\uffff]{2,})))(?::[0-9]{2,5})?(?:\/N*)?".replace("S", _NOT_SPACE)
    .replace("L", _URL_LABEL)
    .replace("N", _NOT_SPACE),
    re.IGNORECASE,
)
"""ajv-formats' ``url`` (flags ``iu``: Unicode case folding, and ``\\S`` is not JavaScript
whitespace). The letters S, L and N stand for the classes substituted in."""

_EMAIL: Final = _whole(
    r"[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*"
    r"[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?",
    _I,
)
_HOSTNAME: Final = _whole(
    r"(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}"
    r"[0-9a-z])?)*\.?",
    _I,
)
_OCTET: Final = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4: Final = _whole(rf"(?:{_OCTET}\.){{3}}{_OCTET}")
_V4: Final = r"((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})"
_H: Final = "[0-9a-f]{1,4}"
_IPV6: Final = _whole(
    rf"((({_H}:){{7}}({_H}|:))|(({_H}:){{6}}(:{_H}|{_V4}|:))|(({_H}:){{5}}(((:{_H}){{1,2}})|:"
    rf"{_V4}|:))|(({_H}:){{4}}(((:{_H}){{1,3}})|((:{_H})?:{_V4})|:))|(({_H}:){{3}}(((:{_H})"
    rf"{{1,4}})|((:{_H}){{0,2}}:{_V4})|:))|(({_H}:){{2}}(((:{_H}){{1,5}})|((:{_H}){{0,3}}:{_V4})"
    rf"|:))|(({_H}:){{1}}(((:{_H}){{1,6}})|((:{_H}){{0,4}}:{_V4})|:))|(:(((:{_H}){{1,7}})|((:"
    rf"{_H}){{0,5}}:{_V4})|:)))",
    _I,
)
_DURATION: Final = _whole(r"P(?!$)((\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?|(\d+W)?)")
_URI_TEMPLATE: Final = _whole(
    r"(?:(?:[^\x00-\x20\"'<>%\\^`{|}]|%[0-9a-f]{2})|\{[+#./;?&=,!@|]?(?:[a-z0-9_]|%[0-9a-f]{2})+"
    r"(?::[1-9][0-9]{0,3}|\*)?(?:,(?:[a-z0-9_]|%[0-9a-f]{2})+(?::[1-9][0-9]{0,3}|\*)?)*\})*",
    _I,
)
_UUID: Final = _whole(r"(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}", _I)
_JSON_POINTER: Final = _whole(r"(?:\/(?:[^~/]|~0|~1)*)*", re.DOTALL)
_JSON_POINTER_FRAGMENT: Final = _whole(
    r"#(?:\/(?:[a-z0-9_\-.!$&'()*+,;:=@]|%[0-9a-f]{2}|~0|~1)*)*", _I
)
_RELATIVE_JSON_POINTER: Final = _whole(r"(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)", re.DOTALL)
_BYTE: Final = re.compile(
    r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$", re.MULTILINE
)
"""ajv-formats' ``byte`` has the flags ``gm``: any line that is base64 (an empty one too)
passes, which ``re.search`` with ``MULTILINE`` reproduces (for ``\\n`` line ends)."""
_Z_ANCHOR: Final = re.compile(r"[^\\]\\Z")
_PYTHON_ONLY: Final = re.compile(r"\(\?(?:P|#|[aiLmsux-]+[:)])|\\A")
"""Python syntax JavaScript's ``RegExp`` refuses: named groups ``(?P<…>``, comments
``(?#…)``, inline flags ``(?i)``, ``\\A``."""


def _regex(text: str) -> bool:
    """ajv-formats compiles the pattern with JavaScript's ``RegExp``; Python's ``re`` stands
    in for it, less the syntax only Python has (the dialects differ at other edges too:
    docs/runtimes.md)."""
    if _Z_ANCHOR.search(text) or _PYTHON_ONLY.search(text):
        return False
    try:
        re.compile(text)
    except (re.error, OverflowError, RecursionError):
        return False
    return True


def _byte(text: str) -> bool:
    return _BYTE.search(text) is not None


def _int32(value: object) -> bool:
    return _integral(value) and -(2**31) <= value <= 2**31 - 1  # type: ignore[operator]


def _integral(value: object) -> bool:
    """JavaScript's ``Number.isInteger`` of a JSON number: ``1.0`` is an integer there."""
    if isinstance(value, int):
        return True
    return isinstance(value, float) and value.is_integer()


def _strings(test: Callable[[str], bool]) -> Check:
    """A string format: Ajv applies it to strings only, other values pass."""
    return lambda value: not isinstance(value, str) or test(value)


def _numbers(test: Callable[[object], bool]) -> Check:
    """A number format (``int32``…): Ajv applies it to numbers only."""
    return lambda value: (
        isinstance(value, bool) or not isinstance(value, (int, float)) or test(value)
    )


def _anything(value: object) -> bool:
    return True


AJV_FORMATS: Final[dict[str, Check]] = {
    "date": _strings(_date),
    "time": _strings(_time(True)),
    "date-time": _strings(_date_time(True)),
    "iso-time": _strings(_time(False)),
    "iso-date-time": _strings(_date_time(False)),
    "duration": _strings(_DURATION),
    "uri": _strings(_uri),
    "uri-reference": _strings(_URI_REFERENCE),
    "uri-template": _strings(_URI_TEMPLATE),
    "url": _strings(_URL),
    "email": _strings(_EMAIL),
    "hostname": _strings(_HOSTNAME),
    "ipv4": _strings(_IPV4),
    "ipv6": _strings(_IPV6),
    "regex": _strings(_regex),
    "uuid": _strings(_UUID),
    "json-pointer": _strings(_JSON_POINTER),
    "json-pointer-uri-fragment": _strings(_JSON_POINTER_FRAGMENT),
    "relative-json-pointer": _strings(_RELATIVE_JSON_POINTER),
    "byte": _strings(_byte),
    "int32": _numbers(_int32),
    "int64": _numbers(_integral),
    "float": _anything,
    "double": _anything,
    "password": _anything,
    "binary": _anything,
}
"""ajv-formats' ``fullFormats``, by name: what ``addFormats(ajv)`` registers."""


def ajv_format_checker() -> FormatChecker:
    """A python-jsonschema format checker that checks what ajv-formats checks, and nothing
    else (a format it does not know passes)."""
    checker = FormatChecker(formats=())
    for name, check in AJV_FORMATS.items():
        checker.checks(name)(check)
    return checker


def python_format_checker() -> FormatChecker:
    """python-jsonschema's own checker, every format it can check as installed."""
    return FormatChecker()


def asserted_formats(checker: FormatChecker) -> frozenset[str]:
    """The format names ``checker`` checks: a ``format`` keyword naming another is an
    annotation even where formats are asserted."""
    return frozenset(checker.checkers)
