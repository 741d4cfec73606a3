"""A checked-in configuration file and the folders of a pull request are hostile (issue 23):
what ``auditor.toml`` names stays local and inside the working directory, links out of a
catalog or log folder are not read, a safety bound cannot be lifted from the file, nothing it
names is written into ``.git``, and a URI reaches fsspec (and the network) only as the
command line allows. Each refusal is one line and exit 2; the same path, URI or value given on
the command line is the user's choice, and works.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from auditor.cli import audit as audit_command
from auditor.cli.delivery import Outputs
from auditor.request import AuditRequest
from tests.conftest import ROOT, run_cli, what_runs

fsspec = pytest.importorskip("fsspec", reason="fsspec (the cloud extra) is not installed")

CATALOG = {"search": {"type": "object", "properties": {"q": {"type": "string", "min_length": 2}}}}
ACCEPTED = b'{"tool": "search", "arguments": {"q": "xyz"}}\n'
# Normalized, min_length becomes minLength: "x" is newly rejected (exit 1).
REJECTED = b'{"tool": "search", "arguments": {"q": "x"}}\n'
SECRET = "SECRET-TOKEN-4711"
SECRET_LOG = ACCEPTED + f"aws_secret_access_key={SECRET}\n".encode()
"""A log outside the repository: read, its second line would be quoted in audit.json."""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working directory, a checkout holding a catalog, a log and a git folder; beside
    it, outside, a folder of secrets."""
    repo = tmp_path / "repo"
    (repo / "logs").mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / ".git" / "config").write_text("[core]\n\tbare = false\n")
    (repo / "tools.json").write_text(json.dumps(CATALOG))
    (repo / "logs" / "calls.jsonl").write_bytes(ACCEPTED)
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "calls.jsonl").write_bytes(SECRET_LOG)
    (secret / "tools.json").write_text(json.dumps({"secret_tool": {"description": SECRET}}))
    monkeypatch.chdir(repo)
    return repo


def _everything_written(repo: Path, out: str, err: str) -> str:
    """stdout, stderr and every file under the working directory (reports included; a
    link is not the file it leads to)."""
    files = [path for path in repo.rglob("*") if path.is_file() and not path.is_symlink()]
    return out + err + "".join(path.read_text(errors="replace") for path in files)


def _config(repo: Path, text: str) -> Path:
    config = repo / "auditor.toml"
    config.write_text(text)
    return config


def _refused(err: str, config: Path, line: str) -> None:
    """One refusal line after the announcement of the file."""
    assert err.splitlines() == ["auditor: using auditor.toml", f"auditor: error: {config}: {line}"]


# --- URIs: where the user typed them, and no network unless asked --------------------------


