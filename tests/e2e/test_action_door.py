"""The GitHub Action door: action.yml and the workflows validated offline, and the composite
action's own bash steps run here with ``GITHUB_OUTPUT``/``GITHUB_STEP_SUMMARY`` in temp files,
checking the outputs a workflow would read (issue 8). There is no Actions runner here: the
``${{ }}`` expressions of each step's ``env:`` are evaluated by a tiny stand-in below.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.environ import tool_environ

from jlgcli.commands.parser import build_parser
from jlgcli.errors import JlgError
from jlgcli.integrations.action import INPUTS
from tests.unit.integrations.gha_format import parse_github_output
from tests.unit.integrations.tools import ORIGINAL_PATH, add_git_on_windows, find_bash

# Test tools (the "test" extra): PyYAML comes with pre-commit.
yaml = pytest.importorskip("yaml", reason="PyYAML is needed (pip install pre-commit)")

REPO_ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((REPO_ROOT / "action.yml").read_text(encoding="utf-8"))
STEPS = {step["id"]: step for step in ACTION["runs"]["steps"]}
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")


def _publish_wired() -> bool:
    try:
        build_parser().parse_args(["loop", "task.md", "--github"])
    except (JlgError, SystemExit):
        return False
    return True


needs_publish = pytest.mark.skipif(
    not _publish_wired(),
    reason="run/loop do not call jlgcli.integrations.github.publish yet (lead: --github flag)",
)


def check_jsonschema(schema: str, *files: Path) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("check_jsonschema", reason="pip install check-jsonschema (test extra)")
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema,
         *map(str, files)],
        capture_output=True, text=True, timeout=120, env=tool_environ(),
    )  # fmt: skip


def test_action_yml_matches_the_github_actions_schema():
    result = check_jsonschema("vendor.github-actions", REPO_ROOT / "action.yml")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ci_workflow_matches_the_github_workflows_schema():
    result = check_jsonschema("vendor.github-workflows", REPO_ROOT / ".github/workflows/ci.yml")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_documented_fan_out_workflow_is_valid(tmp_path):
    doc = (REPO_ROOT / "docs" / "doors.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", doc, re.S) if "matrix:" in b]
    path = tmp_path / "fan-out.yml"
    path.write_text(block, encoding="utf-8")
    result = check_jsonschema("vendor.github-workflows", path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "${{ matrix.task }}" in block and "upload-artifact" in block


def test_the_schema_check_can_fail(tmp_path):
    broken = tmp_path / "action.yml"
    broken.write_text("name: x\nruns:\n  using: composite\n  steps:\n  - run: echo\n",
                      encoding="utf-8")  # fmt: skip
    assert check_jsonschema("vendor.github-actions", broken).returncode != 0


def test_inputs_reach_scripts_only_through_env():
    for step in ACTION["runs"]["steps"]:
        if "run" in step:
            assert "${{" not in step["run"], f"expression inside run: of step {step['id']}"
            assert step["shell"] == "bash"  # on every OS (Git Bash on Windows)
    env = STEPS["run"]["env"]
    for name, variable in INPUTS.items():
        assert env[variable] == f"${{{{ inputs.{name} }}}}"
    assert set(ACTION["inputs"]) == {*INPUTS, "working-directory", "python-version"}
    assert STEPS["run"]["working-directory"] == "${{ inputs.working-directory }}"


def test_the_composite_scripts_pass_shellcheck(tmp_path):
    shellcheck = shutil.which("shellcheck", path=ORIGINAL_PATH)
    if shellcheck is None:
        pytest.skip("shellcheck is not installed (apt-get install shellcheck)")
    scripts = []
    for step in ACTION["runs"]["steps"]:
        if "run" in step:
            path = tmp_path / f"{step['id']}.sh"
            path.write_text("#!/usr/bin/env bash\n" + step["run"], encoding="utf-8")
            scripts.append(str(path))
    result = subprocess.run([shellcheck, "-S", "style", *scripts], capture_output=True,
                            text=True, timeout=60)  # fmt: skip
    assert result.returncode == 0, result.stdout


def test_outputs_come_from_the_run_step_and_match_what_jlgcli_writes():
    from jlgcli.integrations.github import OUTPUT_NAMES

    for name, output in ACTION["outputs"].items():
        assert output["value"] == f"${{{{ steps.run.outputs.{name} }}}}"
        assert name in OUTPUT_NAMES
    assert {"status", "exit-code", "iterations", "summary", "run-dir", "cost"} <= set(
        ACTION["outputs"]
    )


def test_every_uses_is_pinned_to_a_commit():
    workflow = yaml.safe_load((REPO_ROOT / ".github/workflows/ci.yml").read_text("utf-8"))
    uses = [s["uses"] for s in ACTION["runs"]["steps"] if "uses" in s]
    for job in workflow["jobs"].values():
        uses += [s["uses"] for s in job["steps"] if "uses" in s]
    for ref in uses:
        assert ref == "./" or re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", ref), ref


def test_ci_runs_the_suite_on_three_oses_and_four_pythons_and_the_action_itself():
    workflow = yaml.safe_load((REPO_ROOT / ".github/workflows/ci.yml").read_text("utf-8"))
    matrix = workflow["jobs"]["test"]["strategy"]["matrix"]
    assert set(matrix["os"]) == {"ubuntu-latest", "macos-latest", "windows-latest"}
    assert matrix["python"] == ["3.10", "3.11", "3.12", "3.13"]
    action_job = workflow["jobs"]["action"]
    assert set(action_job["strategy"]["matrix"]["os"]) == set(matrix["os"])
    assert any(step.get("uses") == "./" for step in action_job["steps"])


def test_the_windows_legs_run_the_windows_tests_for_real():
    # issue 47: the tests written for Windows, then the suite, on windows-latest; the fakes
    # are npm-shaped claude.cmd shims there (tests/conftest.py).
    workflow = yaml.safe_load((REPO_ROOT / ".github/workflows/ci.yml").read_text("utf-8"))
    steps = workflow["jobs"]["test"]["steps"]
    windows = [s for s in steps if s.get("if") == "runner.os == 'Windows'"]
    assert [s["name"] for s in windows] == [
        "Windows-specific tests",
        "Tests on Windows (the README's test command, without the coverage gate)",
    ]
    assert "tests/e2e/test_windows_programs.py" in windows[0]["run"]
    assert "tests/unit/process" in windows[0]["run"]
    gated = [s for s in steps if "--cov-report=term" in s.get("run", "")]
    assert {s.get("if") for s in gated} == {"runner.os != 'Windows'", "runner.os == 'Windows'"}


# -- running the composite's bash steps here ------------------------------------------------
def render(value: object, context: dict[str, str]) -> str:
    """Evaluate ``${{ inputs.x }}`` / ``${{ steps.s.outputs.o }}`` the way the runner would."""
    return EXPRESSION.sub(lambda m: context[m.group(1)], str(value))


def run_step(step_id: str, *, inputs: dict[str, str], context: dict[str, str], cwd: Path,
             github: dict[str, str]) -> subprocess.CompletedProcess[str]:  # fmt: skip
    step = STEPS[step_id]
    values = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    values.update(inputs)
    ctx = {f"inputs.{name}": value for name, value in values.items()} | context
    env = {name: render(value, ctx) for name, value in step.get("env", {}).items()}
    workdir = cwd / render(step.get("working-directory", "."), ctx)
    bash = find_bash()
    assert bash, "bash is needed (Git Bash on Windows)"
    return subprocess.run(
        [bash, "-e", "-c", step["run"]], cwd=workdir, capture_output=True, text=True,
        encoding="utf-8", errors="replace", timeout=600, stdin=subprocess.DEVNULL,
        env=tool_environ(GITHUB_ACTIONS="true", **github, **env),
    )  # fmt: skip


@pytest.fixture(autouse=True)
def git_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    add_git_on_windows(monkeypatch)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    (root / "work").mkdir(parents=True)
    (root / "work" / "task.md").write_text("Make the greeting friendlier.\n", encoding="utf-8")
    return root


@pytest.fixture
def github_files(tmp_path: Path) -> dict[str, str]:
    return {"GITHUB_OUTPUT": str(tmp_path / "github_output"),
            "GITHUB_STEP_SUMMARY": str(tmp_path / "step_summary.md"),
            "RUNNER_TEMP": str(tmp_path / "runner-temp")}  # fmt: skip


def outputs(github: dict[str, str]) -> dict[str, str]:
    path = Path(github["GITHUB_OUTPUT"])
    return parse_github_output(path.read_text(encoding="utf-8")) if path.exists() else {}


def fake_turns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *turns: dict[str, object]) -> None:
    script = tmp_path / "fake.json"
    script.write_text(json.dumps({"turns": list(turns)}), encoding="utf-8")
    monkeypatch.setenv("JLGCLI_FAKE_SCRIPT", str(script))


def run_with_this_python(workspace, github_files, **inputs):
    return run_step("run", inputs={"working-directory": "work", "prompt-file": "task.md",
                                   "backend": "claude", **inputs},
                    context={"steps.install.outputs.python": sys.executable},
                    cwd=workspace, github=github_files)  # fmt: skip


def test_run_step_exit_code_output_and_failure(workspace, github_files, tmp_path, monkeypatch):
    fake_turns(tmp_path, monkeypatch, {"text": "still working"})
    result = run_with_this_python(workspace, github_files, **{"max-iterations": "1"})
    assert result.returncode == 4, result.stdout + result.stderr
    assert outputs(github_files)["exit-code"] == "4"
    assert "jlgcli loop: INCOMPLETE (max-iterations" in result.stderr
    assert "1 iteration without completion" in result.stderr


def test_run_step_fail_on_error_false_passes(workspace, github_files, tmp_path, monkeypatch):
    fake_turns(tmp_path, monkeypatch, {"text": "still working"})
    result = run_with_this_python(workspace, github_files,
                                  **{"max-iterations": "1", "fail-on-error": "false"})  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert outputs(github_files)["exit-code"] == "4"
    assert "::warning title=jlgcli::jlgcli exited 4" in result.stdout


def test_run_step_bad_input_is_64(workspace, github_files):
    result = run_with_this_python(workspace, github_files, command="deploy")
    assert result.returncode == 64
    assert outputs(github_files) == {"status": "error", "exit-code": "64"}


@needs_publish
def test_run_step_writes_the_outputs_and_summary_a_workflow_reads(
    workspace, github_files, tmp_path, monkeypatch
):
    fake_turns(
        tmp_path, monkeypatch, {"text": 'Done.\n{"status": "done", "summary": "friendlier now"}'}
    )
    result = run_with_this_python(workspace, github_files, completion="json", artifacts="true")
    assert result.returncode == 0, result.stdout + result.stderr
    values = outputs(github_files)
    assert values["status"] == "done"
    assert values["exit-code"] == "0"
    assert values["iterations"] == "1"
    assert values["summary"] == "friendlier now"
    run_dir = (workspace / "work" / values["run-dir"]).resolve()  # absolute or relative to cwd
    assert run_dir.is_dir()
    assert run_dir.is_relative_to((workspace / "work").resolve())
    summary_md = Path(github_files["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    assert summary_md.startswith("### ✅ jlgcli loop: done")


@pytest.mark.slow
def test_install_step_then_run_step(workspace, github_files, tmp_path, monkeypatch):
    """The whole composite: a venv with jlgcli installed from the action's own copy, then a loop."""
    action_path = tmp_path / "action-checkout"
    action_path.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "action.yml"):
        if (REPO_ROOT / name).exists():
            shutil.copy2(REPO_ROOT / name, action_path / name)
    if not (action_path / "README.md").exists():
        (action_path / "README.md").write_text("# jlgcli\n", encoding="utf-8")
    shutil.copytree(REPO_ROOT / "jlgcli", action_path / "jlgcli",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))  # fmt: skip
    Path(github_files["RUNNER_TEMP"]).mkdir()
    install_out = tmp_path / "install_output"
    installed = run_step(
        "install", inputs={}, cwd=workspace,
        context={"steps.python.outputs.python-path": sys.executable},
        github={**github_files, "GITHUB_OUTPUT": str(install_out),
                "GITHUB_ACTION_PATH": str(action_path)},
    )  # fmt: skip
    assert installed.returncode == 0, installed.stdout + installed.stderr
    python = parse_github_output(install_out.read_text(encoding="utf-8"))["python"]
    assert Path(python).is_relative_to(Path(github_files["RUNNER_TEMP"]) / "jlgcli-venv")
    fake_turns(tmp_path, monkeypatch, {"text": "first"}, {"text": "second\nDONE"})
    result = run_step("run", inputs={"working-directory": "work", "prompt-file": "task.md",
                                     "backend": "claude", "max-iterations": "3"},
                      context={"steps.install.outputs.python": python},
                      cwd=workspace, github=github_files)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert outputs(github_files)["exit-code"] == "0"


def test_run_step_dev_goes_through_the_api_with_seed_003_codes(workspace, github_files):
    # issue 36: the Action's dev calls jlgcli.api.dev (dev init exists; codes are 0/1/2/3)
    done = run_with_this_python(workspace, github_files, command="dev", args="init --yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (workspace / "work" / "docs" / "implementation-plan.md").is_file()
    assert outputs(github_files) == {"status": "done", "exit-code": "0"}
    Path(github_files["GITHUB_OUTPUT"]).unlink()
    bad = run_with_this_python(workspace, github_files, command="dev",
                               args="resume --from-step 9")  # fmt: skip
    assert bad.returncode == 2, bad.stdout + bad.stderr  # a usage error was 64 before
    assert outputs(github_files) == {"status": "error", "exit-code": "2"}
