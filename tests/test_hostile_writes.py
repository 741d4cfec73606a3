"""Issue 11, parts 1, 6 and 7: writes that never destroy what a path names, unusable input
as one line and exit 2, and only the files the user meant.

Device nodes and FIFOs are private ones made under ``tmp_path`` (never ``/dev``): the tests
run as root, where renaming over ``/dev/null`` would break the machine.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
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
    from auditor.cli.output import names_stdout

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
    # The inputs too must be inside the working directory when the file names them.
    catalog, log = (shutil.copy(path, repo) for path in inputs)
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
    assert (code, err) == (0, f"auditor: using auditor.toml\nauditor: wrote {victim}\n")
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

    monkeypatch.setattr("auditor.cli.output.tempfile.mkstemp", mkstemp)
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


# --- part 6: every unusable input is one line and exit 2 ---------------------------------


def test_file_names_that_are_not_utf8_are_shown_escaped(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    raw = os.fsencode(folder)
    catalog, log = raw + b"/caf\xe9.json", raw + b"/l\xf6g.jsonl"
    Path(os.fsdecode(catalog)).write_bytes((HOSTILE / "tools.json").read_bytes())
    Path(os.fsdecode(log)).write_bytes(OK_LINE)
    shown_catalog, shown_log = f"{folder}/caf\\xe9.json", f"{folder}/l\\xf6g.jsonl"
    runs = {
        "json": [catalog, b"--format", b"json"],
        "table": [catalog, b"--no-report-files"],
        "found in a directory": [raw, b"--format", b"json"],
    }
    for name, extra in runs.items():
        args = [b"audit", b"--logs", log, b"--schemas", *extra]
        done = subprocess.run([*AUDITOR, *args], capture_output=True, cwd=tmp_path, timeout=60)
        assert done.returncode == 0, (name, done.stderr)
        done.stdout.decode("utf-8")  # strict: no invalid UTF-8 reached stdout
        done.stderr.decode("utf-8")
    document = json.loads(
        subprocess.run(
            [*AUDITOR, "audit", "--schemas", catalog, "--logs", log, "--format", "json"],
            capture_output=True,
            cwd=tmp_path,
            timeout=60,
        ).stdout
    )
    assert document["inputs"]["schemas"] == [shown_catalog]
    assert document["inputs"]["logs"][0]["path"] == shown_log
    # A lone schema is named after its file: the tool's name is escaped the same way.
    lone = tmp_path / "lone"
    lone.mkdir()
    schema = os.fsencode(lone) + b"/s\xe9arch.json"
    Path(os.fsdecode(schema)).write_text('{"type": "object"}\n')
    done = subprocess.run(
        [*AUDITOR, "audit", "--schemas", schema, "--logs", log, "--no-report-files"],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "s\\xe9arch" in done.stdout.decode("utf-8")
    # An error about such a file names it the same way on stderr.
    broken = raw + b"/\xff.json"
    Path(os.fsdecode(broken)).write_bytes(b"{")
    for command in ([b"lint", broken], [b"audit", b"--schemas", broken, b"--logs", log]):
        done = subprocess.run([*AUDITOR, *command], capture_output=True, timeout=60)
        assert done.returncode == 2
        assert done.stderr.decode("utf-8") == (
            f"auditor: error: {folder}/\\xff.json:1:2: invalid JSON: "
            "Expecting property name enclosed in double quotes\n"
        )


def test_a_catalog_larger_than_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as stream:
        stream.truncate(300 * 1024 * 1024)  # sparse: 300 MiB that take no room on the disk
    log = tmp_path / "calls.jsonl"
    log.write_bytes(OK_LINE)
    command = " ".join([*AUDITOR, "audit", "--schemas", str(big), "--logs", str(log)])
    # Refused by its size, it is never read: the bounds only keep a reader that would read
    # it whole (and decode it: twice its size) from taking the machine's memory or time.
    done = subprocess.run(
        ["bash", "-c", f"ulimit -v 1000000; exec timeout 60 {command}"],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert (done.returncode, done.stderr) == (
        2,
        f"auditor: error: {big}: larger than the 256 MiB a catalog may have "
        "(--max-catalog-bytes)\n",
    )


@pytest.mark.parametrize("command", ["audit", "lint", "normalize", "stdin", "config"])
def test_max_catalog_bytes_bounds_every_reader(
    command: str,
    inputs: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    catalog, log = inputs  # tools.json is 230 bytes
    limit = ["--max-catalog-bytes", "100"]
    name = str(catalog)
    if command == "stdin":
        done = subprocess.run(
            [*AUDITOR, "audit", "--schemas", "-", "--logs", str(log), *limit],
            input=catalog.read_bytes(),
            capture_output=True,
            timeout=60,
        )
        code, err = done.returncode, done.stderr.decode()
        name = "<stdin>"
    elif command == "config":
        monkeypatch.chdir(tmp_path)
        (tmp_path / "auditor.toml").write_text("max_catalog_bytes = 100\n")
        code, _, err = run_cli(_audit(inputs, "--no-report-files"), capsys)
        assert err.startswith("auditor: using auditor.toml\n")
        err = err.partition("\n")[2]
    else:
        args = {
            "audit": _audit(inputs, "--no-report-files"),
            "lint": ["lint", str(catalog)],
            "normalize": ["normalize", "--check", str(catalog)],
        }[command]
        code, _, err = run_cli([*args, *limit], capsys)
    said = "larger than the 100 bytes a catalog may have (--max-catalog-bytes)"
    assert (code, err) == (2, f"auditor: error: {name}: {said}\n")
    # Within the limit, the same catalog is read.
    if command in ("audit", "lint"):
        raised = ["--max-catalog-bytes", "1000"]
        assert run_cli([*_audit(inputs, "--no-report-files"), *raised], capsys)[0] == 0


BAD_BASELINES = {
    "not UTF-8": (b"\xff\xfe{}", "not an auditor baseline: not UTF-8 text"),
    "a 5,000-digit integer": (
        b'{"auditor_baseline": 1, "groups": [' + b"9" * 5000 + b"]}",
        "invalid JSON: a number of more than 4,300 digits",
    ),
    "nested 100,000 levels": (b"[" * 100_000 + b"]" * 100_000, "invalid JSON: nested too deeply"),
}


@pytest.mark.parametrize("case", list(BAD_BASELINES))
def test_a_bad_baseline_is_one_line(
    case: str, inputs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    content, message = BAD_BASELINES[case]
    baseline = tmp_path / "baseline.json"
    baseline.write_bytes(content)
    args = _audit(inputs, "--no-report-files", "--baseline", str(baseline))
    code, _, err = run_cli(args, capsys)
    assert (code, err) == (2, f"auditor: error: {baseline}: {message}\n")


BAD_CONFIGS = {
    "negative call_timeout": (b"call_timeout = -1\n", "'call_timeout' must be at least 0, not -1"),
    "call_timeout nan": (b"call_timeout = nan\n", "'call_timeout' must be a finite number"),
    "call_timeout inf": (b"call_timeout = inf\n", "'call_timeout' must be a finite number"),
    "zero max_record_bytes": (
        b"max_record_bytes = 0\n",
        "'max_record_bytes' must be at least 1, not 0",
    ),
    "negative examples": (b"examples = -2\n", "'examples' must be at least 0, not -2"),
    "negative max_calls": (b"max_calls = -1\n", "'max_calls' must be at least 0, not -1"),
    "zero jobs": (b"jobs = 0\n", "'jobs' must be at least 1, not 0"),
    "a list of numbers": (b"schemas = [1, 2]\n", "'schemas' must be a list of strings"),
    "a 5,000-digit integer": (
        b"examples = " + b"9" * 5000 + b"\n",
        "invalid TOML: a number of more than 4,300 digits",
    ),
    "not UTF-8": (b"examples = 1\n# \xff\n", "invalid TOML: not UTF-8 text (invalid start byte)"),
}


@pytest.mark.parametrize("case", list(BAD_CONFIGS))
def test_a_bad_config_value_is_one_line(
    case: str,
    inputs: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    content, message = BAD_CONFIGS[case]
    (tmp_path / "auditor.toml").write_bytes(content)
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(_audit(inputs, "--no-report-files"), capsys)
    assert code == 2
    assert err.endswith(f"{message}\n") and len(err.splitlines()) == 1
    assert err.startswith(f"auditor: error: {tmp_path / 'auditor.toml'}: ")


@pytest.mark.parametrize(
    ("name", "content", "announced"),
    [
        ("auditor.toml", "examples = 1\n", "auditor: using auditor.toml\n"),
        ("pyproject.toml", "[tool.auditor]\nexamples = 1\n", "auditor: using pyproject.toml "
         "[tool.auditor]\n"),
    ],
)  # fmt: skip
def test_a_config_file_in_use_is_announced(
    name: str,
    content: str,
    announced: str,
    inputs: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / name).write_text(content)
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(_audit(inputs, "--no-report-files", "--quiet"), capsys)
    assert (code, err) == (0, announced)
    (tmp_path / name).unlink()  # no config, nothing said
    assert run_cli(_audit(inputs, "--no-report-files", "--quiet"), capsys) == (0, "", "")


# --- part 7: only what the user meant ----------------------------------------------------

ML_CONFIG = """\
# training settings, not a tool catalog
tokenizer:
  max_length: 512
  padding: max_length
