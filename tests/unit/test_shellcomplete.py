"""``jlgcli completion SHELL`` (issue 19 item 17): scripts generated from the real parser."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from jlgcli import cli
from jlgcli.shellcomplete import INSTALL, SHELLS, command_tree, script_for

README = Path(__file__).parents[2] / "README.md"


def _script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert cli.main(["completion", shell]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("shell", SHELLS)
def test_each_script_names_every_command_and_its_install_command(
    shell: str, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _script(shell, capsys)
    for command in cli.COMMAND_MODULES:
        assert command in script
    for nested in ("unset", "resume", "list"):  # config unset, dev resume, ledger list
        assert nested in script
    assert "permissions" in script and "read-only" in script  # flags and their choices
    assert INSTALL[shell] in script


def test_the_tree_follows_the_parser() -> None:
    nodes = {node.path: node for node in command_tree(cli.build_parser())}
    assert list(nodes[()].commands) == list(cli.COMMAND_MODULES)
    assert {"get", "set", "unset", "show", "path", "trust", "untrust"} == set(
        nodes[("config",)].commands
    )
    run_options = {flag: o for o in nodes[("run",)].options for flag in o.flags}
    assert run_options["--permissions"].choices == ("read-only", "edit", "full")
    assert "--json" in run_options  # the common options the CLI adds to leaf commands
    hook_flags = {flag for o in nodes[("hook",)].options for flag in o.flags}
    assert "--github" in hook_flags and "--replay" not in hook_flags  # hidden flags stay hidden


def test_bash_script_is_valid_and_completes(tmp_path: Path) -> None:
    script = tmp_path / "jlgcli.bash"
    script.write_text(script_for("bash", cli.build_parser()), encoding="utf-8")
    subprocess.run(["bash", "-n", str(script)], check=True, timeout=30)
    driver = f"""
source {script}
t() {{
    COMP_WORDS=("$@"); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
    _jlgcli; echo "${{COMPREPLY[*]}}"
}}
t jlgcli lo
t jlgcli config s
t jlgcli run x.md --permissions ''
t jlgcli loop --perm
"""
    done = subprocess.run(
        ["bash", "-c", driver], capture_output=True, text=True, check=True, timeout=30
    )
    assert done.stdout.splitlines() == ["loop", "set show", "read-only edit full", "--permissions"]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_parse(shell: str, tmp_path: Path) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed here; CI checks only what it has")
    script = tmp_path / f"jlgcli.{shell}"
    script.write_text(script_for(shell, cli.build_parser()), encoding="utf-8")
    subprocess.run([shell, "-n", str(script)], check=True, timeout=30)


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
    assert "jlgcli completion --help" in cli.TOP_LEVEL_HELP


def test_unknown_shell_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["completion", "tcsh"]) == 64
    assert "invalid choice: 'tcsh'" in capsys.readouterr().err


def test_console_script_prints_a_valid_bash_script(jlgcli_exe: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [jlgcli_exe, "completion", "bash"], capture_output=True, text=True, check=True, timeout=60
    )
    script = tmp_path / "jlgcli.bash"
    script.write_text(done.stdout, encoding="utf-8")
    subprocess.run(["bash", "-n", str(script)], check=True, timeout=30)
    assert all(command in done.stdout for command in cli.COMMAND_MODULES)
