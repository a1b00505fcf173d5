"""`jlgcli run` and `jlgcli loop` end to end, through the installed console script and the fakes.

Seeds: 000 F-003..F-006 (RG-006..RG-016), 001 US-4..US-8 and §12.3–12.4, DESIGN "Decisions".
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.cli import Runner, fake_script
from support.environ import without_coverage

script = fake_script


def prompts_sent(tmp_path: Path) -> list[str]:
    folder = tmp_path / "agent-script.json.prompts"
    return [p.read_text("utf-8").strip() for p in sorted(folder.glob("[0-9][0-9][0-9].txt"))]


@pytest.fixture
def task(tmp_path: Path) -> Path:
    path = tmp_path / "task.md"
    path.write_text("Add a slugify helper.\n", encoding="utf-8")
    return path


def summary_of(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.stdout)
    return data


# --- run (F-003, US-4) --------------------------------------------------------------


def test_run_prints_the_assistant_output_and_exits_0(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    # F-003 `run ./prompt.txt` → assistant output + 0 (US-4)
    env = script(tmp_path, {"text": "Here is the answer."})
    result = jlg("run", str(task), "--backend", "claude", env=env)
    assert result.returncode == 0, result.stderr
    assert "Here is the answer." in result.stdout
    assert "jlgcli run: DONE" in result.stderr
    assert prompts_sent(tmp_path) == ["Add a slugify helper."]  # run adds no protocol


def test_run_backend_flag_overrides_config(jlg: Runner, task: Path, tmp_path: Path) -> None:
    # F-003 `run ./prompt.txt --backend codex`; RG-002 a flag overrides the config
    assert jlg("config", "set", "backend", "claude").returncode == 0
    env = script(tmp_path, {"text": "from codex"})
    result = jlg("run", str(task), "--backend", "codex", "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = summary_of(result)
    assert (data["backend"], data["text"], data["status"]) == ("codex", "from codex", "done")
    argv = json.loads((tmp_path / "agent-script.json.prompts" / "000.argv.json").read_text())
    assert "exec" in argv  # the codex fake really ran


def test_run_quiet_is_minimal(jlg: Runner, task: Path, tmp_path: Path) -> None:
    # F-003 `run ./prompt.txt --quiet` → minimal output: less logging, still the answer
    # (US-4: the assistant's output is printed; issue 31: stdout used to be empty)
    result = jlg("run", str(task), "-b", "claude", "--quiet", env=script(tmp_path, {"text": "x"}))
    assert result.returncode == 0
    assert result.stdout == "x\n"
    assert "[jlgcli]" not in result.stderr and "DONE" in result.stderr


def test_run_reads_stdin(jlg: Runner, tmp_path: Path) -> None:
    # F-003 `run -` reads stdin
    result = jlg(
        "run",
        "-",
        "-b",
        "claude",
        input="prompt from stdin\n",
        env=script(tmp_path, {"text": "ok"}),
    )
    assert result.returncode == 0, result.stderr
    assert prompts_sent(tmp_path) == ["prompt from stdin"]


def test_run_missing_prompt_is_66(jlg: Runner) -> None:
    # F-003 "Fichier introuvable → exit 66"; US-4's inline text is not a prompt (DESIGN)
    result = jlg("run", "Explique ce repo", "-b", "claude")
    assert result.returncode == 66
    assert "prompt file not found" in result.stderr and "hint:" in result.stderr
    as_json = jlg("run", "missing.md", "--json")
    assert json.loads(as_json.stdout)["exitCode"] == 66


def test_run_backend_error_is_1_with_a_clear_message(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    # F-003 "Backend renvoie erreur → message clair + code 1"
    env = script(tmp_path, {"error": "backend", "text": "API Error: overloaded"})
    result = jlg("run", str(task), "-b", "claude", "--json", env=env)
    assert result.returncode == 1
    data = summary_of(result)
    assert data["stopCause"] == "backend-error"
    assert data["error"]["message"].startswith("backend claude failed")


def test_run_huge_output_is_streamed_and_kept_whole_in_the_transcript(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    # F-003 "Sortie énorme → stream; the transcript is never truncated"
    big = "line of output\n" * 200_000  # ~3 MB
    env = script(tmp_path, {"text": big})
    result = jlg("run", str(task), "-b", "claude", "--artifacts", "-q", "--json", env=env)
    assert result.returncode == 0, result.stderr
    run_dir = Path(summary_of(result)["runDir"])
    transcript = (run_dir / "transcript.ndjson").read_text("utf-8")
    assert transcript.count("line of output") >= 200_000
    assert (run_dir / "iterations" / "001" / "final.md").read_text("utf-8") == big.rstrip("\n") or (
        run_dir / "iterations" / "001" / "final.md"
    ).read_text("utf-8").count("line of output") == 200_000


# --- backend availability (RG-006, F-002) --------------------------------------------


def test_missing_backend_is_2(jlg: Runner, task: Path, tmp_path: Path, fake_bin: Path) -> None:
    # RG-006: backend unavailable → dedicated code 2 (with the install hint)
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    path = os.pathsep.join([str(empty), *os.environ["PATH"].split(os.pathsep)[1:]])
    result = jlg("run", str(task), "-b", "claude", "--json", env={"PATH": path})
    assert result.returncode == 2
    data = summary_of(result)
    assert data["stopCause"] == "backend-missing"
    assert "npm" in (data["error"]["hint"] or "")


def test_no_backend_available_in_auto_mode_is_2(jlg: Runner, task: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    path = os.pathsep.join([str(empty), *os.environ["PATH"].split(os.pathsep)[1:]])
    result = jlg("loop", str(task), env={"PATH": path})
    assert result.returncode == 2
    assert "no backend available" in result.stderr and "jlgcli demo" in result.stderr


def test_auto_with_every_installed_backend_logged_out_is_6(jlg: Runner, task: Path) -> None:
    """Issue 19 item 8: not "backend-missing" (2) but exit 6 with the login hints."""
    result = jlg("loop", str(task), "-b", "auto", env={"JLGCLI_FAKE_LOGGED_OUT": "1"})
    assert result.returncode == 6, result.stderr
    assert "every installed backend is logged out" in result.stderr
    assert "claude auth login" in result.stderr


def test_auto_names_the_custom_backends_it_does_not_pick(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    """Issue 19 item 7: a custom command backend is never auto-picked: say how to pick it."""
    (tmp_path / ".jlgcli.json").write_text(
        '{"backends": {"mine": {"argv": ["cat"]}}}', encoding="utf-8"
    )
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    path = os.pathsep.join([str(empty), *os.environ["PATH"].split(os.pathsep)[1:]])
    result = jlg("loop", str(task), "-b", "auto", cwd=tmp_path, env={"PATH": path})
    assert result.returncode == 2
    assert "--backend mine" in result.stderr and "config set backend mine" in result.stderr


def test_unauthenticated_backend_is_6(jlg: Runner, task: Path) -> None:
    result = jlg("run", str(task), "-b", "claude", env={"JLGCLI_FAKE_LOGGED_OUT": "1"})
    assert result.returncode == 6
    assert "not logged in" in result.stderr and "claude auth login" in result.stderr


def test_auto_selects_the_first_available_and_says_so(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    result = jlg("run", str(task), env=script(tmp_path, {"text": "hi"}))
    assert result.returncode == 0, result.stderr
    assert "backend: claude (auto-selected" in result.stderr


def test_unknown_backend_is_64(jlg: Runner, task: Path) -> None:
    result = jlg("run", str(task), "-b", "claud")
    assert result.returncode == 64
    assert "did you mean 'claude'" in result.stderr


# --- loop (F-004, US-5, US-6) ----------------------------------------------------------


def test_loop_stops_at_done(jlg: Runner, task: Path, tmp_path: Path) -> None:
    # F-004 `loop ./task.md` → loops until DONE → summary + 0 (US-5)
    env = script(
        tmp_path,
        {"text": "step 1 done, more to do"},
        {"text": "step 2 done"},
        {"text": "all finished\nDONE"},
    )
    result = jlg("loop", str(task), "-b", "claude", "--max-iterations", "5", "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = summary_of(result)
    assert (data["stopCause"], data["iterations"], data["maxIterations"]) == ("done", 3, 5)
    sent = prompts_sent(tmp_path)
    assert len(sent) == 3
    assert "DONE" in sent[0] and "Add a slugify helper." in sent[0]  # the protocol is explained
    assert "Iteration 2 of 5" in sent[1] and "step 1 done" in sent[1]  # previous report carried
    assert [m["completion"] for m in data["iterationMetrics"]] == ["continue", "continue", "done"]


def test_loop_max_iterations_is_4(jlg: Runner, task: Path, tmp_path: Path) -> None:
    # F-004 `--max-iterations 3` → code 4 if not finished (US-5, US-6, RG-011)
    env = script(
        tmp_path,
        {"text": "working on it"},
        {"text": "still working"},
        {"text": "almost\n**DONE**"},
        {"text": "never done"},
    )
    result = jlg(
        "loop",
        str(task),
        "-b",
        "claude",
        "--max-iterations",
        "3",
        "--no-progress-limit",
        "10",
        "--json",
        env=env,
    )
    assert result.returncode == 4
    data = summary_of(result)
    assert (data["stopCause"], data["iterations"], data["status"]) == (
        "max-iterations",
        3,
        "incomplete",
    )
    assert len(prompts_sent(tmp_path)) == 3
    # F-004 "Assistant ne respecte pas le protocole → continuer jusqu'aux garde-fous + diagnostic"
    assert any(
        "did not follow the marker protocol" in d and "**DONE**" in d for d in data["diagnosis"]
    )


def test_loop_total_timeout_is_75(jlg: Runner, task: Path, tmp_path: Path) -> None:
    # F-004 `--timeout 2m` → 75 when exceeded (RG-012), the hung backend's tree stopped
    env = script(tmp_path, {"hang": True})
    result = jlg("loop", str(task), "-b", "claude", "--timeout", "2s", "--json", env=env)
    assert result.returncode == 75
    assert summary_of(result)["stopCause"] == "timeout"


def test_loop_idle_timeout_is_75(jlg: Runner, task: Path, tmp_path: Path) -> None:
    env = script(tmp_path, {"hang": True})
    result = jlg("loop", str(task), "-b", "codex", "--idle-timeout", "1s", "--json", env=env)
    assert result.returncode == 75
    assert summary_of(result)["stopCause"] == "idle-timeout"


def test_loop_no_progress_is_5(jlg: Runner, task: Path, tmp_path: Path) -> None:
    # RG-013: identical output again and again → no-progress + summary
    env = script(tmp_path, {"text": "I am thinking about it."})
    result = jlg("loop", str(task), "-b", "claude", "--no-progress-limit", "2", "--json", env=env)
    assert result.returncode == 5
    data = summary_of(result)
    assert data["stopCause"] == "no-progress"
    assert data["iterations"] == 3


def test_loop_json_protocol(jlg: Runner, task: Path, tmp_path: Path) -> None:
    # RG-010: the last valid JSON object decides; summary/next are carried over
    env = script(
        tmp_path,
        {"text": 'Did A.\n{"status": "continue", "summary": "A done", "next": "do B"}'},
        {"text": '```json\n{"status": "done", "summary": "A and B done"}\n```'},
    )
    result = jlg("loop", str(task), "-b", "claude", "--completion", "json", "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = summary_of(result)
    assert (data["summary"], data["iterations"]) == ("A and B done", 2)
    sent = prompts_sent(tmp_path)
    assert '"status"' in sent[0]
    assert "A done" in sent[1] and "do B" in sent[1]


def test_loop_json_mode_without_json_is_65(jlg: Runner, task: Path, tmp_path: Path) -> None:
    # F-004 "Sortie non JSON en mode json → arrêt immédiat invalid-json (exit 65)"
    env = script(tmp_path, {"text": "I did it, no JSON here"})
    result = jlg("loop", str(task), "-b", "claude", "--completion", "json", "--json", env=env)
    assert result.returncode == 65
    data = summary_of(result)
    assert (data["stopCause"], data["iterations"]) == ("invalid-json", 1)


def test_loop_model_status_error_is_1(jlg: Runner, task: Path, tmp_path: Path) -> None:
    env = script(tmp_path, {"text": '{"status": "error", "summary": "cannot reach the DB"}'})
    result = jlg("loop", str(task), "-b", "claude", "--completion", "json", env=env)
    assert result.returncode == 1
    assert "cannot reach the DB" in result.stderr


def test_rate_limit_with_a_reset_time_waits_instead_of_burning_iterations(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    env = script(
        tmp_path, {"error": "rate-limit", "reset_in_seconds": 1}, {"text": "done now\nDONE"}
    )
    result = jlg("loop", str(task), "-b", "claude", "--max-iterations", "1", "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = summary_of(result)
    assert data["iterations"] == 1
    assert "rate-limited (resets in" in result.stderr
    assert any("iteration 1: backend claude rate-limited" in d for d in data["diagnosis"])


def test_session_continue_resumes_the_backend_session(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    env = script(
        tmp_path,
        {"text": "part 1", "session_id": "11111111-2222-3333-4444-555555555555"},
        {"text": "part 2\nDONE"},
    )
    result = jlg("loop", str(task), "-b", "claude", "--session", "continue", env=env)
    assert result.returncode == 0, result.stderr
    argv = json.loads((tmp_path / "agent-script.json.prompts" / "001.argv.json").read_text())
    assert "--resume" in argv and "11111111-2222-3333-4444-555555555555" in argv
    assert "Add a slugify helper." not in prompts_sent(tmp_path)[1]


# --- summary and JSON (F-005, US-7) ---------------------------------------------------


def test_human_summary_and_json_summary(jlg: Runner, task: Path, tmp_path: Path) -> None:
    # US-7: duration, backend, iterations, status; --json one parseable object (RG-008, RG-014)
    env = script(tmp_path, {"text": "ok\nDONE"})
    human = jlg("loop", str(task), "-b", "claude", env=env)
    for word in ("backend", "iterations", "duration", "DONE", "done"):
        assert word in human.stderr
    as_json = jlg("loop", str(task), "-b", "claude", "--json", env=env)
    data = summary_of(as_json)  # stdout is exactly one JSON object
    for key in (
        "status",
        "stopCause",
        "exitCode",
        "backend",
        "iterations",
        "durationMs",
        "iterationMetrics",
        "runId",
        "text",
    ):
        assert key in data
    assert data["costUsd"] is not None  # the claude fake reports total_cost_usd


# --- artifacts (F-006, US-8, RG-015, RG-016, RG-007) -----------------------------------


def test_artifacts_are_written(jlg: Runner, task: Path, tmp_path: Path) -> None:
    # US-8: `--artifacts` creates .jlgcli/runs/<id>/ with transcript and summary
    secret = "sk-ant-api03-" + "A" * 40
    env = script(tmp_path, {"text": "first"}, {"text": f"token {secret}\nDONE"})
    env["ANTHROPIC_API_KEY"] = secret
    result = jlg("loop", str(task), "-b", "claude", "--artifacts", "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = summary_of(result)
    run_dir = Path(data["runDir"])
    assert run_dir.parent == tmp_path / ".jlgcli" / "runs"
    assert ":" not in run_dir.name  # RG-015 Windows-safe id
    meta = json.loads((run_dir / "meta.json").read_text("utf-8"))
    assert meta["backend"] == "claude" and "env" not in meta
    assert secret not in json.dumps(meta)
    result_json = json.loads((run_dir / "result.json").read_text("utf-8"))
    assert result_json["exitCode"] == 0 and result_json["iterations"] == 2
    transcript = (run_dir / "transcript.ndjson").read_text("utf-8")
    records = [json.loads(line) for line in transcript.splitlines()]
    assert any(r["type"] == "stdout" for r in records)
    for name in ("prompt.md", "final.md"):
        assert (run_dir / "iterations" / "002" / name).exists()
    for written in run_dir.rglob("*"):  # RG-007: no secret in anything written
        if written.is_file():
            assert secret not in written.read_text("utf-8", errors="replace"), written
    listing = jlg("runs", "--json")
    assert listing.returncode == 0 and run_dir.name in listing.stdout


def test_unwritable_artifacts_dir_is_73(jlg: Runner, task: Path, tmp_path: Path) -> None:
    # RG-016: a write error fails the run (EX_CANTCREAT 73) with a hint
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x", encoding="utf-8")
    env = script(tmp_path, {"text": "ok\nDONE"})
    result = jlg(
        "loop",
        str(task),
        "-b",
        "claude",
        "--artifacts",
        "--artifacts-dir",
        str(blocker / "runs"),
        "--json",
        env=env,
    )
    assert result.returncode == 73
    data = summary_of(result)
    assert data["stopCause"] == "artifacts-error"
    assert "--artifacts-dir" in (data["error"]["hint"] or "")
    assert prompts_sent(tmp_path) == []  # failed before calling the model


# --- Ctrl-C ------------------------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals; Windows uses CTRL_BREAK")
def test_ctrl_c_is_130_with_artifacts_intact_and_the_backend_dead(
    jlgcli_exe: str, task: Path, tmp_path: Path
) -> None:
    env = without_coverage()  # signalled: not measured (support/environ.py says why)
    env.update(script(tmp_path, {"text": "first"}, {"hang": True}))
    proc = subprocess.Popen(
        [jlgcli_exe, "loop", str(task), "-b", "claude", "--artifacts", "--json"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    marker = tmp_path / "agent-script.json.prompts" / "001.txt"
    deadline = time.monotonic() + 60
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)  # polling for the marker file the fake writes, not a fixed wait
    assert marker.exists(), "the fake never received the second prompt"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    data = json.loads(out)
    assert data["stopCause"] == "interrupted"
    run_dir = Path(data["runDir"])
    assert json.loads((run_dir / "result.json").read_text("utf-8"))["exitCode"] == 130
    assert (run_dir / "iterations" / "001" / "final.md").read_text("utf-8") == "first"
    leftovers = [
        p
        for p in Path("/proc").glob("[0-9]*")
        if str(tmp_path / "agent-script.json") in _environ_of(p)
    ]
    assert leftovers == []


def _environ_of(proc_dir: Path) -> str:
    try:
        return (proc_dir / "environ").read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


# --- replay and the quickstart ---------------------------------------------------------


def test_quickstart_replay_runs_a_full_loop(jlg: Runner) -> None:
    repo = Path(__file__).parents[2]
    result = jlg(
        "loop",
        str(repo / "examples/quickstart/task.md"),
        "--backend",
        "replay",
        "--replay",
        str(repo / "examples/quickstart/recording"),
        "--json",
    )
    assert result.returncode == 0, result.stderr
    data = summary_of(result)
    assert (data["backend"], data["iterations"], data["stopCause"]) == ("replay", 3, "done")
    assert "no agent CLI is called" in result.stderr
    short = jlg(
        "loop",
        str(repo / "examples/quickstart/task.md"),
        "--backend",
        "replay",
        "--replay",
        str(repo / "examples/quickstart/recording"),
        "-n",
        "2",
    )
    assert short.returncode == 4


def test_a_jlgcli_folder_in_the_project_never_stands_in_for_the_program(
    jlg: Runner, tmp_path: Path
) -> None:
    """The replay backend's reader (and a batch's task started cold) is jlgcli run again in
    the project: ``python -P -m jlgcli``, so the project's own ``jlgcli`` folder is not it."""
    repo = Path(__file__).parents[2]
    project = tmp_path / "project"
    (project / "jlgcli").mkdir(parents=True)
    marker = tmp_path / "planted-ran"
    for name in ("__init__.py", "__main__.py"):
        (project / "jlgcli" / name).write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    result = jlg("loop", str(repo / "examples/quickstart/task.md"), "--backend", "replay",
                 "--replay", str(repo / "examples/quickstart/recording"), cwd=project)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert not marker.exists()


