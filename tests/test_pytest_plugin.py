"""The pytest plugin, run by pytest itself (``pytester``) over the example project of
docs/pytest-plugin.md: it passes a change that breaks no recorded call and fails one that
does, with the groups table as the message; the same through ``against`` a git revision.

The example's recorded calls (docs/examples/pytest-plugin/recorded/calls.jsonl) include a
``create_note`` whose title has 45 characters; the released catalog allows 120. Tightening
``maxLength`` to 40 newly rejects that one call and no other: the expected outcomes below
are reasoned from that, not read from a run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

from tests.conftest import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

pytest_plugins = ["pytester"]

EXAMPLE: Final = ROOT / "docs" / "examples" / "pytest-plugin"
PLUGIN: Final = ("-p", "auditor.pytest_plugin", "-p", "no:cacheprovider")
"""How a clone loads the plugin (the entry point exists once the package is installed)."""
GROUP_LINE: Final = "1 call   create_note: maxLength at /properties/title/maxLength; review, patch"
VERDICT: Final = "1 call would be newly rejected; exit 1"


@pytest.fixture
def example(pytester: pytest.Pytester) -> Path:
    """The example project, copied where the inner pytest runs."""
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True)
    return pytester.path


def _tighten_title(catalog: Path, max_length: int = 40, tool: str = "create_note") -> None:
    document = json.loads(catalog.read_text(encoding="utf-8"))
    create_note = next(t for t in document["tools"] if t["name"] == tool)
    create_note["inputSchema"]["properties"]["title"]["maxLength"] = max_length
    catalog.write_text(json.dumps(document, indent=2), encoding="utf-8")


def _output(result: pytest.RunResult) -> str:
    return "\n".join(result.outlines + result.errlines)


def test_the_example_passes_a_change_that_breaks_no_recorded_call(
    example: Path, pytester: pytest.Pytester
) -> None:
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(passed=1)
    assert result.ret == 0


def test_a_change_that_newly_rejects_a_recorded_call_fails_with_the_groups_table(
    example: Path, pytester: pytest.Pytester
) -> None:
    _tighten_title(example / "catalog" / "tools.json")
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(failed=1)
    # The table, the group, the verdict; no traceback of the plugin's frames.
    result.stdout.fnmatch_lines(
        [
            "tool * calls * newly rejected * accepted *",
            "create_note * 2 * 1 * 1 *",
            "search_notes * 2 * 0 * 2 *",
            "total * 4 * 1 * 3 *",
            "",
            GROUP_LINE,
            "*",
            VERDICT,
        ],
        consecutive=False,
    )
    output = _output(result)
    assert "Traceback" not in output and "pytest_plugin.py" not in output
    # A limit that still admits the recorded title (45 characters) passes again.
    _tighten_title(example / "catalog" / "tools.json", max_length=45)
    pytester.runpytest(*PLUGIN).assert_outcomes(passed=1)


def test_verbose_gives_every_group_its_detail(example: Path, pytester: pytest.Pytester) -> None:
    _tighten_title(example / "catalog" / "tools.json")
    quiet = _output(pytester.runpytest(*PLUGIN))
    verbose = _output(pytester.runpytest(*PLUGIN, "-v"))
    assert "fingerprint: " in verbose and "fingerprint: " not in quiet
    assert VERDICT in verbose


GIT_TEST: Final = """
def test_the_work_tree_breaks_no_call_recorded(tool_schema_audit):
    tool_schema_audit(["catalog/tools.json"], against="HEAD")
"""


def _git(folder: Path, *args: str) -> None:
    identity = ["-c", "user.name=test", "-c", "user.email=test@example.com"]
    subprocess.run(["git", *identity, *args], cwd=folder, check=True, capture_output=True)


def test_against_a_git_revision_the_work_tree_is_the_new_side(
    example: Path, pytester: pytest.Pytester
) -> None:
    (example / "test_tool_schemas.py").write_text(GIT_TEST, encoding="utf-8")
    _git(example, "init", "-q")
    _git(example, "add", "catalog/tools.json")
    _git(example, "commit", "-qm", "the catalog as merged")
    # The work tree as committed: nothing changed, nothing newly rejected.
    pytester.runpytest(*PLUGIN).assert_outcomes(passed=1)
    _tighten_title(example / "catalog" / "tools.json")
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([GROUP_LINE, "*", VERDICT], consecutive=False)


HOSTILE_NAME: Final = "note\x1b[2J\u202e"
"""A tool name that would clear the screen and reverse the text after it, left raw."""


def test_names_from_the_catalog_and_logs_reach_the_message_escaped(
    example: Path, pytester: pytest.Pytester
) -> None:
    in_json = json.dumps(HOSTILE_NAME)[1:-1]  # "note\u001b[2J\u202e"
    for path in (*(example / "catalog").glob("*.json"), example / "recorded" / "calls.jsonl"):
        path.write_text(path.read_text(encoding="utf-8").replace("create_note", in_json))
    _tighten_title(example / "catalog" / "tools.json", tool=HOSTILE_NAME)
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(failed=1)
    output = _output(result)
    assert VERDICT in output
    assert "\x1b" not in output and "\u202e" not in output
    assert "note\\x1b[2J" in output  # shown, as an escape a reader can see


def test_unusable_input_fails_the_test_in_one_line(
    example: Path, pytester: pytest.Pytester
) -> None:
    (example / "catalog" / "released.json").unlink()
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(failed=1)
    failing = [line for line in result.outlines if line.startswith("auditor: error: ")]
    assert len(failing) == 1 and "released.json" in failing[0], result.outlines
    assert "Traceback" not in _output(result)
    assert "During handling" not in _output(result)  # not the error behind the failure
    # A log holding no call audits nothing: said the same way.
    (example / "recorded" / "calls.jsonl").write_text("", encoding="utf-8")
    shutil.copy(EXAMPLE / "catalog" / "released.json", example / "catalog" / "released.json")
    empty = pytester.runpytest(*PLUGIN)
    empty.assert_outcomes(failed=1)
    empty.stdout.fnmatch_lines(["auditor: error: no call read from the logs *"])
    assert "During handling" not in _output(empty)


NAMED: Final = """
def test_given_its_own_logs(tool_schema_audit):
    tool_schema_audit(
        ["catalog/released.json"],
        new_schemas=["catalog/tools.json"],
        logs=["recorded/calls.jsonl"],
        fail_on="{fail_on}",
    )
