"""The reports' Markdown subset read back: ``**bold**``, code spans and escaped text.

No renderer reads Markdown back (the shared wording is ``Prose``, written for each format by
``auditor.report.prose``); the tests do, as an oracle: the literal text a Markdown line shows
(``plain``) and its HTML (``html_from_markdown``) are what the plain-text and HTML forms of
the same ``Prose`` must be, and what ``md_code``/``md_text`` must give back.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Final

from auditor.report.escape import html_text

_SPAN: Final = re.compile(
    r"(?P<code>(?P<fence>`+)(?P<content>.*?[^`]|)(?P=fence)(?!`))"
    r"|(?P<bold>\*\*)"
    r"|\\(?P<escaped>[!-/:-@\[-`{-~])"
    r"|(?P<entity>&(?:amp|lt|gt|#8203);)"
)


def spans(markdown: str) -> Iterator[tuple[str, str]]:
    """The report's Markdown subset as ``(kind, literal text)``: kind is ``text``, ``bold``
    (text between ``**``) or ``code``. Escapes and entities are undone; the zero-width space
    that breaks mentions is dropped."""
    bold = False
    plain: list[str] = []

    def flush() -> Iterator[tuple[str, str]]:
        if plain:
            yield ("bold" if bold else "text", "".join(plain))
            plain.clear()

    position = 0
    for match in _SPAN.finditer(markdown):
        plain.append(markdown[position : match.start()])
        position = match.end()
        if match.group("code") is not None:
            yield from flush()
            content = match.group("content")
            if content.startswith(" ") and content.endswith(" ") and content.strip(" "):
                content = content[1:-1]  # the padding md_code adds, as CommonMark strips it
            yield ("code", content)  # a table cell's code (cell=True) is not read back
        elif match.group("bold") is not None:
            yield from flush()
            bold = not bold
        elif match.group("escaped") is not None:
            plain.append(match.group("escaped"))
        else:
            entity = match.group("entity")
            plain.append("" if entity == "&#8203;" else html.unescape(entity))
    plain.append(markdown[position:])
    yield from flush()


def plain(markdown: str) -> str:
    """The report's Markdown as the text it shows (for formats without markup)."""
    return "".join(text for _, text in spans(markdown))


def html_from_markdown(markdown: str) -> str:
    """The report's Markdown as HTML: bold, code, and escaped text."""
    out = []
    for kind, text in spans(markdown):
        shown = html_text(text)
        if kind == "code":
            out.append(f"<code>{shown}</code>")
        elif kind == "bold":
            out.append(f"<strong>{shown}</strong>")
        else:
            out.append(shown)
    return "".join(out)
