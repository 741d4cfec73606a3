"""Regenerate reports/ from sample_logs/: ``python3 -m tests.regenerate_reports``."""

from __future__ import annotations

from auditor.cli.output import write_atomic
from tests.samples import rendered, scenarios


def main() -> None:
    for scenario in scenarios():
        for name, text in rendered(scenario).items():
            path = scenario.report_dir / name
            write_atomic(path, text)
            print(f"wrote {path}")


if __name__ == "__main__":
    main()