"""


def test_logs_come_from_the_test_or_the_ini_and_fail_on_is_the_option_s(
    example: Path, pytester: pytest.Pytester
) -> None:
    _tighten_title(example / "catalog" / "tools.json")
    (example / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    # No logs anywhere: said, not a crash.
    missing = pytester.runpytest(*PLUGIN)
    missing.assert_outcomes(failed=1)
    missing.stdout.fnmatch_lines(["tool_schema_audit: no call logs: pass logs=*"])
    test = example / "test_tool_schemas.py"
    test.write_text(NAMED.format(fail_on="newly-rejected"), encoding="utf-8")
    pytester.runpytest(*PLUGIN).assert_outcomes(failed=1)
    # --fail-on never: the same change is reported, and nothing fails.
    test.write_text(NAMED.format(fail_on="never"), encoding="utf-8")
    pytester.runpytest(*PLUGIN).assert_outcomes(passed=1)


WARNING: Final = "auditor.pytest_plugin.ToolSchemaAuditWarning"


def test_a_log_folder_holding_no_log_is_a_warning_the_suite_can_make_an_error(
    example: Path, pytester: pytest.Pytester
) -> None:
    (example / "more").mkdir()
    (example / "pytest.ini").write_text(
        "[pytest]\ntool_schema_audit_logs =\n    recorded/calls.jsonl\n    more\n",
        encoding="utf-8",
    )
    # In process, the inner run inherits this suite's "error" filter: shown, by name (the
    # name imports the module early, a warning of pytest's own: not counted here).
    warned = pytester.runpytest(*PLUGIN, "-W", f"default::{WARNING}")
    warned.assert_outcomes(passed=1)
    warned.stdout.fnmatch_lines(["*ToolSchemaAuditWarning: auditor: */more: no log files*"])
    strict = pytester.runpytest(*PLUGIN, "-W", f"error::{WARNING}")
    strict.assert_outcomes(failed=1)
    strict.stdout.fnmatch_lines(["*ToolSchemaAuditWarning: auditor: */more: no log files*"])


def test_bad_arguments_are_one_line_each(example: Path, pytester: pytest.Pytester) -> None:
    test = example / "test_tool_schemas.py"
    test.write_text(NAMED.format(fail_on="sometimes"), encoding="utf-8")
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["tool_schema_audit: fail_on='sometimes': one of *never"])
    test.write_text(
        "def test_one_path(tool_schema_audit):\n    tool_schema_audit('tools.json')\n",
        encoding="utf-8",
    )
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["tool_schema_audit: schemas is a list of paths*"])


ENTRY_POINTS: Final = dict(
    tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"][
        "pytest11"
    ]
)


def test_pyproject_declares_the_entry_point_under_the_module_s_name() -> None:
    assert ENTRY_POINTS == {"auditor.pytest_plugin": "auditor.pytest_plugin"}


def _installed_run(tmp_path: Path, name: str, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest in a project whose environment has the plugin installed under entry point
    ``name`` (a distribution's metadata on the path, as pip would write it)."""
    site = tmp_path / "site"
    dist = site / "installed-0.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: installed\nVersion: 0\n")
    (dist / "entry_points.txt").write_text(f"[pytest11]\n{name} = auditor.pytest_plugin\n")
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    (project / "test_it.py").write_text(
        "def test_the_fixture_is_there(tool_schema_audit):\n    assert tool_schema_audit\n"
    )
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=project,
        env={**os.environ, "PYTHONPATH": f"{site}{os.pathsep}{ROOT}"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_installed_the_entry_point_loads_the_plugin_and_p_does_not_load_it_twice(
    tmp_path: Path,
) -> None:
    (name,) = ENTRY_POINTS
    assert _installed_run(tmp_path / "bare", name).returncode == 0  # no -p: the entry point
    both = _installed_run(tmp_path / "both", name, *PLUGIN[:2])
    assert both.returncode == 0, both.stdout + both.stderr
    # The check can fail: under another name, pytest refuses the second registration.
    other = _installed_run(tmp_path / "other", "auditor", *PLUGIN[:2])
    assert other.returncode != 0
    assert "Plugin already registered under a different name" in other.stdout + other.stderr


def test_loading_the_plugin_does_not_load_auditor_s_core() -> None:
    # Installed, the plugin is loaded by every pytest run of the environment: the audit's
    # stack is imported when a test calls the fixture, not before.
    probe = (
        "import sys, auditor.pytest_plugin\n"
        "print(sorted(m for m in sys.modules if m.startswith('auditor')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "['auditor', 'auditor.pytest_plugin']"
