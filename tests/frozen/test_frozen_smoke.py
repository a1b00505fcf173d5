"""Smoke tests of the frozen jlgcli (issue 9): the exe behaves exactly like the package.

Each test runs the PyInstaller build as a user would, usually next to the
installed console script, and compares what matters (exit code, stdout, the
JSON summary). Opt-in with ``JLGCLI_FROZEN_TESTS=1``; see conftest.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jlgcli._version import __version__
from jlgcli.commands.parser import COMMANDS
from jlgcli.config.write import trust_files

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "examples" / "quickstart"

pytestmark = [
    pytest.mark.frozen,
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("JLGCLI_FROZEN_TESTS") != "1",
        reason="frozen smoke tests are opt-in: JLGCLI_FROZEN_TESTS=1 (CI sets it)",
    ),
]

# Fields of a RunSummary that differ between two runs of the same thing.
VOLATILE = {"durationMs", "startedAt", "endedAt", "runId", "runDir", "sessionId"}


def json_out(result: subprocess.CompletedProcess[str]) -> Any:
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError:  # pragma: no cover - a failure message worth reading
        pytest.fail(f"stdout is not one JSON object:\n{result.stdout}\nstderr:\n{result.stderr}")


def stable(summary: dict[str, Any]) -> dict[str, Any]:
    """A summary without timings and ids, for package-vs-exe comparisons."""
    out = {k: v for k, v in summary.items() if k not in VOLATILE}
    out["iterationMetrics"] = [
        {k: v for k, v in m.items() if k != "durationMs"}
        for m in summary.get("iterationMetrics", [])
    ]
    return out


def test_version_is_baked_in(frozen, package, onefile) -> None:
    expected = f"jlgcli {__version__}\n"
    for run in (frozen, onefile, package):
        for flag in ("--version", "-V"):
            result = run(flag)
            assert (result.returncode, result.stdout) == (0, expected), result.stderr


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_matches_the_package(frozen, package, command: str) -> None:
    # Every command module is imported by name at run time: the spec must collect them all.
    args = [command, "--help"] if command else ["--help"]
    ours, theirs = frozen(*args), package(*args)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout
    assert ours.stderr == theirs.stderr == ""


def test_onefile_help_matches_the_package(onefile, package) -> None:
    assert onefile("--help").stdout == package("--help").stdout


def test_backends_json_with_the_fakes(frozen, package) -> None:
    if "backends" not in package("--help").stdout:
        pytest.fail("`jlgcli backends` is not in parser.COMMANDS yet (issue 9 needs it)")
    ours, theirs = frozen("backends", "--json"), package("backends", "--json")
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    mine, reference = json_out(ours), json_out(theirs)
    statuses = {entry["id"]: entry["status"] for entry in mine["backends"]}
    assert statuses == {entry["id"]: entry["status"] for entry in reference["backends"]}
    assert statuses["claude"] == "available"  # the fake claude from tests/fakes


def test_loop_replays_the_quickstart(frozen, package, tmp_path: Path) -> None:
    # The README's offline quickstart; the replay child is the exe itself
    # (``__jlgcli_print_file__``), so this also proves the exe re-runs itself.
    args = ("loop", str(QUICKSTART / "task.md"), "--backend", "replay",
            "--replay", str(QUICKSTART / "recording"), "--json", "-q")  # fmt: skip
    ours, theirs = frozen(*args), package(*args)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    summary = json_out(ours)
    assert (summary["status"], summary["iterations"]) == ("done", 3)
    assert stable(summary) == stable(json_out(theirs))


def test_onefile_replays_the_quickstart(onefile) -> None:
    result = onefile("loop", str(QUICKSTART / "task.md"), "--backend", "replay",
                     "--replay", str(QUICKSTART / "recording"), "--json", "-q")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert json_out(result)["iterations"] == 3


def test_run_with_the_fake_claude(frozen, package, tmp_path: Path) -> None:
    (tmp_path / "task.md").write_text("Say hello.\n", encoding="utf-8")
    ours, theirs = (run("run", "task.md", "--backend", "claude", "--json", "-q")
                    for run in (frozen, package))  # fmt: skip
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert stable(json_out(ours)) == stable(json_out(theirs))


PROBE = """\
import os, sys
prompt = open(sys.argv[1], encoding="utf-8").read().strip()
print("prompt:", prompt)
print("tty:", "yes" if os.isatty(0) else "no")
print("ld:", os.environ.get("LD_LIBRARY_PATH", "none"))
print("pyinstaller vars:", sorted(k for k in os.environ if k.startswith("_PYI_")))
print("DONE")
"""


@pytest.fixture
def probe_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with two command backends running one probe, through a pipe and a pty."""
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    (tmp_path / "probe.py").write_text(PROBE, encoding="utf-8")
    (tmp_path / "task.md").write_text("Say hello.\n", encoding="utf-8")
    argv = [sys.executable, str(tmp_path / "probe.py"), "{prompt_file}"]
    backends = {
        "probe-pipe": {"argv": argv, "prompt": "file", "transport": "pipe"},
        "probe-pty": {"argv": argv, "prompt": "file", "transport": "pty"},
    }
    (tmp_path / ".jlgcli.json").write_text(json.dumps({"backends": backends}), encoding="utf-8")
    trust_files([tmp_path / ".jlgcli.json"])  # issue 15: a project's commands run once trusted
    return tmp_path


