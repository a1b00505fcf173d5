"""The shared probe: npm package versions, failing --version, small helpers (F-002, RG-004)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from jlgcli import records
from jlgcli.backends.probing import (
    AuthVerdict,
    CliInfo,
    ProbeContext,
    env_flag,
    first_set,
    home_dir,
    npm_package_version,
    probe_cli,
    read_json_file,
    run_quietly,
    versions_dir_version,
)

INFO = CliInfo(
    id="tool",
    executable="tool",
    install_hint="npm install -g tool",
    login_hint="tool login",
    minimum=(1, 0, 0),
    npm_package="@acme/tool",
)


def package(folder: Path, name: str = "@acme/tool", version: str = "1.2.3") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(json.dumps({"name": name, "version": version}), "utf-8")


def executable(path: Path, script: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script, encoding="utf-8")
    path.chmod(0o755)
    return path


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_local_node_modules_bin_symlink(tmp_path: Path) -> None:
    pkg = tmp_path / "node_modules" / "@acme" / "tool"
    package(pkg)
    real = executable(pkg / "bin" / "tool.js", "#!/bin/sh\n")
    link = tmp_path / "node_modules" / ".bin" / "tool"
    link.parent.mkdir()
    link.symlink_to(os.path.relpath(real, link.parent))
    assert npm_package_version(str(link), "@acme/tool") == (1, 2, 3)


def test_global_prefix_and_windows_shim_layouts(tmp_path: Path) -> None:
    package(tmp_path / "unix" / "lib" / "node_modules" / "@acme" / "tool", version="2.0.0")
    assert npm_package_version(str(tmp_path / "unix" / "bin" / "tool"), "@acme/tool") == (2, 0, 0)
    package(tmp_path / "win" / "node_modules" / "@acme" / "tool", version="3.1.0")
    assert npm_package_version(str(tmp_path / "win" / "tool.cmd"), "@acme/tool") == (3, 1, 0)


def test_package_json_of_another_package_is_ignored(tmp_path: Path) -> None:
    package(tmp_path, name="something-else")
    assert npm_package_version(str(tmp_path / "bin" / "tool"), "@acme/tool") is None
    assert npm_package_version(str(tmp_path / "tool"), None) is None


def test_package_json_version_wins_over_running_the_cli(tmp_path: Path) -> None:
    package(tmp_path / "node_modules" / "@acme" / "tool", version="0.9.0")
    executable(tmp_path / "tool", "#!/bin/sh\necho 5.0.0\n")
    env = {"PATH": str(tmp_path)}
    a = probe_cli(INFO, lambda ctx: AuthVerdict("ok", "fine"), timeout=2.0, env=env)
    assert (a.status, a.version) == ("unsupported", "0.9.0")  # never ran `tool --version`


@pytest.mark.skipif(os.name == "nt", reason="sh scripts")
@pytest.mark.parametrize(
    ("script", "status", "words"),
    [
        ("#!/bin/sh\necho 'tool 1.5.0'\n", "available", "fine"),
        ("#!/bin/sh\necho 'tool (dev build)'\n", "available", "version not recognised"),
        ("#!/bin/sh\necho 'segfault' >&2\nexit 3\n", "unknown", "failed (exit 3): segfault"),
    ],
)
def test_version_outputs(tmp_path: Path, script: str, status: str, words: str) -> None:
    executable(tmp_path / "tool", script)
    a = probe_cli(
        INFO, lambda ctx: AuthVerdict("ok", "fine"), timeout=2.0, env={"PATH": str(tmp_path)}
    )
    assert a.status == status and words in a.detail


@pytest.mark.skipif(os.name == "nt", reason="sh scripts")
def test_auth_verdicts_map_to_statuses(tmp_path: Path) -> None:
    executable(tmp_path / "tool", "#!/bin/sh\necho 1.0.0\n")
    env = {"PATH": str(tmp_path)}
    missing = probe_cli(INFO, lambda ctx: AuthVerdict("missing", "no"), timeout=2.0, env=env)
    assert missing.status == "unauthenticated" and missing.hint == "log in: tool login"
    unknown = probe_cli(INFO, lambda ctx: AuthVerdict("unknown", "?"), timeout=2.0, env=env)
    assert unknown.status == "unknown" and unknown.hint and "tool login" in unknown.hint


def test_run_quietly_when_the_program_vanished(tmp_path: Path) -> None:
    assert run_quietly([str(tmp_path / "gone")], deadline=0.0) is None


def test_small_helpers(tmp_path: Path) -> None:
    assert env_flag({"X": "True"}, "X") and not env_flag({"X": "0"}, "X")
    assert first_set({"A": " ", "B": "b"}, ("A", "B")) == "B"
    assert first_set({}, ("A",)) is None
    assert home_dir({"USERPROFILE": r"C:\Users\me"}) == Path(r"C:\Users\me")
    (tmp_path / "c.json").write_text('// comment\n{"a": 1}\n', encoding="utf-8")
    assert read_json_file(tmp_path / "c.json") == {"a": 1}
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    assert read_json_file(tmp_path / "bad.json") is None
    assert read_json_file(tmp_path / "absent.json") is None


# -- the login check beside `--version` (issue 18: the probe waits for the slower, not the sum)
# No npm package: the version comes from running the CLI.
NATIVE = records.replace(INFO, npm_package=None)


def login_by_running(ctx: ProbeContext) -> AuthVerdict:
    answer = ctx.run("login", "status")
    said = answer.stdout.strip() if answer is not None else "no answer"
    return AuthVerdict("ok" if said == "logged in" else "unknown", said)


@pytest.mark.skipif(os.name == "nt", reason="sh scripts")
def test_login_check_runs_while_the_version_is_asked(tmp_path: Path) -> None:
    """RG-004: `tool --version` answers only once `tool login status` has started."""
    executable(
        tmp_path / "tool",
        "#!/bin/sh\n"
        f'm="{tmp_path}/login-started"\n'
        'if [ "$1" = login ]; then : > "$m"; echo "logged in"; exit 0; fi\n'
        'i=0; while [ ! -f "$m" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done\n'
        '[ -f "$m" ] && echo "tool 1.5.0" || echo "alone"\n',
    )
    a = probe_cli(NATIVE, login_by_running, timeout=30.0, env={"PATH": str(tmp_path)})
    assert (a.status, a.version, a.detail) == ("available", "1.5.0", "logged in")


@pytest.mark.skipif(os.name == "nt", reason="sh scripts")
def test_a_run_probe_starts_no_thread_for_the_login_it_leaves_to_the_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 49: ``login_left_to_the_call`` answers at once: no login-check thread for it."""
    from jlgcli.backends import probing

    def no_thread(*_args: object) -> None:
        raise AssertionError("a login-check thread was started")

    monkeypatch.setattr(probing, "_LoginCheck", no_thread)
    executable(tmp_path / "tool", '#!/bin/sh\necho "tool 1.5.0"\n')
    a = probe_cli(NATIVE, probing.login_left_to_the_call, timeout=30.0,
                  env={"PATH": str(tmp_path)})  # fmt: skip
    assert (a.status, a.version) == ("available", "1.5.0")


