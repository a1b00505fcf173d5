"""Choosing a rebound script's isolation (issue 33): the strongest level that works here."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from jlgcli.rebound import isolation
from jlgcli.rebound.isolation import (
    Isolation,
    choose_isolation,
    existing_protected,
    git_dirs,
    protected_paths,
    remove_new_protected,
    system_tool,
)


def _tools(*present: str) -> Callable[[str], str | None]:
    return lambda name: f"/usr/bin/{name}" if name in present else None


def _works(*working: str) -> Callable[[str, list[str]], bool]:
    return lambda kind, _prefix: kind in working


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".jlgcli.json").write_text("{}", "utf-8")
    (tmp_path / "ledger").mkdir()
    return tmp_path


def test_bubblewrap_first_with_the_protected_paths_read_only(root: Path) -> None:
    chosen = choose_isolation(
        root, [root / "ledger", Path("/elsewhere")], is_linux=True, euid=0,
        tool=_tools("bwrap", "unshare", "mount", "setpriv"), works=_works("bubblewrap"),
    )  # fmt: skip
    assert chosen.kind == "bubblewrap"
    prefix = list(chosen.prefix)
    assert prefix[0] == "/usr/bin/bwrap" and prefix[-1] == "--"
    assert {"--unshare-pid", "--die-with-parent", "--proc"} <= set(prefix)
    binds = [prefix[i + 1] for i, arg in enumerate(prefix) if arg == "--ro-bind"]
    assert binds == ["/", str(root / ".git"), str(root / ".jlgcli.json"), str(root / "ledger")]
    assert prefix[prefix.index("--bind") + 1] == str(root)
    assert dict(chosen.env)["TMPDIR"] == "/tmp"
    assert chosen.wrap(["python", "s.py"])[-2:] == ["python", "s.py"]


@pytest.mark.parametrize(("euid", "user_ns"), [(0, False), (1000, True)])
def test_unshare_when_bubblewrap_is_missing(root: Path, euid: int, user_ns: bool) -> None:
    chosen = choose_isolation(
        root, [], is_linux=True, euid=euid, tool=_tools("unshare", "mount"),
        works=_works("unshare"),
    )  # fmt: skip
    assert chosen.kind == "unshare"
    prefix = list(chosen.prefix)
    assert ("--map-root-user" in prefix) is user_ns
    assert {"--pid", "--mount", "--mount-proc", "--kill-child"} <= set(prefix)
    # the sh program gets the paths as arguments, never in its text
    program = prefix[prefix.index("-c") + 1]
    assert str(root) not in program
    assert prefix[-3:] == ["2", str(root / ".git"), str(root / ".jlgcli.json")]


def test_root_without_namespaces_runs_the_script_as_nobody(root: Path) -> None:
    chosen = choose_isolation(
        root, is_linux=True, euid=0, tool=_tools("bwrap", "unshare", "mount", "setpriv"),
        works=_works("unprivileged-user"),
    )  # fmt: skip
    assert chosen.kind == "unprivileged-user"
    assert chosen.prefix[:3] == ("/usr/bin/setpriv", "--reuid=65534", "--regid=65534")


@pytest.mark.parametrize(("euid", "linux"), [(1000, True), (0, False)])
def test_otherwise_none(root: Path, euid: int, linux: bool) -> None:
    chosen = choose_isolation(
        root, is_linux=linux, euid=euid, tool=_tools("setpriv"), works=_works()
    )
    assert chosen == Isolation("none")
    assert chosen.wrap(["a"]) == ["a"]


def test_a_level_that_fails_its_probe_is_skipped_and_probed_once(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(isolation, "_probed", {})
    assert isolation._works("x", ["/nonexistent/tool"]) is False
    assert isolation._works("x", []) is False  # cached: not run again
    assert isolation._works("y", []) is True  # Python itself starts


def test_tools_are_found_in_the_system_folders_only(tmp_path: Path) -> None:
    tool = tmp_path / "bwrap"
    tool.write_text("#!/bin/sh\n", "utf-8")
    tool.chmod(0o755)
    assert system_tool("bwrap", [str(tmp_path)]) == str(tool)
    assert system_tool("nothing-like-it", [str(tmp_path)]) is None


def test_protected_names_created_by_the_script_are_removed(root: Path) -> None:
    before = existing_protected(root)
    assert before == {".git", ".jlgcli.json"}
    (root / ".aidevloop.json").write_text("{}", "utf-8")
    (root / ".jlgcli").mkdir()
    (root / ".jlgcli" / "x").write_text("", "utf-8")
    (root / ".jlgcli.json").write_text('{"backend": "other"}', "utf-8")  # existed: kept
    assert remove_new_protected(root, before) == [".aidevloop.json", ".jlgcli"]
    assert existing_protected(root) == before


def test_protected_paths_include_extras_outside_the_root(root: Path) -> None:
    assert protected_paths(root, [root / "ledger", Path(sys.prefix), root / "gone"]) == [
        root / ".git",
        root / ".jlgcli.json",
        root / "ledger",
        Path(sys.prefix),
    ]


def test_a_worktrees_git_directories_are_protected(tmp_path: Path) -> None:
    common = tmp_path / "main" / ".git"
    gitdir = common / "worktrees" / "wt"
    gitdir.mkdir(parents=True)
    (gitdir / "commondir").write_text("../..\n", "utf-8")
    worktree = tmp_path / "wt"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {gitdir}\n", "utf-8")
    assert protected_paths(worktree) == [worktree / ".git", gitdir, common]
    (gitdir / "commondir").unlink()
    assert git_dirs(worktree / ".git") == [gitdir]
    (worktree / ".git").write_text("not a pointer", "utf-8")
    assert git_dirs(worktree / ".git") == []


def test_the_probe_starts_what_will_run_the_script() -> None:
    assert isolation.probe_argv(frozen=False)[1:] == ["-I", "-S", "-c", ""]
    assert isolation.probe_argv(frozen=True) == [sys.executable, "--version"]
