"""No network, ever (issue 7): with the socket layer blocked and file opens watched, an
audit over schemas full of remote references completes, and every call that reaches one
gets ``schema_error_after`` naming the reference."""

from __future__ import annotations

import json
import socket
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from auditor.cli import main

AUDIT = ("audit", "--no-report-files", "--schemas")
_opened: list[str] = []
_watching: list[bool] = [False]


def _hook(
    event: str,
    args: tuple[Any, ...],
    _watching: list[bool] = _watching,
    _opened: list[str] = _opened,
) -> None:
    # An audit hook cannot be removed, so it records only while a test watches. Its lists
    # are bound as defaults: at interpreter exit the module's globals are None, and the
    # hook still runs for what is opened then.
    if _watching[0] and event == "open" and args and isinstance(args[0], (str, Path)):
        _opened.append(str(args[0]))


sys.addaudithook(_hook)


class NetworkUsed(AssertionError):
    """Something tried to reach the network."""


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Make every way out raise, and record the files opened meanwhile."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise NetworkUsed(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    _opened.clear()
    _watching[0] = True
    try:
        yield _opened
    finally:
        _watching[0] = False


def test_remote_references_are_never_fetched_nor_opened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_network: list[str]
) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text('{"type": "string"}')
    remote = {
        "http": {"$ref": "http://example.com/s.json"},
        "https": {"$ref": "https://example.com/s.json#/$defs/x"},
        "file": {"$ref": secret.as_uri()},
        "relative": {"$id": "https://example.com/root.json", "$ref": "other.json"},
        "file_base": {"$id": tmp_path.as_uri() + "/", "$ref": "secret.json"},
        "meta": {"$schema": "https://example.com/meta", "$ref": "https://example.com/m"},
        "nested": {"properties": {"a": {"items": {"$ref": "http://127.0.0.1:9/x"}}}},
    }
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps(remote))
    log = tmp_path / "calls.jsonl"
    calls = [{"tool": name, "arguments": {"a": [1]}} for name in remote]
    log.write_text("".join(json.dumps(call) + "\n" for call in calls))
    report = tmp_path / "report.json"
    no_network.clear()  # the files this test wrote itself
    with pytest.raises(SystemExit) as done:
        main(
            [*AUDIT, str(catalog), "--logs", str(log), "--format", "json", "--output", str(report)]
        )
    # Every call meets a reference that is never fetched: it will fail, and the gate says so.
    assert done.value.code == 1, capsys.readouterr().err
    document = json.loads(report.read_text())
    assert document["totals"]["schema_error_after"] == len(remote)
    for call in document["calls"]:
        assert "remote references are never fetched" in call["schema_problem"]
    assert str(secret) not in no_network
