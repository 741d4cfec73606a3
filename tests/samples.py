"""The sample scenarios under sample_logs/ and the reports generated from them."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from auditor.aggregate.pipeline import ReportSettings
from auditor.api import replay
from auditor.cli import main
from auditor.inputs.catalogs import load_catalogs
from auditor.inputs.log_files import check_logs
from auditor.inputs.reader import LogReader
from auditor.models import Call, LogStats, OldRuntime, Report
from auditor.report import Format

ROOT = Path(__file__).resolve().parent.parent
REPORT_FILES = {
    Format.TABLE: "audit.txt",
    Format.MARKDOWN: "audit.md",
    Format.JSON: "audit.json",
    Format.SARIF: "audit.sarif",
    Format.JUNIT: "audit.junit.xml",
    Format.GITHUB: "audit.github.txt",
    Format.HTML: "audit.html",
    Format.GITLAB: "audit.gitlab.json",
}


@dataclass(frozen=True)
class Scenario:
    name: str
    catalog: str
    log: str
    """Both relative to the repository root, as a user would type them there."""

    @property
    def expected(self) -> Path:
        return ROOT / "sample_logs" / self.name / "expected.yaml"

    @property
    def report_dir(self) -> Path:
        return ROOT / "reports" / self.name


def scenarios() -> list[Scenario]:
    found = []
    for folder in sorted((ROOT / "sample_logs").iterdir()):
        catalogs = sorted(folder.glob("tools.*"))
        logs = sorted(folder.glob("calls.*"))
        if folder.is_dir() and catalogs and logs:
            found.append(
                Scenario(
                    folder.name,
                    f"sample_logs/{folder.name}/{catalogs[0].name}",
                    f"sample_logs/{folder.name}/{logs[0].name}",
                )
            )
    return found


@contextmanager
def _at_root() -> Iterator[None]:
    before = Path.cwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(before)


class _WithoutEvidence:
    """The calls of a log with what the log says became of them left out: the old-runtime
    model alone decides the old verdict."""

    def __init__(self, reader: LogReader) -> None:
        self._reader = reader

    def __iter__(self) -> Iterator[Call]:
        return (replace(call, evidence=None) for call in self._reader)

    def stats(self) -> tuple[LogStats, ...]:
        return self._reader.stats()


def run(
    scenario: Scenario, old_runtime: OldRuntime = OldRuntime.LENIENT, evidence: bool = True
) -> Report:
    """The audit of one scenario, with paths as given from the repository root, as the
    ``old_runtime`` would have enforced the old schemas (the default: lenient), and with the
    log's evidence about each call applied unless ``evidence`` is False."""
    with _at_root():
        catalogs = load_catalogs([scenario.catalog])
        assert not catalogs.problems, catalogs.problems
        files, problems = check_logs([scenario.log])
        assert not problems, problems
        reader = LogReader(files)
        return replay(
            catalogs.tools,
            reader if evidence else _WithoutEvidence(reader),
            None,
            [scenario.catalog],
            settings=ReportSettings(old_runtime=old_runtime),
        )


def rendered(scenario: Scenario) -> dict[str, str]:
    """Every report of a scenario, made by ``auditor audit`` as a user runs it from the
    repository root (in this process), by file name."""
    with tempfile.TemporaryDirectory() as folder, _at_root():
        args = ["audit", "--schemas", scenario.catalog, "--logs", scenario.log]
        args += ["--no-report-files", "--quiet"]
        for fmt, name in REPORT_FILES.items():
            args += ["--format", fmt.value, "--output", str(Path(folder) / name)]
        with contextlib.redirect_stderr(io.StringIO()), contextlib.suppress(SystemExit):
            main(args)  # exits 1: the samples hold newly rejected calls
        return {
            name: (Path(folder) / name).read_text(encoding="utf-8")
            for name in REPORT_FILES.values()
        }
