"""``jlgcli demo``: the real loop replaying the shipped recording, from any directory (issue 19
item 4; F-004 loop, replay backend)."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import Runner

REPO_ROOT = Path(__file__).resolve().parents[2]
SHIPPED = REPO_ROOT / "jlgcli" / "demo"
EXAMPLE = REPO_ROOT / "examples" / "quickstart"


def test_demo_runs_the_full_loop_from_an_unrelated_directory(jlg: Runner, tmp_path: Path) -> None:
    elsewhere = tmp_path / "somewhere" / "else"
    elsewhere.mkdir(parents=True)
    result = jlg("demo", cwd=elsewhere)
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().endswith("DONE")  # the recorded final message, streamed
    assert "no agent CLI is called" in result.stderr
    assert "jlgcli loop: DONE" in result.stderr
    assert list(elsewhere.iterdir()) == []  # a replay changes nothing, records nothing


def test_demo_json_is_the_loop_summary(jlg: Runner) -> None:
    result = jlg("demo", "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["command"], summary["backend"]) == ("loop", "replay")
    assert (summary["status"], summary["iterations"], summary["stopCause"]) == ("done", 3, "done")


def test_demo_shows_a_guardrail(jlg: Runner) -> None:
    result = jlg("demo", "--max-iterations", "2", "--json")
    assert result.returncode == 4, result.stderr
    assert json.loads(result.stdout)["stopCause"] == "max-iterations"


def test_config_cannot_change_what_the_demo_shows(jlg: Runner, tmp_path: Path) -> None:
    # A project asking for JSON completion and one iteration would break the replay.
    config = {"completionMode": "json", "maxIterations": 1}
    (tmp_path / ".jlgcli.json").write_text(json.dumps(config), encoding="utf-8")
    result = jlg("demo", "-q", env={"JLGCLI_BACKEND": "claude"})
    assert result.returncode == 0, result.stderr


def test_demo_artifacts_are_recorded_only_when_asked(jlg: Runner, tmp_path: Path) -> None:
    result = jlg("demo", "--artifacts", "-q")
    assert result.returncode == 0, result.stderr
    (run,) = (p for p in (tmp_path / ".jlgcli" / "runs").iterdir() if p.is_dir())
    assert json.loads((run / "result.json").read_text(encoding="utf-8"))["status"] == "done"


def test_demo_help_says_it_is_a_replay(jlg: Runner) -> None:
    result = jlg("demo", "--help")
    assert result.returncode == 0
    assert "replay" in result.stdout
    assert "no model is called" in result.stdout
    assert "demo" in jlg("--help").stdout


def test_the_shipped_recording_is_the_quickstart_example() -> None:
    # jlgcli/demo/ is package data (a pip install has no examples/); the clone's
    # examples/quickstart/ must stay the same recording.
    shipped = {p.relative_to(SHIPPED) for p in SHIPPED.rglob("*") if p.is_file()}
    example = {p.relative_to(EXAMPLE) for p in EXAMPLE.rglob("*") if p.is_file()}
    assert example - shipped == {Path("README.md")}
    for name in example - {Path("README.md")}:
        assert (SHIPPED / name).read_bytes() == (EXAMPLE / name).read_bytes(), name
