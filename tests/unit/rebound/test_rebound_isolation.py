"""Choosing a rebound script's isolation (issue 33): the strongest level that works here."""

from __future__ import annotations

import json
import shutil
import subprocess
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
    assert chosen.kind == "bubblewrap" and chosen.refused is None
    prefix = list(chosen.prefix)
    assert prefix[0] == "/usr/bin/bwrap" and prefix[-1] == "--"
    assert {"--unshare-pid", "--die-with-parent", "--proc", "--unshare-net"} <= set(prefix)
    binds = [prefix[i + 1] for i, arg in enumerate(prefix) if arg == "--ro-bind"]
    assert binds[0] == "/"
    assert binds[-3:] == [str(root / ".git"), str(root / ".jlgcli.json"), str(root / "ledger")]
    assert prefix[prefix.index("--bind") + 1] == str(root)
    assert prefix[prefix.index("--proc") + 2 : prefix.index("--proc") + 4] == [
        "--remount-ro",
        "/proc",
    ]
    env = dict(chosen.env)
    assert env["TMPDIR"] == "/tmp" and env["HOME"] == "/tmp/home"
    wrapped = chosen.wrap(["python", "s.py"])
    assert wrapped[-2:] == [chosen.confine, "s.py"]
    assert wrapped[len(prefix) : len(prefix) + 5] == ["python", "-I", "-u", "-B", "-c"]
    spec = json.loads(str(chosen.confine))
    assert spec["home"] == "/tmp/home" and "mounts" not in spec


