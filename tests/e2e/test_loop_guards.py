"""Guardrails at their edges through the installed ``jlgcli`` (issue 31).

Gates fail early and loudly, jlgcli's own files are never progress, the event
stream is clean and complete, ``run -q`` still answers, and the prompt is
bounded and UTF-8. Driven with the scripted fake ``claude`` (tests/fakes).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import Runner, fake_script


def prompts_sent(tmp_path: Path) -> list[str]:
    folder = tmp_path / "agent-script.json.prompts"
    return [p.read_text("utf-8") for p in sorted(folder.glob("[0-9][0-9][0-9].txt"))]


@pytest.fixture
def task(tmp_path: Path) -> Path:
    path = tmp_path / "task.md"
    path.write_text("Make the checks pass.\n", encoding="utf-8")
    return path


def _python(code: str) -> str:
    """A gate running ``code`` with this Python (quoted for the gate's own splitting)."""
    import shlex

    argv = [sys.executable, "-c", code]
    return subprocess.list2cmdline(argv) if os.name == "nt" else shlex.join(argv)


# -- 1. gates ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("gate", "reason"),
    [
        ("nonexistent-cmd-31", "nonexistent-cmd-31: command not found"),
        ("", "empty"),
        ("   ", "empty"),
        ("'abc", "quotation"),
    ],
)
def test_a_gate_that_cannot_run_stops_before_any_call(
    jlg: Runner, task: Path, tmp_path: Path, gate: str, reason: str
) -> None:
    """Issue 31: such gates were accepted, then every done failed ("exit None")."""
    env = fake_script(tmp_path, {"text": "DONE"})
    result = jlg("loop", str(task), "-b", "claude", "-n", "3", "--gate", gate, env=env)
    assert result.returncode == 64, result.stderr
    assert reason in result.stderr.lower()
    assert "--gate" in result.stderr
    assert prompts_sent(tmp_path) == []  # no paid call


@pytest.mark.parametrize(
    "operator_command",
    [
        "pytest -q && echo ok",
        "pytest -q || true",
        "pytest -q | tail",
        "pytest -q; echo ok",
        "pytest -q > out.txt",
        "pytest -q < in.txt",
        "pytest -q 2>&1",
        "sleep 5 &",
    ],
)
def test_a_gate_with_shell_operators_is_refused_with_a_hint(
    jlg: Runner, task: Path, tmp_path: Path, operator_command: str
) -> None:
    """Issue 31: ``pytest -q && echo ok`` gave ``&&`` to pytest as an argument, silently."""
    env = fake_script(tmp_path, {"text": "DONE"})
    result = jlg("loop", str(task), "-b", "claude", "--gate", operator_command, env=env)
    assert result.returncode == 64, result.stderr
    assert "shell" in result.stderr and "sh -c" in result.stderr
    assert prompts_sent(tmp_path) == []


