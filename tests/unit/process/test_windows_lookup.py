"""Windows program lookup never lands in the current folder (issue 47).

A cloned repository holding ``claude.cmd``, ``git.exe`` or ``taskkill.exe`` must
never get them run: CPython 3.10/3.11's ``shutil.which`` searches the current
folder first on Windows ("The current directory takes precedence on Windows",
Lib/shutil.py), 3.12+ unless ``NoDefaultCurrentDirectoryInExePath`` is set, and
``CreateProcessW`` and cmd.exe (npm's shims) search it too (GitPython's
CVE-2024-22190). The Windows branch runs here with injected flags.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from jlgcli.process import spawn
from jlgcli.process.spawn import (
    NO_CURRENT_FOLDER,
    child_env,
    no_current_folder_lookup,
    resolve_executable,
    windows_which,
)

PATHEXT = os.pathsep.join([".COM", ".EXE", ".BAT", ".CMD"])


def _program(folder: Path, name: str, says: str) -> Path:
    """An executable script ``name`` printing ``says`` (and leaving a mark when run)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    mark = folder / f"{name}.ran"
    path.write_text(
        f"#!{sys.executable}\nimport pathlib\npathlib.Path({str(mark)!r}).write_text('ran')\n"
        f"print({says!r})\n",
        encoding="utf-8",
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def hostile_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current folder: a repository holding claude.cmd, git.exe and taskkill.exe."""
    repo = tmp_path / "repo"
    for name in ("claude.cmd", "git.exe", "taskkill.exe", "codex.bat"):
        _program(repo, name, f"repo {name}")
    monkeypatch.chdir(repo)
    monkeypatch.setenv("PATHEXT", PATHEXT)
    return repo


@pytest.mark.parametrize("name", ["claude", "git", "taskkill", "codex", "claude.cmd", "git.exe"])
def test_a_program_in_the_current_folder_is_never_found_on_windows(
    hostile_repo: Path, tmp_path: Path, name: str
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    assert resolve_executable(name, path=str(empty), is_windows=True) is None
    # An empty or relative PATH entry names the current folder too.
    for entry in ("", ".", "repo-relative"):
        assert windows_which(name, path=os.pathsep.join([entry, str(empty)])) is None


def test_the_program_on_path_is_found_not_the_repositorys(
    hostile_repo: Path, tmp_path: Path
) -> None:
    tools = tmp_path / "tools"
    on_path = _program(tools, "git.exe", "tools git")
    found = resolve_executable("git", path=os.pathsep.join(["", str(tools)]), is_windows=True)
    assert found == str(on_path)


def test_pathext_order_and_a_name_that_has_its_extension(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    cmd = str(_program(tools, "claude.cmd", "cmd"))
    exe = _program(tools, "claude.exe", "exe")
    assert windows_which("claude", path=str(tools), pathext=PATHEXT) == str(exe)
    assert windows_which("claude.cmd", path=str(tools), pathext=PATHEXT) == cmd
    assert windows_which("claude", path=str(tools), pathext=".CMD") == cmd


def test_a_name_with_a_folder_is_checked_as_given_never_searched(
    hostile_repo: Path, tmp_path: Path
) -> None:
    tools = tmp_path / "tools"
    exe = _program(tools, "llm.exe", "llm")
    assert windows_which(str(tools / "llm"), path="", pathext=PATHEXT) == str(exe)
    assert windows_which(os.path.join(".", "git"), path=str(tools), pathext=PATHEXT) == (
        os.path.join(".", "git.exe")
    )  # asked for explicitly: the user's own choice


def test_capture_runs_the_path_git_not_the_repositorys(
    hostile_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jlgcli.process import capture

    tools = tmp_path / "tools"
    _program(tools, "git.exe", "tools git")
    monkeypatch.setenv("PATH", os.pathsep.join([str(tools), os.environ["PATH"]]))
    monkeypatch.setattr(spawn, "IS_WINDOWS", True)  # the lookup of every spawn
    outcome = capture(["git", "--version"], timeout=30, cwd=str(hostile_repo))
    assert outcome.stdout.strip() == "tools git"
    assert not (hostile_repo / "git.exe.ran").exists()


def test_probing_and_a_custom_backend_never_find_the_repositorys_claude(
    hostile_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jlgcli.backends.claude import INFO
    from jlgcli.backends.command import CommandBackend, CommandSettings
    from jlgcli.backends.probing import probe_cli

    monkeypatch.setattr(spawn, "IS_WINDOWS", True)
    availability = probe_cli(INFO, lambda _ctx: pytest.fail("never probed"), timeout=5)
    assert availability.status == "missing"
    custom = CommandBackend("mine", CommandSettings(argv=("codex", "{prompt_file}")))
    assert custom.probe().status == "missing"
    assert not list(hostile_repo.glob("*.ran"))


def test_no_current_folder_lookup_is_set_for_every_child_on_windows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("nodefaultcurrentdirectoryinexepath", "0")
    env = child_env({NO_CURRENT_FOLDER: "0"}, is_windows=True)
    assert [k for k in env if k.upper() == NO_CURRENT_FOLDER.upper()] == [NO_CURRENT_FOLDER]
    assert env[NO_CURRENT_FOLDER] == "1"
    monkeypatch.delenv("nodefaultcurrentdirectoryinexepath")
    assert NO_CURRENT_FOLDER not in child_env(is_windows=False)


def test_the_setting_is_made_at_start_only_on_windows() -> None:
    environ: dict[str, str] = {}
    no_current_folder_lookup(environ, is_windows=False)
    assert environ == {}
    no_current_folder_lookup(environ, is_windows=True)
    assert environ == {NO_CURRENT_FOLDER: "1"}