def test_self_argv_puts_nothing_first_on_the_path_on_every_python() -> None:
    import subprocess

    from jlgcli.selfcmd import self_argv

    assert self_argv(frozen=True, executable="jlgcli.exe") == ["jlgcli.exe"]
    assert self_argv(executable="py", version=(3, 11)) == ["py", "-P", "-m", "jlgcli"]
    old = self_argv(version=(3, 10))  # run here, the 3.10 form must work as well
    assert old[1] == "-c"
    done = subprocess.run([*old, "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("jlgcli ")
    assert "del sys.path[0]" in old[2]


def test_replay_needs_a_recording(jlg: Runner, task: Path, tmp_path: Path) -> None:
    assert jlg("loop", str(task), "--backend", "replay").returncode == 64
    assert jlg("loop", str(task), "--backend", "replay", "--replay", str(tmp_path)).returncode == 2


def test_bad_flags_are_64(jlg: Runner, task: Path) -> None:
    assert jlg("loop", str(task), "--max-iterations", "0").returncode == 64
    assert jlg("loop", str(task), "--timeout", "soon").returncode == 64
    assert jlg("loop", str(task), "--cwd", "/definitely/not/here").returncode == 64


def test_a_prompt_too_long_for_an_argument_is_66_not_a_crash(jlg: Runner, tmp_path: Path) -> None:
    """Issue 15: argument mode with a huge prompt: exit 66 with a hint, no crash log."""
    from jlgcli.config.write import trust_files

    (tmp_path / ".jlgcli.json").write_text(
        '{"backends": {"echoer": {"argv": ["echo", "{prompt}"], "prompt": "argument"}}}', "utf-8"
    )
    trust_files(
        [tmp_path / ".jlgcli.json"], env={"JLGCLI_CONFIG_DIR": os.environ["JLGCLI_CONFIG_DIR"]}
    )
    big = tmp_path / "big.md"
    big.write_text("x" * 400_000, encoding="utf-8")
    result = jlg("run", str(big), "-b", "echoer")
    assert result.returncode == 66, result.stderr
    assert "too long to pass as an argument" in result.stderr and "crash" not in result.stderr
    assert 'prompt to "stdin" or "file"' in result.stderr
