"""The pytest plugin: a test that holds a catalog change to the calls the project recorded.

``tool_schema_audit`` is a fixture; called, it audits the change the way ``auditor audit``
does (through ``auditor.api``, the one door into the core) and fails the test with the
terminal's short answer, the per-tool table and one line per failing group, when the change
would newly reject recorded calls. Names from the logs reach that message escaped
(``escape.terminal``), as they reach a terminal. The plugin writes no file.

Installed, the package registers it (``pytest11`` entry point, named after this module so
that ``-p auditor.pytest_plugin`` from a clone and the entry point are one plugin).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

import pytest

if TYPE_CHECKING:  # loaded when a test audits: every pytest run of an install loads this
    from auditor.api import AuditRequest, AuditResult
    from auditor.models import FailOn

LOGS_INI: Final = "tool_schema_audit_logs"
"""The ini option naming the recorded call logs, for every test that does not name its own."""


class ToolSchemaAuditWarning(UserWarning):
    """What ``auditor audit`` would warn about on stderr (a log folder holding no log)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        LOGS_INI,
        "Call logs or folders of them (relative to the rootdir) that tool_schema_audit "
        "replays when a test names none.",
        type="linelist",
        default=[],
    )


class ToolSchemaAudit:
    """The fixture's value: call it with the catalogs, get the ``AuditResult`` of a change
    that breaks no recorded call, or the test fails. Relative paths are the rootdir's (where
    pytest.ini or pyproject.toml is), as are the git repository ``against`` reads."""

    def __init__(self, root: Path, logs: Sequence[str], verbose: bool) -> None:
        self.root = root
        self.logs = tuple(logs)
        self.verbose = verbose

    def __call__(
        self,
        schemas: Sequence[str | Path],
        *,
        new_schemas: Sequence[str | Path] = (),
        against: str | None = None,
        logs: Sequence[str | Path] = (),
        fail_on: FailOn | str = "newly-rejected",
    ) -> AuditResult:
        """Audit ``schemas`` (the catalogs before the change) against ``new_schemas`` (after
        it), or the ``schemas`` files at git revision ``against`` against the work tree's,
        or, given neither, against ``schemas`` normalized; replaying ``logs`` (default: the
        ``tool_schema_audit_logs`` ini option). ``fail_on`` is ``--fail-on``'s value."""
        from auditor.api import AuditRequest, Inputs
        from auditor.request import Gating, TheChange

        if isinstance(schemas, (str, Path)):
            pytest.fail(
                "tool_schema_audit: schemas is a list of paths, e.g. ['tools.json']",
                pytrace=False,
            )
        replayed = tuple(logs) or self.logs
        if not replayed:
            pytest.fail(
                f"tool_schema_audit: no call logs: pass logs=[...] or set {LOGS_INI} in the "
                "pytest configuration",
                pytrace=False,
            )
        request = AuditRequest(
            Inputs(schemas=self._paths(schemas), logs=self._paths(replayed)),
            TheChange(
                new_schemas=self._paths(new_schemas),
                against=against,
                repo=None if against is None else str(self.root),
            ),
            gating=Gating(fail_on=_fail_on(fail_on)),
        )
        result = _audited(request)
        from auditor.report.escape import one_line

        for warning in result.warnings:  # escaped as the command line's stderr is
            warnings.warn(f"auditor: {one_line(warning)}", ToolSchemaAuditWarning, stacklevel=2)
        if result.exit_code:
            pytest.fail(self._message(result), pytrace=False)
        return result

    def _paths(self, paths: Sequence[str | Path]) -> tuple[str, ...]:
        return tuple(str(self.root / path) for path in paths)

    def _message(self, result: AuditResult) -> str:
        """The terminal's short answer (every group with its detail under ``pytest -v``),
        in the default width, so the message reads the same on every machine."""
        from auditor.report import table

        report, code = result.report, result.exit_code
        if self.verbose:
            return table.render(report, table.DEFAULT_WIDTH, code)
        # "--verbose lists them", the line under the groups left out, holds for pytest too.
        return table.concise(report, table.DEFAULT_WIDTH, code)


def _audited(request: AuditRequest) -> AuditResult:
    """The audit's result; unusable input fails the test with the one line the command
    says (outside the ``except``: pytest would print the error it handles first)."""
    from auditor.api import audit
    from auditor.errors import AuditorError

    try:
        return audit(request)
    except AuditorError as failure:
        said = f"auditor: {failure.line()}"
    pytest.fail(said, pytrace=False)


def _fail_on(value: FailOn | str) -> FailOn:
    """``newly-rejected`` or ``newly_rejected``: ``-`` and ``_`` are one character in an
    option's value, as on the command line."""
    from auditor.models import FailOn

    if isinstance(value, FailOn):
        return value
    for choice in FailOn:
        if choice.value.replace("_", "-") == value.replace("_", "-"):
            return choice
    known = ", ".join(choice.value.replace("_", "-") for choice in FailOn)
    pytest.fail(f"tool_schema_audit: fail_on={value!r}: one of {known}", pytrace=False)


@pytest.fixture
def tool_schema_audit(request: pytest.FixtureRequest) -> ToolSchemaAudit:
    """Audit a catalog change against recorded calls; fail with the groups it breaks."""
    config = request.config
    logs = config.getini(LOGS_INI)
    return ToolSchemaAudit(config.rootpath, logs, config.getoption("verbose") > 0)
