"""Issue 11, parts 1, 6 and 7: writes that never destroy what a path names, unusable input
as one line and exit 2, and only the files the user meant.

Device nodes and FIFOs are private ones made under ``tmp_path`` (never ``/dev``): the tests
run as root, where renaming over ``/dev/null`` would break the machine.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import stat
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import AUDITOR, run_cli

HOSTILE = Path(__file__).resolve().parent / "hostile"
OK_LINE = b'{"tool": "search", "arguments": {"q": "hello"}}\n'
NULL_DEVICE = os.makedev(1, 3)
"""The major and minor numbers of /dev/null, for a private node with the same behaviour."""


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    """A catalog (two snake_case keywords) and a log of one accepted call."""
    catalog = tmp_path / "tools.json"
    catalog.write_bytes((HOSTILE / "tools.json").read_bytes())
    log = tmp_path / "calls.jsonl"
    log.write_bytes(OK_LINE)
    return catalog, log


def _audit(inputs: tuple[Path, Path], *extra: str) -> list[str]:
    catalog, log = inputs
    return ["audit", "--schemas", str(catalog), "--logs", str(log), *extra]


class AnyStartingWith(str):
    """Equal to any string that starts with it (for a line whose end explains itself)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and other.startswith(self)

    __hash__ = str.__hash__


def _null_device(path: Path) -> Path:
    os.mknod(path, stat.S_IFCHR | 0o666, NULL_DEVICE)
    return path


def _is_null_device(path: Path) -> bool:
    status = os.lstat(path)
    return stat.S_ISCHR(status.st_mode) and status.st_rdev == NULL_DEVICE


# --- part 1: what a path names decides how it is written ---------------------------------


def _writers(inputs: tuple[Path, Path], target: Path) -> dict[str, list[str]]:
    """Every command line that writes a file, aimed at ``target``."""
    catalog, _ = inputs
    quiet = ("--no-report-files", "--quiet")
    return {
        "audit --output": _audit(inputs, *quiet, "--format", "json", "--output", str(target)),
        "audit --generate-baseline": _audit(inputs, *quiet, "--generate-baseline", str(target)),
        "lint --output": ["lint", str(catalog), "--output", str(target)],
    }


WRITERS = ["audit --output", "audit --generate-baseline", "lint --output"]


