"""A CLI on PATH that cannot start says why (issue 16 item 10; F-002 statuses).

codex installed by npm is ``#!/usr/bin/env node``; without node it exits 127
with ``env: node: No such file or directory`` (observed in issue 16).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jlgcli.backends.codex import INFO as CODEX_INFO
from jlgcli.backends.codex import check_login as codex_login
from jlgcli.backends.probing import CliInfo, probe_cli
from jlgcli.backends.startup import missing_interpreter, script_interpreter, start_failure
from jlgcli.process.model import ProcessOutcome, StopReason
from jlgcli.process.outcome import OutputTail

POSIX_ONLY = pytest.mark.skipif(os.name == "nt", reason="shebang scripts run on POSIX only")
# npm's cmd-shim output for a node package (the part that picks the interpreter)
NPM_CMD_SHIM = (
    "@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\nSETLOCAL\r\n"
    'CALL :find_dp0\r\n\r\nIF EXIST "%dp0%\\node.exe" (\r\n  SET "_prog=%dp0%\\node.exe"\r\n'
    ') ELSE (\r\n  SET "_prog=node"\r\n  SET PATHEXT=%PATHEXT:;.JS;=;%\r\n)\r\n\r\n'
    'endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  '
    '"%dp0%\\node_modules\\@openai\\codex\\bin\\codex.js" %*\r\n'
)


def _answer(
    code: int | None, stdout: str, stderr: str, timed_out: bool, duration: float
) -> ProcessOutcome:
    """A probe's outcome holding this output (what ``capture`` returns)."""
    reason = StopReason.TIMEOUT if timed_out else StopReason.EXITED
    return ProcessOutcome(code, None, reason, duration, output=OutputTail.holding(stdout, stderr))


def script(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize(
    ("first_line", "interpreter"),
    [
        ("#!/usr/bin/env node\n", "node"),
        ("#!/usr/bin/env -S node --no-warnings\n", "node"),
        ("#!/bin/sh\n", "/bin/sh"),
        ("\x7fELF binary", None),
        ("#!\n", None),
    ],
)
def test_script_interpreter_posix(tmp_path: Path, first_line: str, interpreter: str | None) -> None:
    path = script(tmp_path / "codex", first_line + "rest\n")
    assert script_interpreter(path, is_windows=False) == interpreter


def test_script_interpreter_windows_npm_shim(tmp_path: Path) -> None:
    shim = script(tmp_path / "codex.cmd", NPM_CMD_SHIM)
    assert script_interpreter(shim, is_windows=True) == "node"
    # a shebang means nothing to Windows
    assert (
        script_interpreter(script(tmp_path / "x", "#!/usr/bin/env node\n"), is_windows=True) is None
    )


def test_windows_shim_with_node_exe_next_to_it_can_start(tmp_path: Path) -> None:
    shim = script(tmp_path / "codex.cmd", NPM_CMD_SHIM)
    assert missing_interpreter(shim, path=str(tmp_path / "empty"), is_windows=True) == "node"
    (tmp_path / "node.exe").write_bytes(b"MZ")
    assert missing_interpreter(shim, path=str(tmp_path / "empty"), is_windows=True) is None


def test_missing_interpreter_looks_on_the_given_path(tmp_path: Path) -> None:
    path = script(tmp_path / "bin" / "codex", "#!/usr/bin/env jlgcli-test-node\n")
    assert missing_interpreter(path, path=str(tmp_path / "bin"), is_windows=False) == (
        "jlgcli-test-node"
    )
    script(tmp_path / "bin" / "jlgcli-test-node", "#!/bin/sh\n")
    assert missing_interpreter(path, path=str(tmp_path / "bin"), is_windows=False) is None
    absolute = script(tmp_path / "abs", f"#!{tmp_path}/no/such/python\n")
    assert (
        missing_interpreter(absolute, path=None, is_windows=False) == f"{tmp_path}/no/such/python"
    )


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (_answer(127, "", "env: ‘node’: No such file or directory\n", False, 0.1), True),
        (_answer(126, "", "", False, 0.1), True),
        (
            _answer(
                1, "", "'node' is not recognized as an internal or external command,\n", False, 0.1
            ),
            True,
        ),
        (_answer(1, "", "Not logged in\n", False, 0.1), False),
        (_answer(0, "codex-cli 0.169.0\n", "", False, 0.1), False),
    ],
)
def test_start_failure(answer: ProcessOutcome, expected: bool) -> None:
    said = start_failure(answer)
    assert (said is not None) == expected
    if said is not None:
        assert said.startswith(f"exit {answer.exit_code}")


