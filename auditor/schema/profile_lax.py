"""pydantic's lax mode, as the SDK models built on pydantic read a number or a boolean: the
profiles' models of them (``profile_models``, ``profile_gemini_mcp``) share it."""

from __future__ import annotations

import math
from typing import Final

from auditor.models import JSON
from auditor.schema.refused import Refused

_TRUE: Final = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE: Final = frozenset({"0", "off", "f", "false", "n", "no"})


def lax_number(value: JSON, where: str, integer: bool) -> int | float:
    """A pydantic lax-mode ``int`` or ``float``: bools and numeric strings are read as numbers."""
    if isinstance(value, bool):
        return int(value)
    number: int | float
    if isinstance(value, (int, float)):
        number = value
    elif isinstance(value, str):
        try:
            number = float(value.strip()) if not integer else int(value.strip())
        except ValueError:
            kind = "an integer" if integer else "a number"
            message = f"Input should be a valid number, unable to parse string as {kind}"
            raise Refused(message, where) from None
    else:
        raise Refused(f"Input should be a valid {'integer' if integer else 'number'}", where)
    if integer and isinstance(number, float):
        if not math.isfinite(number) or number != int(number):
            raise Refused(
                "Input should be a valid integer, got a number with a fractional part", where
            )
        return int(number)
    return number


def lax_boolean(value: JSON, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise Refused("Input should be a valid boolean", where)
