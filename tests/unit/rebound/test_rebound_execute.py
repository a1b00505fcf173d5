"""Sandboxed script execution (REQ_AUTO_040): argv only, timeout kills the tree, capped output."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import pytest

from jlgcli.process.tree import pid_alive
from jlgcli.rebound.execute import (
    RUN_SCRIPT_COMMAND,
    mark_non_dumpable,
    removed_env_names,
    run_script,
    run_script_entry,
    script_argv,
    script_env_names,
)

posix_only = pytest.mark.skipif(os.name == "nt", reason="checks POSIX pids")


def _script(root: Path, name: str, body: str) -> Path:
    path = root / "workbench" / "scripts" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def test_script_argv_plain_and_frozen(tmp_path: Path) -> None:
    script = tmp_path / "s.py"
    assert script_argv(script, frozen=False, executable="/py") == ["/py", str(script)]
    assert script_argv(script, frozen=True, executable="C:\\jlgcli.exe") == [
        "C:\\jlgcli.exe",
        RUN_SCRIPT_COMMAND,
        str(script),
    ]


def test_run_script_entry_runs_as_main(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    helper = tmp_path / "helper_mod_rebound.py"
    helper.write_text("VALUE = 41\n", encoding="utf-8")
    script = tmp_path / "main.py"
    script.write_text(
        "import sys, helper_mod_rebound\n"
        "if __name__ == '__main__':\n"
        "    print(helper_mod_rebound.VALUE + 1, sys.argv[1:])\n",
        encoding="utf-8",
    )
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    try:
        assert run_script_entry([str(script), "a"]) == 0
    finally:
        sys.argv[:], sys.path[:] = saved_argv, saved_path
        sys.modules.pop("helper_mod_rebound", None)
    assert capsys.readouterr().out == "42 ['a']\n"


@pytest.mark.parametrize(
    ("body", "code", "stderr"),
    [
        ("import sys; sys.exit(3)", 3, ""),
        ("import sys; sys.exit(None)", 0, ""),
        ("import sys; sys.exit('bad things')", 1, "bad things"),
        ("raise ValueError('boom')", 1, "ValueError: boom"),
    ],
)
def test_run_script_entry_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, code: int, stderr: str
) -> None:
    script = tmp_path / "s.py"
    script.write_text(body + "\n", encoding="utf-8")
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    try:
        assert run_script_entry([str(script)]) == code
    finally:
        sys.argv[:], sys.path[:] = saved_argv, saved_path
    assert stderr in capsys.readouterr().err


def test_run_script_entry_without_a_script(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_script_entry([]) == 2
    assert RUN_SCRIPT_COMMAND in capsys.readouterr().err


def test_output_keeps_head_and_tail_and_notes_the_dropped_bytes(tmp_path: Path) -> None:
    script = _script(tmp_path, "big.py", "import sys; sys.stdout.write('0123456789abcdef')\n")
    result = run_script(script, root=tmp_path, timeout=60, max_output_bytes=10)
    assert result.stdout_truncated and result.stdout_bytes == 16
    assert result.stdout == "01234\n[... 6 bytes omitted by jlgcli ...]\nbcdef"
    small = run_script(script, root=tmp_path, timeout=60, max_output_bytes=100)
    assert small.stdout == "0123456789abcdef" and not small.stdout_truncated


def test_run_script_reports_output_code_cwd_and_closed_stdin(tmp_path: Path) -> None:
    script = _script(
        tmp_path,
        "ok.py",
        """\
        import os, sys
        print("cwd", os.getcwd())
        print("stdin", repr(sys.stdin.read()))
        print("warn", file=sys.stderr)
        sys.exit(7)
        """,
    )
    result = run_script(script, root=tmp_path, timeout=60, max_output_bytes=1000)
    assert result.stop_reason == "exited" and result.exit_code == 7 and not result.ok
    assert f"cwd {tmp_path}" in result.stdout
    assert "stdin ''" in result.stdout
    assert result.stderr.strip() == "warn"
    assert result.argv == (sys.executable, str(script))
    assert result.stdout_bytes == len(result.stdout.encode())
    assert not result.stdout_truncated


def test_run_script_gets_an_allow_listed_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 15: an allow-list, not a deny-list: nothing of jlgcli's nor the user's settings
    monkeypatch.setenv("MY_SERVICE_TOKEN", "hunter2")
    monkeypatch.setenv("PLAIN_SETTING", "visible")
    script = _script(
        tmp_path,
        "env.py",
        """\
        import os
        print(os.environ.get("MY_SERVICE_TOKEN"), os.environ.get("PLAIN_SETTING"))
        print(os.environ.get("PYTHONIOENCODING"))
        """,
    )
    result = run_script(script, root=tmp_path, timeout=60, max_output_bytes=1000)
    assert result.ok
    assert result.stdout.splitlines() == ["None None", "utf-8"]


def test_script_environment_allow_list_posix() -> None:
    env = {"PATH": "/bin", "HOME": "/h", "TMPDIR": "/t", "LANG": "C", "LC_ALL": "C",
           "path": "x", "DATABASE_URL": "postgres://a:b@c/d", "JLGCLI_CONFIG_DIR": "/c",
           "SystemRoot": "C:\\Windows", "KUBECONFIG": "/k", "SENTRY_DSN": "x"}  # fmt: skip
    kept = script_env_names(env, is_windows=False)
    assert kept == ("HOME", "LANG", "LC_ALL", "PATH", "TMPDIR")
    assert set(removed_env_names(env, is_windows=False)) == set(env) - set(kept)


def test_script_environment_allow_list_windows() -> None:
    env = {"Path": "C:\\bin", "USERPROFILE": "C:\\u", "TEMP": "t", "TMP": "t",
           "SystemRoot": "C:\\Windows", "ComSpec": "cmd.exe", "PATHEXT": ".EXE",
           "windir": "C:\\Windows", "ANTHROPIC_API_KEY": "k", "STRIPE_SK": "s"}  # fmt: skip
    kept = script_env_names(env, is_windows=True)
    assert set(kept) == set(env) - {"ANTHROPIC_API_KEY", "STRIPE_SK"}


def test_mark_non_dumpable_is_a_no_op_off_linux() -> None:
    assert mark_non_dumpable(is_linux=False) is False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux only")
def test_mark_non_dumpable_on_linux_clears_the_flag() -> None:
    code = (
        "import ctypes; from jlgcli.rebound.execute import mark_non_dumpable as m;"
        "ok = m(); libc = ctypes.CDLL(None); print(ok, libc.prctl(3, 0, 0, 0, 0))"
    )  # PR_GET_DUMPABLE = 3
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.split() == ["True", "0"]


def test_script_output_is_redacted_before_it_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-ant-api03-" + "Z" * 30
    script = _script(
        tmp_path,
        "leak.py",
        f"""\
        import sys
        sys.stdout.write("{key[:12]}"); sys.stdout.flush()
        sys.stdout.write("{key[12:]} postgres://admin:pw0rd99@db/app\\n")
        print("sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", file=sys.stderr)
        """,
    )
    result = run_script(script, root=tmp_path, timeout=60, max_output_bytes=10_000)
    assert key not in result.stdout and "pw0rd99" not in result.stdout
    assert "sk_live_" not in result.stderr
    assert result.stdout.strip() == "[REDACTED] postgres://admin:[REDACTED]@db/app"


def test_run_script_failing_to_start_is_a_result(tmp_path: Path) -> None:
    script = _script(tmp_path, "x.py", "print(1)\n")
    result = run_script(
        script,
        root=tmp_path,
        timeout=5,
        max_output_bytes=100,
        executable=str(tmp_path / "no-such-python"),
        frozen=False,
    )
    assert result.stop_reason == "failed-to-start"
    assert result.error and "no-such-python" in result.error


@pytest.mark.slow
@posix_only
def test_hanging_script_and_its_grandchild_are_killed_at_the_timeout(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    script = _script(
        tmp_path,
        "hang.py",
        f"""\
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        open({str(pidfile)!r}, "w").write(str(child.pid))
        print("started", flush=True)
        time.sleep(600)
        """,
    )
    result = run_script(script, root=tmp_path, timeout=5, max_output_bytes=1000)
    assert result.stop_reason == "timeout"
    assert result.exit_code != 0
    assert "started" in result.stdout
    grandchild = int(pidfile.read_text())
    assert not pid_alive(grandchild)
    assert result.pid is not None and not pid_alive(result.pid)


@pytest.mark.slow
def test_fifty_megabytes_of_output_is_capped_with_flat_memory(tmp_path: Path) -> None:
    script = _script(
        tmp_path,
        "flood.py",
        """\
        import sys
        line = "x" * 1023 + "\\n"
        block = line * 1024
        for _ in range(50):
            sys.stdout.write(block)
        sys.stdout.write("THE END\\n")
        """,
    )
    tracemalloc.start()
    try:
        result = run_script(script, root=tmp_path, timeout=120, max_output_bytes=64_000)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.ok
    assert result.stdout_bytes >= 50 * 1024 * 1024
    assert result.stdout_truncated
    assert len(result.stdout) < 70_000
    assert "bytes omitted by jlgcli" in result.stdout
    assert result.stdout.rstrip().endswith("THE END")
    assert peak < 8 * 1024 * 1024, f"peak {peak:,} bytes while streaming 50 MB"
