"""Completion (issue 19 item 17, issue 38): thin shell scripts over ``jlgcli __complete``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from jlgcli import cli
from jlgcli.commands import TOP_LEVEL_HELP
from jlgcli.commands.complete import FILES, complete_entry
from jlgcli.commands.complete_words import Reply, complete, runs_root
from jlgcli.commands.completion import INSTALL, SHELLS, script_for
from jlgcli.commands.parser import COMMANDS

README = Path(__file__).parents[2] / "README.md"


def _words(reply: Reply) -> list[str]:
    return [word for word, _ in reply.offers]


def _offers(line: str, tmp_path: Path) -> list[str]:
    """What a TAB offers at the end of ``line`` (the words after ``jlgcli``)."""
    *words, current = line.split(" ")
    return _words(complete(words, current, tmp_path))


def _script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert cli.main(["completion", shell]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("shell", SHELLS)
def test_each_script_calls_the_hidden_entry_and_names_its_install_command(
    shell: str, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _script(shell, capsys)
    assert f"jlgcli __complete {shell} " in script  # issue 38: values computed at TAB time
    assert INSTALL[shell] in script
    assert script == script_for(shell)


def test_commands_and_their_actions(tmp_path: Path) -> None:
    assert _offers("", tmp_path) == list(COMMANDS)  # help among them
    assert _offers("lo", tmp_path) == ["loop"]
    assert _offers("config ", tmp_path) == ["get", "set", "unset", "show", "path", "trust",
                                            "untrust"]  # fmt: skip
    assert _offers("help conf", tmp_path) == ["config"]
    assert _offers("help config s", tmp_path) == ["set", "show"]
    assert _offers("help config set ", tmp_path) == []
    assert _offers("help config nope ", tmp_path) == []
    assert _offers("help nope ", tmp_path) == []
    assert _offers("nope ", tmp_path) == []
    assert _offers("--v", tmp_path) == ["--version"]


def test_flags_include_the_common_ones_and_hide_the_hidden(tmp_path: Path) -> None:
    assert _offers("loop --perm", tmp_path) == ["--permissions"]
    assert "--json" in _offers("run -", tmp_path)  # the common options the CLI adds to leaves
    hook_flags = _offers("hook --", tmp_path)
    assert "--github" in hook_flags and "--replay" not in hook_flags


def test_choices_backends_and_comma_lists(tmp_path: Path) -> None:
    assert _offers("run x.md --permissions ", tmp_path) == ["read-only", "edit", "full"]
    assert _offers("loop --completion j", tmp_path) == ["json"]
    assert _offers("loop --verbosity ", tmp_path) == ["0", "1", "2", "3"]
    assert _offers("completion ", tmp_path) == list(SHELLS)
    assert _offers("loop --backend ", tmp_path) == ["claude", "codex", "copilot", "gemini",
                                                    "replay", "auto"]  # fmt: skip
    assert _offers("loop -b co", tmp_path) == ["codex", "copilot"]
    assert _offers("loop --backend=co", tmp_path) == ["--backend=codex", "--backend=copilot"]
    assert _offers("loop --nope=x", tmp_path) == _offers("loop --json=x", tmp_path) == []
    assert _offers("dev run --llm g", tmp_path) == ["gemini"]
    assert _offers("loop --fallback codex,g", tmp_path) == ["codex,gemini"]
    assert "codex,codex" not in _offers("loop --fallback codex,", tmp_path)
    assert "auto" not in _offers("loop --fallback ", tmp_path)


def test_configured_backends_are_offered(tmp_path: Path) -> None:
    user = Path(os.environ["JLGCLI_CONFIG_DIR"])
    user.mkdir(parents=True, exist_ok=True)
    (user / "config.json").write_text(json.dumps({"backends": {"mine": {"argv": ["cat"]}}}))
    (tmp_path / ".jlgcli.json").write_text('{"backends": {"theirs": {"argv": []}}}')
    assert _offers("loop --backend ", tmp_path)[-3:] == ["mine", "theirs", "auto"]
    assert _offers("config set backend th", tmp_path) == ["theirs"]
    (tmp_path / ".jlgcli.json").write_text("{broken")  # a broken file adds nothing
    assert "theirs" not in _offers("loop --backend ", tmp_path)


def test_config_keys_and_their_values(tmp_path: Path) -> None:
    assert _offers("config set max", tmp_path) == ["maxIterations", "maxCostUsd", "maxPromptBytes"]
    assert _offers("config get comp", tmp_path) == ["completionMode"]
    assert _offers("config unset --project v", tmp_path) == ["verbosity"]
    assert _offers("config set completionMode ", tmp_path) == ["marker", "json", "rebound"]
    assert _offers("config set artifacts ", tmp_path) == ["true", "false"]
    assert _offers("config set backend cl", tmp_path) == ["claude"]
    assert _offers("config set fallback codex,", tmp_path)[0] == "codex,claude"
    assert _offers("config set timeoutMs ", tmp_path) == ["30m"]  # an example, with its range
    assert _offers("config set timeoutMs 9", tmp_path) == []
    assert _offers("config set nope ", tmp_path) == []
    assert complete(["config", "set", "artifactsDir"], "", tmp_path).files


def test_run_ids_and_latest(tmp_path: Path) -> None:
    runs = tmp_path / ".jlgcli" / "runs"
    for name in ("20261101T000000Z-aa", "20261102T000000Z-bb"):
        (runs / name).mkdir(parents=True)
    (runs / "20261101T000000Z-aa" / "state.json").write_text("{}")
    assert _offers("runs show ", tmp_path) == ["20261102T000000Z-bb", "20261101T000000Z-aa",
                                               "latest"]  # fmt: skip
    assert _offers("runs show l", tmp_path) == ["latest"]
    # only loop runs that recorded a state can be resumed
    assert _offers("loop --resume ", tmp_path) == ["20261101T000000Z-aa", "latest"]
    other = tmp_path / "elsewhere"
    (other / "20261103T000000Z-cc").mkdir(parents=True)
    assert _offers("runs --dir elsewhere show 2", tmp_path) == ["20261103T000000Z-cc"]
    assert _offers("runs show --dir elsewhere 2", tmp_path) == ["20261103T000000Z-cc"]
    assert _offers("runs show --dir=nowhere ", tmp_path) == ["latest"]
    assert runs_root(None, tmp_path) == runs


def test_run_ids_are_real_ids_batches_included_never_their_folder(tmp_path: Path) -> None:
    """Issue 49: ``runs show <TAB>`` offered ``.batches`` (then "no run '.batches'")."""
    runs = tmp_path / ".jlgcli" / "runs"
    (runs / "20261101T000000Z-aa").mkdir(parents=True)
    (runs / "20261101T000000Z-aa" / "state.json").write_text("{}")
    (runs / "stray-file").write_text("")
    batch = "batch-20261102T000000Z-0a1b2c"
    (runs / ".batches" / batch).mkdir(parents=True)
    (runs / ".batches" / "not-a-batch").mkdir()
    assert _offers("runs show ", tmp_path) == ["20261101T000000Z-aa", batch, "latest"]
    assert _offers("loop --resume ", tmp_path) == ["20261101T000000Z-aa", batch, "latest"]
    assert _offers("loop --resume b", tmp_path) == [batch]
    assert _offers("runs show .", tmp_path) == []


@pytest.mark.parametrize("command", ["run", "loop", "matrix"])
def test_task_files_wherever_a_task_file_is_expected(command: str, tmp_path: Path) -> None:
    """Issue 49: ``jlgcli loop tas<TAB>`` offered nothing where ``run tas<TAB>`` gave files."""
    assert complete([command], "tas", tmp_path).files
    # loop and matrix take several (loop A.md B.md -j 2); run one prompt file
    assert complete([command, "a.md"], "tas", tmp_path).files is (command != "run")
    assert complete_entry(["bash", "1", command, "tas"], tmp_path) == FILES + "\n"


def test_paths_where_paths_fit_and_nothing_for_numbers(tmp_path: Path) -> None:
    assert complete(["run"], "", tmp_path).files  # PROMPT_FILE
    assert complete(["loop", "--cwd"], "", tmp_path).files
    assert complete(["hook", "a.py"], "", tmp_path).files  # FILE…
    reply = complete(["loop", "--timeout"], "", tmp_path)
    assert (reply.offers, reply.files) == ([], False)
    assert _offers("loop task.md --artifacts ", tmp_path) == []  # a flag with no value


def test_the_entry_speaks_each_shells_dialect(tmp_path: Path) -> None:
    assert complete_entry(["bash", "2", "loop", "--backend", "co"], tmp_path) == "codex\ncopilot\n"
    fish = complete_entry(["fish", "1", "loop", "--perm"], tmp_path)
    assert fish.startswith("--permissions\twhat the agent may do:")
    assert complete_entry(["zsh", "1", "run"], tmp_path) == FILES + "\n"
    # PowerShell drops an empty last argument: the count says a word is being started
    assert complete_entry(["powershell", "1", "completion"], tmp_path).split() == list(SHELLS)
    # bash breaks words at "=": it replaces only what follows the break
    assert complete_entry(["bash", "2", "loop", "--backend", "="], tmp_path).split()[0] == "=claude"
    assert complete_entry(["bash", "3", "loop", "--backend", "=", "co"], tmp_path).split() == [
        "codex",
        "copilot",
    ]
    words = ["bash", "5", "loop", "--backend", "=", "codex", "--permissions", "e"]
    assert complete_entry(words, tmp_path) == "edit\n"
    assert complete_entry(["tcsh", "0"], tmp_path) == ""
    assert complete_entry(["bash", "x"], tmp_path) == ""


def test_powershell_script_passes_the_count_and_the_words() -> None:
    script = script_for("powershell")
    assert "& jlgcli __complete powershell $words.Count @words $wordToComplete" in script
    assert "Register-ArgumentCompleter -Native -CommandName jlgcli, jlgcli.exe" in script


def test_install_commands_are_in_the_readme_and_the_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    readme = README.read_text(encoding="utf-8")
    for command in INSTALL.values():
        assert command.replace("|", "\\|") in readme  # escaped inside the Markdown table
    with pytest.raises(SystemExit):
        cli.main(["completion", "--help"])
    help_text = capsys.readouterr().out
    assert all(command in help_text for command in INSTALL.values())
    assert "jlgcli completion --help" in TOP_LEVEL_HELP


def test_unknown_shell_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["completion", "tcsh"]) == 64
    assert "invalid choice: 'tcsh'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "words",
    [
        ["bash", "2", "loop", "--backend", ""],
        ["zsh", "3", "config", "set", "backend", ""],
        ["fish", "2", "loop", "--resume", ""],
        ["powershell", "0"],
    ],
)
def test_the_entry_probes_no_backend_and_imports_no_pydantic(words: list[str]) -> None:
    """At every TAB: no backend module (so no probe), no process spawned, no pydantic."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from jlgcli.cli import main\n"
        f"main(['__complete', *{words!r}])\n"
        "sys.stderr.write(' '.join(sorted(sys.modules)))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60, env=env)  # fmt: skip
    modules = set(done.stderr.split())
    assert done.stdout  # it answered
    assert not {"pydantic", "subprocess", "jlgcli.backends.registry", "socket"} & modules
