"""The HTML report in a real headless Chromium: it renders, self-contained, with the chart."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from auditor.report import Format, render
from tests.samples import run, scenarios

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _html() -> str:
    return render(run(scenarios()[0]), Format.HTML)


def test_html_is_self_contained() -> None:
    text = _html()
    assert "<svg" in text and "<details>" in text
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", text)
    assert "<script" not in text and "@import" not in text and "url(" not in text


@pytest.mark.chromium
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_html_renders_in_headless_chromium(tmp_path: Path) -> None:
    page = tmp_path / "audit.html"
    page.write_text(_html(), encoding="utf-8")
    screenshot = tmp_path / "audit.png"
    completed = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1100,1400",
            f"--screenshot={screenshot}",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    data = screenshot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 20_000  # a blank page compresses to a few kilobytes
    keep = Path("/tmp/auditor-html-screenshot.png")
    shutil.copyfile(screenshot, keep)
