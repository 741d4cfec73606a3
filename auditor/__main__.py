"""`python -m auditor` runs the command-line interface."""

from auditor.cli import console

console()
