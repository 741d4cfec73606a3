"""A results report's hints are worded for results: auditor's words change, data never."""

from __future__ import annotations

from auditor.aggregate.subjects import reworded
from auditor.models import Prose, Span, SpanKind


def test_the_wording_speaks_of_the_server_and_results() -> None:
    hint = Prose.of(
        "3 of 40 calls of ",
        Span.code("search"),
        " fail ",
        Span.code("maxLength"),
        ": likely caller bugs; keep ",
        Span.code("maxLength"),
        " and fix the callers.",
    )
    text = "".join(span.text for span in reworded(hint).spans)
    assert text == (
        "3 of 40 results of search fail maxLength: likely server bugs; keep maxLength and fix "
        "the server."
    )


def test_loosening_says_the_output_schema() -> None:
    hint = Prose.of(
        "9 of 10 calls of ",
        Span.code("a"),
        " fail ",
        Span.code("enum"),
        ": the constraint contradicts real use; consider removing or loosening ",
        Span.code("enum"),
        ".",
    )
    words = [s.text for s in reworded(hint).spans if s.kind is SpanKind.WORDS]
    assert any("loosen the output schema" in w for w in words)
    assert not any("real use" in w for w in words)


def test_data_is_never_reworded() -> None:
    hint = Prose.of("sent ", Span.code("fix the callers"), Span.data(" calls of "))
    spans = reworded(hint).spans
    assert [s.text for s in spans[1:]] == ["fix the callers", " calls of "]
