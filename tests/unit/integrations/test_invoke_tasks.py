"""Invoke collection: tasks map their options to the CLI and fail through invoke.Exit (issue 8)."""

from __future__ import annotations

import json

import pytest
from invoke import Config, Exit, MockContext

from jlgcli import invoke_tasks
from jlgcli.runner.options import RunOptions
from jlgcli.runner.summary import RunSummary


@pytest.fixture
def cli(monkeypatch):
    """Replace the dev loop's door (``run_door``); ``cli.calls`` is what it got."""

    class Recorder:
        def __init__(self) -> None:
            self.code = 0
            self.calls: list[list[str]] = []

        def __call__(self, argv):
            self.calls.append(list(argv))
            return self.code

    recorder = Recorder()
    monkeypatch.setattr("jlgcli.commands.dev_program.run_door", recorder)
    return recorder


def context(**jlgcli_config) -> MockContext:
    overrides = invoke_tasks.ns.configuration()
    overrides["jlgcli"] = {**overrides["jlgcli"], **jlgcli_config}
    return MockContext(config=Config(overrides=overrides))


def test_loop_maps_every_option(core, capsys):
    summary = invoke_tasks.loop(context(), task="task.md", backend="codex", max_iterations="3",
                                timeout="10m", completion="json", artifacts=True, json=True,
                                args="-v --model 'big one'")  # fmt: skip
    assert core.calls == [("loop", RunOptions(
        prompt="task.md", backend="codex", max_iterations="3", timeout="10m", completion="json",
        artifacts=True, verbosity=2, model="big one"))]  # fmt: skip
    assert summary.exitCode == 0 and summary.stopCause == "done"
    assert json.loads(capsys.readouterr().out)["runId"] == summary.runId


def test_prompt_is_another_name_for_task(core):
    invoke_tasks.run(context(), prompt="p.md")
    invoke_tasks.run(context(), task="p.md", prompt="p.md")
    assert [options.prompt for _, options in core.calls] == ["p.md", "p.md"]


def test_task_options_beat_the_config_args(core):
    """Issue 19 item 2: invoke.yaml's args name a backend; --backend on the task wins."""
    invoke_tasks.loop(context(args="--backend replay --artifacts"), task="t.md", backend="codex",
                      args="-q")  # fmt: skip
    ((_, options),) = core.calls
    assert options.backend == "codex" and options.artifacts is True and options.verbosity == 0


def test_task_defaults_from_the_config_and_flags_beat_them(core):
    """Issue 38: jlgcli.backend / jlgcli.max_iterations were ignored; now defaults."""
    c = context(backend="codex", max_iterations=4, task="t.md", args="--model small")
    invoke_tasks.loop(c)
    invoke_tasks.loop(c, backend="claude", max_iterations="2", args="--model big")
    first, second = (options for _, options in core.calls)
    assert (first.backend, first.max_iterations, first.prompt, first.model) == (
        "codex", 4, "t.md", "small")  # fmt: skip
    assert (second.backend, second.max_iterations, second.model) == ("claude", "2", "big")


def test_an_unknown_config_key_exits_64_naming_it(core, capsys):
    with pytest.raises(Exit) as caught:
        invoke_tasks.run(context(max_iteration=3), task="t.md")
    assert caught.value.code == 64 and not core.calls
    assert "jlgcli.max_iteration" in capsys.readouterr().err


def test_a_context_without_jlgcli_config_works(core):
    invoke_tasks.run(MockContext(), task="t.md")
    assert core.calls == [("run", RunOptions(prompt="t.md"))]


@pytest.mark.parametrize(("cause", "code"), [("error", 1), ("max-iterations", 4),
                                             ("invalid-json", 65), ("timeout", 75)])  # fmt: skip
def test_a_failed_run_exits_with_jlgcli_exit_code(core, cause, code):
    core.cause = cause
    with pytest.raises(Exit) as caught:
        invoke_tasks.loop(context(), task="t.md")
    assert caught.value.code == code


def test_success_returns_the_summary(core, capsys):
    """Issue 13: Invoke tasks return the RunSummary (Invoke's convention: tasks return values)."""
    summary = invoke_tasks.loop(context(), task="t.md")
    assert isinstance(summary, RunSummary) and summary.exitCode == 0
    assert "jlgcli loop: DONE" in capsys.readouterr().err


@pytest.mark.parametrize(
    "call",
    [
        lambda c: invoke_tasks.loop(c),  # no task
        lambda c: invoke_tasks.run(c, task="a.md", prompt="b.md"),  # two different prompts
        lambda c: invoke_tasks.loop(c, task="a.md", args="'unclosed"),
    ],
)
def test_bad_options_exit_64_before_the_core_runs(core, call, capsys):
    with pytest.raises(Exit) as caught:
        call(context())
    assert caught.value.code == 64
    assert capsys.readouterr().err.startswith("error: ")
    assert core.calls == []


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
