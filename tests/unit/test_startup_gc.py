"""The console script keeps the garbage collector off start-up's objects (issue 18).

``jlgcli.startup_gc``: no collection while a command starts, collection back on
(start-up frozen) once the command's module is imported or before a rebound
script runs, everything frozen before teardown; in-process callers untouched.
"""

from __future__ import annotations

import argparse
import gc
import io
import sys
import threading
import types
from collections.abc import Iterator

import pytest

from jlgcli import cli, startup_gc


@pytest.fixture(autouse=True)
def _restore_the_collector() -> Iterator[None]:
    was_enabled = gc.isenabled()
    yield
    gc.unfreeze()
    startup_gc._paused.clear()
    if was_enabled:
        gc.enable()


def _frozen_now() -> int:
    return gc.get_freeze_count()


def test_in_process_main_leaves_the_collector_alone(capsys: pytest.CaptureFixture[str]) -> None:
    gc.unfreeze()
    assert cli.main(["--version"]) == 0
    startup_gc.resume()
    startup_gc.freeze_for_exit()
    assert gc.isenabled()
    assert _frozen_now() == 0
    assert capsys.readouterr().out.startswith("jlgcli ")


def test_the_console_script_starts_paused_and_freezes_before_teardown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[bool] = []

    def command() -> int:
        seen.append(gc.isenabled())
        return 3

    gc.unfreeze()
    monkeypatch.setattr(cli, "main", command)
    assert cli.console_main() == 3
    assert seen == [False]  # no collection while the command starts
    assert _frozen_now() > 0  # teardown's collections skip start-up's objects


def test_dispatch_collects_again_once_the_command_module_is_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[tuple[bool, int]] = []
    handlers = types.ModuleType("jlgcli_test_handlers")
    handlers.record = lambda args: seen.append((gc.isenabled(), _frozen_now())) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "jlgcli_test_handlers", handlers)
    gc.unfreeze()
    startup_gc.pause()
    assert cli._dispatch(argparse.Namespace(handler="jlgcli_test_handlers:record")) == 0
    assert seen[0][0] is True
    assert seen[0][1] > 0
    startup_gc.resume()  # once only: a second call changes nothing
    assert gc.isenabled()


def test_a_rebound_script_runs_with_a_working_collector(monkeypatch: pytest.MonkeyPatch) -> None:
    from jlgcli.rebound import execute

    seen: list[bool] = []

    def run_script(arguments: list[str]) -> int:
        seen.append(gc.isenabled())
        return 0

    monkeypatch.setattr(execute, "run_script_command", run_script)
    monkeypatch.setattr(sys, "argv", ["jlgcli", "__jlgcli_run_script__", "script.py"])
    assert cli.console_main() == 0
    assert seen == [True]


def test_the_console_script_and_python_m_use_the_console_entry() -> None:
    from importlib.metadata import entry_points

    (script,) = entry_points(group="console_scripts", name="jlgcli")
    assert script.value == "jlgcli.cli:console_script"
    main_module = cli.__file__.replace("cli.py", "__main__.py")
    with open(main_module, encoding="utf-8") as source:
        assert "console_script()" in source.read()


def test_the_console_script_ends_with_console_mains_code_without_teardown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ended: list[int] = []
    monkeypatch.setattr(cli, "console_main", lambda: 7)
    monkeypatch.setattr(startup_gc, "exit_now", lambda code: ended.append(code))
    cli.console_script()
    assert ended == [7]


def test_exit_now_runs_what_exit_runs_first_then_ends(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import atexit

    order: list[str] = []
    monkeypatch.setattr(atexit, "_run_exitfuncs", lambda: order.append("atexit"))
    monkeypatch.setattr(threading, "_shutdown", lambda: order.append("threads"))
    ended: list[int] = []
    with pytest.raises(SystemExit):
        startup_gc.exit_now(4, end=ended.append)
    assert order == ["threads", "atexit"]
    assert ended == [4]


def test_exit_now_under_a_profiler_exits_as_python_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """``python -m cProfile -m jlgcli …`` writes its report at the interpreter's exit."""
    ended: list[int] = []
    monkeypatch.setattr(sys, "getprofile", lambda: object())
    with pytest.raises(SystemExit) as stopped:
        startup_gc.exit_now(3, end=ended.append)
    assert stopped.value.code == 3 and ended == []


def test_exit_now_says_120_when_stdout_cannot_be_flushed(monkeypatch: pytest.MonkeyPatch) -> None:
    import atexit

    class Broken(io.StringIO):
        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(atexit, "_run_exitfuncs", lambda: None)
    monkeypatch.setattr(threading, "_shutdown", lambda: None)
    monkeypatch.setattr(sys, "stdout", Broken())
    ended: list[int] = []
    with pytest.raises(SystemExit):
        startup_gc.exit_now(0, end=ended.append)
    with pytest.raises(SystemExit):
        startup_gc.exit_now(5, end=ended.append)  # a failed command keeps its own code
    assert ended == [120, 5]


def test_a_process_ended_by_exit_now_joined_its_threads_ran_atexit_and_flushed() -> None:
    import subprocess

    program = (
        "import atexit, threading, time, sys\n"
        "from jlgcli.startup_gc import exit_now\n"
        "atexit.register(lambda: print('atexit ran'))\n"
        "t = threading.Thread(target=lambda: (time.sleep(0.2), print('thread done')))\n"
        "t.start()\n"
        "print('buffered;', end='')\n"
        "sys.stderr.write('err;')\n"
        "exit_now(3)\n"
        "print('never')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 3
    assert done.stdout == "buffered;thread done\natexit ran\n"
    assert done.stderr == "err;"


def test_aidevloop_starts_paused_and_collects_once_its_arguments_are_parsed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from jlgcli.commands import dev_program as cli_entry

    seen: list[bool] = []

    def run_from_args(args: argparse.Namespace) -> int:
        seen.append(gc.isenabled())
        return 0

    gc.unfreeze()
    monkeypatch.setattr(cli_entry, "run_from_args", run_from_args)
    monkeypatch.setattr(sys, "argv", ["aidevloop", "run", "--yes"])
    assert cli_entry.console_main() == 0
    assert seen == [True]
    assert _frozen_now() > 0


def test_aidevloop_and_adl_use_the_console_entry() -> None:
    from importlib.metadata import entry_points

    for name in ("aidevloop", "adl"):
        (script,) = entry_points(group="console_scripts", name=name)
        assert script.value == "jlgcli.commands.dev_program:console_main"