trainer:
  min_items: 3
"""
OPENAI_CATALOG = """\
[{"type": "function", "function": {"name": "search",
  "parameters": {"type": "object", "properties": {"tags": {"type": "array", "min_items": 1}}}}}]
"""


def test_normalize_in_a_directory_touches_only_catalogs_and_names_each_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "repo"
    (folder / "configs").mkdir(parents=True)
    (folder / "configs" / "model.yaml").write_text(ML_CONFIG)
    (folder / "lone.json").write_text('{"type": "transformer", "max_length": 512}\n')
    (folder / "openai.json").write_text(OPENAI_CATALOG)
    (folder / "tools.json").write_bytes((HOSTILE / "tools.json").read_bytes())
    code, out, err = run_cli(["normalize", "--check", str(folder)], capsys)
    assert code == 1
    assert out == (
        f"would normalize {folder / 'openai.json'} (1 rewrite)\n"
        f"would normalize {folder / 'tools.json'} (2 rewrites)\n"
    )
    code, out, err = run_cli(["normalize", "--write", str(folder)], capsys)
    assert (code, out) == (0, "")
    # The rule audit and lint follow too: named on stderr, left alone.
    assert err.splitlines() == [
        f"auditor: skipped: {folder / 'configs' / 'model.yaml'} (not a tool catalog)",
        f"auditor: skipped: {folder / 'lone.json'} (not a tool catalog)",
        f"auditor: normalized {folder / 'openai.json'} (1 rewrite)",
        f"auditor: normalized {folder / 'tools.json'} (2 rewrites)",
    ]
    assert (folder / "configs" / "model.yaml").read_text() == ML_CONFIG
    assert (folder / "lone.json").read_text() == '{"type": "transformer", "max_length": 512}\n'
    assert '"minItems": 1' in (folder / "openai.json").read_text()
    assert '"uniqueItems": true' in (folder / "tools.json").read_text()


def test_normalize_in_a_directory_does_not_follow_a_link_out_of_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "elsewhere.json"
    outside.write_text(OPENAI_CATALOG)
    folder = tmp_path / "repo"
    folder.mkdir()
    (folder / "linked.json").symlink_to(outside)
    (folder / "inside.json").write_text(OPENAI_CATALOG)
    (folder / "alias.json").symlink_to("inside.json")
    # Followed on request (a link out of a folder is not even read by default), the link's
    # target is still not written.
    code, _, err = run_cli(["normalize", "--write", "--follow-links", str(folder)], capsys)
    assert code == 2
    assert f"auditor: normalized {folder / 'alias.json'} (1 rewrite)" in err.splitlines()
    refused = f"auditor: error: {folder / 'linked.json'}: cannot write: resolves to {outside}"
    assert any(line.startswith(refused) for line in err.splitlines())
    assert outside.read_text() == OPENAI_CATALOG
    assert (folder / "alias.json").is_symlink()


def _unreadable(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Listing ``folder`` fails as it does for a user without the permission (tests run as
    root, which reads any folder; see test_unreadable_subfolder_really)."""
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:
        if os.fspath(path) == str(folder):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)


