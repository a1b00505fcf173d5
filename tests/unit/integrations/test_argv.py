"""Door options → ``RunOptions`` (issue 13: every door calls jlgcli.api; issue 19 item 2)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jlgcli.errors import JlgError
from jlgcli.integrations.argv import dev_argv, door_options, parse_bool, split_args
from jlgcli.runner.options import RunOptions


def test_loop_with_every_option():
    options = door_options("loop", "task.md", backend="codex", max_iterations=3, timeout="10m",
                           completion="json", artifacts=True, extra=["-v"])  # fmt: skip
    assert options == RunOptions(prompt="task.md", backend="codex", max_iterations=3,
                                 timeout="10m", completion="json", artifacts=True,
                                 verbosity=2)  # fmt: skip


def test_empty_strings_mean_not_given():
    options = door_options("loop", " task.md ", backend="", max_iterations="  ", timeout="",
                           completion="", artifacts=None)  # fmt: skip
    assert options == RunOptions(prompt="task.md")


def test_explicit_options_beat_the_extra_args():
    """Issue 19 item 2: invoke.yaml's args say --backend fake; --backend codex wins."""
    options = door_options("loop", "t.md", backend="codex",
                           extra=["--backend", "fake", "--artifacts", "-n", "9"])  # fmt: skip
    assert options.backend == "codex"
    assert options.artifacts is True and options.max_iterations == "9"


def test_extra_args_are_parsed_by_the_real_parser():
    with pytest.raises(JlgError) as caught:
        door_options("loop", "t.md", extra=["--no-such-flag"])
    assert caught.value.code == 64
    options = door_options("run", "p.md", extra=["--model", "big", "--backend-arg=--x=1"])
    assert options.model == "big" and options.backend_args == ("--x=1",)
    assert options.prompt == "p.md"


@pytest.mark.parametrize("option", [{"max_iterations": 2}, {"completion": "json"}])
def test_loop_only_options_are_refused_for_run(option):
    with pytest.raises(JlgError) as caught:
        door_options("run", "p.md", **option)
    assert caught.value.code == 64
    assert "applies to loop" in caught.value.message


@pytest.mark.parametrize("prompt", [None, "", "  "])
def test_run_and_loop_need_a_prompt(prompt):
    with pytest.raises(JlgError) as caught:
        door_options("loop", prompt)
    assert caught.value.code == 64


def test_a_resumed_loop_needs_no_prompt():
    assert door_options("loop", None, extra=["--resume", "latest"]).resume == "latest"


def test_unknown_command():
    with pytest.raises(JlgError) as caught:
        door_options("deploy", "p.md")
    assert caught.value.code == 64
    assert "run, loop, dev" in (caught.value.hint or "")


@pytest.mark.parametrize(
    ("extra", "backend", "expected"),
    [
        ([], None, ["dev", "run"]),
        (["--yes"], "copilot", ["dev", "run", "--yes", "--llm", "copilot"]),
        (["resume", "--from-step", "4"], "", ["dev", "resume", "--from-step", "4"]),
        (["run", "TASK-003"], None, ["dev", "run", "TASK-003"]),
        (["init", "--yes"], "claude", ["dev", "init", "--yes"]),  # issue 36: init has no agent
    ],
)
def test_dev_takes_its_subcommand_from_extra(extra, backend, expected):
    assert dev_argv(backend, extra) == expected


def test_dev_json():
    assert dev_argv(json=True) == ["dev", "run", "--json"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", None), (" TRUE ", True), ("yes", True), ("1", True), ("false", False), ("No", False),
     ("0", False), (None, None)],
)  # fmt: skip
def test_parse_bool(text, expected):
    assert parse_bool(text, name="x") is expected


def test_parse_bool_refuses_anything_else():
    with pytest.raises(JlgError) as caught:
        parse_bool("maybe", name="fail-on-error")
    assert caught.value.code == 64
    assert "fail-on-error" in caught.value.message


def test_split_args_posix_and_windows_rules():
    assert split_args("--model 'big one' -v", is_windows=False) == ["--model", "big one", "-v"]
    assert split_args(r'--cwd C:\work\x "a b"', is_windows=True) == ["--cwd", r"C:\work\x", "a b"]
    assert split_args("   ", is_windows=False) == []


def test_split_args_reports_unbalanced_quotes():
    with pytest.raises(JlgError) as caught:
        split_args("--model 'oops", is_windows=False)
    assert caught.value.code == 64


_word = st.text(alphabet="abcdefghij-_./", min_size=1, max_size=12).filter(
    lambda s: not s.startswith("-")
)


@given(
    command=st.sampled_from(["run", "loop"]),
    prompt=_word,
    backend=st.none() | st.sampled_from(["claude", "codex", "auto", ""]),
    extra_backend=st.none() | st.sampled_from(["gemini", "copilot"]),
    max_iterations=st.none() | st.integers(min_value=1, max_value=99),
    timeout=st.none() | st.sampled_from(["30s", "10m", "1h", ""]),
    artifacts=st.none() | st.booleans(),
)
def test_named_options_always_win_over_extra_words(
    command, prompt, backend, extra_backend, max_iterations, timeout, artifacts
):
    if command == "run":
        max_iterations = None
    extra = ["--backend", extra_backend] if extra_backend else []
    options = door_options(command, prompt, backend=backend, max_iterations=max_iterations,
                           timeout=timeout, artifacts=artifacts, extra=extra)  # fmt: skip
    assert options.prompt == prompt
    assert options.backend == (backend or extra_backend or None)
    assert options.artifacts is artifacts
    assert options.timeout == (timeout or None)
    assert options.max_iterations == max_iterations
