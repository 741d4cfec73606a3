"""Typer's coercion of option values, with pydantic only where a value needs it.

typer (0.29 on) coerces every parsed value through a pydantic ``TypeAdapter`` built per
option on first use, a default or a missing value included: importing pydantic and building
the ``audit`` command's thirty-odd adapters cost about 0.12 CPU seconds per run, and
``audit --help`` paid for pydantic too (the app's own ``--help`` flag, unset, is coerced).
For the values a run nearly always has — a missing value, a default of the option's own
type, a plain string, a path typed as text (``--report-dir out``: 0.07 CPU seconds of
pydantic otherwise), a whole number in bounds, a choice spelled as one of its values — the
answer is the adapter's, computed here without it, through typer's own pydantic-free helpers.
Anything else (a value to reject, a bool spelled as text, a path typer refuses) goes to
typer's coercion, built then, so the result and every error message are typer's.
``tests/cli/test_cli_coercion.py`` checks the two agree on every option of every command.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Final, get_args, get_origin

from typer._click import Context
from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
from typer._param_types import coerce_cli_choice, coerce_cli_path, routes_to_path
from typer.core import _TyperParameter
from typer.models import ParameterInfo

UNSURE: Final = object()
"""What ``quick_value`` answers for a value it leaves to typer's coercion."""
WHOLE_NUMBER: Final = re.compile(r"0|[1-9][0-9]{0,17}")
"""Digits pydantic and ``int()`` read alike (no sign, space, underscore or leading zero)."""


@dataclass(frozen=True)
class DeferredRuntimeParam(RuntimeParam):
    """Typer's runtime coercion of one option, its pydantic adapter built on first doubt."""

    descriptor: TypeDescriptor
    built: list[RuntimeParam] = field(default_factory=list, compare=False)

    def _coerce_value(self, value: Any, param: _TyperParameter, ctx: Context) -> Any:
        try:
            quick = quick_value(self.annotation, self.parameter_info, value, ctx)
        except Exception:  # typer's coercion raises its own error for it
            quick = UNSURE
        if quick is not UNSURE:
            return quick
        return self.typers().coerce(value, param=param, ctx=ctx)

    def typers(self) -> RuntimeParam:
        """Typer's own coercion of this option (built once)."""
        if not self.built:
            self.built.append(build_runtime_param(self.descriptor))
        return self.built[0]


def quick_value(annotation: Any, info: ParameterInfo, value: Any, ctx: Context | None) -> Any:
    """What typer's pydantic adapter makes of ``value`` (never None: typer answers a
    missing value itself), or ``UNSURE``."""
    if info.parser is not None:
        return UNSURE
    if get_origin(annotation) is list:
        (item,) = get_args(annotation)
        if not isinstance(value, list | tuple):
            return UNSURE
        items = [quick_value(item, info, one, ctx) for one in value]
        return UNSURE if any(one is UNSURE for one in items) else items
    if annotation is str:
        return value if type(value) is str else UNSURE
    if annotation is int or annotation is float:
        return _number(annotation, info, value)
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        if not isinstance(value, (str, annotation)):
            return UNSURE
        # Raises the ValueError pydantic would wrap: typer's coercion then says it.
        return coerce_cli_choice(
            value, choices=tuple(annotation), case_sensitive=info.case_sensitive, ctx=ctx
        )
    if annotation is Path and routes_to_path(annotation, info) and info.path_type is None:
        if type(value) is str:  # pydantic's lax Path: Path(text), surrogates and all
            value = Path(value)
        if not isinstance(value, Path):
            return UNSURE
        return coerce_cli_path(value, info, path_type=Path, ctx=ctx)
    return UNSURE


def _number(kind: type, info: ParameterInfo, value: Any) -> Any:
    if info.clamp:
        return UNSURE
    number: Any
    if type(value) is kind:
        number = value
    elif kind is int and type(value) is str and WHOLE_NUMBER.fullmatch(value):
        number = int(value)
    else:
        return UNSURE
    if info.min is not None and not number >= info.min:
        return UNSURE
    if info.max is not None and not number <= info.max:
        return UNSURE
    return number


def defer_coercion(param: object) -> None:
    """Give a typer parameter the deferred coercion (a typer without ``_runtime_param``
    coerces through click, with no pydantic to defer: left as it is)."""
    if isinstance(param, _TyperParameter) and getattr(param, "_runtime_param", 0) is None:
        descriptor = param.type_descriptor
        if descriptor.file_annotation is not None:
            return
        try:
            deferred = DeferredRuntimeParam(
                parameter_info=descriptor.parameter_info,
                annotation=descriptor.annotation,
                descriptor=descriptor,
            )
        except TypeError:  # a typer whose RuntimeParam takes other fields: its own coercion
            return
        param._runtime_param = deferred
