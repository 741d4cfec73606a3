"""``Prose`` (a hint, an evidence line) written for each format: the pieces are data, so
each renderer escapes each piece for its own context and nothing is parsed back.

Wording (``SpanKind.WORDS``, ``STRONG``) holds no markup and no logged data: it is written
as it is in Markdown (``**bold**`` for strong) and escaped as text elsewhere. Data is
escaped as inline text (``TEXT``) or shown as code (``CODE``): a Markdown code span, an HTML
``<code>``, the text itself in a terminal. The Markdown form is the one the JSON report carries.
"""

from __future__ import annotations

import re

from auditor.models import Prose, Span, SpanKind
from auditor.report.escape import html_text, md_code, md_text, visible


def markdown(prose: Prose) -> str:
    """``3 of 4 calls of `search` fail `minItems```: data in code spans or escaped text."""
    return "".join(_markdown(span) for span in prose.spans)


def html(prose: Prose) -> str:
    """HTML text, with code in ``<code>``."""
    return "".join(_html(span) for span in prose.spans)


def plain(prose: Prose) -> str:
    """The text it shows, on one line (for formats without markup: escape it for the
    format's context, as any text)."""
    return "".join(_plain(span) for span in prose.spans)


def quoted(message: str) -> Prose:
    """A message that quotes names in backticks (lint findings): each quoted name as code,
    the rest as text (``escape.md_quoted`` is its Markdown)."""
    pieces = re.split(r"`([^`]*)`", message)
    return Prose.of(
        *(Span.code(piece) if index % 2 else Span.data(piece) for index, piece in enumerate(pieces))
    )


def _markdown(span: Span) -> str:
    if span.kind is SpanKind.CODE:
        return md_code(span.text)
    if span.kind is SpanKind.STRONG:
        return f"**{span.text}**"
    return md_text(span.text) if span.kind is SpanKind.TEXT else span.text


def _html(span: Span) -> str:
    text = html_text(_plain(span))
    if span.kind is SpanKind.CODE:
        return f"<code>{text}</code>"
    return f"<strong>{text}</strong>" if span.kind is SpanKind.STRONG else text


def _plain(span: Span) -> str:
    if span.kind is SpanKind.CODE:
        return visible(span.text) or " "  # Markdown has no empty code span: it shows a space
    return visible(span.text)
