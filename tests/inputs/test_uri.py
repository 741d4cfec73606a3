"""Logs and catalogs named by URI, read through fsspec's ``memory://`` and ``file://`` file
systems (no network): prefixes list like directories, gzip objects are read whole, sources
name the URI as given, and what cannot be read is one line and exit 2."""

from __future__ import annotations

import gzip
import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from auditor.inputs.uri import is_uri, masked
from tests.conftest import run_cli

fsspec = pytest.importorskip("fsspec", reason="fsspec (the cloud extra) is not installed")

CATALOG = {"search": {"type": "object", "properties": {"q": {"type": "string", "min_length": 2}}}}
# Normalized, min_length becomes minLength: "x" and "y" are newly rejected, the others pass.
LOGS = {
    "a.jsonl": b'{"tool": "search", "arguments": {"q": "x"}}\n'
    b'{"tool": "search", "arguments": {"q": "xyz"}}\n',
    "c.ndjson": b'{"tool": "search", "arguments": {"q": "zz"}}\n',
    "sub/b.jsonl.gz": gzip.compress(b'{"tool": "search", "arguments": {"q": "y"}}\n'),
    "notes.txt": b"not a log: its name has no log suffix\n",
}


@pytest.fixture
def bucket() -> Iterator[str]:
    """A fresh ``memory://`` bucket holding the catalog and the logs; removed afterwards."""
    name = f"bucket-{uuid.uuid4().hex[:8]}"
    memory = fsspec.filesystem("memory")
    memory.pipe(f"/{name}/tools/catalog.json", json.dumps(CATALOG).encode())
    for path, data in LOGS.items():
        memory.pipe(f"/{name}/logs/{path}", data)
    yield f"memory://{name}"
    memory.rm(f"/{name}", recursive=True)


def _audit(
    capsys: pytest.CaptureFixture[str], schemas: str, *logs: str, extra: tuple[str, ...] = ()
) -> tuple[int, Any, str]:
    args = ["audit", "--schemas", schemas, "--logs", *logs, "--no-report-files"]
    code, out, err = run_cli([*args, "--format", "json", *extra], capsys)
    return code, json.loads(out) if out else None, err


def test_a_prefix_stands_for_its_log_objects_in_order(
    bucket: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report, _ = _audit(capsys, f"{bucket}/tools", f"{bucket}/logs/", extra=("--jobs", "2"))
    assert code == 1
    # The prefix as given (its trailing slash dropped), plus each object's path below it; the
    # text file is not a log, the gzip object is read whole and decompressed.
    assert [(log["path"], log["calls"]) for log in report["inputs"]["logs"]] == [
        (f"{bucket}/logs/a.jsonl", 2),
        (f"{bucket}/logs/c.ndjson", 1),
        (f"{bucket}/logs/sub/b.jsonl.gz", 1),
    ]
    assert report["inputs"]["schemas"] == [f"{bucket}/tools"]
    assert report["totals"]["calls"] == 4
    assert report["totals"]["newly_rejected"] == 2
    assert report["totals"]["accepted"] == 2
    assert sorted(call["source"] for call in report["calls"]) == [
        f"{bucket}/logs/a.jsonl:1",
        f"{bucket}/logs/sub/b.jsonl.gz:1",
    ]
    assert report["tools"][0]["source"].startswith(f"{bucket}/tools/catalog.json:1:")


def test_a_file_uri_reads_as_the_path_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "catalog.json").write_text(json.dumps(CATALOG))
    for path, data in LOGS.items():
        (tmp_path / "logs" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "logs" / path).write_bytes(data)
    catalog, logs = tmp_path / "catalog.json", tmp_path / "logs"
    plain = _audit(capsys, str(catalog), str(logs))
    uri = _audit(capsys, f"file://{catalog}", f"file://{logs}")
    assert plain[0] == uri[0] == 1
    # The same report, but for how the inputs are named.
    as_uri = json.dumps(plain[1]).replace(str(tmp_path), f"file://{tmp_path}")
    assert json.loads(as_uri) == uri[1]
    assert uri[1]["totals"]["newly_rejected"] == 2


