"""The deferred coercion of option values (``auditor.cli.coercion``) answers what typer's own
pydantic coercion answers — the same value of the same type, or the same error — for every
option of every command, on the values a run meets and on values to refuse."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

import pytest
import typer
from typer._click import Context
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param
from typer.core import _TyperParameter

from auditor.cli import app, same_separators
from auditor.cli.coercion import UNSURE, DeferredRuntimeParam, quick_value


def _parameters() -> list[tuple[str, Any, _TyperParameter]]:
    group = typer.main.get_command(app)
    root = Context(group, info_name="auditor")
    found: list[tuple[str, Any, _TyperParameter]] = []
    for name in group.list_commands(root):  # type: ignore[attr-defined]
        command = group.get_command(root, name)  # type: ignore[attr-defined]
        for param in command.get_params(
            Context(command, info_name=name, token_normalize_func=same_separators)
        ):
            if isinstance(param, _TyperParameter):
                found.append((name, command, param))
    return found


PARAMETERS = _parameters()


def _samples(annotation: Any, default: Any) -> list[Any]:
    """Values of the kinds a run meets, and values to refuse."""
    values: list[Any] = [default, "", "x", "-1", "0", "1", "2", "007", " 3", "1_000", "1e3"]
    values += ["99999999999999999999", 0, 1, -1, 2.5, 0.0, 1.0, True, "true", ["a"], ("a", "b")]
    values += [Path("reports"), "reports"]
    # Paths as typed: pydantic reads text as Path(text); typer refuses a NUL.
    values += ["a//b/", " x ", "~/x", "\udcff", "a\x00b", b"bytes", "-"]
    item = get_args(annotation)[0] if get_origin(annotation) is list else annotation
    if isinstance(item, type) and issubclass(item, Enum):
        for member in item:
            text = str(member.value)
            values += [member, text, text.replace("_", "-"), text.upper(), [text], [member]]
    return values


def _outcome(coerce: Any, value: Any) -> tuple[str, Any]:
    try:
        result = coerce(value)
    except BadParameter as error:
        return "refused", error.format_message()
    except Exception as error:  # a parser's own failure: the same one
        return type(error).__name__, str(error)
    return type(result).__name__, result


@pytest.mark.parametrize(
    ("command", "param"),
    [(command, param) for _, command, param in PARAMETERS],
    ids=[f"{name}-{param.name}" for name, _, param in PARAMETERS],
)
def test_the_deferred_coercion_answers_what_typers_answers(
    command: Any, param: _TyperParameter
) -> None:
    ctx = Context(command, token_normalize_func=same_separators)
    descriptor = param.type_descriptor
    typers = build_runtime_param(descriptor)
    deferred = DeferredRuntimeParam(
        parameter_info=descriptor.parameter_info,
        annotation=descriptor.annotation,
        descriptor=descriptor,
    )
    for value in _samples(descriptor.annotation, param.default):
        expected = _outcome(lambda v: typers.coerce(v, param=param, ctx=ctx), value)
        got = _outcome(lambda v: deferred.coerce(v, param=param, ctx=ctx), value)
        assert got == expected, (param.name, value)


def test_every_audit_option_is_coerced_without_pydantic_on_its_default() -> None:
    # What the deferral is for: a default audit builds no adapter.
    audit = [(command, param) for name, command, param in PARAMETERS if name == "audit"]
    assert len(audit) > 30
    for command, param in audit:
        if param.default is None or param.type_descriptor.annotation is bool:
            continue  # typer answers these itself
        ctx = Context(command, token_normalize_func=same_separators)
        descriptor = param.type_descriptor
        got = quick_value(descriptor.annotation, descriptor.parameter_info, param.default, ctx)
        assert got is not UNSURE, param.name


def test_a_whole_number_out_of_bounds_is_left_to_typer() -> None:
    jobs = next(param for name, _, param in PARAMETERS if param.name == "jobs")
    info = jobs.type_descriptor.parameter_info
    assert info.min == 1
    assert quick_value(int, info, "0", None) is UNSURE  # typer says why it is refused
    assert quick_value(int, info, "1", None) == 1


def test_the_commands_carry_the_deferred_coercion() -> None:
    for _, _, param in PARAMETERS:
        assert isinstance(param.get_runtime_param(), DeferredRuntimeParam), param.name


def test_a_path_typed_on_the_command_line_is_coerced_without_pydantic() -> None:
    report_dir = next(param for name, _, param in PARAMETERS if param.name == "report_dir")
    info = report_dir.type_descriptor.parameter_info
    assert quick_value(Path, info, "out//reports/", None) == Path("out/reports")
    assert type(quick_value(Path, info, "out", None)) is type(Path("out"))
    assert quick_value(Path, info, b"out", None) is UNSURE  # bytes: typer refuses them