@pytest.mark.skipif(os.name == "nt", reason="sh scripts and POSIX pids")
def test_an_unsupported_version_stops_the_login_check_it_ran_beside(tmp_path: Path) -> None:
    pid_file = tmp_path / "login.pid"
    executable(
        tmp_path / "tool",
        "#!/bin/sh\n"
        f'if [ "$1" = login ]; then echo $$ > "{pid_file}"; exec sleep 60; fi\n'
        f'i=0; while [ ! -s "{pid_file}" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done\n'
        'echo "tool 0.5.0"\n',
    )
    cancelled_when_it_ended: list[bool] = []

    def auth(ctx: ProbeContext) -> AuthVerdict:
        try:
            ctx.run("login", "status")  # its `sleep 60` ends early only if the probe stops it
        finally:
            cancelled_when_it_ended.append(ctx.cancel is not None and ctx.cancel.is_set())
        return AuthVerdict("ok", "never used")

    a = probe_cli(NATIVE, auth, timeout=120.0, env={"PATH": str(tmp_path)})
    assert (a.status, a.version) == ("unsupported", "0.5.0")
    assert cancelled_when_it_ended == [True]
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):  # stopped and reaped before the probe returned
        os.kill(pid, 0)


def test_a_login_check_that_fails_fails_the_probe(tmp_path: Path) -> None:
    executable(tmp_path / "tool", "#!/bin/sh\necho 1.0.0\n")

    def broken(ctx: ProbeContext) -> AuthVerdict:
        raise RuntimeError("login check bug")

    with pytest.raises(RuntimeError, match="login check bug"):
        probe_cli(NATIVE, broken, timeout=5.0, env={"PATH": str(tmp_path)})