def test_the_home_and_config_folder_are_hidden_read_only_after_the_binds(
    root: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    chosen = choose_isolation(root, is_linux=True, euid=1000, tool=_tools("bwrap"),
                              works=_works("bubblewrap"), network=True)  # fmt: skip
    prefix = list(chosen.prefix)
    assert "--unshare-net" not in prefix  # reboundNetwork: true
    tmpfs = [prefix[i + 1] for i, arg in enumerate(prefix) if arg == "--tmpfs"]
    read_only = [prefix[i + 1] for i, arg in enumerate(prefix) if arg == "--remount-ro"]
    assert str(home.resolve()) in tmpfs and str(home.resolve()) in read_only
    assert prefix.index("--bind") < len(prefix) - prefix[::-1].index("--remount-ro")


def test_unshare_when_bubblewrap_is_missing_with_confine_making_the_mounts(root: Path) -> None:
    for euid, user_ns in ((0, False), (1000, True)):
        chosen = choose_isolation(
            root, [], is_linux=True, euid=euid, tool=_tools("unshare"), works=_works("unshare")
        )
        assert chosen.kind == "unshare"
        prefix = list(chosen.prefix)
        assert ("--map-root-user" in prefix) is user_ns
        assert {"--pid", "--mount", "--mount-proc", "--kill-child", "--net"} <= set(prefix)
        spec = json.loads(str(chosen.confine))
        assert spec["mounts"] is True and spec["root"] == str(root) and spec["loopback"] is True
        assert spec["protected"][:2] == [str(root / ".git"), str(root / ".jlgcli.json")]
        assert bool(spec["mask"]) is (euid == 0 and bool(isolation.secret_files()))
        # paths reach confine as arguments: the program text is the file's, unchanged
        wrapped = chosen.wrap(["python", "s.py"])
        assert wrapped[wrapped.index("-c") + 1] == isolation.confine_source()


@pytest.mark.parametrize("choice", ["strict", "unshare"])
def test_strict_or_one_level_refuses_rather_than_run_weaker(root: Path, choice: str) -> None:
    chosen = choose_isolation(
        root, is_linux=True, euid=0, tool=_tools("bwrap", "unshare", "setpriv"),
        works=_works("unprivileged-user"), choice=choice,
    )  # fmt: skip
    assert chosen.refused is not None and choice in chosen.refused
    assert choose_isolation(root, is_linux=False, choice=choice).refused is not None
    best = choose_isolation(root, is_linux=True, euid=0, tool=_tools("bwrap", "unshare",
                            "setpriv"), works=_works("unprivileged-user"))  # fmt: skip
    assert best.kind == "unprivileged-user" and best.refused is None


def test_one_level_forced_skips_the_stronger_ones(root: Path) -> None:
    chosen = choose_isolation(root, is_linux=True, euid=0, tool=_tools("bwrap", "unshare"),
                              works=_works("bubblewrap", "unshare"), choice="unshare")  # fmt: skip
    assert chosen.kind == "unshare"


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
    assert isolation._works("x", [sys.executable, "-c", ""]) is False  # cached: not run again
    assert isolation._works("y", [sys.executable, "-c", ""]) is True


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
    assert isolation.probe_argv(frozen=False) == [sys.executable]
    assert isolation.probe_argv(frozen=True) == [sys.executable, "__jlgcli_run_script__"]
    spec = "{}"
    frozen = isolation.confined([sys.executable, "__jlgcli_run_script__", "s.py"], spec)
    assert frozen == [sys.executable, "__jlgcli_run_script__", "--confine", spec, "s.py"]
    assert isolation.confined(["python", "s.py"], None) == ["python", "s.py"]


def test_git_rev_parse_names_the_git_dir_above_a_sub_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("git") is None:
        pytest.skip("no git")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    sub = tmp_path / "sub"
    sub.mkdir()
    assert protected_paths(sub) == [(tmp_path / ".git").resolve()]
    assert isolation.repository_git_dirs(Path("/")) == []  # not a repository
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    assert isolation.repository_git_dirs(sub) == []  # no git


def test_private_folders_are_the_home_config_root_and_run_user(tmp_path: Path) -> None:
    home, config = tmp_path / "the-home", tmp_path / "the-cfg"
    home.mkdir()
    config.mkdir()
    found = isolation.private_folders(0, {"HOME": str(home), "JLGCLI_CONFIG_DIR": str(config)})
    assert found[0] == home and config in found
    assert Path("/") not in isolation.private_folders(0, {"HOME": "/"})
    bad = isolation.private_folders(0, {"JLGCLI_CONFIG_DIR": str(home / "missing" / "x")})
    assert home not in bad


def test_what_runs_the_script_is_exposed_where_hidden_or_in_the_project(tmp_path: Path) -> None:
    base = Path(sys.base_prefix)
    assert base in isolation.python_folders(tmp_path, [base.parent])
    assert base in isolation.python_folders(base.parent, [])  # in the project: read-only
    own_tmp = (Path("/tmp"), Path("/dev/shm"))
    for place in isolation.python_folders(Path("/nowhere"), []):  # only what the sandbox covers
        assert any(place == t or t in place.parents for t in own_tmp)


def test_a_python_or_a_jlgcli_under_tmp_stays_visible(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI's venv and a frozen exe are made under /tmp, which the sandbox replaces: both are
    bound back read-only, with the jlgcli package an editable install runs from (issue 46)."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    monkeypatch.setattr(sys, "prefix", str(venv))
    found = isolation.python_folders(Path("/nowhere"), [])
    assert venv in found
    package = Path(isolation.__file__).resolve().parents[1]
    assert (package in found) == any(p in package.parents for p in (Path("/tmp"), Path("/dev/shm")))


def test_bubblewrap_binds_a_python_in_the_project_read_only_after_the_project(root: Path) -> None:
    box = isolation.Sandbox(root, (root / ".git",), (), (Path("/opt/py"), root / ".venv"))
    prefix = isolation.bubblewrap_prefix("/usr/bin/bwrap", box)
    binds = [(arg, prefix[i + 1]) for i, arg in enumerate(prefix) if arg.endswith("bind")]
    read_only = [("--ro-bind", str(root / ".git")), ("--ro-bind", str(root / ".venv"))]
    assert binds == [
        ("--ro-bind", "/"),
        ("--ro-bind", "/opt/py"),
        ("--bind", str(root)),
        *read_only,
    ]
