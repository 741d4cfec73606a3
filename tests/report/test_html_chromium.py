"""The HTML report in a real headless Chromium: it renders, self-contained, fits a 420-pixel
screen without sideways page scroll, and follows the reader's dark mode.

Chromium will not make a window narrower than 500 pixels, so the page is measured inside a
420-pixel ``iframe`` of a probe page; ``srcdoc`` keeps it same-origin, so the probe's script
can read the report's layout (the report itself has no script). The probe writes what it
measured into its title, which ``--dump-dom`` prints.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from auditor.report import Format, render
from tests.samples import run, scenarios

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NARROW = 420
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")

_PROBE = """<!DOCTYPE html><html><head><title>probe</title></head><body style="margin:0">
<iframe id="page" width="{width}" height="900" style="border:0" srcdoc="{page}"></iframe>
<script>
const frame = document.getElementById("page");
frame.addEventListener("load", () => {{
  const doc = frame.contentDocument, win = frame.contentWindow;
  const style = (selector, property) => {{
    const element = doc.querySelector(selector);
    return element ? win.getComputedStyle(element)[property] : null;
  }};
  // Elements reaching past the viewport, outside the boxes that scroll on their own.
  const wide = [...doc.querySelectorAll("body *")]
    .filter(e => !e.closest(".scroll") && e.getBoundingClientRect().right > win.innerWidth)
    .map(e => e.tagName.toLowerCase() + "." + e.className);
  const scrollers = [...doc.querySelectorAll(".scroll")];
  document.title = JSON.stringify({{
    scrollWidth: doc.documentElement.scrollWidth,
    clientWidth: doc.documentElement.clientWidth,
    wide: wide.slice(0, 10),
    tableOverflows: scrollers.some(s => s.scrollWidth > s.clientWidth),
    scrollerFits: scrollers.every(s => s.getBoundingClientRect().right <= win.innerWidth),
    dark: win.matchMedia("(prefers-color-scheme: dark)").matches,
    background: style("body", "backgroundColor"),
    text: style("body", "color"),
    hint: style(".hint", "backgroundColor"),
    hintText: style(".hint", "color"),
  }});
}});
</script></body></html>
"""


def _html() -> str:
    return render(run(scenarios()[0]), Format.HTML)


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _measure(tmp_path: Path, page: str, width: int, dark: bool) -> dict[str, Any]:
    probe = tmp_path / f"probe-{width}-{dark}.html"
    probe.write_text(
        _PROBE.format(width=width, page=html.escape(page, quote=True)), encoding="utf-8"
    )
    flags = ["--force-dark-mode"] if dark else []
    completed = _chromium(tmp_path, "--window-size=900,1000", *flags, "--dump-dom", probe.as_uri())
    assert completed.returncode == 0, completed.stderr
    title = re.search(r"<title>(.*?)</title>", completed.stdout, re.S)
    assert title is not None and title.group(1) != "probe", completed.stdout[:500]
    measured: dict[str, Any] = json.loads(html.unescape(title.group(1)))
    return measured


def _rgb(css: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", css)[:3])


def _luminance(css: str) -> float:
    """Relative luminance (WCAG 2), 0 for black to 1 for white."""
    channels = [c / 255 for c in _rgb(css)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_html_is_self_contained() -> None:
    text = _html()
    assert 'class="chart"' in text and "<details>" in text
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", text)
    assert "<script" not in text and "@import" not in text and "url(" not in text
    assert "@font-face" not in text


@pytest.mark.chromium
@needs_chromium
def test_html_renders_in_headless_chromium(tmp_path: Path) -> None:
    page = tmp_path / "audit.html"
    page.write_text(_html(), encoding="utf-8")
    screenshot = tmp_path / "audit.png"
    completed = _chromium(
        tmp_path, "--window-size=1100,1400", f"--screenshot={screenshot}", page.as_uri()
    )
    assert completed.returncode == 0, completed.stderr
    data = screenshot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 20_000  # a blank page compresses to a few kilobytes
    keep = Path("/tmp/auditor-html-screenshot.png")
    shutil.copyfile(screenshot, keep)


@pytest.mark.chromium
@needs_chromium
@pytest.mark.parametrize("scenario", scenarios(), ids=[s.name for s in scenarios()])
def test_html_fits_420_pixels_with_tables_scrolling_in_their_box(
    tmp_path: Path, scenario: Any
) -> None:
    measured = _measure(tmp_path, render(run(scenario), Format.HTML), NARROW, dark=False)
    assert measured["clientWidth"] <= NARROW
    assert measured["scrollWidth"] <= measured["clientWidth"], measured
    assert measured["wide"] == []
    assert measured["scrollerFits"]
    # The summary table is wider than 420 pixels: it scrolls, inside its own box.
    assert measured["tableOverflows"]


@pytest.mark.chromium
@needs_chromium
def test_a_page_wider_than_420_pixels_is_caught(tmp_path: Path) -> None:
    wide = _html().replace("<body>", '<body><div style="width:700px">wide</div>', 1)
    measured = _measure(tmp_path, wide, NARROW, dark=False)
    assert measured["scrollWidth"] > measured["clientWidth"]
    assert measured["wide"]


@pytest.mark.chromium
@needs_chromium
def test_html_follows_dark_mode_and_stays_readable(tmp_path: Path) -> None:
    page = _html()
    light = _measure(tmp_path, page, NARROW, dark=False)
    dark = _measure(tmp_path, page, NARROW, dark=True)
    assert (light["dark"], dark["dark"]) == (False, True)
    assert _luminance(light["background"]) > 0.8 and _luminance(dark["background"]) < 0.05
    for mode in (light, dark):
        assert _contrast(mode["background"], mode["text"]) >= 7  # WCAG AAA for body text
        assert mode["hint"] is not None
        assert _contrast(mode["hint"], mode["hintText"]) >= 4.5  # AA inside hint boxes
    assert light["hint"] != dark["hint"]
