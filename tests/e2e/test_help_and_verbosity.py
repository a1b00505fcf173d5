"""``jlgcli help``, sectioned run/loop help, and what ``-v`` adds, through the console script.

Issue 38: ``jlgcli help loop`` was an unknown command, ``loop --help`` one flat
list of options, and ``-v`` printed the same as the default.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from support.cli import Runner, fake_script


def test_help_loop_prints_the_loop_usage(jlg: Runner) -> None:
    done = jlg("help", "loop", env={"COLUMNS": "100"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: jlgcli loop")
    assert done.stdout == jlg("loop", "--help", env={"COLUMNS": "100"}).stdout


def test_help_alone_is_the_top_level_help_and_nested_actions_work(jlg: Runner) -> None:
    assert jlg("help").stdout == jlg("--help").stdout
    nested = jlg("help", "config", "set")
    assert nested.returncode == 0 and nested.stdout.startswith("usage: jlgcli config set")
    assert "help" in jlg("--help").stdout.split("commands:")[1]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["help", "lop"], "did you mean 'loop'?"),
        (["help", "config", "sett"], "'config' has no action 'sett'"),
    ],
)
def test_help_of_an_unknown_topic_is_a_usage_error(
    jlg: Runner, argv: list[str], message: str
) -> None:
    done = jlg(*argv)
    assert done.returncode == 64
    assert message in done.stderr


def test_loop_help_has_sections(jlg: Runner) -> None:
    text = jlg("loop", "--help", env={"COLUMNS": "100"}).stdout
    sections = ["backend:", "budgets and guardrails:", "completion:", "resume:", "output:"]
    positions = [text.index("\n" + title + "\n") for title in sections]
    assert positions == sorted(positions)
    budgets = text.split("\nbudgets and guardrails:\n")[1].split("\n\n")[0]
    assert "--max-cost" in budgets and "--max-iterations" in budgets
    output = text.split("\noutput:\n")[1].split("\n\n")[0]
    assert "--json" in output and "--quiet" in output and "--events" in output
    assert "--gate" in text.split("\ncompletion:\n")[1].split("\n\n")[0]
    run_text = jlg("run", "--help", env={"COLUMNS": "100"}).stdout
    assert "\nbackend:\n" in run_text and "\nresume:\n" not in run_text  # run has no resume


def test_verbose_shows_the_spawned_command_and_the_gates_output(
    jlg: Runner, tmp_path: Path
) -> None:
    task = tmp_path / "task.md"
    task.write_text("Make the check pass.\n", encoding="utf-8")
    gate = f"{sys.executable} -c \"print('GATE-SAYS-' + 'HELLO')\""  # the command lacks it
    env = fake_script(tmp_path, {"text": "All done.\nDONE"})
    quiet_default = jlg("loop", str(task), "-b", "claude", "--gate", gate, env=env)
    verbose = jlg("loop", str(task), "-b", "claude", "--gate", gate, "-v", env=env)
    assert quiet_default.returncode == verbose.returncode == 0, verbose.stderr
    assert "spawn: " not in quiet_default.stderr
    assert "GATE-SAYS-HELLO" not in quiet_default.stderr
    spawn = next(line for line in verbose.stderr.splitlines() if "spawn: " in line)
    assert "claude" in spawn and "(pipe)" in spawn
    assert "output (tail):\nGATE-SAYS-HELLO" in verbose.stderr


# --- -q quiets every command (issue 38: `backends -q` printed the whole table) -------------


def test_backends_quiet_prints_only_the_ready_ids(jlg: Runner) -> None:
    table = jlg("backends")
    quiet = jlg("backends", "-q")
    assert quiet.returncode == table.returncode == 0, quiet.stderr
    ready = [line.split()[0] for line in table.stdout.splitlines()[1:] if " available " in line]
    assert ready and quiet.stdout.splitlines() == ready


def test_doctor_quiet_prints_only_what_needs_attention(jlg: Runner) -> None:
    loud, quiet = jlg("doctor"), jlg("doctor", "-q")
    assert quiet.returncode == loud.returncode
    assert "[ok]" in loud.stdout and "[ok]" not in quiet.stdout
    assert quiet.stdout.splitlines()[-1] == loud.stdout.splitlines()[-1]


def test_config_writes_are_silent_with_quiet(jlg: Runner) -> None:
    assert jlg("config", "set", "backend", "codex").stdout.startswith("backend = codex")
    for argv in (["set", "-q", "backend", "claude"], ["unset", "-q", "backend"]):
        done = jlg("config", *argv)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert jlg("config", "get", "-q", "backend").stdout == "auto\n"  # a read still answers


def test_runs_and_ledger_quiet_print_ids(jlg: Runner, tmp_path: Path) -> None:
    task = tmp_path / "task.md"
    task.write_text("Say done.\n", encoding="utf-8")
    env = fake_script(tmp_path, {"text": '{"status": "done", "summary": "ok"}'})
    loop = jlg("loop", str(task), "-b", "claude", "--completion", "rebound", "--artifacts",
               "--json", env=env)  # fmt: skip
    assert loop.returncode == 0, loop.stderr
    run_id = json.loads(loop.stdout)["runId"]
    assert jlg("runs", "-q").stdout == f"{run_id}\n"
    sessions = jlg("ledger", "list", "-q").stdout.split()
    assert len(sessions) == 1 and sessions[0] in jlg("ledger", "list").stdout
