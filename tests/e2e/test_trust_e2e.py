"""Issue 33: trust without races or borrowing, through the installed console script.

* The project file is read once: the bytes hashed are the bytes parsed, so swapping
  ``.jlgcli.json`` while jlgcli reads it never runs the untrusted command.
* A ``.jlgcli.json`` that is a symlink to a trusted file elsewhere is not trusted
  (trust is recorded for the path where a file is found), and a trusted file's
  relative program (``./agent.sh``) is refused: nothing of the repository runs.
* ``completionMode: rebound`` from an untrusted project file needs trust.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest
from support.cli import Runner

from jlgcli.config.write import trust_files

CANARY = "PWNED"


def _config(argv: list[str]) -> str:
    return json.dumps({"backend": "b", "backends": {"b": {"argv": argv, "prompt": "stdin"}}})


def _trust(path: Path) -> None:
    trust_files([path], env={"JLGCLI_CONFIG_DIR": os.environ["JLGCLI_CONFIG_DIR"]})


def _canary_agent(project: Path) -> None:
    """``./agent.sh`` of ``project``: it leaves the canary file if it ever runs."""
    agent = project / "agent.sh"
    agent.write_text(f"#!/bin/sh\ntouch {CANARY}\necho DONE\n", encoding="utf-8")
    agent.chmod(0o755)


def _project(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "task.md").write_text("Do it.\n", encoding="utf-8")
    return root


@pytest.mark.slow
def test_swapping_the_project_file_while_jlgcli_reads_it_never_runs_the_untrusted_argv(
    jlg: Runner, tmp_path: Path
) -> None:
    # issue 33: read once to parse and again to hash ran the untrusted argv on run 3 of 80.
    project = _project(tmp_path / "p")
    good = _config([sys.executable, "-c", "print('DONE')"])
    evil = _config([sys.executable, "-c", f"open({CANARY!r}, 'w'); print('DONE')"])
    config = project / ".jlgcli.json"
    config.write_text(good, encoding="utf-8")
    _trust(config)
    staged = {name: project / f".{name}.tmp" for name in ("good", "evil")}
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            for name, text in (("evil", evil), ("good", good)):
                staged[name].write_text(text, encoding="utf-8")
                os.replace(staged[name], config)
                stop.wait(0.0005)

    swapper = threading.Thread(target=swap, daemon=True)
    swapper.start()
    try:
        codes = [jlg("run", "task.md", cwd=project).returncode for _ in range(40)]
    finally:
        stop.set()
        swapper.join()
    assert not (project / CANARY).exists(), "an untrusted argv ran"
    assert set(codes) <= {0, 78}, codes  # trusted (ran the good argv) or refused


def test_a_symlinked_project_file_is_not_trusted_through_its_target(
    jlg: Runner, tmp_path: Path
) -> None:
    trusted = _project(tmp_path / "trusted")
    (trusted / ".jlgcli.json").write_text(_config(["./agent.sh"]), encoding="utf-8")
    _trust(trusted / ".jlgcli.json")
    other = _project(tmp_path / "other")
    (other / ".jlgcli.json").symlink_to(trusted / ".jlgcli.json")
    _canary_agent(other)
    result = jlg("run", "task.md", cwd=other)
    assert result.returncode == 78, result.stderr
    assert "not trusted" in result.stderr
    assert not (other / CANARY).exists()


def test_a_trusted_files_relative_program_is_refused(jlg: Runner, tmp_path: Path) -> None:
    project = _project(tmp_path / "p")
    (project / ".jlgcli.json").write_text(_config(["./agent.sh"]), encoding="utf-8")
    _trust(project / ".jlgcli.json")
    _canary_agent(project)
    result = jlg("run", "task.md", cwd=project)
    assert result.returncode == 78, result.stderr
    assert "relative" in result.stderr
    assert not (project / CANARY).exists()


def test_rebound_mode_from_an_untrusted_project_file_needs_trust(
    jlg: Runner, tmp_path: Path
) -> None:
    project = _project(tmp_path / "p")
    (project / ".jlgcli.json").write_text(json.dumps({"completionMode": "rebound"}), "utf-8")
    result = jlg("loop", "task.md", "-b", "claude", cwd=project)
    assert result.returncode == 78, result.stderr
    assert "jlgcli config trust" in result.stderr
    _trust(project / ".jlgcli.json")
    assert jlg("config", "get", "completionMode", cwd=project).stdout.strip() == "rebound"
