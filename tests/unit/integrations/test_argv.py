"""Door options → the jlgcli command line (issue 8: same core, same options)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jlgcli.cli import build_parser
from jlgcli.errors import JlgError
from jlgcli.integrations.argv import command_argv, parse_bool, split_args


def test_loop_with_every_option():
    argv = command_argv("loop", "task.md", backend="codex", max_iterations=3, timeout="10m",
                        completion="json", artifacts=True, json=True, extra=["-v"])  # fmt: skip
    assert argv == ["loop", "task.md", "--backend", "codex", "--timeout", "10m",
                    "--max-iterations", "3", "--completion", "json", "--artifacts", "--json",
                    "-v"]  # fmt: skip


def test_empty_strings_mean_not_given():
    argv = command_argv("loop", " task.md ", backend="", max_iterations="  ", timeout="",
                        completion="", artifacts=None)  # fmt: skip
    assert argv == ["loop", "task.md"]


def test_run_with_no_artifacts():
    assert command_argv("run", "p.md", artifacts=False) == ["run", "p.md", "--no-artifacts"]


@pytest.mark.parametrize("option", [{"max_iterations": 2}, {"completion": "json"}])
def test_loop_only_options_are_refused_for_run(option):
    with pytest.raises(JlgError) as caught:
        command_argv("run", "p.md", **option)
    assert caught.value.code == 64
    assert "applies to loop" in caught.value.message


@pytest.mark.parametrize("prompt", [None, "", "  "])
def test_run_and_loop_need_a_prompt(prompt):
    with pytest.raises(JlgError) as caught:
        command_argv("loop", prompt)
    assert caught.value.code == 64


def test_unknown_command():
    with pytest.raises(JlgError) as caught:
        command_argv("deploy", "p.md")
    assert caught.value.code == 64
    assert "run, loop, dev" in (caught.value.hint or "")


@pytest.mark.parametrize(
    ("extra", "backend", "expected"),
    [
        ([], None, ["dev", "run"]),
        (["--yes"], "copilot", ["dev", "run", "--yes", "--llm", "copilot"]),
        (["resume", "--from-step", "4"], "", ["dev", "resume", "--from-step", "4"]),
        (["run", "TASK-003"], None, ["dev", "run", "TASK-003"]),
    ],
)
def test_dev_takes_its_subcommand_from_extra(extra, backend, expected):
    assert command_argv("dev", "ignored.md", backend=backend, extra=extra) == expected


def test_dev_json():
    assert command_argv("dev", json=True) == ["dev", "run", "--json"]


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
    max_iterations=st.none() | st.integers(min_value=1, max_value=99),
    timeout=st.none() | st.sampled_from(["30s", "10m", "1h", ""]),
    completion=st.none() | st.sampled_from(["marker", "json", "rebound"]),
    artifacts=st.none() | st.booleans(),
    json=st.booleans(),
)
def test_every_argv_is_accepted_by_the_real_parser(
    command, prompt, backend, max_iterations, timeout, completion, artifacts, json
):
    if command == "run":
        max_iterations = completion = None
    argv = command_argv(command, prompt, backend=backend, max_iterations=max_iterations,
                        timeout=timeout, completion=completion, artifacts=artifacts,
                        json=json)  # fmt: skip
    args = build_parser().parse_args(argv)
    assert args.prompt == prompt
    assert args.json is json
    assert args.artifacts is artifacts
    assert args.backend == (backend or None)
    if command == "loop":
        assert args.completion == completion
        assert args.max_iterations == (str(max_iterations) if max_iterations else None)
