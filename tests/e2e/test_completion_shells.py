"""Tab completion through real shells and the installed console script (issue 38).

Before issue 38, ``jlgcli loop --backend <TAB>`` and ``jlgcli config set <TAB>``
offered file names or nothing, and the bash/zsh install lines printed
"jlgcli: command not found" in every new shell where jlgcli was not on PATH.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from jlgcli.commands.completion import INSTALL, script_for


def _env(jlgcli_exe: str) -> dict[str, str]:
    """The test environment with the console script's folder first on PATH."""
    return {**os.environ, "PATH": f"{Path(jlgcli_exe).parent}{os.pathsep}{os.environ['PATH']}"}


def _shell(name: str) -> str:
    """The installed ``name`` shell (the tests' PATH only links a few tools), else skip."""
    found = shutil.which(name, path=os.defpath)
    if found is None:
        pytest.skip(f"{name} is not installed here; the entry's {name} dialect is tested above")
    return found


def test_bash_script_completes_through_a_real_bash(tmp_path: Path, jlgcli_exe: str) -> None:
    # issue 38: --backend and config set offered nothing (or file names) before
    script = tmp_path / "jlgcli.bash"
    script.write_text(script_for("bash"), encoding="utf-8")
    (tmp_path / "task.md").write_text("x")
    driver = f"""
source {script}
complete -p jlgcli
t() {{
    COMP_WORDS=("$@"); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
    _jlgcli; echo "${{COMPREPLY[*]}}"
}}
t jlgcli lo
t jlgcli loop --backend ''
t jlgcli config set max
t jlgcli run ta
t jlgcli loop --timeout ''
"""
    env = _env(jlgcli_exe)
    done = subprocess.run(["bash", "-c", driver], capture_output=True, text=True, check=True,
                          timeout=60, cwd=tmp_path, env=env)  # fmt: skip
    assert done.stdout.splitlines() == [
        "complete -F _jlgcli jlgcli",
        "loop",
        "claude codex copilot gemini replay auto",
        "maxIterations maxCostUsd maxPromptBytes",
        "task.md",
        "",
    ]


def test_zsh_script_offers_values(tmp_path: Path, jlgcli_exe: str) -> None:
    zsh = _shell("zsh")
    script = tmp_path / "jlgcli.zsh"
    script.write_text(script_for("zsh"), encoding="utf-8")
    subprocess.run([zsh, "-n", str(script)], check=True, timeout=30)
    # compadd and _files only work inside a completion widget: stand-ins print their words
    driver = f"""
compdef() {{ }}
source {script}
compadd() {{ print -r -- "$@" }}
_files() {{ print FILES }}
words=(jlgcli loop --backend ''); CURRENT=4; _jlgcli
words=(jlgcli config set maxI); CURRENT=4; _jlgcli
words=(jlgcli run ''); CURRENT=3; _jlgcli
"""
    env = _env(jlgcli_exe)
    done = subprocess.run([zsh, "-f", "-c", driver], capture_output=True, text=True,
                          check=True, timeout=60, cwd=tmp_path, env=env)  # fmt: skip
    assert done.stdout.splitlines() == [
        "-l -d shown -- claude codex copilot gemini replay auto",
        "-l -d shown -- maxIterations",
        "FILES",
    ]


def test_fish_script_offers_values(tmp_path: Path, jlgcli_exe: str) -> None:
    fish = _shell("fish")
    script = tmp_path / "jlgcli.fish"
    script.write_text(script_for("fish"), encoding="utf-8")
    driver = (
        f"source {script}; complete -C 'jlgcli loop --backend co'; "
        "complete -C 'jlgcli config set maxI'"
    )
    env = _env(jlgcli_exe)
    done = subprocess.run([fish, "--no-config", "-c", driver], capture_output=True, text=True,
                          check=True, timeout=60, cwd=tmp_path, env=env)  # fmt: skip
    lines = done.stdout.splitlines()
    assert lines[:2] == ["codex\tbackend", "copilot\tbackend"]
    assert lines[2].startswith("maxIterations\tMost iterations")


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_install_line_is_silent_without_jlgcli_on_path(shell: str, tmp_path: Path) -> None:
    # issue 38: the old line printed "jlgcli: command not found" in every new shell
    program = _shell(shell)
    line = INSTALL[shell].split("'")[1]  # what the install command appends to the rc file
    assert line.startswith("command -v jlgcli >/dev/null && eval")
    done = subprocess.run([program, "-c", line], capture_output=True, text=True, timeout=30,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})  # fmt: skip
    assert done.stderr == ""
