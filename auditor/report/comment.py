"""The pull-request comment: the answer on one screen, and where the rest is.

A title with PASS or FAIL and the gate in one line, the verdict, what to do (the roll-up), a
table of the first ``SHOWN_GROUPS`` groups with a line counting the others, and where the
full report is: the report folder the run wrote, as a CI run's artifact when the run says
where its page is (``AUDITOR_RUN_URL``; the Action sets it and uploads the folder). Whatever
the log, it is at most ``MAX_LINES`` lines; the Markdown report (``audit.md``) has the
detail. Everything logged goes through ``auditor.report.escape`` as in the Markdown report,
so the comment links, mentions and formats nothing of the data's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Final

from auditor.gc_thresholds import fewer_collections
from auditor.models import Report
from auditor.report import prose
from auditor.report.common import SHOWN_GROUPS, gate_summary, profile_lines, title, verdict
from auditor.report.escape import md_code, md_text
from auditor.report.markdown import group_table, rollup_block
from auditor.report.removed import removed_summary
from auditor.report.subject import RESULTS_HEADING, not_validated_line

RUN_URL: Final = "AUDITOR_RUN_URL"
"""The environment variable naming the page of the CI run whose artifacts keep the report
folder, under the folder's name (the Action's ``auditor-reports``)."""
_URL: Final = re.compile(r"https?://[A-Za-z0-9\-._~:/?#@!$&'*+,;=%]+")
"""A link the comment can carry as written: http(s), and only characters that cannot end or
break a Markdown link (no space, bracket, parenthesis, angle bracket, quote or backslash)."""
MAX_URL: Final = 2_000
MAX_LINES: Final = 60
"""Lines of the comment at most: one screen (the roll-up has at most one line an entry)."""
RESULT_GROUPS: Final = 5
"""Groups of results the comment lists (the arguments' first: they keep ``SHOWN_GROUPS``)."""


@dataclass(frozen=True)
class FullReport:
    """Where the full report is: the report folder this run wrote (as named on the command
    line), and the page of the CI run that keeps it as an artifact."""

    folder: str | None = None
    run_url: str | None = None


def run_url(value: str | None) -> str | None:
    """``AUDITOR_RUN_URL``'s value as a link the comment can hold; None when unset or empty.
    Raises ValueError (the reason, in one line) for anything else."""
    if not value:
        return None
    if len(value) > MAX_URL or not _URL.fullmatch(value):
        raise ValueError(
            f"{RUN_URL} must be an http:// or https:// URL of at most {MAX_URL:,} characters, "
            "without spaces, quotes, brackets or parentheses"
        )
    return value


@fewer_collections()
def render(report: Report, where: FullReport | None = None) -> str:
    """The comment, at most ``MAX_LINES`` lines."""
    gate = gate_summary(report)
    status = "FAIL" if report.gate.failing else "PASS"
    heading = f"### {md_text(title(report))}: **{status}**"
    if gate:
        heading += f" ({md_text(gate)})"
    lines = [
        heading,
        "",
        prose.markdown(verdict(report)),
        "",
        *rollup_block(report, "**What to do**"),
    ]
    lines += group_table(report, "in the full report", SHOWN_GROUPS, heading=None)
    if summary := removed_summary(report):
        lines += [prose.markdown(summary), ""]
    if report.results is not None:
        lines += _results(report.results)
    lines += [prose.markdown(line) + "\n" for line in profile_lines(report)]
    lines.append(_where(where or FullReport()))
    return "\n".join(lines).rstrip("\n") + "\n"


def _results(results: Report) -> list[str]:
    """The results, gated apart: their status and verdict, what to do, the first groups."""
    gate = gate_summary(results)
    status = "FAIL" if results.gate.failing else "PASS"
    heading = f"**{RESULTS_HEADING}: {status}**" + (f" ({md_text(gate)})" if gate else "")
    return [
        heading,
        "",
        prose.markdown(verdict(results)),
        "",
        prose.markdown(not_validated_line(results)),
        "",
        *rollup_block(results, "**What to do with the results**"),
        *group_table(results, "in the full report", RESULT_GROUPS, heading=None),
    ]


def _where(where: FullReport) -> str:
    folder = None if where.folder is None else PurePath(where.folder)
    if where.run_url and folder is not None:
        return (
            f"**Full report:** the {md_code(folder.name or str(folder))} artifact of "
            f"[this run]({where.run_url}) (`audit.md`, `audit.json`)."
        )
    if where.run_url:
        return f"**Full report:** the artifacts of [this run]({where.run_url})."
    if folder is not None:
        return f"**Full report:** {md_code(str(folder / 'audit.md'))}."
    return "**Full report:** not written by this run (`--report-dir DIR` writes `audit.md`)."
