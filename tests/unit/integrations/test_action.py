"""The Python half of action.yml: inputs (JLG_* env) → jlgcli, exit-code output, fail-on-error."""

from __future__ import annotations

from pathlib import Path

import pytest

from jlgcli.errors import JlgError
from jlgcli.integrations import action
from jlgcli.runner.options import RunOptions
from tests.unit.integrations.gha_format import parse_github_output


class FakeCli:
    def __init__(self, code: int) -> None:
        self.code = code
        self.calls: list[list[str]] = []

    def __call__(self, argv):
        self.calls.append(list(argv))
        return self.code


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(tmp_path / "out"),
            "JLG_PROMPT_FILE": "task.md"}  # fmt: skip


def outputs(env: dict[str, str]) -> dict[str, str]:
    path = Path(env["GITHUB_OUTPUT"])
    return parse_github_output(path.read_text(encoding="utf-8")) if path.exists() else {}


def test_inputs_become_the_loop_options():
    options = action.action_options({
        "JLG_COMMAND": "loop", "JLG_PROMPT_FILE": "tasks/a.md", "JLG_BACKEND": "codex",
        "JLG_MAX_ITERATIONS": "3", "JLG_TIMEOUT": "20m", "JLG_COMPLETION": "json",
        "JLG_ARTIFACTS": "true", "JLG_ARGS": "--model 'o4 mini' -v",
    }, is_windows=False)  # fmt: skip
    assert options == RunOptions(prompt="tasks/a.md", backend="codex", timeout="20m",
                                 max_iterations="3", completion="json", artifacts=True,
                                 model="o4 mini", verbosity=2)  # fmt: skip


def test_command_defaults_to_loop_and_blank_inputs_are_ignored():
    options = action.action_options(
        {"JLG_PROMPT_FILE": "t.md", "JLG_BACKEND": "", "JLG_ARTIFACTS": ""}
    )
    assert options == RunOptions(prompt="t.md")


def test_success_publishes_the_summary_and_passes(env, core, capsys):
    assert action.main(env) == 0
    assert core.calls == [("loop", RunOptions(prompt="task.md"))]
    assert outputs(env)["exit-code"] == "0" and outputs(env)["status"] == "done"
    assert "jlgcli loop: DONE" in capsys.readouterr().err


def test_failure_fails_the_step_with_jlgcli_exit_code(env, core):
    core.cause = "max-iterations"
    assert action.main(env) == 4
    assert outputs(env)["exit-code"] == "4"


def test_fail_on_error_false_passes_the_step_but_keeps_the_code(env, core, capsys):
    env["JLG_FAIL_ON_ERROR"] = "false"
    core.cause = "timeout"
    assert action.main(env) == 0
    assert outputs(env)["exit-code"] == "75"
    assert "::warning title=jlgcli::jlgcli exited 75" in capsys.readouterr().out


def test_dev_gets_a_status_from_its_exit_code(env):
    env.update({"JLG_COMMAND": "dev", "JLG_ARGS": "run --yes", "JLG_BACKEND": "claude"})
    cli = FakeCli(3)
    assert action.main(env, run_dev=cli) == 3
    assert cli.calls == [["dev", "run", "--yes", "--llm", "claude"]]
    assert outputs(env) == {"exit-code": "3", "status": "error"}
    env["GITHUB_OUTPUT"] += "2"
    assert action.main(env, run_dev=FakeCli(0)) == 0
    assert outputs(env) == {"exit-code": "0", "status": "done"}


@pytest.mark.parametrize(
    "bad",
    [{"JLG_COMMAND": "deploy"}, {"JLG_PROMPT_FILE": ""}, {"JLG_FAIL_ON_ERROR": "maybe"},
     {"JLG_ARTIFACTS": "sometimes"}, {"JLG_COMMAND": "run", "JLG_MAX_ITERATIONS": "3"}],
)  # fmt: skip
def test_bad_inputs_are_a_usage_error_with_outputs(env, bad, core, capsys):
    env.update(bad)
    assert action.main(env) == 64
    assert core.calls == []
    assert outputs(env) == {"status": "error", "exit-code": "64"}
    assert capsys.readouterr().err.startswith("error: ")


def test_dev_default_runner_is_the_api(env, monkeypatch, tmp_path):
    # issue 36: the Action calls jlgcli.api.dev, not another door's main()
    seen: list[tuple[str, dict]] = []

    def fake_dev(command, **options):
        seen.append((command, options))
        from jlgcli.errors import ExitCode

        raise JlgError(ExitCode.CONFIG, "config unreadable")  # a jlgcli code: becomes 2

    monkeypatch.setattr("jlgcli.cli.main", None)  # never called
    monkeypatch.setattr("jlgcli.api.dev", fake_dev)
    env.update({"JLG_COMMAND": "dev", "JLG_ARGS": f"resume --from-step 4 -C {tmp_path}"})
    assert action.main(env) == 2
    assert outputs(env) == {"exit-code": "2", "status": "error"}
    command, options = seen[0]
    assert (command, options["from_step"], options["directory"]) == ("resume", 4, tmp_path)
