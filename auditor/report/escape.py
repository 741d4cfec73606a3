"""One escaping layer per output context, for every string that came from a log or a catalog.

Tool names, property keys, enum values, pointers, file names and error messages quoting them
are written by others, and the reports land in places that act on what they read: a Markdown
job summary or pull-request comment (headings, table rows, images, ``@mentions``), the GitHub
Actions runner (a line starting with ``::`` is a workflow command), an XML parser (most C0
characters are not allowed at all, even escaped), a terminal (escape sequences, bidi
overrides that reorder what is shown). Each function here makes a string inert in one of
those contexts; renderers apply them to data, never to their own wording's markup.

``visible`` is the base of every human-readable context: characters that act instead of
showing (C0 and C1 controls, DEL, bidi controls, line and paragraph separators, XML 1.0's
non-characters, lone surrogates) are written as their escapes, ``repr``-style (``\\n``,
``\\x1b``, ``\\u202e``); a lone surrogate standing for a byte of a non-UTF-8 file name
(``surrogateescape``) is written as that byte (``\\xe9``), so no output holds invalid UTF-8.
Backslashes are left as they are, so ordinary text reads unchanged.

No renderer reads Markdown back: the wording shared by the formats is ``Prose`` (wording and
data pieces), which ``auditor.report.prose`` writes for each format with the functions here.
"""

from __future__ import annotations

import html
import re
from typing import Final

_ACTIVE: Final = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ufeff\ufffe\uffff\ud800-\udfff]"
)
"""Characters that act rather than show: controls, bidi controls, separators, non-characters
(U+FFFE, U+FFFF are not allowed in XML 1.0), surrogates (not Unicode text on their own)."""
_NAMED: Final = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, carried by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` on one line with every active character written as its escape."""
    return _ACTIVE.sub(_escaped, text)


def terminal(text: str) -> str:
    """Text for a terminal or a plain-text file: no escape sequence, no line break."""
    return visible(text)


def one_line(text: str) -> str:
    """A message on stderr: one line, whatever it quotes."""
    return visible(text)


# Markdown ------------------------------------------------------------------------------------

_MD_PUNCTUATION: Final = re.compile(r"([\\`*\[\]|~!$]|^#|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
"""Backslash-escaped: emphasis, code, links and images, table cells, strikethrough, math
(GitHub reads ``$ref '#/$defs`` as a formula), a heading's ``#``. An ``_`` between two
letters or digits cannot emphasize (``search_docs`` stays as it is). ``<``, ``>`` and ``&``
are written as entities (no HTML, no entity of the data's own)."""
_LINKED: Final = re.compile(
    r"(?:@(?=[a-z0-9])"  # a mention (@octocat), an e-mail address, user@sha
    r"|#(?=[0-9])"  # an issue or pull request: #12, owner/repo#12
    r"|(?<![a-z0-9])GH-(?=[0-9])"  # GH-12
    r"|:(?=//)"  # a URL: http://, https://, ftp://
    r"|(?<![a-z0-9])www(?=\.))"  # www.example.com
    r"|(?P<hex>(?<![a-z0-9_])[0-9a-f]{7,}(?![a-z0-9_]))",  # a commit: 7 to 40 hex digits
    re.IGNORECASE,
)
"""Text GitHub turns into a link or a notification where Markdown it renders shows it:
GitHub-flavoured Markdown's autolinks (``www.``, ``http://``, e-mail addresses) and
GitHub's references (mentions, issues, commits). Code spans and code blocks are left alone;
in text, an invisible zero-width space after the character that starts one is enough."""
_BREAK: Final = "&#8203;"
"""A zero-width space, as an entity: shown as nothing, and no autolink or reference spans it."""


def _unlinked(markup: str) -> str:
    """Escaped Markdown text or HTML text in which nothing links or mentions (``_LINKED``)."""

    def broken(match: re.Match[str]) -> str:
        digits = match.group("hex")
        if digits is None:
            return match.group() + _BREAK
        return _BREAK.join(digits[i : i + 6] for i in range(0, len(digits), 6))

    return _LINKED.sub(broken, markup)


def md_text(text: str) -> str:
    """Inline Markdown text (also a table cell): shown as written, acting as nothing.

    What could start markup is escaped; a zero-width space after ``@`` keeps a name from
    becoming a mention that notifies someone (as Renovate does), and one in each URL, issue
    reference and commit-like run of hex digits keeps GitHub from linking it (``_LINKED``).
    """
    text = _MD_PUNCTUATION.sub(r"\\\1", visible(text))
    return _unlinked(html.escape(text, quote=False))


def md_html(text: str) -> str:
    """Text inside the HTML of a Markdown document (a ``<summary>``, where Markdown is not
    read): HTML-escaped, and nothing in it links or mentions (as in ``md_text``). Inside
    ``<code>``, where GitHub links and mentions nothing, ``html_text`` is enough."""
    return _unlinked(html_text(text))


def md_quoted(text: str) -> str:
    """A message that quotes names in backticks (lint findings): each quoted name as a code
    span, the rest as inline text. Whatever the names hold, every piece is escaped."""
    pieces = re.split(r"`([^`]*)`", text)
    return "".join(
        md_code(piece) if index % 2 else md_text(piece) for index, piece in enumerate(pieces)
    )


def md_cell(text: str) -> str:
    """A Markdown table cell (``|`` is escaped by ``md_text`` already)."""
    return md_text(text)


def md_code(text: str, cell: bool = False) -> str:
    """A code span holding ``text``: a fence longer than any backtick run inside, padded when
    the content starts or ends with a backtick or with a space at both ends. ``cell`` for a
    table cell, where GitHub splits on ``|`` even inside code. Markdown has no empty code
    span: ``""`` shows as one space."""
    content = visible(text)
    if not content:
        return "` `"
    if cell:
        content = content.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    fence = "`" * (longest + 1)
    # CommonMark strips one space from each end when both are spaces (and not all are): the
    # padding is what it strips, and a backtick at an end cannot join the fence.
    spaced = content[0] == content[-1] == " " and content.strip(" ")
    if content[0] == "`" or content[-1] == "`" or spaced:
        content = f" {content} "
    return f"{fence}{content}{fence}"


def md_fence(content: str) -> str:
    """A code block fence longer than any backtick run in ``content`` (at least three)."""
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    return "`" * max(3, longest + 1)


# HTML, XML, GitHub workflow commands ---------------------------------------------------------


def html_text(text: str) -> str:
    """HTML text or attribute value."""
    return html.escape(visible(text), quote=True)


def xml_text(text: str) -> str:
    """XML 1.0 text or attribute value, before the serializer escapes ``& < > "``: every
    character XML 1.0 does not allow (most C0 controls, U+FFFE, U+FFFF, surrogates) shown
    as its escape, so the document parses with a strict parser."""
    return visible(text)


def escape_data(text: str) -> str:
    """actions/toolkit ``escapeData``: ``%`` first, so the escapes it adds are not escaped."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """actions/toolkit ``escapeProperty``: as data, and ``:`` and ``,`` which end a property."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_data(text: str) -> str:
    """The message of a workflow command: one visible line, then ``escapeData``. No data can
    start a line of its own, so none can start ``::error``, ``::add-mask::`` or
    ``::stop-commands::``, and no control character reaches the log viewer."""
    return escape_data(visible(text))


def github_property(text: str) -> str:
    """A property value of a workflow command: one visible line, then ``escapeProperty``."""
    return escape_property(visible(text))
