"""The command line. Each command lives in its own module; this one assembles the app."""

from __future__ import annotations

import gc
import inspect
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Final

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

from auditor import __version__
from auditor.cli import audit, completion, guard, lint, normalize, options, rule, schema
from auditor.cli.config import CONFIG_FILE, Setting, load_config
from auditor.errors import EXIT_CODES, AuditorError
from auditor.gc_thresholds import fewer_collections

try:
    from auditor.cli.coercion import defer_coercion
except ImportError:  # typer before 0.29 coerces through click: nothing to defer

    def defer_coercion(param: object) -> None:
        """Nothing to defer."""


EPILOG = "Exit codes: " + "; ".join(f"{code} {meaning}" for code, meaning in EXIT_CODES.items())
"""Every exit code, under every command's ``--help``."""
EXAMPLES: Final = """Examples:

  auditor audit --schemas tools.yaml --logs logs/
  auditor lint tools.yaml
  auditor normalize tools.yaml --diff
  auditor rule KW001
  source <(auditor completion bash)"""
"""The end of ``auditor --help``, before the exit codes."""


def unwrapped(doc: str | None) -> str:
    """A docstring as ``--help`` prints it: each paragraph one line, for the help to wrap at
    the terminal's width (typer keeps a docstring's line breaks after its first paragraph)."""
    paragraphs = inspect.cleandoc(doc or "").split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


def _epilog(examples: str) -> str:
    return f"{examples}\n\n{EPILOG}"


class _PlainHelp:
    """``--help`` without a metavar (typer's rich help would print ``<bool>``), and every
    option's value coerced without pydantic where it can be (``auditor.cli.coercion``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:  # type: ignore[attr-defined]
            defer_coercion(param)

    def get_help_option(self, ctx: Any) -> Any:  # typer vendors click from 0.29 on
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None:
            option.metavar = ""
            defer_coercion(option)
        return option


class _Command(_PlainHelp, TyperCommand):
    """A command of the app."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if isinstance(param, TyperArgument) and param.metavar is not None:
                # The metavar (PATH) says what to give; typer would add ``<list[str]>``.
                setattr(param, "display_type_rich", _no_type)  # noqa: B010 - a method


def _no_type(ctx: Any) -> None:
    return None


class _Group(_PlainHelp, TyperGroup):
    """The app itself."""

    def _main_shell_completion(
        self, ctx_args: Any, prog_name: str, complete_var: str | None = None
    ) -> None:
        # A completion script's call back into auditor, answered before any command runs.
        completion.answer_completion(self, ctx_args, prog_name, complete_var)


app = typer.Typer(
    cls=_Group,
    add_completion=False,
    no_args_is_help=True,
    help="Find the logged tool-call arguments that a normalized tool schema would newly reject.",
    epilog=_epilog(EXAMPLES),
    # A pretty traceback would print every frame's locals: logged arguments, under --redact.
    pretty_exceptions_enable=False,
)


def same_separators(token: str) -> str:
    """``newly-rejected`` for ``newly_rejected``: click compares every choice value (and
    option name) through this, so ``-`` and ``_`` are one character in them."""
    return token.replace("_", "-")


CONTEXT: Final = {"token_normalize_func": same_separators}
for _name, _function, _examples in (
    ("audit", audit.audit, audit.EXAMPLES),
    ("lint", lint.lint, lint.EXAMPLES),
    ("normalize", normalize.normalize, normalize.EXAMPLES),
    ("schema", schema.schema, schema.EXAMPLES),
    ("rule", rule.rule, rule.EXAMPLES),
    ("completion", completion.completion, completion.EXAMPLES),
):
    app.command(
        _name,
        help=unwrapped(_function.__doc__),
        epilog=_epilog(_examples),
        context_settings=CONTEXT,
        cls=_Command,
    )(_function)

MULTI_VALUE_OPTIONS: tuple[str, ...] = options.MULTI_VALUE_OPTIONS
HELP = frozenset({"--help"})


def _version(value: bool) -> None:
    if value:
        typer.echo(f"auditor {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, metavar="", help="Print the version."
        ),
    ] = False,
) -> None:
    """auditor: a pre-upgrade check for tool schemas written in a JSON Schema dialect."""
    asked = ctx.obj.get("argv", ()) if isinstance(ctx.obj, dict) else ()
    # Help describes the options, whatever a config file says (even a broken one).
    if ctx.invoked_subcommand in ("audit", "lint") and not HELP.intersection(asked):
        configure(
            ctx,
            ctx.invoked_subcommand,
            None if ctx.invoked_subcommand == "audit" else lint.FROM_CONFIG,
        )