@pytest.fixture
def no_fsspec(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The URIs fsspec was asked for a file system for (none, where a URI is refused first):
    each is recorded and refused, so a test that lets one through fails on the record."""
    asked: list[str] = []

    def record(uri: str, *args: Any, **kwargs: Any) -> Any:
        asked.append(uri)
        raise ImportError("fsspec was asked")

    monkeypatch.setattr(fsspec.core, "url_to_fs", record)
    monkeypatch.setattr(fsspec, "filesystem", record)
    return asked


CONFIG_URIS = [
    ("logs", "ftp://127.0.0.1:9/logs/calls.jsonl"),
    ("logs", "http://169.254.169.254/latest/meta-data/iam/security-credentials/"),
    ("logs", "memory://bucket/logs/"),
    ("logs", "file:///etc/passwd"),
    ("schemas", "s3://bucket/tools.json"),
    ("schemas", "zip://tools.json::ftp://127.0.0.1:9/x.zip"),
    ("new_schemas", "reference://x"),
    ("new_schemas", "gs://reader:hunter2@bucket/tools.json"),
]


@pytest.mark.parametrize(("key", "uri"), CONFIG_URIS)
def test_a_uri_the_config_file_names_is_refused_before_fsspec_is_asked(
    key: str, uri: str, repo: Path, no_fsspec: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    others = {"schemas": '"tools.json"', "logs": '"logs"', "new_schemas": '"tools.json"'}
    others[key] = json.dumps([uri])
    config = _config(repo, "".join(f"{name} = {value}\n" for name, value in others.items()))
    code, out, err = run_cli(["audit", "--no-report-files"], capsys)
    assert code == 2
    shown = uri.replace(":hunter2@", ":***@")  # the password is never shown
    _refused(
        err,
        config,
        f"setting '{key}' names a URI, {shown}: a configuration file names local files only; "
        "give it on the command line, or --allow-config-uris",
    )
    assert no_fsspec == [] and out == ""
    # The file cannot allow itself: the allowance is the command line's.
    config.write_text(config.read_text() + "allow_config_uris = true\n")
    code, _, err = run_cli(["audit", "--no-report-files"], capsys)
    assert code == 2 and "unknown setting 'allow_config_uris'" in err
    assert no_fsspec == []


@pytest.fixture
def bucket() -> Iterator[str]:
    """A ``memory://`` bucket holding the catalog and a log with a newly rejected call."""
    memory = fsspec.filesystem("memory")
    memory.pipe("/hostile-config/tools.json", json.dumps(CATALOG).encode())
    memory.pipe("/hostile-config/logs/calls.jsonl", REJECTED)
    yield "memory://hostile-config"
    memory.rm("/hostile-config", recursive=True)


def test_a_uri_is_read_where_the_command_line_names_or_allows_it(
    repo: Path, bucket: str, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["audit", "--no-report-files", "--format", "json"]
    # Typed on the command line: read.
    logs = f"{bucket}/logs"
    code, out, _ = run_cli([*base, "--schemas", f"{bucket}/tools.json", "--logs", logs], capsys)
    assert code == 1 and json.loads(out)["totals"]["newly_rejected"] == 1
    # Named by the file, read once the command line allows it.
    _config(repo, f'schemas = "{bucket}/tools.json"\nlogs = ["{bucket}/logs/"]\n')
    code, out, err = run_cli([*base, "--allow-config-uris"], capsys)
    assert (code, err.splitlines()[0]) == (1, "auditor: using auditor.toml")
    assert json.loads(out)["inputs"]["logs"][0]["path"] == f"{bucket}/logs/calls.jsonl"
    # A file:// URI on the command line reads the file it names.
    (repo / "auditor.toml").unlink()
    log = repo / "logs" / "calls.jsonl"
    code, out, _ = run_cli([*base, "--schemas", "tools.json", "--logs", log.as_uri()], capsys)
    assert code == 0 and json.loads(out)["totals"]["accepted"] == 1


COMMAND_LINE_URIS = [
    ("ftp://127.0.0.1:9/calls.jsonl", "ftp:// reaches the network; give --allow-web-uris"),
    ("http://127.0.0.1:9/calls.jsonl", "http:// reaches the network; give --allow-web-uris"),
    ("HTTPS://127.0.0.1:9/calls.jsonl?X-Amz-Signature=abc",
     "https:// reaches the network; give --allow-web-uris to read it"),
    ("zip://calls.jsonl::ftp://127.0.0.1:9/x.zip",
     "a chained URL (::) is not read; name the object's own URI"),
    ("memory://b/calls.jsonl::memory://b/x", "a chained URL (::) is not read"),
    ("simplecache://memory/calls.jsonl", "simplecache:// is not read"),
    ("filecache://x/calls.jsonl", "filecache:// is not read"),
    ("reference://calls.jsonl", "reference:// is not read"),
    ("dir://calls.jsonl", "dir:// is not read"),
    ("tar://calls.jsonl", "tar:// is not read"),
    ("github://org:repo@main/calls.jsonl", "github:// is not read"),
    ("sftp://127.0.0.1:9/calls.jsonl", "sftp:// is not read"),
    ("nope://bucket/calls.jsonl", "nope:// is not read"),
]  # fmt: skip


@pytest.mark.parametrize(("uri", "said"), COMMAND_LINE_URIS)
def test_a_uri_of_the_network_or_of_an_unlisted_scheme_is_one_line_before_fsspec(
    uri: str, said: str, repo: Path, no_fsspec: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    for args in (["--logs", uri], ["--logs", "logs", "--new-schemas", uri]):
        code, out, err = run_cli(["audit", "--schemas", "tools.json", *args], capsys)
        assert code == 2 and out == "" and len(err.splitlines()) == 1, err
        # A web URI's query (a signature) and a password are masked.
        shown = uri.replace("?X-Amz-Signature=abc", "?***").replace(":repo@", ":***@")
        assert err.startswith(f"auditor: error: {shown}: {said}")
    assert no_fsspec == []


def test_lint_and_normalize_never_read_the_network(
    repo: Path, no_fsspec: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    for command in (["lint"], ["normalize", "--check"]):
        code, _, err = run_cli([*command, "https://127.0.0.1:9/tools.json"], capsys)
        assert (code, err) == (
            2,
            "auditor: error: https://127.0.0.1:9/tools.json: https:// reaches the network; "
            "only `auditor audit --allow-web-uris` reads it\n",
        )
    code, _, err = run_cli(["lint", "tar://tools.json"], capsys)
    assert code == 2 and "tar:// is not read" in err
    assert no_fsspec == []
    # A catalog in a folder still lints and normalizes (min_length: one finding, one rewrite).
    assert run_cli(["lint", "tools.json"], capsys)[0] == 1
    assert run_cli(["normalize", "--check", "tools.json"], capsys)[0] == 1


def _store_failing(monkeypatch: pytest.MonkeyPatch, error: Exception, after: bytes = b"") -> None:
    """Make ``memory://`` objects fail with ``error`` on opening, or once ``after`` is read."""

    class Failing:
        """An object's stream that breaks after its first read."""

        def __init__(self) -> None:
            self.given = False

        def read(self, size: int = -1) -> bytes:
            if self.given:
                raise error
            self.given = True
            return after

        def seekable(self) -> bool:
            return False

        def close(self) -> None:
            pass

        def __enter__(self) -> Failing:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

    def opened(self: Any, path: str, mode: str = "rb", **kwargs: Any) -> Any:
        if not after:
            raise error
        return Failing()

    monkeypatch.setattr(type(fsspec.filesystem("memory")), "_open", opened)


class ClientResponseError(Exception):
    """As aiohttp's: a status, and a message that may quote the response."""

    status = 403


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (PermissionError(13, f"<Error><Message>{SECRET}</Message></Error>"), "Permission denied"),
        (ClientResponseError(f"403, message='{SECRET}'"), "ClientResponseError (status 403)"),
        (RuntimeError(f"body: {SECRET}"), "RuntimeError"),
    ],
)
def test_a_store_failure_says_its_errno_status_or_class_never_its_text(
    error: Exception,
    said: str,
    repo: Path,
    bucket: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _store_failing(monkeypatch, error)
    code, out, err = run_cli(
        ["audit", "--schemas", "tools.json", "--logs", f"{bucket}/logs"], capsys
    )
    assert (code, out) == (2, "")
    assert err == f"auditor: error: {bucket}/logs/calls.jsonl: cannot read: {said}\n"


def test_a_store_failing_mid_read_is_one_unparseable_record_without_its_text(
    repo: Path, bucket: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _store_failing(monkeypatch, RuntimeError(f"<Error>{SECRET}</Error>"), after=ACCEPTED)
    code, out, err = run_cli(
        ["audit", "--schemas", "tools.json", "--logs", f"{bucket}/logs/calls.jsonl"], capsys
    )
    # The call read before the break is accepted; the break is one more unparseable record,
    # and the gate (newly rejected) does not fail on it.
    assert code == 0, err
    report = json.loads((repo / "reports" / "audit.json").read_text())
    assert (report["totals"]["accepted"], report["totals"]["unparseable"]) == (1, 1)
    assert "RuntimeError" in json.dumps(report["calls"])
    assert SECRET not in _everything_written(repo, out, err)


# --- the network itself: in a namespace of its own, with a listener on its loopback --------

NAMESPACE_RUN = """
import json, socket, sys, threading
from pathlib import Path

listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(8)
port = str(listener.getsockname()[1])
connections = []


def serve():
    while True:
        connection, _ = listener.accept()
        connections.append(1)
        # An FTP server that greets, then refuses the login with a secret in its answer.
        connection.sendall(b"220 ready\\r\\n")
        connection.recv(1024)
        connection.sendall(b"530 SECRET-TOKEN-4711\\r\\n")
        connection.close()


threading.Thread(target=serve, daemon=True).start()
result, config, *args = sys.argv[1:]
if config:
    Path("auditor.toml").write_text(config.replace("PORT", port))
from auditor.cli import main

try:
    main([arg.replace("PORT", port) for arg in args])
except SystemExit as done:
    code = done.code
Path(result).write_text(json.dumps({"code": code, "connections": len(connections)}))
"""


def _in_own_network(repo: Path, config: str, *args: str) -> tuple[int, int, str]:
    """Exit code, connections the loopback listener saw, and stderr of ``auditor ARGS`` run
    in a network namespace of its own (nothing but its loopback), with ``config`` as
    ``auditor.toml`` (``PORT``: the listener's)."""
    result = repo.parent / "result.json"
    script = repo.parent / "namespace_run.py"
    script.write_text(NAMESPACE_RUN)
    command = f'ip link set lo up && exec "{sys.executable}" "$@"'
    done = subprocess.run(
        ["unshare", "--net", "sh", "-c", command, "sh", str(script), str(result), config, *args],
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.exists(), done.stderr
    found = json.loads(result.read_text())
    return found["code"], found["connections"], done.stderr + done.stdout


def test_a_web_uri_in_the_config_file_connects_nowhere(repo: Path) -> None:
    config = 'schemas = "tools.json"\nlogs = ["ftp://127.0.0.1:PORT/calls.jsonl"]\n'
    code, connections, err = _in_own_network(repo, config, "audit", "--no-report-files")
    assert (code, connections) == (2, 0), err
    assert "setting 'logs' names a URI" in err
    # Allowed in the file by the command line, a web URI still needs the network's flag.
    code, connections, err = _in_own_network(repo, config, "audit", "--allow-config-uris")
    assert (code, connections) == (2, 0), err
    assert "ftp:// reaches the network; give --allow-web-uris to read it" in err
    chained = 'schemas = "tools.json"\nlogs = ["zip://c.jsonl::ftp://127.0.0.1:PORT/x.zip"]\n'
    args = ("audit", "--allow-config-uris", "--allow-web-uris")
    code, connections, err = _in_own_network(repo, chained, *args)
    assert (code, connections) == (2, 0), err
    assert "a chained URL (::) is not read" in err


def test_a_web_uri_connects_only_with_the_command_lines_flag_and_quotes_no_answer(
    repo: Path,
) -> None:
    uri = "ftp://127.0.0.1:PORT/calls.jsonl"
    code, connections, err = _in_own_network(
        repo, "", "audit", "--schemas", "tools.json", "--logs", uri
    )
    assert (code, connections) == (2, 0), err
    args = ("audit", "--schemas", "tools.json", "--logs", uri, "--allow-web-uris")
    code, connections, err = _in_own_network(repo, "", *args)
    # Asked for, the server is reached; its refusal is said by class, never by its words.
    assert code == 2 and connections >= 1, err
    assert "cannot be read: error_perm" in err
    assert SECRET not in err


# --- paths the config file names stay inside the working directory, out of .git ----------


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("logs", "../secret/calls.jsonl"),
        ("logs", "../secret"),
        ("schemas", "../secret/tools.json"),
        ("new_schemas", "../secret/tools.json"),
        ("baseline", "../secret/calls.jsonl"),
    ],
)
def test_an_input_the_config_file_names_outside_the_working_directory_is_refused(
    key: str, value: str, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    others = {"schemas": "tools.json", "logs": "logs", key: value}
    config = _config(repo, "".join(f'{name} = "{path}"\n' for name, path in others.items()))
    code, out, err = run_cli(["audit"], capsys)
    assert code == 2
    resolved = tmp_path / value.removeprefix("../")
    _refused(
        err,
        config,
        f"setting '{key}': {value} resolves to {resolved}, outside {repo}; name it on the "
        "command line to read it",
    )
    assert SECRET not in _everything_written(repo, out, err)


def test_a_link_or_a_linked_folder_the_config_file_names_is_confined_too(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "innocent.jsonl").symlink_to(tmp_path / "secret" / "calls.jsonl")
    (repo / "archive").symlink_to(tmp_path / "secret")
    for named, resolved in (
        ("innocent.jsonl", tmp_path / "secret" / "calls.jsonl"),
        ("archive/calls.jsonl", tmp_path / "secret" / "calls.jsonl"),
        ("archive", tmp_path / "secret"),
    ):
        config = _config(repo, f'schemas = "tools.json"\nlogs = "{named}"\n')
        code, out, err = run_cli(["audit"], capsys)
        assert code == 2
        _refused(
            err,
            config,
            f"setting 'logs': {named} resolves to {resolved}, outside {repo}; name it on the "
            "command line to read it",
        )
        assert SECRET not in _everything_written(repo, out, err)


def test_the_config_file_cannot_name_what_git_keeps(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # .git/config holds the token actions/checkout persists: read as a log, its lines would
    # be quoted in the report.
    config = _config(repo, 'schemas = "tools.json"\nlogs = ".git/config"\nlog_format = "jsonl"\n')
    code, _, err = run_cli(["audit"], capsys)
    assert code == 2
    real = repo / ".git" / "config"
    _refused(
        err,
        config,
        f"setting 'logs': .git/config resolves to {real}, inside a .git folder; name it on the "
        "command line to read it",
    )


def test_inputs_the_config_file_names_inside_the_working_directory_are_read(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "logs" / "more").mkdir()
    (repo / "logs" / "more" / "rejected.jsonl").write_bytes(REJECTED)
    (repo / "alias.jsonl").symlink_to("logs/more/rejected.jsonl")  # a link inside the tree
    (repo / "baseline.json").write_text('{"auditor_baseline": 1, "groups": []}\n')
    _config(
        repo,
        f'schemas = "{repo / "tools.json"}"\nlogs = ["logs", "alias.jsonl", "./logs/../logs"]\n'
        'baseline = "baseline.json"\nno_report_files = true\nformat = "json"\n',
    )
    code, out, err = run_cli(["audit"], capsys)
    assert (code, err.splitlines()[0]) == (1, "auditor: using auditor.toml"), err
    report = json.loads(out)
    # logs/ twice (calls.jsonl, more/rejected.jsonl), and the link to the rejected call.
    assert (report["totals"]["accepted"], report["totals"]["newly_rejected"]) == (2, 3)
    # Outside the tree, the same log typed on the command line is the user's choice.
    code, out, _ = run_cli(["audit", "--logs", "../secret/calls.jsonl"], capsys)
    assert code == 0 and SECRET in out  # the unparseable line, quoted: what the user asked
    # Named by the file beside the others, it is refused.
    config = _config(repo, 'schemas = "tools.json"\nlogs = ["logs", "../secret/calls.jsonl"]\n')
    code, _, err = run_cli(["audit"], capsys)
    assert code == 2 and err.splitlines()[1].startswith(
        f"auditor: error: {config}: setting 'logs': ../secret/calls.jsonl resolves to"
    )


def test_scratch_from_the_config_file_stays_inside_and_out_of_git(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = 'schemas = "tools.json"\nlogs = "logs"\n'
    for scratch, why in (
        ("../outside", f"resolves to {tmp_path / 'outside'}, outside {repo}"),
        (".git/objects", f"resolves to {repo / '.git' / 'objects'}, inside a .git folder"),
    ):
        config = _config(repo, base + f'scratch = "{scratch}"\n')
        code, _, err = run_cli(["audit"], capsys)
        assert code == 2
        _refused(
            err,
            config,
            f"setting 'scratch': {scratch} {why}; name it on the command line to write there",
        )
    assert not (tmp_path / "outside").exists()
    # Inside, it is taken (and used when the logs are read in parts).
    (repo / "work").mkdir()
    _config(repo, base + 'scratch = "work"\nno_report_files = true\n')
    code, _, err = run_cli(["audit", "--jobs", "2", "--quiet"], capsys)
    assert (code, err) == (0, "auditor: using auditor.toml\n")


@pytest.mark.parametrize(
    ("setting", "named"),
    [
        ('format = "json"\noutput = ".git/config"', ".git/config"),
        ('format = "json"\noutput = ".GIT/config"', ".GIT/config"),
        ('report_dir = ".git"', ".git"),
        ('report_dir = "reports/../.git/hooks"', "reports/../.git/hooks"),
        ('suggest_patch = ".git/hooks/pre-commit"', ".git/hooks/pre-commit"),
        ('format = "json"\noutput = "out.json"', "out.json"),  # a link into .git
    ],
)
def test_an_output_the_config_file_names_never_goes_into_git(
    setting: str, named: str, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / ".GIT").mkdir()  # case: a file system that ignores it takes .GIT for .git
    (repo / "out.json").symlink_to(".git/config")
    _config(repo, f'schemas = "tools.json"\nlogs = "logs"\n{setting}\n')
    code, out, err = run_cli(["audit"], capsys)
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 2 and lines[1].startswith(f"auditor: error: {named}: cannot write: ")
    assert "inside a .git folder; name it on the command line to write there" in lines[1]
    assert (repo / ".git" / "config").read_text() == "[core]\n\tbare = false\n"
    assert sorted(p.name for p in (repo / ".git").iterdir()) == ["config"]


def test_an_output_into_git_on_the_command_line_is_the_users_choice(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["audit", "--schemas", "tools.json", "--logs", "logs", "--format", "json"]
    code, _, _ = run_cli([*args, "--output", ".git/audit.json", "--no-report-files"], capsys)
    assert code == 0
    assert json.loads((repo / ".git" / "audit.json").read_text())["totals"]["accepted"] == 1
    # A config file naming an output elsewhere in the tree is written, and into .git not.
    _config(repo, 'format = "json"\noutput = "reports/x/audit.json"\n')
    code, _, err = run_cli([*args[:5], "--no-report-files"], capsys)
    assert code == 0, err
    assert json.loads((repo / "reports" / "x" / "audit.json").read_text())["calls"] == []
    _config(repo, 'format = "json"\noutput = ".git/audit.json"\n')
    code, _, err = run_cli([*args[:5], "--no-report-files"], capsys)
    assert code == 2 and ".git/audit.json: cannot write: resolves to" in err


# --- safety bounds: lowered by the file, lifted only on the command line ------------------


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The options each audit would run with (the run itself is left out)."""
    runs: list[Any] = []

    def record(request: AuditRequest, outputs: Outputs) -> int:
        runs.append(what_runs(request, outputs))
        return 0

    monkeypatch.setattr(audit_command, "run", record)
    return runs


BOUNDS = [
    ("call_timeout", "0", "= 0 lifts a safety bound, which a configuration file cannot do: "
     "give --call-timeout 0 on the command line"),
    ("call_timeout", "2.5", "= 2.5 is above 2, the default and the most a configuration file "
     "may set for this safety bound: give --call-timeout on the command line"),
    ("max_record_bytes", "67108865", "= 67,108,865 is above 67,108,864, the default and the "
     "most a configuration file may set for this safety bound: give --max-record-bytes on the "
     "command line"),
    ("max_catalog_bytes", "1073741824", "= 1,073,741,824 is above 268,435,456, the default "
     "and the most a configuration file may set for this safety bound: give "
     "--max-catalog-bytes on the command line"),
    ("max_calls", "0", "= 0 lifts a safety bound, which a configuration file cannot do: give "
     "--max-calls 0 on the command line"),
    ("max_calls", "10001", "= 10,001 is above 10,000, the default and the most a "
     "configuration file may set for this safety bound: give --max-calls on the command line"),
]  # fmt: skip


@pytest.mark.parametrize(("key", "value", "said"), BOUNDS)
def test_the_config_file_cannot_lift_or_widen_a_safety_bound(
    key: str,
    value: str,
    said: str,
    repo: Path,
    seen: list[Any],
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = _config(repo, f"{key} = {value}\n")
    code, _, err = run_cli(["audit", "--schemas", "tools.json", "--logs", "logs"], capsys)
    assert (code, seen) == (2, [])
    assert err == f"auditor: error: {config}: setting '{key}' {said}\n"


def test_a_safety_bound_is_lowered_by_the_file_and_lifted_on_the_command_line(
    repo: Path, seen: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    _config(
        repo,
        "call_timeout = 2\nmax_record_bytes = 1024\nmax_catalog_bytes = 268435456\n"
        "max_calls = 10\n",
    )
    base = ["audit", "--schemas", "tools.json", "--logs", "logs"]
    assert run_cli(base, capsys)[0] == 0
    lifted = ["--call-timeout", "0", "--max-record-bytes", "1000000000", "--max-calls", "0"]
    assert run_cli([*base, *lifted, "--max-catalog-bytes", "1000000000"], capsys)[0] == 0
    bounds = [(o.call_timeout, o.max_record_bytes, o.max_catalog_bytes, o.max_calls) for o in seen]
    assert bounds == [(2.0, 1024, 268_435_456, 10), (None, 1_000_000_000, 1_000_000_000, None)]
    # What the command line lifts, the file cannot.
    _config(repo, "call_timeout = 0.0\n")
    code, _, err = run_cli([*base, "--call-timeout", "0"], capsys)
    assert code == 2 and "setting 'call_timeout' = 0 lifts a safety bound" in err
    assert len(seen) == 2


# --- links in catalog and log folders ------------------------------------------------------


def test_a_link_out_of_a_log_or_catalog_folder_is_refused_naming_it(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "logs" / "stolen.jsonl").symlink_to(tmp_path / "secret" / "calls.jsonl")
    args = ["audit", "--schemas", "tools.json", "--logs", "logs"]
    code, out, err = run_cli(args, capsys)
    target = tmp_path / "secret" / "calls.jsonl"
    assert (code, err) == (
        2,
        f"auditor: error: logs/stolen.jsonl: a symbolic link to {target}, outside the folder "
        "logs; give --follow-links to read it\n",
    )
    assert SECRET not in _everything_written(repo, out, err)
    # Below a file:// prefix, as in the folder it names.
    prefix = (repo / "logs").as_uri()
    code, out, err = run_cli(["audit", "--schemas", "tools.json", "--logs", prefix], capsys)
    assert (code, err) == (
        2,
        f"auditor: error: {prefix}/stolen.jsonl: a symbolic link to {target}, outside the "
        f"folder {prefix}; give --follow-links to read it\n",
    )
    assert SECRET not in _everything_written(repo, out, err)
    (repo / "logs" / "stolen.jsonl").unlink()
    (repo / "catalogs").mkdir()
    (repo / "catalogs" / "tools.json").write_text(json.dumps(CATALOG))
    # Inside the tree but outside the folder walked is outside too.
    (repo / "catalogs" / "config.json").symlink_to("../.git/config")
    code, out, err = run_cli(["audit", "--schemas", "catalogs", "--logs", "logs"], capsys)
    assert (code, err) == (
        2,
        f"auditor: error: catalogs/config.json: a symbolic link to {repo / '.git' / 'config'}, "
        "outside the folder catalogs; give --follow-links to read it\n",
    )
    code, _, err = run_cli(["lint", "catalogs"], capsys)
    assert code == 2 and "catalogs/config.json: a symbolic link to" in err
    code, _, err = run_cli(["normalize", "--check", "catalogs"], capsys)
    assert code == 2 and "catalogs/config.json: a symbolic link to" in err


def test_links_inside_a_folder_are_followed_and_links_out_of_it_on_request(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "logs" / "deep").mkdir()
    (repo / "logs" / "deep" / "rejected.jsonl").write_bytes(REJECTED)
    (repo / "logs" / "alias.jsonl").symlink_to("deep/rejected.jsonl")
    (repo / "logs" / "back.jsonl").symlink_to(repo / "logs" / "calls.jsonl")  # absolute, inside
    args = ["audit", "--schemas", "tools.json", "--logs", "logs", "--format", "json"]
    code, out, _ = run_cli([*args, "--no-report-files"], capsys)
    totals = json.loads(out)["totals"]
    assert (code, totals["accepted"], totals["newly_rejected"]) == (1, 2, 2)
    # Out of the folder, on the user's request.
    (repo / "logs" / "stolen.jsonl").symlink_to(tmp_path / "secret" / "calls.jsonl")
    code, out, _ = run_cli([*args, "--no-report-files", "--follow-links"], capsys)
    totals = json.loads(out)["totals"]
    assert (code, totals["accepted"], totals["unparseable"]) == (1, 3, 1)
    uri = ["--logs", (repo / "logs").as_uri(), "--no-report-files", "--follow-links"]
    code, out, _ = run_cli(["audit", "--schemas", "tools.json", "--format", "json", *uri], capsys)
    totals = json.loads(out)["totals"]
    assert (code, totals["accepted"], totals["unparseable"]) == (1, 3, 1)
    (repo / "catalogs").mkdir()
    (repo / "catalogs" / "linked.json").symlink_to(repo / "tools.json")
    assert run_cli(["lint", "catalogs"], capsys)[0] == 2
    assert run_cli(["lint", "--follow-links", "catalogs"], capsys)[0] == 1  # min_length
    assert run_cli(["normalize", "--check", "--follow-links", "catalogs"], capsys)[0] == 1


# --- pyproject.toml -------------------------------------------------------------------------


def test_a_pyproject_whose_tool_is_no_table_is_one_line(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = repo / "pyproject.toml"
    args = ["audit", "--schemas", "tools.json", "--logs", "logs", "--no-report-files"]
    for text, said in (
        ("tool = 1\n", "[tool] must be a table"),
        ('tool = "auditor"\n', "[tool] must be a table"),
        ("tool.auditor = 1\n", "[tool.auditor] must be a table"),
        ('[tool]\nauditor = "x"\n', "[tool.auditor] must be a table"),
    ):
        pyproject.write_text(text)
        code, _, err = run_cli(args, capsys)
        assert (code, err) == (2, f"auditor: error: {pyproject}: {said}\n"), text
    # A pyproject.toml with other tools' tables and none of auditor's is no config file.
    pyproject.write_text("[tool.black]\nline-length = 99\n")
    code, _, err = run_cli(args, capsys)
    assert (code, err) == (0, "")
