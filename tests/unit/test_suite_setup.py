"""The suite's own set-up (issue 18): parallel with pytest-xdist, expensive builds once."""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from support import platform_names
from support.environ import tool_environ
from support.platform_names import signal_param

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]


def suite_conftest(request: pytest.FixtureRequest) -> Any:
    """The suite's own ``tests/conftest.py``, as pytest loaded it."""
    return next(
        plugin
        for plugin in request.config.pluginmanager.get_plugins()
        if getattr(plugin, "__file__", "") == str(ROOT / "tests" / "conftest.py")
    )


def test_the_suite_runs_on_every_core() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    addopts = config["tool"]["pytest"]["ini_options"]["addopts"].split()
    assert "-n" in addopts and addopts[addopts.index("-n") + 1] == "auto"
    assert "--dist" in addopts and addopts[addopts.index("--dist") + 1] == "loadgroup"
    assert any(
        dep.startswith("pytest-xdist") for dep in config["project"]["optional-dependencies"]["test"]
    )


@pytest.mark.parametrize(
    ("relative", "group"),
    [
        ("tests/frozen/test_frozen_smoke.py", "frozen-build"),
        ("tests/e2e/test_precommit_door.py", "pre-commit-venv"),
        ("tests/integration/test_real_clis.py", "real-cli-cache"),
        ("tests/e2e/test_wheel_install.py", "wheel-venv"),
        ("tests/unit/test_cli.py", None),
    ],
)
def test_expensive_session_builds_stay_on_one_worker(
    relative: str, group: str | None, request: pytest.FixtureRequest
) -> None:
    markers: list[Any] = []
    item = SimpleNamespace(path=ROOT / relative, add_marker=markers.append)
    outside = SimpleNamespace(path=Path("/elsewhere/test_x.py"), add_marker=markers.append)
    # Call only the suite's conftest hook, not every plugin's.
    conftest = suite_conftest(request)
    conftest.pytest_collection_modifyitems(request.config, [item, outside])
    if group is None:
        assert markers == []
    else:
        assert [(m.name, m.args) for m in markers] == [("xdist_group", (group,))]


@pytest.mark.parametrize(
    ("fixtures", "group"),
    [(["tmp_path", "happy"], "dev-acceptance-runs"), (["stuck"], "dev-acceptance-runs"),
     (["tmp_path"], None)],
)  # fmt: skip
def test_only_the_tests_sharing_a_module_run_stay_together(
    fixtures: list[str], group: str | None, request: pytest.FixtureRequest
) -> None:
    markers: list[Any] = []
    item = SimpleNamespace(path=ROOT / "tests/e2e/test_dev_acceptance.py",
                           fixturenames=fixtures, add_marker=markers.append)  # fmt: skip
    suite_conftest(request).pytest_collection_modifyitems(request.config, [item])
    expected = [] if group is None else [("xdist_group", (group,))]
    assert [(m.name, m.args) for m in markers] == expected


@pytest.mark.skipif(sys.platform == "win32", reason="no ignorable SIGQUIT; no '&' jobs")
def test_interrupt_signals_ignored_at_start_get_their_defaults(
    request: pytest.FixtureRequest,
) -> None:
    # `python -m pytest &` in a non-interactive shell starts with SIGINT and SIGQUIT
    # ignored, and every child inherits that: the Ctrl-C tests failed there.
    conftest = suite_conftest(request)
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGQUIT)}
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGQUIT, signal.SIG_IGN)
        assert conftest.restore_interrupt_signals() == ["SIGINT", "SIGQUIT"]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert signal.getsignal(signal.SIGQUIT) == signal.SIG_DFL
        assert conftest.restore_interrupt_signals() == []  # defaults are left alone
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