@pytest.mark.parametrize(("backend", "tty"), [("probe-pipe", "no"), ("probe-pty", "yes")])
def test_run_through_pipe_and_pty(frozen, package, probe_project: Path, backend, tty) -> None:
    ours, theirs = (run("run", "task.md", "--backend", backend, "--json", "-q", cwd=probe_project)
                    for run in (frozen, package))  # fmt: skip
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    text = json_out(ours)["text"]
    assert f"tty: {tty}" in text and "prompt: Say hello." in text
    # The exe's own library path and PyInstaller's variables do not leak into agents.
    assert "ld: none" in text and "pyinstaller vars: []" in text
    assert stable(json_out(ours)) == stable(json_out(theirs))


SCRIPT = """\
import csv, importlib.metadata, importlib.resources, io, json, sqlite3, sys
print("frozen:", bool(getattr(sys, "frozen", False)))
dev = importlib.resources.files("jlgcli.dev").joinpath("templates")
hook = importlib.resources.files("jlgcli.integrations").joinpath("hook_prompt.md")
print("data files:", sorted(p.name for p in dev.iterdir())[:1], len(hook.read_text("utf-8")) > 0)
print("version:", importlib.metadata.version("jlgcli"))
print("stdlib:", sqlite3.connect(":memory:").execute("select 6*7").fetchone()[0])
print("utf-8: \\u00e9\\u2713")
"""


def _rebound_script(tmp_path: Path) -> Path:
    step = {
        "thought_process": "Check the environment with a script.",
        "artifacts": [{"path": "workbench/scripts/check.py", "content": SCRIPT}],
        "next_action": {
            "type": "exec_and_chain",
            "target_script": "workbench/scripts/check.py",
            "continuation_prompt": "Report what it printed.",
        },
        "status": "continue",
    }
    done = {"status": "done", "summary": "checked"}
    script = tmp_path / "fake-script.json"
    turns = [{"text": "```json\n" + json.dumps(reply) + "\n```"} for reply in (step, done)]
    script.write_text(json.dumps({"turns": turns, "repeat_last": False}), encoding="utf-8")
    return script