def test_quoted_operators_are_arguments_not_shell(jlg: Runner, task: Path, tmp_path: Path) -> None:
    env = fake_script(tmp_path, {"text": "DONE"})
    gate = _python("import sys; sys.exit(0 if 1 > 0 and 'a|b' else 1)")
    result = jlg("loop", str(task), "-b", "claude", "--gate", gate, "--json", env=env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["iterationMetrics"][0]["gates"][0]["ok"] is True


def test_a_failing_gate_shows_its_command_exit_code_and_last_lines(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    """Issue 31: a failing gate's output was never shown, even at --verbosity 3."""
    gate = _python("print('\\n'.join(f'line {i}' for i in range(40))); print('3 failed'); "
                   "raise SystemExit(3)")  # fmt: skip
    env = fake_script(tmp_path, {"text": "DONE"})
    result = jlg("loop", str(task), "-b", "claude", "-n", "1", "--gate", gate, "--json", env=env)
    assert result.returncode == 4, result.stderr
    assert "exit 3" in result.stderr and "3 failed" in result.stderr and "line 39" in result.stderr
    assert "line 0\n" not in result.stderr  # the last lines, not all of them
    data = json.loads(result.stdout)
    assert any("exit 3" in note and "3 failed" in note for note in data["diagnosis"])


def test_two_gates_of_which_one_fails_is_not_done(jlg: Runner, task: Path, tmp_path: Path) -> None:
    """Issue 31 (STYLE habit 16): would catch ``any`` in place of ``all`` over the gates."""
    env = fake_script(tmp_path, {"text": "DONE"})
    passing, failing = _python("pass"), _python("raise SystemExit(1)")
    result = jlg("loop", str(task), "-b", "claude", "-n", "2", "--gate", passing,
                 "--gate", failing, "--json", env=env)  # fmt: skip
    assert result.returncode == 4, result.stderr
    data = json.loads(result.stdout)
    assert data["stopCause"] == "max-iterations"
    for metrics in data["iterationMetrics"]:
        assert metrics["completion"] == "gates-failed"
        assert [gate["ok"] for gate in metrics["gates"]] == [True, False]


def test_untrusted_project_gates_do_not_block_run(jlg: Runner, tmp_path: Path) -> None:
    """Issue 31: ``run`` never runs gates, so an untrusted project's gates do not concern it."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "prompt.md").write_text("Say hi.\n", encoding="utf-8")
    (project / ".jlgcli.json").write_text(json.dumps({"gates": ["touch gate-ran"]}), "utf-8")
    env = fake_script(tmp_path, {"text": "hi"})
    result = jlg("run", "prompt.md", "-b", "claude", cwd=project, env=env)
    assert result.returncode == 0, result.stderr
    assert not (project / "gate-ran").exists()
    refused = jlg("loop", "prompt.md", "-b", "claude", cwd=project, env=env)
    assert refused.returncode == 78 and "jlgcli config trust" in refused.stderr


# -- 2. jlgcli's own files are not progress -----------------------------------------------------
def _git(repo: Path, *args: str) -> str:
    who = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}  # fmt: skip
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True,
                          env={**os.environ, **who})  # fmt: skip
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "task.md").write_text("Make the checks pass.\n", encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", "task.md")
    _git(repo, "commit", "-q", "-m", "task")
    return repo


def test_output_redirected_into_the_repository_is_not_progress(
    jlgcli_exe: str, repo: Path, tmp_path: Path
) -> None:
    """Issue 31: ``jlgcli loop task.md > run.log 2>&1`` in the repository made all 8 calls
    and exited 4; a constant reply with --no-progress-limit 2 stops with 5 after 3."""
    env = {**os.environ, **fake_script(tmp_path, {"text": "still working on it"})}
    with (repo / "run.log").open("wb") as log:
        done = subprocess.run(
            [jlgcli_exe, "loop", "task.md", "-b", "claude", "-n", "8", "--no-progress-limit",
             "2", "--events", "events.jsonl"],
            cwd=repo, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
            timeout=120,
        )  # fmt: skip
    output = (repo / "run.log").read_text("utf-8", "replace")
    assert done.returncode == 5, output
    assert len(prompts_sent(tmp_path)) == 3


_TEE = """
import sys
with open(sys.argv[1], "wb") as log:
    for chunk in iter(lambda: sys.stdin.buffer.read1(65536), b""):
        log.write(chunk)
        log.flush()
"""


@pytest.mark.skipif(sys.platform != "linux", reason="a pipe's reader is found in /proc (Linux)")
def test_output_piped_to_tee_into_the_repository_is_not_progress(
    jlgcli_exe: str, repo: Path, tmp_path: Path
) -> None:
    """Issue 31: ``jlgcli loop task.md 2>&1 | tee run.log`` in the repository."""
    import time

    env = {**os.environ, **fake_script(tmp_path, {"text": "still working on it"})}
    read_end, write_end = os.pipe()
    tee = subprocess.Popen([sys.executable, "-c", _TEE, "run.log"], cwd=repo, stdin=read_end)
    os.close(read_end)
    try:
        deadline = time.monotonic() + 60
        while not (repo / "run.log").exists() and time.monotonic() < deadline:
            time.sleep(0.01)  # the marker: tee has opened its file
        done = subprocess.run(
            [jlgcli_exe, "loop", "task.md", "-b", "claude", "-n", "8", "--no-progress-limit", "2"],
            cwd=repo, stdout=write_end, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=env, timeout=120,
        )  # fmt: skip
    finally:
        os.close(write_end)
        tee.wait(timeout=60)
    assert done.returncode == 5, (repo / "run.log").read_text("utf-8", "replace")
    assert len(prompts_sent(tmp_path)) == 3


def test_the_runs_root_ignores_itself_from_the_first_write(
    jlg: Runner, repo: Path, tmp_path: Path
) -> None:
    """Issue 31: the run records (state.json) stay out of ``git status``, with or without
    --artifacts, also when ``.jlgcli/`` already existed."""
    (repo / ".jlgcli").mkdir()
    (repo / ".jlgcli" / "notes.txt").write_text("mine\n", encoding="utf-8")
    _git(repo, "add", ".jlgcli/notes.txt")
    _git(repo, "commit", "-q", "-m", "notes")
    env = fake_script(tmp_path, {"text": "DONE"})
    for extra in ((), ("--artifacts",)):
        result = jlg("loop", "task.md", "-b", "claude", *extra, cwd=repo, env=env)
        assert result.returncode == 0, result.stderr
        assert _git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    shutil.rmtree(repo / ".jlgcli" / "runs")
    (repo / ".jlgcli" / "runs").mkdir()  # there already, without its .gitignore
    for extra in ((), ("--artifacts",)):
        result = jlg("loop", "task.md", "-b", "claude", *extra, cwd=repo, env=env)
        assert result.returncode == 0, result.stderr
        assert _git(repo, "status", "--porcelain", "--untracked-files=all") == ""


# -- 3. events ----------------------------------------------------------------------------------
def _events(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines()]


def test_events_on_stdout_carry_only_json_lines(jlg: Runner, task: Path, tmp_path: Path) -> None:
    """Issue 31: the agent's live text (ok, DONE) was printed between the JSON lines."""
    env = fake_script(tmp_path, {"text": "ok\nDONE"})
    result = jlg("loop", str(task), "-b", "claude", "--events", "-", env=env)
    assert result.returncode == 0, result.stderr
    events = _events(result.stdout)  # every line parses
    assert events[0]["type"] == "run-started" and events[-1]["type"] == "run-ended"
    assert "ok\nDONE" in result.stderr


def _assert_paired(events: list[dict[str, object]]) -> None:
    started = [e["iteration"] for e in events if e["type"] == "iteration-started"]
    ended = [e["iteration"] for e in events if e["type"] == "iteration-ended"]
    assert started == ended, events
    for event in events:
        if event["type"] == "agent-activity":
            assert set(event) - {"schemaVersion", "type", "time", "runId", "iteration", "kind"}


def test_every_started_iteration_ends_in_the_events(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    """Issue 31: a rate-limited, switched or timed-out iteration had no ``iteration-ended``,
    and a timeout gave an empty ``usage`` activity."""
    import jsonschema

    schema = json.loads((Path(__file__).parents[2] / "docs" / "schemas" /
                         "events.schema.json").read_text(encoding="utf-8"))  # fmt: skip
    events_file = tmp_path / "events.jsonl"
    env = fake_script(tmp_path, {"error": "rate-limit", "reset_in_seconds": 1},
                      {"error": "far-limit", "reset_in_seconds": 5 * 86400},
                      {"text": "Finished.\nDONE"}, repeat_last=False)  # fmt: skip
    result = jlg("loop", str(task), "-b", "claude", "--fallback", "codex", "--timeout", "1h",
                 "--events", str(events_file), env=env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    events = _events(events_file.read_text("utf-8"))
    _assert_paired(events)
    ended = [e["completion"] for e in events if e["type"] == "iteration-ended"]
    assert ended == ["rate-limited", "switched", "done"]
    for event in events:
        jsonschema.validate(event, schema)

    hang = tmp_path / "hang"
    hang.mkdir()
    env = fake_script(hang, {"hang": True})
    result = jlg("loop", str(task), "-b", "claude", "--timeout", "2s", "--events",
                 str(events_file), env=env)  # fmt: skip
    assert result.returncode == 75, result.stderr
    events = _events(events_file.read_text("utf-8"))
    _assert_paired(events)
    assert [e["completion"] for e in events if e["type"] == "iteration-ended"] == ["timeout"]


def test_an_events_file_is_fresh_for_each_run(jlg: Runner, task: Path, tmp_path: Path) -> None:
    """Issue 31: ``--events FILE`` appended across runs; a file is one run's stream."""
    events_file = tmp_path / "events.jsonl"
    env = fake_script(tmp_path, {"text": "DONE"})
    for _ in range(2):
        result = jlg("loop", str(task), "-b", "claude", "--events", str(events_file), env=env)
        assert result.returncode == 0, result.stderr
    events = _events(events_file.read_text("utf-8"))
    assert [e["type"] for e in events].count("run-started") == 1
    assert len({e["runId"] for e in events}) == 1


# -- 4. run -q ----------------------------------------------------------------------------------
def test_run_quiet_prints_the_answer_and_nothing_else_on_stdout(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    """Issue 31, seed 000 F-003, seed 001 US-4: -q means less logging, not no answer."""
    env = fake_script(tmp_path, {"text": "The answer is 42."})
    result = jlg("run", str(task), "-b", "claude", "-q", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The answer is 42.\n"
    assert "[jlgcli]" not in result.stderr


# -- 5. input bounds ----------------------------------------------------------------------------
def test_a_prompt_over_the_cap_stops_with_66(jlg: Runner, tmp_path: Path) -> None:
    """Issue 31: the prompt is bounded by maxPromptBytes (read in chunks, never whole)."""
    big = tmp_path / "big.md"
    big.write_text("x" * 5000, encoding="utf-8")
    env = {**fake_script(tmp_path, {"text": "hi"}), "JLGCLI_MAX_PROMPT_BYTES": "4096"}
    result = jlg("run", str(big), "-b", "claude", env=env)
    assert result.returncode == 66, result.stderr
    assert "maxPromptBytes" in result.stderr
    assert prompts_sent(tmp_path) == []
    result = jlg("run", "-", "-b", "claude", input="x" * 5000, env=env)
    assert result.returncode == 66, result.stderr


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_an_endless_prompt_stops_with_66(jlgcli_exe: str, tmp_path: Path) -> None:
    """Issue 31: ``jlgcli run /dev/zero`` (or stdin from it) grew to 11.7 GB in 8 s."""
    env = {**os.environ, **fake_script(tmp_path, {"text": "hi"})}
    for args, stdin_path in ((["/dev/zero"], None), (["-"], "/dev/zero")):
        with open(stdin_path or os.devnull, "rb") as stdin:
            done = subprocess.run([jlgcli_exe, "run", *args, "-b", "claude"], stdin=stdin,
                                  capture_output=True, env=env, timeout=60)  # fmt: skip
        assert done.returncode == 66, done.stderr
        assert b"maxPromptBytes" in done.stderr
    assert prompts_sent(tmp_path) == []


@pytest.mark.parametrize(
    ("data", "offset"),
    [(b"fix caf\xe9 please\n", 7), (b"\x89PNG\r\n\x1a\n\x00\x00", 0), (b"\xef\xbb\xbfok \xff", 6)],
)
def test_a_prompt_that_is_not_utf8_stops_with_66_naming_the_offset(
    jlg: Runner, tmp_path: Path, data: bytes, offset: int
) -> None:
    """Issue 31: latin-1 or binary prompts were sent with U+FFFD and exit 0."""
    prompt = tmp_path / "prompt.md"
    prompt.write_bytes(data)
    env = fake_script(tmp_path, {"text": "hi"})
    result = jlg("run", str(prompt), "-b", "claude", env=env)
    assert result.returncode == 66, result.stderr
    assert f"byte {offset}" in result.stderr and "UTF-8" in result.stderr
    assert prompts_sent(tmp_path) == []


@pytest.mark.skipif(sys.platform != "linux", reason="waits on /proc/PID/wchan (Linux)")
def test_sigterm_stops_a_prompt_read_that_waits_for_more(jlgcli_exe: str, tmp_path: Path) -> None:
    """Issue 31: SIGTERM must still work while the prompt is being read (143)."""
    import signal
    import time

    env = {**os.environ, **fake_script(tmp_path, {"text": "hi"})}
    child = subprocess.Popen([jlgcli_exe, "run", "-", "-b", "claude"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)  # fmt: skip
    assert child.stdin is not None
    try:
        child.stdin.write(b"x" * 100_000)  # more than one chunk, then no end of input
        child.stdin.flush()
        wchan = Path(f"/proc/{child.pid}/wchan")
        deadline = time.monotonic() + 60
        while "pipe_read" not in wchan.read_text() and time.monotonic() < deadline:
            time.sleep(0.01)  # the marker: blocked reading stdin, handlers installed long ago
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 143, err
    assert b"SIGTERM" in err and prompts_sent(tmp_path) == []