def test_module_scoped_dev_runs_are_measured_only_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_bin: Path, system_bin: Path
) -> None:
    """Module fixtures run before the per-test isolation: they drop coverage's variables too.

    The two shared ``jlgcli dev`` runs of test_dev_acceptance.py kept them, so the loop and
    every Python child of it were measured: 94 s of the suite's worker time instead of 43.
    """
    from support import dev_e2e

    monkeypatch.setenv("COVERAGE_PROCESS_START", "pyproject.toml")
    monkeypatch.setattr(dev_e2e, "SUBPROCESS_COVERAGE", False)
    env = dev_e2e.isolated_env(tmp_path / "a", fake_bin, system_bin)
    assert "COVERAGE_PROCESS_START" not in env
    monkeypatch.setattr(dev_e2e, "SUBPROCESS_COVERAGE", True)
    env = dev_e2e.isolated_env(tmp_path / "b", fake_bin, system_bin)
    assert env["COVERAGE_PROCESS_START"] == "pyproject.toml"


@pytest.mark.parametrize(
    ("params", "signum", "skipped"),
    [({"name": "SIGHUP"}, None, True),
     signal_param({"transport": "pipe"}, "SIGHUP", True, id="signum-SIGHUP"),  # issue 35
     ({"name": "SIGTERM"}, None, False), ({"count": 1}, None, False), (None, None, False)],
)  # fmt: skip
def test_under_nohup_the_sighup_cases_skip_and_say_why(
    params: dict[str, Any] | None, signum: signal.Signals | None, skipped: bool,
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    conftest = suite_conftest(request)
    markers: list[Any] = []
    item = SimpleNamespace(path=ROOT / "tests/e2e/test_containment.py", add_marker=markers.append)
    if signum is not None:  # the parameter is the signal itself, as in test_process_interrupt
        params = {**(params or {}), "signum": signum}
    if params is not None:
        item.callspec = SimpleNamespace(params=params)
    monkeypatch.setattr(conftest, "SIGHUP_IGNORED", True)
    conftest.pytest_collection_modifyitems(request.config, [item])
    assert [m.name for m in markers] == (["skip"] if skipped else [])
    if skipped:
        assert "nohup" in markers[0].kwargs["reason"]
    markers.clear()
    monkeypatch.setattr(conftest, "SIGHUP_IGNORED", False)
    conftest.pytest_collection_modifyitems(request.config, [item])
    assert markers == []


def test_a_signal_parameter_is_skipped_with_its_reason_where_the_signal_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # issue 35: signal.SIGHUP in a parametrize list stopped the whole suite collecting on Windows
    present = signal_param("pipe", "SIGTERM")
    assert (present.values, present.marks, present.id) == (
        ("pipe", signal.SIGTERM), (), "pipe-SIGTERM"
    )  # fmt: skip
    monkeypatch.delattr(signal, "SIGHUP")
    missing = signal_param("pipe", "SIGHUP")
    assert (missing.values, missing.id) == (("pipe", "SIGHUP"), "pipe-SIGHUP")
    assert [m.name for m in missing.marks] == ["skip"]
    assert missing.marks[0].kwargs["reason"] == "signal.SIGHUP: not on this OS (POSIX only)"
    assert signal_param(3, "SIGTERM", id="three").id == "three"


@pytest.mark.skipif(sys.platform == "win32", reason="the proxy stands in for Windows elsewhere")
def test_the_windows_proxy_removes_what_windows_lacks_then_puts_it_back() -> None:
    killpg, sighup = os.killpg, signal.SIGHUP
    try:
        removed = platform_names.simulate_windows_names()
        assert {"signal.SIGHUP", "signal.SIGKILL", "os.killpg", "fcntl"} <= set(removed)
        assert not hasattr(signal, "SIGKILL") and not hasattr(os, "getpgid")
        assert not hasattr(signal.Signals, "SIGQUIT") and signal.SIGINT.name == "SIGINT"
        with pytest.raises(ImportError):
            importlib.import_module("termios")
    finally:
        platform_names.restore_names()
    assert (os.killpg, signal.SIGHUP, signal.Signals.SIGHUP) == (killpg, sighup, sighup)
    assert importlib.import_module("termios") is not None
    platform_names.restore_names()  # twice: nothing left to put back


@pytest.mark.skipif(sys.platform == "win32", reason="the proxy stands in for Windows elsewhere")
def test_the_windows_proxy_collects_what_used_a_posix_name_at_import(tmp_path: Path) -> None:
    # issue 35: these modules failed to collect without SIGHUP/SIGKILL/os.geteuid (as on Windows)
    modules = [
        "tests/e2e/test_process_interrupt.py", "tests/e2e/test_dev_resume.py",
        "tests/unit/test_suite_setup.py", "tests/unit/artifacts/test_run_directory.py",
        "tests/unit/runner/test_runs_listing.py", "tests/unit/backends/test_doctor.py",
    ]  # fmt: skip
    env = tool_environ(**{platform_names.SIMULATE_VARIABLE: "1"})
    argv = [sys.executable, "-m", "pytest", "-n", "0", "-p", "no:cacheprovider", "-q"]
    collected = subprocess.run(
        [*argv, "--collect-only", *modules], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert collected.returncode == 0, collected.stdout + collected.stderr
    assert "[pipe-SIGHUP]" in collected.stdout and "[4-SIGKILL]" in collected.stdout
    skipped = subprocess.run(
        [*argv, "-rs", "tests/e2e/test_process_interrupt.py", "-k", "SIGHUP or SIGQUIT"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr
    assert "2 skipped" in skipped.stdout
    assert "signal.SIGHUP: not on this OS (POSIX only)" in skipped.stdout


@pytest.mark.parametrize(
    ("sys_platform", "machine", "required"),
    [("linux", "x86_64", True), ("win32", "AMD64", True), ("darwin", "arm64", True),
     ("darwin", "x86_64", True), ("linux", "aarch64", False), ("win32", "ARM64", False)],
)  # fmt: skip
def test_hyperscan_is_a_dependency_exactly_where_it_has_wheels(
    sys_platform: str, machine: str, required: bool
) -> None:
    # issue 35: without a wheel pip builds hyperscan from source, and `pip install jlgcli` failed
    from packaging.requirements import Requirement

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    dependency = next(
        r for r in map(Requirement, config["project"]["dependencies"]) if r.name == "hyperscan"
    )
    assert dependency.marker is not None
    assert dependency.marker.evaluate(
        {"sys_platform": sys_platform, "platform_machine": machine}
    ) is required  # fmt: skip
    assert config["project"]["optional-dependencies"]["hyperscan"] == [
        f"hyperscan{dependency.specifier}"
    ]


def test_the_tests_of_hyperscan_skip_only_where_it_is_optional_or_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from support import redaction_engine

    monkeypatch.delenv(redaction_engine.HIDE_VARIABLE, raising=False)
    optional = tmp_path / "pyproject.toml"
    optional.write_text(
        "[project]\ndependencies = [\"hyperscan>=0.9; sys_platform == 'nowhere'\"]\n",
        encoding="utf-8",
    )
    assert not redaction_engine.hyperscan_required_here(optional)
    optional.write_text('[project]\ndependencies = ["hyperscan>=0.9"]\n', encoding="utf-8")
    assert redaction_engine.hyperscan_required_here(optional)
    monkeypatch.setattr(redaction_engine, "hyperscan_loads", lambda: False)
    assert redaction_engine.engine_skip_reason() is None  # required and absent: the tests fail
    monkeypatch.setattr(redaction_engine, "hyperscan_required_here", lambda: False)
    assert "optional on this platform" in (redaction_engine.engine_skip_reason() or "")
    monkeypatch.setenv(redaction_engine.HIDE_VARIABLE, "1")
    assert "hidden" in (redaction_engine.engine_skip_reason() or "")