@pytest.mark.skipif(os.name == "nt", reason="sh scripts")
@pytest.mark.parametrize(("version", "checked"), [("1.1.0", False), ("1.2.0", True)])
def test_a_login_check_newer_than_the_cli_waits_for_the_version(
    tmp_path: Path, version: str, checked: bool
) -> None:
    """claude before 2.1.41 took `auth status` for a prompt: never run it there."""
    executable(tmp_path / "tool", f"#!/bin/sh\necho {version}\n")
    info = records.replace(NATIVE, login_check_since=(1, 2, 0))
    calls: list[str] = []

    def auth(ctx: ProbeContext) -> AuthVerdict:
        calls.append(ctx.executable)
        return AuthVerdict("ok", "checked")

    a = probe_cli(info, auth, timeout=5.0, env={"PATH": str(tmp_path)})
    assert a.status == "available" and bool(calls) == checked
    assert ("login not checked (the check needs tool 1.2.0+)" in a.detail) != checked


@pytest.mark.skipif(os.name == "nt", reason="symlinks and sh scripts")
def test_a_native_install_is_versioned_by_its_file_name(tmp_path: Path) -> None:
    """claude's native installer: ~/.local/bin/claude -> ~/.local/share/claude/versions/2.1.197
    (anthropics/claude-code#25165). The file that runs is that version: no `--version` start."""
    versions = tmp_path / "share" / "claude" / "versions"
    real = executable(versions / "2.1.197", "#!/bin/sh\necho 0.0.1\n")  # 0.0.1: unsupported
    link = tmp_path / "bin" / "tool"
    link.parent.mkdir()
    link.symlink_to(real)
    env = {"PATH": str(link.parent)}
    a = probe_cli(NATIVE, lambda ctx: AuthVerdict("ok", "fine"), timeout=5.0, env=env)
    assert (a.status, a.version) == ("available", "2.1.197")  # never ran `tool --version`


@pytest.mark.parametrize(
    "relative", ["versions/2.1", "versions/2.1.197.bak", "versions/latest", "builds/2.1.197"]
)
def test_other_file_names_give_no_version(tmp_path: Path, relative: str) -> None:
    assert versions_dir_version(str(tmp_path / relative)) is None


@pytest.mark.skipif(os.name == "nt", reason="sh scripts")
def test_a_batch_task_takes_the_version_its_batch_found_for_the_same_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issues 37, 44: N tasks do not each run ``--version`` (the batch hands the version down
    in the task's options, not its environment); only the same resolved path counts."""
    from jlgcli.backends import probing

    monkeypatch.setattr(probing, "_KNOWN", {})
    ran = tmp_path / "ran"
    tool = executable(tmp_path / "tool", f"#!/bin/sh\necho run >> '{ran}'\necho 'tool 1.5.0'\n")
    env = {"PATH": str(tmp_path)}
    probing.share_versions(((str(tool), "1.7.2"),))
    a = probe_cli(INFO, lambda ctx: AuthVerdict("ok", "fine"), timeout=2.0, env=env)
    assert (a.status, a.version) == ("available", "1.7.2") and not ran.exists()
    monkeypatch.setattr(probing, "_KNOWN", {"/elsewhere/tool": "1.7.2"})
    b = probe_cli(INFO, lambda ctx: AuthVerdict("ok", "fine"), timeout=2.0, env=env)
    assert b.version == "1.5.0" and ran.read_text("utf-8") == "run\n"  # asked itself
    monkeypatch.setattr(probing, "_KNOWN", {str(tool): "not a version"})
    assert probing.shared_version(str(tool)) is None
