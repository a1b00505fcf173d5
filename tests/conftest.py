"""Test isolation shared by every test.

Every test runs with a temporary HOME and config dir, no agent-CLI secrets in
the environment, and a PATH made of (1) the fakes from ``tests/fakes/`` under
the real CLIs' names and (2) a directory of links to a short whitelist of
system tools. No real ``claude``/``codex``/``copilot``/``gemini`` can be found,
even when one is installed on the machine: a test that finds one is a bug.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from support import platform_names
from support.environ import COVERAGE_VARIABLES, SUBPROCESS_COVERAGE
from support.redaction_engine import engine_skip_reason

# The Windows proxy of .ci/run (issue 35): names removed before any test module is imported,
# put back once collection is over (pytest_collection_finish).
if platform_names.simulating():
    platform_names.simulate_windows_names()

# Hypothesis fails an example that runs over 200 ms by default (its "deadline"): a timing
# asserted in a test. Two workers a core with coverage on made it fail at random
# (test_rewrite_is_byte_identical_elsewhere, then passing when run again), so no test has one.
settings.register_profile("jlgcli", deadline=None)
settings.load_profile("jlgcli")

FAKES_DIR = Path(__file__).parent / "fakes"
REPO_ROOT = Path(__file__).parent.parent


def restore_interrupt_signals() -> list[str]:
    """Give SIGINT and SIGQUIT back their defaults when this process started with them ignored.

    A background job of a non-interactive shell (``python -m pytest &``) starts with
    both ignored, and every child inherits that: jlgcli rightly leaves an ignored
    SIGINT alone (POSIX: the parent chose it), so the Ctrl-C tests (the polite rung,
    exit 130) failed there and one left a grandchild running. The suite needs the
    defaults; what it restored is returned.
    """
    restored = []
    defaults = [("SIGINT", signal.default_int_handler), ("SIGQUIT", signal.SIG_DFL)]
    for name, handler in defaults:
        signum = getattr(signal, name, None)  # no SIGQUIT on Windows
        if signum is not None and signal.getsignal(signum) == signal.SIG_IGN:
            signal.signal(signum, handler)
            restored.append(name)
    return restored


restore_interrupt_signals()  # every worker: each is its own process

# ``nohup`` starts the suite with SIGHUP ignored, and every child inherits that; jlgcli
# rightly keeps an inherited SIG_IGN, so the tests that hang a run up cannot pass there.
# Unlike the ``&`` case above, surviving a hang-up is what the user asked for: those
# tests skip and say why (read at import, before any test changes SIGHUP).
SIGHUP_IGNORED = hasattr(signal, "SIGHUP") and signal.getsignal(signal.SIGHUP) == signal.SIG_IGN


_SIGHUP_SKIP = "the suite started with SIGHUP ignored (nohup?): its children keep it ignored"


def sends_sighup(item: pytest.Item) -> bool:
    """Whether ``item`` is a parametrized case that sends SIGHUP."""
    callspec = getattr(item, "callspec", None)
    values = callspec.params.values() if callspec is not None else ()
    return any(
        value == "SIGHUP" or (isinstance(value, signal.Signals) and value.name == "SIGHUP")
        for value in values
    )


# Modules whose session/module fixtures build something expensive or fill a shared cache
# (the PyInstaller build, pre-commit's hook venv, the real CLIs' npm cache, the wheel and
# its venv, the two full ``jlgcli dev`` runs): under pytest-xdist their tests run on one
# worker, so the build happens once and never concurrently. A module fixture is built once
# per worker that runs one of its tests: test_dev_acceptance's two shared runs were made 7
# times in one suite run. Each entry names the group and the fixtures that make a test
# join it; none: every test of the prefix (test_dev_acceptance's 33 tests on one worker
# made a 30 s tail, so only the 14 using its shared runs are grouped).
_ONE_WORKER_GROUPS: dict[str, tuple[str, frozenset[str]]] = {
    "tests/frozen/": ("frozen-build", frozenset()),
    "tests/e2e/test_precommit_door.py": ("pre-commit-venv", frozenset()),
    "tests/integration/test_real_clis.py": ("real-cli-cache", frozenset()),
    "tests/e2e/test_wheel_install.py": ("wheel-venv", frozenset()),
    "tests/e2e/test_dev_acceptance.py": ("dev-acceptance-runs", frozenset({"happy", "stuck"})),
}


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile jlgcli's bytecode once, before the workers start (the controller only).

    The e2e tests start the installed ``jlgcli`` hundreds of times, as a user
    would; a user's jlgcli has bytecode (pip compiles it at install), but an
    editable install where ``PYTHONDONTWRITEBYTECODE`` is set (this machine
    kind, CI) has none, so every start would compile ~160 modules again (~70 ms
    each time; issue 18). ``compileall`` writes the ``__pycache__`` that the
    setting only stops the interpreter from writing; git ignores it.
    """
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller did it
        return
    import compileall

    compileall.compile_dir(REPO_ROOT / "jlgcli", quiet=1)
    compileall.compile_dir(FAKES_DIR, quiet=1)  # the fakes' launchers run them as modules


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers a core, or one when the jlgcli children are measured.

    Most e2e tests wait on child processes (a fake agent, a timeout, a kill
    ladder): a second worker a core uses that wait (2m32 against 3m19 on 2
    cores; issue 18). Children measured by coverage are CPU-bound instead, and
    two workers a core made that run slower (3m54 against 3m32).
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) * (1 if SUBPROCESS_COVERAGE else 2)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of ``_ONE_WORKER_GROUPS`` with their ``xdist_group``; skip SIGHUP cases
    when the suite started with SIGHUP ignored, and the tests of Hyperscan where it is not.

    xdist turns the mark into the ``@group`` suffix of the node id in its own
    ``pytest_collection_modifyitems``, which its scheduler reads.
    """
    root = REPO_ROOT.resolve()
    for item in items:
        path = Path(str(item.path)).resolve()
        if not path.is_relative_to(root):
            continue
        relative = path.relative_to(root).as_posix()
        for prefix, (group, fixtures) in _ONE_WORKER_GROUPS.items():
            uses = not fixtures or fixtures.intersection(getattr(item, "fixturenames", ()))
            if relative.startswith(prefix) and uses:
                item.add_marker(pytest.mark.xdist_group(group))
        if SIGHUP_IGNORED and sends_sighup(item):
            item.add_marker(pytest.mark.skip(reason=_SIGHUP_SKIP))
    engine = [i for i in items if getattr(i, "get_closest_marker", lambda _: None)("hyperscan")]
    reason = engine_skip_reason() if engine else None
    for item in engine if reason is not None else ():  # Hyperscan's own tests (issue 35)
        item.add_marker(pytest.mark.skip(reason=reason))


def pytest_configure(config: pytest.Config) -> None:
    """The Windows proxy: a pytest-xdist controller collects nothing, so it gets the names back
    at once (it needs ``os.getuid`` for the workers' temporary directory)."""
    controller = not hasattr(config, "workerinput") and getattr(config.option, "dist", "no") != "no"
    if controller:
        platform_names.restore_names()


def pytest_collection_finish(session: pytest.Session) -> None:
    """The Windows proxy: the tests were collected as on Windows; they run on this OS.

    jlgcli takes this OS's branches at run time (``sys.platform`` is still
    ``linux``), and pytest itself needs ``os.getuid`` for ``tmp_path``.
    """
    platform_names.restore_names()


def pytest_xdist_node_collection_finished(node: object, ids: list[str]) -> None:
    """Stop when xdist no longer groups: each worker would build the groups' venvs at once.

    Seen with pytest 9.2 (pytest-dev/pytest-xdist#1386): the marks were there, the
    ``@group`` suffix was not, and two workers built the pre-commit venv side by side.
    """
    prefixes = tuple(p for p, (_, fixtures) in _ONE_WORKER_GROUPS.items() if not fixtures)
    for nodeid in ids:
        if nodeid.startswith(prefixes) and "@" not in nodeid.rpartition("::")[2]:
            raise pytest.UsageError(
                f"pytest-xdist did not group {nodeid}: see pytest-dev/pytest-xdist#1386 "
                "and the pytest pin in pyproject.toml"
            )


# System tools tests may need; anything else (including real agent CLIs) is unreachable.
_SYSTEM_TOOLS = (
    "sh",
    "bash",
    "env",
    "cat",
    "echo",
    "sleep",
    "true",
    "false",
    "git",
    "script",
    "ls",
    "rm",
    "mkdir",
    "printf",
    "kill",
    "ps",
    "head",
    "tail",
    "wc",
    "stty",
    "tr",
    "grep",
    "sed",
    "dirname",
    "basename",
    "uname",
    "timeout",
)

_SECRET_PREFIXES = (
    "ANTHROPIC_",
    "OPENAI_",
    "CODEX_",
    "CLAUDE_",
    "COPILOT_",
    "GEMINI_",
    "GOOGLE_",
    "GH_",
    "GITHUB_",
    "JLGCLI_",
    "AZURE_OPENAI",
    "AWS_",
    "IS_SANDBOX",
)
_SECRET_NAMES = (
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "CI",
    "GITHUB_ACTIONS",
    "GITHUB_OUTPUT",
    "GITHUB_STEP_SUMMARY",
)


def _write_launcher(bin_dir: Path, name: str, script: Path) -> None:
    """Make ``name`` on PATH run ``script`` with this interpreter (a .cmd on Windows).

    The fakes are not jlgcli: measuring them cost ~50 ms and a stray data file per call,
    over a thousand calls a suite (issue 18), so the launcher drops coverage's variables.
    ``-S`` skips ``site``: the fakes use the standard library only, and the site-packages'
    ``.pth`` files (the editable install's import finder, coverage's hook) were a third of
    each start. On POSIX the fake runs as a module (``runpy``), so its bytecode, compiled
    once by ``pytest_sessionstart``, is used: run as a script it was compiled at every
    call (26 against 36 ms of CPU a call where ``PYTHONDONTWRITEBYTECODE`` is set).
    """
    if os.name == "nt":  # pragma: no cover - exercised by the Windows CI job
        # npm's own shape (npm/cmd-shim lib/index.js, a "#!/usr/bin/env python -S" script),
        # so an argument cmd.exe would mangle runs the fake directly, as with npm's
        # claude.cmd (issue 47). It cannot unset coverage's variables: the Windows job
        # measures no subprocess.
        python = sys.executable
        (bin_dir / f"{name}.cmd").write_text(
            "@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\n"
            "SETLOCAL\r\nCALL :find_dp0\r\n\r\n"
            f'IF EXIST "{python}" (\r\n  SET "_prog={python}"\r\n) ELSE (\r\n'
            '  SET "_prog=python"\r\n  SET PATHEXT=%PATHEXT:;.JS;=;%\r\n)\r\n\r\n'
            "endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "
            f'"%_prog%" -S "{script}" %*\r\n',
            encoding="utf-8",
        )
        return
    launcher = bin_dir / name
    folder, module = json.dumps(str(script.parent)), json.dumps(script.stem)  # literals
    run_module = (
        f"import sys; sys.path.insert(0, {folder}); import runpy; "
        f'runpy.run_module({module}, run_name="__main__", alter_sys=True)'
    )
    launcher.write_text(
        f"#!/bin/sh\nunset {' '.join(COVERAGE_VARIABLES)}\n"
        f'exec "{sys.executable}" -S -c {shlex.quote(run_module)} "$@"\n',
        encoding="utf-8",
    )
    launcher.chmod(launcher.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


@pytest.fixture(scope="session")
def system_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory of links to whitelisted system tools, plus ``python``/``python3``."""
    bin_dir = tmp_path_factory.mktemp("sysbin")
    if os.name == "nt":  # pragma: no cover - Windows keeps its system dirs
        return bin_dir
    for tool in _SYSTEM_TOOLS:
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    for name in ("python", "python3"):
        (bin_dir / name).symlink_to(sys.executable)
    return bin_dir


@pytest.fixture(scope="session")
def fake_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Launchers for every ``tests/fakes/<name>.py`` under the name ``<name>``."""
    bin_dir = tmp_path_factory.mktemp("fakebin")
    for script in sorted(FAKES_DIR.glob("*.py")):
        if script.name.startswith("_"):
            continue
        _write_launcher(bin_dir, script.stem.replace("_", "-"), script)
    return bin_dir


@pytest.fixture(scope="session")
def jlgcli_exe() -> str:
    """The installed ``jlgcli`` console script (e2e tests run it as a user would)."""
    candidates = [Path(sys.executable).parent / name for name in ("jlgcli", "jlgcli.exe")]
    for candidate in candidates:
        if candidate.exists():
            return str(candidate)
    pytest.fail("the jlgcli console script is not installed next to this Python: pip install -e .")


def _path_with(*dirs: Path) -> str:
    parts = [str(d) for d in dirs]
    if os.name == "nt":  # pragma: no cover - Windows needs its system dirs for cmd.exe
        system_root = os.environ.get("SYSTEMROOT", r"C:\Windows")
        parts += [rf"{system_root}\System32", system_root]
    return os.pathsep.join(parts)


@pytest.fixture(autouse=True)
def isolated_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_bin: Path, system_bin: Path
) -> Iterator[Path]:
    """Temporary HOME/config dirs, no secrets, fakes first on PATH."""
    home = tmp_path / "home"
    home.mkdir()
    for name in list(os.environ):
        if name.startswith(_SECRET_PREFIXES) or name in _SECRET_NAMES:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    monkeypatch.setenv("APPDATA", str(home / "AppData" / "Roaming"))
    monkeypatch.setenv("LOCALAPPDATA", str(home / "AppData" / "Local"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.setenv("JLGCLI_CONFIG_DIR", str(home / "jlgcli-config"))
    monkeypatch.setenv("PATH", _path_with(fake_bin, system_bin))
    if not SUBPROCESS_COVERAGE:
        for name in COVERAGE_VARIABLES:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PYTHONIOENCODING", "utf-8")
    monkeypatch.setenv("NO_COLOR", "1")
    yield home