ENTRIES = {
    "FIFO": "not a regular file (a FIFO, socket or device)",
    "dangling symlink": "no such file (a broken symbolic link?)",
    "unreadable subfolder": "cannot read the folder: Permission denied",
}


def _hostile_entry(kind: str, folder: Path, suffix: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    if kind == "FIFO":
        entry = folder / f"pipe{suffix}"
        os.mkfifo(entry)  # opening it would wait forever for a writer
    elif kind == "dangling symlink":
        entry = folder / f"gone{suffix}"
        entry.symlink_to(folder / "missing")
    else:
        entry = folder / "private"
        entry.mkdir()
        (entry / f"hidden{suffix}").write_bytes(b"")
        _unreadable(monkeypatch, entry)
    return entry


@pytest.mark.parametrize("command", ["audit", "lint", "normalize"])
@pytest.mark.parametrize("kind", list(ENTRIES))
def test_an_unreadable_entry_among_catalogs_is_named(
    kind: str,
    command: str,
    inputs: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, log = inputs
    folder = tmp_path / "catalogs"
    folder.mkdir()
    (folder / "tools.json").write_bytes((HOSTILE / "tools.json").read_bytes())
    entry = _hostile_entry(kind, folder, ".json", monkeypatch)
    args = {
        "audit": ["audit", "--schemas", str(folder), "--logs", str(log), "--no-report-files"],
        "lint": ["lint", str(folder)],
        "normalize": ["normalize", "--check", str(folder)],
    }[command]
    code, _, err = run_cli(args, capsys)
    assert code == 2
    assert f"auditor: error: {entry}: {ENTRIES[kind]}\n" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("kind", list(ENTRIES))
def test_an_unreadable_entry_among_logs_is_named(
    kind: str,
    inputs: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    catalog, _ = inputs
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(OK_LINE)
    entry = _hostile_entry(kind, folder, ".jsonl", monkeypatch)
    args = ["audit", "--schemas", str(catalog), "--logs", str(folder), "--no-report-files"]
    code, _, err = run_cli(args, capsys)
    assert (code, err) == (2, f"auditor: error: {entry}: {ENTRIES[kind]}\n")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads folders whatever their mode")
def test_unreadable_subfolder_really(
    inputs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, _ = inputs
    private = tmp_path / "logs" / "private"
    private.mkdir(parents=True)
    (tmp_path / "logs" / "a.jsonl").write_bytes(OK_LINE)
    private.chmod(0)
    try:
        args = ["audit", "--schemas", str(catalog), "--logs", str(tmp_path / "logs")]
        code, _, err = run_cli([*args, "--no-report-files"], capsys)
    finally:
        private.chmod(0o755)
    assert (code, err) == (2, f"auditor: error: {private}: {ENTRIES['unreadable subfolder']}\n")