@pytest.mark.parametrize("writer", WRITERS)
def test_a_regular_file_is_replaced_atomically_and_keeps_its_mode(
    writer: str, inputs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    target.chmod(0o640)
    before = target.stat().st_ino
    code, _, err = run_cli(_writers(inputs, target)[writer], capsys)
    assert code in (0, 1), err  # lint finds the two snake_case keywords: exit 1
    assert target.read_text() not in ("", "old\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.stat().st_ino != before  # a new file renamed over the old one
    assert sorted(p.name for p in tmp_path.iterdir()) == ["calls.jsonl", "out.txt", "tools.json"]


def test_the_temporary_file_is_synced_before_the_rename(
    inputs: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(descriptor: int) -> None:
        kind = "folder" if stat.S_ISDIR(os.fstat(descriptor).st_mode) else "file"
        events.append(f"fsync {kind}")
        real_fsync(descriptor)

    def replace(source: Any, destination: Any) -> None:
        events.append("rename")
        real_replace(source, destination)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    target = tmp_path / "report.json"
    args = _audit(inputs, "--no-report-files", "--format", "json", "--output", str(target))
    assert run_cli(args, capsys)[0] == 0
    assert events == ["fsync file", "rename", "fsync folder"]


@pytest.mark.parametrize("writer", WRITERS)
def test_a_device_node_is_written_in_place_and_stays_a_device(
    writer: str, inputs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    device = _null_device(tmp_path / "null")
    code, _, err = run_cli(_writers(inputs, device)[writer], capsys)
    assert code in (0, 1), err
    assert _is_null_device(device)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["calls.jsonl", "null", "tools.json"]


def test_report_files_that_are_device_nodes_stay_devices(
    inputs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    markdown = _null_device(reports / "audit.md")
    code, _, err = run_cli(_audit(inputs, "--report-dir", str(reports)), capsys)
    assert code == 0, err
    assert _is_null_device(markdown)
    assert json.loads((reports / "audit.json").read_text())["totals"]["accepted"] == 1


def _reader(fifo: Path) -> tuple[threading.Thread, list[bytes]]:
    """A thread that opens ``fifo`` for reading and keeps all it reads."""
    received: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as stream:
            received.append(stream.read())

    thread = threading.Thread(target=read, daemon=True)  # stuck forever if nothing comes
    thread.start()
    return thread, received


def test_a_fifo_reaches_its_reader(
    inputs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader, received = _reader(fifo)
    args = _audit(inputs, "--no-report-files", "--format", "json", "--output", str(fifo))
    code, _, err = run_cli(args, capsys)
    reader.join(timeout=30)
    assert code == 0, err
    assert received and json.loads(received[0])["totals"]["accepted"] == 1
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_socket_receives_the_text(
    inputs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sock"
    received: list[bytes] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        server.listen(1)
        server.settimeout(30)

        def serve() -> None:
            connection, _ = server.accept()
            with connection:
                chunks = iter(lambda: connection.recv(65536), b"")
                received.append(b"".join(chunks))

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        args = _audit(inputs, "--no-report-files", "--format", "json", "--output", str(path))
        code, _, err = run_cli(args, capsys)
        thread.join(timeout=30)
    assert code == 0, err
    assert received and json.loads(received[0])["totals"]["accepted"] == 1
    assert stat.S_ISSOCK(os.lstat(path).st_mode)


def test_a_symlink_is_written_through_and_stays_a_link(
    inputs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "report.json"
    target.write_text("old\n")
    target.chmod(0o600)
    link = tmp_path / "report.json"
    link.symlink_to(Path("real") / "report.json")
    args = _audit(inputs, "--no-report-files", "--format", "json", "--output", str(link))
    assert run_cli(args, capsys)[0] == 0
    assert link.is_symlink() and os.readlink(link) == os.path.join("real", "report.json")
    assert json.loads(target.read_text())["totals"]["accepted"] == 1
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert os.listdir(tmp_path / "real") == ["report.json"]


def test_a_symlinked_catalog_is_normalized_through_its_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "shared.json"
    shared.write_bytes((HOSTILE / "tools.json").read_bytes())
    link = tmp_path / "tools.json"
    link.symlink_to(shared)
    code, _, err = run_cli(["normalize", "--write", str(link)], capsys)
    assert code == 0, err
    assert link.is_symlink()
    assert '"maxLength": 20' in shared.read_text()


def test_a_dangling_symlink_is_refused_in_one_line(
    inputs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "report.json"
    link.symlink_to(tmp_path / "missing" / "report.json")
    args = _audit(inputs, "--no-report-files", "--format", "json", "--output", str(link))
    code, _, err = run_cli(args, capsys)
    assert code == 2
    assert err.startswith(f"auditor: error: {link}: cannot write: a symbolic link to ")
    assert len(err.splitlines()) == 1
    assert link.is_symlink() and not (tmp_path / "missing").exists()


def test_a_directory_is_refused_in_one_line(
    inputs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    args = _audit(inputs, "--no-report-files", "--format", "json", "--output", str(folder))
    code, _, err = run_cli(args, capsys)
    assert (code, err) == (2, f"auditor: error: {folder}: cannot write: Is a directory\n")
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("via_link", [False, True])
def test_a_descriptor_path_writes_to_that_descriptor(
    inputs: tuple[Path, Path], tmp_path: Path, via_link: bool
) -> None:
    # /proc/self/fd/1 of the child is its stdout, a pipe: renaming over it cannot work, and
    # the report must come out of the pipe. (Never /dev/stdout itself in a test: renaming
    # over that, as root, would break the machine.)
    output = "/proc/self/fd/1"
    if via_link:
        link = tmp_path / "out.json"
        link.symlink_to(output)
        output = str(link)
    catalog, log = inputs
    done = subprocess.run(
        [
            *AUDITOR,
            "audit",
            "--schemas",
            str(catalog),
            "--logs",
            str(log),
            "--no-report-files",
            "--format",
            "json",
            "--output",
            output,
            "--quiet",
        ],
        capture_output=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["totals"]["accepted"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["calls.jsonl", "tools.json", *(["out.json"] if via_link else [])]
    )


def test_standard_output_paths_are_recognised_without_writing_them() -> None:
    from auditor.output import names_stdout

    assert names_stdout("-") and names_stdout("/dev/stdout") and names_stdout("/dev/fd/1")
    assert names_stdout(f"/proc/{os.getpid()}/fd/1") and names_stdout("/proc/self/fd/1")
    assert not names_stdout("/dev/stderr") and not names_stdout("/proc/1/fd/1")
    assert not names_stdout("stdout")


# --- part 1: two runs writing one report folder ------------------------------------------


def _waiting_on_a_lock(pid: int) -> bool:
    """Whether process ``pid`` waits for a lock (``/proc/locks`` marks waiters with ->)."""
    with open("/proc/locks") as locks:
        return any("->" in line and f" {pid} " in f" {line} " for line in locks)


def test_two_audits_writing_one_report_folder_leave_a_matching_pair(
    inputs: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    catalog, _ = inputs
    reports = tmp_path / "reports"
    other_log = tmp_path / "other.jsonl"
    other_log.write_bytes(OK_LINE * 2)
    real_replace = os.replace
    others: list[subprocess.Popen[bytes]] = []

    def replace(source: Any, destination: Any) -> None:
        real_replace(source, destination)
        if Path(destination).name == "audit.md" and not others:
            # Between this run's two renames, a second run writes the same folder. It must
            # wait for this one (or, without a lock, it finishes and the pair gets mixed).
            other = subprocess.Popen(
                [
                    *AUDITOR,
                    "audit",
                    "--schemas",
                    str(catalog),
                    "--logs",
                    str(other_log),
                    "--report-dir",
                    str(reports),
                    "--quiet",
                ]
            )
            others.append(other)
            deadline = time.monotonic() + 60
            while other.poll() is None and not _waiting_on_a_lock(other.pid):
                assert time.monotonic() < deadline
                time.sleep(0.05)

    monkeypatch.setattr(os, "replace", replace)
    assert run_cli(_audit(inputs, "--report-dir", str(reports), "--quiet"), capsys)[0] == 0
    assert others[0].wait(timeout=60) == 0
    document = json.loads((reports / "audit.json").read_text())
    log_named = document["inputs"]["logs"][0]["path"]
    assert f"Logs: `{log_named}`" in (reports / "audit.md").read_text()
    assert sorted(p.name for p in reports.iterdir()) == ["audit.json", "audit.md"]


# --- part 1: outputs a configuration file names stay in the working directory ------------


def test_an_output_named_by_the_config_must_stay_in_the_working_directory(
    inputs: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    monkeypatch.chdir(repo)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    catalog, log = inputs
    base = f'schemas = ["{catalog}"]\nlogs = ["{log}"]\nno_report_files = true\nformat = "json"\n'
    (repo / "auditor.toml").write_text(base + 'output = "../victim.txt"\n')
    code, _, err = run_cli(["audit"], capsys)
    assert code == 2
    refused = f"auditor: error: ../victim.txt: cannot write: resolves to {victim}, outside {repo}"
    assert err.splitlines() == ["auditor: using auditor.toml", AnyStartingWith(refused)]
    # a link inside the folder that points outside is refused the same way
    (repo / "out.json").symlink_to(victim)
    (repo / "auditor.toml").write_text(base + 'output = "out.json"\n')
    code, _, err = run_cli(["audit"], capsys)
    refused = f"auditor: error: out.json: cannot write: resolves to {victim}, outside {repo}"
    assert code == 2 and err.splitlines()[1].startswith(refused)
    assert victim.read_text() == "precious\n"
    # given on the command line, the same path is the user's choice
    code, _, err = run_cli(["audit", "--output", str(victim)], capsys)
    assert (code, err) == (0, "auditor: using auditor.toml\n")
    assert json.loads(victim.read_text())["totals"]["accepted"] == 1


def test_default_report_files_do_not_follow_links_out_of_the_working_directory(
    inputs: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = tmp_path / "repo"
    (repo / "reports").mkdir(parents=True)
    monkeypatch.chdir(repo)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (repo / "reports" / "audit.json").symlink_to(victim)  # planted by a pull request
    code, _, err = run_cli(_audit(inputs), capsys)
    assert code == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"auditor: error: reports/audit.json: cannot write: resolves to {victim}")
    assert victim.read_text() == "precious\n"
    assert sorted(p.name for p in (repo / "reports").iterdir()) == ["audit.json"]
    code, _, err = run_cli(_audit(inputs, "--report-dir", "reports"), capsys)
    assert code == 0, err
    assert json.loads(victim.read_text())["totals"]["accepted"] == 1


# --- part 6: write failures in lint and normalize ----------------------------------------


@pytest.fixture
def unwritable(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Make the next temporary files fail: read-only folder (EACCES), then a full disk."""
    failures = [errno.EACCES, errno.ENOSPC]

    def mkstemp(*args: Any, **kwargs: Any) -> Any:
        code = failures[0] if failures else errno.EROFS
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr("auditor.output.tempfile.mkstemp", mkstemp)
    yield failures


@pytest.mark.parametrize("failure", [errno.EACCES, errno.ENOSPC])
def test_lint_output_that_cannot_be_written_is_one_line(
    failure: int,
    inputs: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    unwritable: list[int],
) -> None:
    unwritable[:] = [failure]
    catalog, _ = inputs
    target = tmp_path / "lint.txt"
    code, _, err = run_cli(["lint", str(catalog), "--output", str(target)], capsys)
    assert (code, err) == (2, f"auditor: error: {target}: cannot write: {os.strerror(failure)}\n")
    assert not target.exists()


@pytest.mark.parametrize("failure", [errno.EACCES, errno.ENOSPC])
def test_normalize_write_failure_is_one_line_and_leaves_the_file(
    failure: int,
    inputs: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    unwritable: list[int],
) -> None:
    unwritable[:] = [failure]
    catalog, _ = inputs
    before = catalog.read_bytes()
    code, out, err = run_cli(["normalize", "--write", str(catalog)], capsys)
    assert (code, out) == (2, "")
    assert err == f"auditor: error: {catalog}: cannot write: {os.strerror(failure)}\n"
    assert catalog.read_bytes() == before
