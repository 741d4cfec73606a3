"""The options of ``auditor audit``, read off the fields of the request's parts and of the
run's ``Delivery`` (``auditor.request.option``): the command's typer signature, its config
keys, and what docs/options.md and the Action's inputs are checked against."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import Field
from typing import Annotated, Any, Final, get_args, get_origin, get_type_hints

import typer

from auditor.cli.config import Setting
from auditor.cli.delivery import Delivery
from auditor.request import PARTS, Option, field_default, option_fields, option_of

SOURCES: Final = (*PARTS[:2], ("delivery", Delivery), *PARTS[2:])
"""Where the options come from, in ``--help`` order: the inputs and the change, then where
this run's outputs go, then the rest of the request."""


def _fields() -> list[tuple[str, Field[Any], type]]:
    """(part, field, the field's type) of every option."""
    found: list[tuple[str, Field[Any], type]] = []
    for part, kind in SOURCES:
        hints = get_type_hints(kind)
        found.extend((part, spec, hints[spec.name]) for spec in option_fields(kind))
    names = [spec.name for _, spec, _ in found]
    assert len(names) == len(set(names)), "an option's name is its config key: unique"
    return found


FIELDS: Final = _fields()


def _on_command_line(kind: type, spec: Field[Any]) -> tuple[Any, Any]:
    """The type the command line reads for a field, and its default there."""
    meta = option_of(spec)
    if meta.typed is not None:  # its text default, which --help shows
        return meta.typed[0], meta.show_default
    if get_origin(kind) is tuple:
        return list.__class_getitem__(get_args(kind)[0]) | None, None
    return kind, field_default(spec)


def _typer_option(meta: Option) -> Any:
    bounds: dict[str, Any] = {
        name: value
        for name, value in (("min", meta.least), ("max", meta.most))
        if value is not None
    }
    return typer.Option(
        *meta.flags,
        rich_help_panel=meta.panel,
        metavar=meta.metavar,
        # The default of an option read as text is that text: typer shows it as it is.
        show_default=True if meta.typed is not None else meta.show_default,
        help=meta.help,
        **bounds,
    )


def signature() -> tuple[inspect.Signature, dict[str, Any]]:
    context = inspect.Parameter(
        "ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context
    )
    parameters = [context]
    annotations: dict[str, Any] = {"ctx": typer.Context, "return": None}
    for _, spec, kind in FIELDS:
        cli_type, default = _on_command_line(kind, spec)
        annotation = Annotated[cli_type, _typer_option(option_of(spec))]  # type: ignore[valid-type]
        parameters.append(
            inspect.Parameter(
                spec.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
            )
        )
        annotations[spec.name] = annotation
    return inspect.Signature(parameters), annotations


def _setting(spec: Field[Any], kind: type) -> Setting:
    meta = option_of(spec)
    cli_type, _ = _on_command_line(kind, spec)
    return Setting(
        key=spec.name,
        flag=meta.flag,
        kind=_kind(cli_type),
        least=meta.least,
        most=field_default(spec) if meta.bound else None,
        unbounded=meta.lifted_by,
        comma_list=meta.comma_list,
    )


def _kind(hint: Any) -> type:
    """``list[str] | None`` -> list; ``int | None`` -> int; an enum or a path -> str."""
    if get_origin(hint) is list:
        return list
    present = [arg for arg in get_args(hint) if arg is not type(None)]
    if len(present) == 1:  # an optional value
        return _kind(present[0])
    return hint if hint in (bool, int, float) else str


OPTIONS: Final = {spec.name: _setting(spec, kind) for _, spec, kind in FIELDS}
"""Every option of ``audit``, as a configuration key would be."""
CLI_ONLY: Final = frozenset(spec.name for _, spec, _ in FIELDS if option_of(spec).cli_only)
"""Options a configuration file cannot set (``auditor.request.Option.cli_only``)."""
SETTINGS: Final = {name: option for name, option in OPTIONS.items() if name not in CLI_ONLY}
"""Every configuration key of ``audit``, with its option."""
MULTI_VALUE_OPTIONS: Final = tuple(
    option_of(spec).flag
    for _, spec, kind in FIELDS
    if get_origin(kind) is tuple and option_of(spec).names_inputs
)
"""Options of this command that take several paths (`--logs a.jsonl b.jsonl`)."""
CHECKED_LATER: Final[dict[str, Callable[[Any], object]]] = {
    spec.name: option_of(spec).typed[1]  # type: ignore[index]
    for _, spec, _ in FIELDS
    if option_of(spec).typed is not None
}
"""Options whose value a function parses (to say what is wrong in one line); a config file's
value goes through the same function when it is read."""