def configure(ctx: typer.Context, name: str, keys: Mapping[str, str] | None = None) -> None:
    """Read the config file into the ``default_map`` of command ``name``: click then gives
    every option the command line's value, else the file's, else its default.

    The file holds ``audit``'s settings, and each value is checked first the way ``audit``'s
    option parses the command line, so that a bad value is one line naming the file, before
    the file is announced. ``keys`` (for another command) maps the settings it takes to its
    parameters (``schemas`` -> ``lint``'s paths); the others are left to ``audit``.
    """
    group = ctx.command
    assert isinstance(group, typer.core.TyperGroup)
    command = group.get_command(ctx, "audit")
    assert command is not None

    def validate(setting: Setting, value: object) -> None:
        try:
            command.make_context(name, setting.tokens(value), parent=None)
        except Exception as error:
            said = getattr(error, "format_message", None)  # click's usage errors
            if said is None:
                raise
            raise ValueError(guard.plain_usage(said())) from None
        if setting.key in options.CHECKED_LATER:
            try:
                options.CHECKED_LATER[setting.key](value)
            except AuditorError as failure:
                raise ValueError(str(failure)) from None

    config = load_config(Path.cwd(), options.SETTINGS, validate)
    if config.path is None:
        return
    # Settings nobody typed change what runs and where it writes: say where they are.
    table = " [tool.auditor]" if config.path.name == "pyproject.toml" else ""
    typer.echo(f"auditor: using {config.path.name}{table}", err=True)
    values = config.values
    if keys is not None:
        values = {keys[key]: value for key, value in values.items() if key in keys}
    ctx.default_map = {**(ctx.default_map or {}), name: values}
    ctx.meta[CONFIG_FILE] = config.path


def expand_multi_value_options(argv: Sequence[str], names: Sequence[str]) -> list[str]:
    """``--logs a b --x`` -> ``--logs a --logs b --x``: click options take one value each.
    ``--logs=a b`` -> ``--logs=a --logs b``."""
    expanded: list[str] = []
    current: str | None = None
    for arg in argv:
        name = arg.partition("=")[0] if arg.startswith("--") else arg
        if name in names:  # ``--logs a`` or ``--logs=a``
            current = name
            expanded.append(arg)
            continue
        if arg.startswith("-") and arg != "-":
            current = None
        elif current is not None and expanded[-1] != current:
            expanded.append(current)
        expanded.append(arg)
    return expanded


def console() -> None:
    """The console script (``auditor``, ``python -m auditor``): ``main`` on this process's
    command line, then the process exits without the collector's last full pass.

    The interpreter collects every generation as it shuts down, which walks whatever the
    audit still holds (its verdict memo, the compiled tools), and so does putting the raised
    thresholds back (``auditor.gc_thresholds``): at 300,000 calls, about 0.6 and 0.4 of 9 CPU
    seconds. The process is ending, so that garbage is the system's to reclaim:
    ``gc.freeze()`` takes every object out of the collector's sight. Not in ``main``, which a
    program (and the tests) may call without exiting: freezing would keep that program's own
    objects from ever being collected. The reports are written and closed, stdout flushed,
    and the atexit hooks (the Ajv runners, temporary folders) run before the collection
    would have."""
    # Frozen inside the scope: putting the thresholds back would run the owed collection.
    with fewer_collections():
        try:
            main()
        finally:
            gc.freeze()


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point."""
    args = list(sys.argv[1:] if argv is None else argv)
    expanded = expand_multi_value_options(args, MULTI_VALUE_OPTIONS)
    # Not standalone: click's usage errors reach the guard, which says them in one line.
    code = guard.run(
        lambda: app(
            args=expanded, prog_name="auditor", standalone_mode=False, obj={"argv": expanded}
        )
    )
    # Whatever is still buffered for stdout cannot fail the exit code any more.
    try:
        sys.stdout.flush()
    except OSError:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - let the interpreter exit quietly
        code = code or 2
    raise SystemExit(code)