def test_start_failure_of_a_spawn_that_failed_is_its_reason() -> None:
    never = ProcessOutcome.not_started("/bin/tool cannot start: Exec format error")
    assert start_failure(never) == "/bin/tool cannot start: Exec format error"


@POSIX_ONLY
def test_probe_of_codex_without_node_says_what_is_wrong(tmp_path: Path) -> None:
    """issue 16 item 10: not 'unknown' with a login hint, but the missing interpreter."""
    bin_dir = tmp_path / "bin"
    script(bin_dir / "codex", "#!/usr/bin/env jlgcli-no-such-node\nconsole.log('x')\n")
    env = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin", "HOME": str(tmp_path)}
    found = probe_cli(CODEX_INFO, codex_login, timeout=5, env=env)
    assert found.status == "unknown"
    assert "cannot start" in found.detail and "jlgcli-no-such-node" in found.detail
    assert found.hint is not None and "login" not in found.hint


@POSIX_ONLY
def test_probe_when_the_cli_itself_exits_127(tmp_path: Path) -> None:
    """A wrapper that fails to start its own runtime: exit code and first stderr line shown."""
    bin_dir = tmp_path / "bin"
    script(
        bin_dir / "tool",
        "#!/bin/sh\necho 'env: node: No such file or directory' >&2\nexit 127\n",
    )
    info = CliInfo("tool", "tool", "npm install -g tool", "tool login", (1, 0, 0))
    env = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin", "HOME": str(tmp_path)}
    found = probe_cli(info, lambda ctx: pytest.fail("no login check"), timeout=5, env=env)
    assert found.status == "unknown"
    assert "exit 127: env: node: No such file or directory" in found.detail
    assert found.hint is not None and "node" in found.hint and "login" not in found.hint


@POSIX_ONLY
def test_probe_of_a_cli_the_system_cannot_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a program (no ``#!``, not a binary): the spawn fails, and the probe says so."""
    from jlgcli.process import descendants

    monkeypatch.setattr(descendants, "_launcher", [None])  # Popen itself reports ENOEXEC
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "tool").write_bytes(b"\x00\x01\x02 not a program\n")
    (bin_dir / "tool").chmod(0o755)
    info = CliInfo("tool", "tool", "npm install -g tool", "tool login", (1, 0, 0))
    env = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin", "HOME": str(tmp_path)}
    found = probe_cli(info, lambda ctx: pytest.fail("no login check"), timeout=5, env=env)
    assert found.status == "unknown"
    assert f"cannot start ({bin_dir / 'tool'} cannot start: Exec format error)" in found.detail


@POSIX_ONLY
def test_login_check_that_cannot_start_the_cli(tmp_path: Path) -> None:
    """The version came from package.json (no process run); the login check exits 127."""
    bin_dir = tmp_path / "bin"
    script(
        bin_dir / "codex",
        "#!/bin/sh\n"
        'if [ "$1" = login ]; then echo "env: node: No such file or directory" >&2; exit 127; fi\n'
        "echo codex-cli 0.169.0\n",
    )
    env = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin", "HOME": str(tmp_path)}
    found = probe_cli(CODEX_INFO, codex_login, timeout=5, env=env)
    assert found.status == "unknown" and "cannot start (exit 127" in found.detail
    assert found.hint is not None and "codex login" not in found.hint