def test_rebound_step_runs_a_script_in_the_exe(frozen, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "task.md").write_text("Check the environment.\n", encoding="utf-8")
    fake_script = _rebound_script(tmp_path)
    args = ("loop", "task.md", "--backend", "claude", "--completion", "rebound", "--json", "-q")
    result = frozen(*args, cwd=project, env={"JLGCLI_FAKE_SCRIPT": str(fake_script)})
    assert result.returncode == 0, result.stderr
    assert json_out(result)["status"] == "done"
    # The second prompt carries the script's output back to the model.
    second_prompt = (tmp_path / "fake-script.json.prompts" / "001.txt").read_text(encoding="utf-8")
    assert "frozen: True" in second_prompt  # no Python on the machine: the exe ran it
    assert f"version: {__version__}" in second_prompt  # package metadata is in the build
    assert "stdlib: 42" in second_prompt  # the standard library is bundled for scripts
    assert "data files: ['code-review.prompt.md'] True" in second_prompt  # package data too
    assert "utf-8: \u00e9\u2713" in second_prompt


def test_missing_prompt_exits_66(frozen, package) -> None:
    for run in (frozen, package):
        result = run("run", "no-such-prompt.md", "--json")
        assert result.returncode == 66
        assert json_out(result)["error"]["code"] == 66


def test_no_backend_exits_2(frozen, package, system_bin: Path, tmp_path: Path) -> None:
    (tmp_path / "task.md").write_text("Say hello.\n", encoding="utf-8")
    dirs = [str(system_bin)]
    if os.name == "nt":  # cmd.exe and friends
        dirs += [os.path.join(os.environ.get("SYSTEMROOT", r"C:\Windows"), "System32")]
    no_agents = {"PATH": os.pathsep.join(dirs)}  # the fakes are gone: no agent CLI on PATH
    ours, theirs = (run("run", "task.md", "--backend", "auto", "--json", env=no_agents)
                    for run in (frozen, package))  # fmt: skip
    assert ours.returncode == theirs.returncode == 2, ours.stderr
    assert stable(json_out(ours)) == stable(json_out(theirs))


def test_doctor_knows_it_is_the_standalone_exe(frozen, package, frozen_exe: Path) -> None:
    ours, theirs = frozen("doctor", "--json"), package("doctor", "--json")
    assert ours.returncode == theirs.returncode, ours.stderr
    checks = {c["name"]: c for c in json_out(ours)["checks"]}
    assert f"standalone executable {frozen_exe}" in checks["jlgcli"]["summary"]
    statuses = {c["name"]: c["status"] for c in json_out(theirs)["checks"]}
    assert {name: c["status"] for name, c in checks.items()} == statuses


def test_demo_replays_the_bundled_recording(frozen, package) -> None:
    # issue 19 item 4: the recording is package data, so the exe carries it too.
    ours, theirs = frozen("demo", "--json", "-q"), package("demo", "--json", "-q")
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert json_out(ours)["iterations"] == 3
    assert stable(json_out(ours)) == stable(json_out(theirs))


def test_the_first_minute_of_a_released_exe(frozen_exe: Path) -> None:
    # issue 35: what the release workflow runs on every target against the unzipped zip:
    # --version, demo, doctor and a loop with the fake claude (a .cmd shim on Windows).
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    result = subprocess.run(
        [sys.executable, str(ROOT / "installer" / "first_minute.py"), "--exe", str(frozen_exe)],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "first minute: ok" in result.stderr
    assert "standalone executable" in result.stdout


def test_the_board_serves_its_own_page_and_script_from_the_exe(
    frozen_exe: Path, tmp_path: Path
) -> None:
    """The board's assets are package data: the exe carries them (PyInstaller's datas)."""
    from support.board import cookie_for, request, serve

    with serve(str(frozen_exe), tmp_path) as board:
        jar = {"Cookie": cookie_for(board.port, board.token)}
        assert request(board.port, "/", headers=jar).status == 200
        script = request(board.port, "/static/board.js", headers=jar)
        assert script.status == 200 and "EventSource" in script.body
    assert board.process.returncode == 0
