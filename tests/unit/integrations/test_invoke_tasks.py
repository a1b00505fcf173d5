"""Invoke collection: tasks map their options to the CLI and fail through invoke.Exit (issue 8)."""

from __future__ import annotations

import pytest
from invoke import Config, Exit, MockContext

from jlgcli import invoke_tasks


@pytest.fixture
def cli(monkeypatch):
    """Replace the in-process CLI; ``cli.code`` is what it returns, ``cli.calls`` what it got."""

    class Recorder:
        def __init__(self) -> None:
            self.code = 0
            self.calls: list[list[str]] = []

        def __call__(self, argv):
            self.calls.append(list(argv))
            return self.code

    recorder = Recorder()
    monkeypatch.setattr("jlgcli.cli.main", recorder)
    return recorder


def context(**jlgcli_config) -> MockContext:
    overrides = invoke_tasks.ns.configuration()
    overrides["jlgcli"] = {**overrides["jlgcli"], **jlgcli_config}
    return MockContext(config=Config(overrides=overrides))


def test_loop_maps_every_option(cli):
    invoke_tasks.loop(context(), task="task.md", backend="codex", max_iterations="3",
                      timeout="10m", completion="json", artifacts=True, json=True,
                      args="-v --model 'big one'")  # fmt: skip
    assert cli.calls == [["loop", "task.md", "--backend", "codex", "--timeout", "10m",
                          "--max-iterations", "3", "--completion", "json", "--artifacts",
                          "--json", "-v", "--model", "big one"]]  # fmt: skip


def test_prompt_is_another_name_for_task(cli):
    invoke_tasks.run(context(), prompt="p.md")
    invoke_tasks.run(context(), task="p.md", prompt="p.md")
    assert cli.calls == [["run", "p.md"], ["run", "p.md"]]


def test_config_args_come_before_the_task_args(cli):
    invoke_tasks.loop(context(args="--backend replay"), task="t.md", args="-q")
    assert cli.calls == [["loop", "t.md", "--backend", "replay", "-q"]]


def test_a_context_without_jlgcli_config_works(cli):
    invoke_tasks.run(MockContext(), task="t.md")
    assert cli.calls == [["run", "t.md"]]


@pytest.mark.parametrize("code", [1, 4, 65, 75])
def test_a_failed_run_exits_with_jlgcli_exit_code(cli, code):
    cli.code = code
    with pytest.raises(Exit) as caught:
        invoke_tasks.loop(context(), task="t.md")
    assert caught.value.code == code


def test_success_returns_quietly(cli):
    assert invoke_tasks.loop(context(), task="t.md") is None


@pytest.mark.parametrize(
    "call",
    [
        lambda c: invoke_tasks.loop(c),  # no task
        lambda c: invoke_tasks.run(c, task="a.md", prompt="b.md"),  # two different prompts
        lambda c: invoke_tasks.loop(c, task="a.md", args="'unclosed"),
    ],
)
def test_bad_options_exit_64_before_the_cli_runs(cli, call, capsys):
    with pytest.raises(Exit) as caught:
        call(context())
    assert caught.value.code == 64
    assert capsys.readouterr().err.startswith("error: ")
    assert cli.calls == []


def test_dev_passes_its_subcommand_and_agent(cli):
    invoke_tasks.dev(context(), args="run TASK-002 --yes", backend="copilot")
    invoke_tasks.dev(context())
    assert cli.calls == [["dev", "run", "TASK-002", "--yes", "--llm", "copilot"], ["dev", "run"]]


def test_the_collection_exposes_run_loop_dev_with_config_defaults():
    assert set(invoke_tasks.ns.task_names) == {"run", "loop", "dev"}
    assert invoke_tasks.ns.name == "jlg"
    assert invoke_tasks.ns.configuration() == {"jlgcli": {"args": ""}}


def test_task_flags_are_the_documented_ones():
    flags = {arg.name for arg in invoke_tasks.loop.get_arguments()}
    assert {"task", "prompt", "backend", "max_iterations", "timeout", "completion", "artifacts",
            "json", "args"} <= flags  # fmt: skip
