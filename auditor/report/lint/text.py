"""``file:line:col: CODE message``, one line per finding, as compilers and linters print,
then a summary line, as ruff ends: how many findings, in how many files, how many fixable."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from auditor.models import DEFAULT_RULES, Rule
from auditor.report.escape import terminal
from auditor.schema.lint import LocatedFinding
from auditor.words import plural


def render(
    findings: Sequence[LocatedFinding],
    rules: Collection[Rule] = DEFAULT_RULES,
    files: int | None = None,
) -> str:
    """The findings and the summary line; with no finding, the one line that says so when
    the number of ``files`` linted is known (nothing otherwise)."""
    if not findings:
        return "" if files is None else f"No findings in {plural(files, 'catalog file')}.\n"
    lines = "".join(
        terminal(
            f"{f.location.path}:{f.location.line or 1}:{f.location.column or 1}: "
            f"{f.finding.code} {f.finding.message}"
        )
        + "\n"
        for f in findings
    )
    return lines + summary(findings, rules)


def summary(findings: Sequence[LocatedFinding], rules: Collection[Rule] = DEFAULT_RULES) -> str:
    """``28 findings in 3 files; 28 fixable with `auditor normalize --write```: fixable by
    the rule families given (``--rules``), which the command then names."""
    files = len({f.location.path for f in findings})
    line = f"{plural(len(findings), 'finding')} in {plural(files, 'file')}"
    if fixed := sum(f.fixable for f in findings):
        given = "" if frozenset(rules) == DEFAULT_RULES else f" --rules {_rules_text(rules)}"
        line += f"; {fixed:,} fixable with `auditor normalize --write{given}`"
    return line + "\n"


def _rules_text(rules: Collection[Rule]) -> str:
    """The families as ``--rules`` takes them, in the order they apply."""
    return ",".join(rule.value for rule in Rule if rule in rules)