def test_a_missing_object_exits_2_naming_it(
    bucket: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report, err = _audit(capsys, f"{bucket}/tools", f"{bucket}/logs/gone.jsonl")
    assert (code, report) == (2, None)
    assert err == f"auditor: error: {bucket}/logs/gone.jsonl: no such file\n"
    code, _, err = _audit(capsys, f"{bucket}/tools/gone.json", f"{bucket}/logs")
    assert code == 2
    assert err == f"auditor: error: {bucket}/tools/gone.json: no such file\n"


def test_a_prefix_without_logs_is_as_empty_as_a_folder_without_logs(
    bucket: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _audit(capsys, f"{bucket}/tools", f"{bucket}/tools")
    assert code == 2  # catalog.json is a .json: read as a log, in no known log format
    assert "not a call log in a known format" in err
    fsspec.filesystem("memory").pipe(f"/{bucket[9:]}/empty/notes.txt", b"x")
    code, _, err = _audit(capsys, f"{bucket}/tools", f"{bucket}/empty", f"{bucket}/logs")
    assert code == 1
    assert f"auditor: warning: {bucket}/empty: no log files (.jsonl," in err


def test_a_catalog_object_over_the_bound_is_refused(
    bucket: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _audit(
        capsys, f"{bucket}/tools", f"{bucket}/logs", extra=("--max-catalog-bytes", "10")
    )
    assert (code, err) == (
        2,
        f"auditor: error: {bucket}/tools/catalog.json: larger than the 10 bytes a catalog may "
        "have (--max-catalog-bytes)\n",
    )


def test_a_password_in_a_uri_is_never_shown(capsys: pytest.CaptureFixture[str]) -> None:
    uri = "memory://reader:hunter2@nowhere/logs/gone.jsonl"
    code, _, err = _audit(capsys, uri, uri)
    assert code == 2
    assert err == "auditor: error: memory://reader:***@nowhere/logs/gone.jsonl: no such file\n"
    assert masked("abfs://container@account.dfs.core.windows.net/x") == (
        "abfs://container@account.dfs.core.windows.net/x"  # no password: as given
    )


def test_what_names_a_uri() -> None:
    assert is_uri("s3://bucket/logs") and is_uri("abfs://c@a/x") and is_uri("file:///tmp/x")
    assert not is_uri("logs/calls.jsonl") and not is_uri("-") and not is_uri("C:\\logs")
    assert not is_uri("weird:name.jsonl")


def test_a_store_without_its_package_or_an_unknown_scheme_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def missing(uri: str) -> Any:
        raise ImportError("Install s3fs to access S3")  # fsspec's words when s3fs is absent

    code, _, err = _audit(capsys, "nope://bucket/tools.json", "nope://bucket/logs")
    assert (code, err) == (
        2,
        "auditor: error: nope://bucket/tools.json: nope:// is not read (auditor reads s3, s3a, "
        "gs, gcs, abfs, abfss, az, file, memory; http, https, ftp with --allow-web-uris)\n",
    )
    monkeypatch.setattr(fsspec.core, "url_to_fs", missing)
    code, _, err = _audit(capsys, "s3://bucket/tools.json", "s3://bucket/logs")
    assert (code, err) == (2, "auditor: error: s3://bucket/tools.json: Install s3fs to access S3\n")


def test_without_fsspec_a_uri_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "fsspec", None)  # import fsspec now fails
    (tmp_path / "catalog.json").write_text(json.dumps(CATALOG))
    code, _, err = _audit(capsys, str(tmp_path / "catalog.json"), "s3://bucket/logs/")
    assert code == 2
    assert err == (
        "auditor: error: s3://bucket/logs/: reading a URI needs fsspec, the cloud extra: "
        "pip install 'tool-schema-auditor[cloud]'\n"
    )


def test_a_store_error_on_opening_is_one_line(
    bucket: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class NoCredentialsError(Exception):  # as botocore's, which is no OSError
        pass

    def refuse(self: Any, path: str, mode: str = "rb", **kwargs: Any) -> Any:
        raise NoCredentialsError("Unable to locate credentials")

    memory = type(fsspec.filesystem("memory"))
    monkeypatch.setattr(memory, "open", refuse)
    code, _, err = _audit(capsys, f"{bucket}/tools", f"{bucket}/logs/a.jsonl")
    # The exception's class, not its text: a store's message may quote its response.
    assert (code, err) == (
        2,
        f"auditor: error: {bucket}/tools/catalog.json: cannot read: NoCredentialsError\n",
    )


def test_a_prefix_that_cannot_be_listed_exits_2(
    bucket: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse(self: Any, path: str, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied")

    memory = type(fsspec.filesystem("memory"))
    monkeypatch.setattr(memory, "isdir", refuse)
    code, _, err = _audit(capsys, f"{bucket}/tools/", f"{bucket}/logs")
    assert (code, err) == (2, f"auditor: error: {bucket}/tools/: cannot list: Permission denied\n")


def test_a_file_system_that_fails_to_start_is_one_line_without_its_text(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def failing(uri: str) -> Any:  # as reference:// did: a TypeError, an internal error
        raise TypeError("__init__() missing 'fo'; the server said: SECRET")

    monkeypatch.setattr(fsspec.core, "url_to_fs", failing)
    code, _, err = _audit(capsys, "memory://bucket/tools.json", "memory://bucket/logs")
    assert (code, err) == (
        2,
        "auditor: error: memory://bucket/tools.json: cannot be read: TypeError\n",
    )
