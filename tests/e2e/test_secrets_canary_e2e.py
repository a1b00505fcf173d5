"""Issue 32 end to end: canary secrets in every position and encoding leave through no channel.

Through the installed console script with the fake agent CLIs (tests/fakes), each
backend prints canary keys of several families at a line start (``\\nsk-…`` in its
raw JSON stream), after ``-``, ``_``, a digit, ``%22``, inside ANSI colours, as a
JSON-escaped ``"api_key": "…"`` and with the last report cut inside a key; the
task file holds one at a line start. Every byte jlgcli printed or wrote (stdout,
stderr, GitHub outputs and step summary, transcript, state, result, events) is
then searched for each canary. On main the transcript and state kept them. A custom
backend under the pty transport does the same with keys split across two reads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.canaries import CANARIES, KEY
from support.canaries import leaks as _leaks
from support.cli import Runner

from jlgcli.artifacts.redact import MASK

INVOKE_TASKS = "from jlgcli.invoke_tasks import dev, loop, run  # noqa: F401\n"


def _agent_text() -> str:
    anthropic, github, aws, groq, telegram, slack = CANARIES.values()
    lines = [
        "Looking at the config.",
        anthropic,  # a line start: \nsk-ant-… in the raw JSON stream
        f"flag-{github} and var_{aws} and 9{groq}",
        f"url?q=%22{telegram}%22",
        f"\x1b[31m{slack}\x1b[0m",
        json.dumps({"api_key": "Hunter2Hunter2Pw9"}),  # \"api_key\": \"…\" once in the stream
        "and finally " + KEY,
    ]
    # the last report is cut 2000 characters from the end: inside the key above
    return "\n".join(lines) + " " + "y" * (2000 - len(KEY) // 2)


def _files_under(folder: Path, skip: set[Path]) -> dict[str, str]:
    return {
        str(path): path.read_text("utf-8", errors="replace")
        for path in folder.rglob("*")
        if path.is_file()
        and path not in skip
        and "home" not in path.relative_to(folder).parts[:1]
        and ".prompts" not in str(path)
    }


@pytest.mark.parametrize("backend", ["claude", "codex", "gemini", "copilot"])
def test_canaries_leave_through_no_channel(jlg: Runner, tmp_path: Path, backend: str) -> None:
    # issue 32
    project = tmp_path / "project"
    project.mkdir()
    task = project / "task.md"
    task.write_text(f"Fix the deploy.\n{KEY}\nThanks.\n", encoding="utf-8")
    script = tmp_path / "agent-script.json"
    turn = {"text": _agent_text(), "stderr": f"warn: -{KEY}"}
    script.write_text(json.dumps({"turns": [turn]}), "utf-8")
    outputs, step_summary = tmp_path / "gh-output", tmp_path / "gh-summary.md"
    env = {
        "JLGCLI_FAKE_SCRIPT": str(script),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_STEP_SUMMARY": str(step_summary),
        "GEMINI_API_KEY": "fake-gemini-login",  # dummies the fakes accept as a login
        "COPILOT_GITHUB_TOKEN": "github_pat_test",
    }
    result = jlg(
        "loop", "task.md", "-b", backend, "--max-iterations", "2", "--json", "--github",
        "--artifacts", "--events", str(tmp_path / "events.ndjson"), "-v",
        cwd=project, env=env,
    )  # fmt: skip
    assert result.returncode == 4, result.stderr  # not done after 2 iterations
    channels = {"stdout": result.stdout, "stderr": result.stderr}
    # everything jlgcli wrote; the fake agents' own session files (under HOME) are not ours
    channels |= _files_under(tmp_path, skip={script, task})
    assert any(name.endswith("transcript.ndjson") for name in channels)
    assert any(name.endswith("state.json") for name in channels)
    leaked = {name: _leaks(text) for name, text in channels.items() if _leaks(text)}
    assert not leaked, leaked
    assert "[REDACTED]" in result.stdout


DONE_WITH_KEYS = {"text": "done\n" + json.dumps({"status": "done", "summary": f"used {KEY}"})}


def _door(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, encoding="utf-8", errors="replace",
        timeout=120, stdin=subprocess.DEVNULL, env={**os.environ, **env},
    )  # fmt: skip


def test_the_invoke_task_and_the_action_print_the_summary_redacted(tmp_path: Path) -> None:
    # issue 32: both doors called human_summary on the raw summary
    project = tmp_path / "project"
    project.mkdir()
    (project / "tasks.py").write_text(INVOKE_TASKS, encoding="utf-8")
    (project / "task.md").write_text("Fix it.\n", encoding="utf-8")
    script = tmp_path / "fake.json"
    script.write_text(json.dumps({"turns": [DONE_WITH_KEYS]}), "utf-8")
    outputs, step_summary = tmp_path / "gh-output", tmp_path / "gh-summary.md"
    env = {"JLGCLI_FAKE_SCRIPT": str(script)}
    invoked = _door(
        [sys.executable, "-m", "invoke", "loop", "--task", "task.md", "--backend", "claude",
         "--args", "--completion json"], project, env,
    )  # fmt: skip
    action = _door(
        [sys.executable, "-m", "jlgcli.integrations.action"], project,
        env | {"JLG_COMMAND": "loop", "JLG_PROMPT_FILE": "task.md", "JLG_BACKEND": "claude",
               "JLG_COMPLETION": "json", "GITHUB_OUTPUT": str(outputs),
               "GITHUB_STEP_SUMMARY": str(step_summary)},
    )  # fmt: skip
    for name, done in (("invoke", invoked), ("action", action)):
        assert done.returncode == 0, (name, done.stderr)
        assert f"summary     used {MASK}" in done.stderr, (name, done.stderr)
        assert not _leaks(done.stdout + done.stderr), name
    assert not _leaks(outputs.read_text("utf-8") + step_summary.read_text("utf-8"))


@pytest.mark.slow
def test_the_dev_loop_prints_replies_redacted_and_without_osc52(tmp_path: Path) -> None:
    # issue 32: dev/report.Reporter wrote raw text; "its reply ended with: …" showed the key
    from support.dev_e2e import implement, run_dev, write_script
    from support.devproject import make_project

    root = make_project(tmp_path / "proj")
    reply = f"Done.\n{KEY}\nflag-{CANARIES['github']}\n\x1b]52;c;c2VjcmV0\x07copied"
    script = write_script(tmp_path / "s.json", implement(notes=None, text=reply))
    done = run_dev(root, "run", "--yes", "--verbose", script=script)
    assert done.returncode != 0
    assert "its reply ended with" in done.stderr, done.stderr
    for stream in (done.stdout, done.stderr):
        assert not _leaks(stream)
        assert "\x1b]52" not in stream
    assert MASK in done.stderr


def _reply(obj: dict[str, object]) -> dict[str, str]:
    return {"text": "Working on it.\n```json\n" + json.dumps(obj) + "\n```"}


REBOUND_SCRIPT = f"""\
import sys, time
key = {KEY!r}
print("\\x1b[31m" + key + "\\x1b[0m")
print("key_{CANARIES["github"]}")
sys.stdout.write("split " + key[:20]); sys.stdout.flush(); time.sleep(0.2)
print(key[20:] + " done")
print({json.dumps(json.dumps({"api_key": "Hunter2Hunter2Pw9", "nl": "x"}))})
"""


def test_a_failover_and_a_rebound_session_leak_no_canary(jlg: Runner, tmp_path: Path) -> None:
    # issue 32: ANSI-wrapped keys and key_<token> printed by a rebound script reached the
    # model, the ledger and iterations/NNN/prompt.md; a failover carries the quota error on
    project = tmp_path / "project"
    project.mkdir()
    (project / "task.md").write_text(f"Deploy.\n{KEY}\n", encoding="utf-8")
    script = tmp_path / "agent-script.json"
    turns = [
        {"error": "quota", "stderr": f"quota gone for -{KEY}"},  # claude: switch to codex
        _reply({
            "thought_process": f"found\n{KEY}",
            "artifacts": [{"path": "workbench/scripts/leak.py", "content": REBOUND_SCRIPT}],
            "next_action": {"type": "exec_and_chain", "target_script": "workbench/scripts/leak.py",
                            "continuation_prompt": "Go on."},
        }),
        _reply({"status": "done", "summary": f"done with 9{KEY}"}),
    ]  # fmt: skip
    script.write_text(json.dumps({"turns": turns}), "utf-8")
    result = jlg(
        "loop", "task.md", "-b", "claude", "--fallback", "codex", "--completion", "rebound",
        "--json", "--artifacts", "-v", cwd=project, env={"JLGCLI_FAKE_SCRIPT": str(script)},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(result.stdout)
    assert summary["iterationMetrics"][-1]["backend"] == "codex", summary  # the failover
    prompts = sorted((tmp_path / "agent-script.json.prompts").glob("[0-9][0-9][0-9].txt"))
    channels = {"stdout": result.stdout, "stderr": result.stderr}
    channels |= {f"prompt {p.name}": p.read_text("utf-8") for p in prompts}
    channels |= _files_under(tmp_path, skip={script, project / "task.md"})
    channels = {n: t for n, t in channels.items() if "workbench/scripts" not in n}
    assert any("ledger" in name for name in channels)
    assert "[REDACTED]" in channels[f"prompt {prompts[-1].name}"]
    leaked = {name: _leaks(text) for name, text in channels.items() if _leaks(text)}
    assert not leaked, leaked


PTY_AGENT = """
import json, sys, time
canaries = json.loads(sys.argv[1])
key = canaries["anthropic"]
sys.stdin.read()  # the prompt, typed on the terminal (echoed: it holds a key too)
sys.stdout.write("split -" + key[:18]); sys.stdout.flush(); time.sleep(0.3)
sys.stdout.write(key[18:] + " end\\n"); sys.stdout.flush()
sys.stdout.write("\\x1b[1;31m" + canaries["github"] + "\\x1b[0m and 7" + canaries["groq"] + "\\n")
sys.stdout.write(json.dumps({"tool_result": "line\\n" + canaries["slack-app"]}) + "\\n")
sys.stdout.write("id " + canaries["telegram"][:6]); sys.stdout.flush(); time.sleep(0.3)
sys.stdout.write(canaries["telegram"][6:] + "\\nno marker here\\n"); sys.stdout.flush()
"""


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pty")
def test_canaries_through_the_pty_transport_leave_through_no_channel(
    jlg: Runner, tmp_path: Path
) -> None:
    # issue 32: a custom backend under the pty transport (CRLF, echo of the typed prompt)
    # prints keys split across two reads, ANSI-wrapped, after a digit and a "-", and
    # JSON-escaped; every byte jlgcli printed or wrote is searched for them
    project = tmp_path / "project"
    project.mkdir()
    task = project / "task.md"
    task.write_text(f"Fix the deploy.\n{KEY}\nThanks.\n", encoding="utf-8")
    agent = tmp_path / "pty-agent.py"
    agent.write_text(PTY_AGENT, encoding="utf-8")
    backend = {"argv": [sys.executable, str(agent), json.dumps(CANARIES)], "transport": "pty"}
    config = Path(os.environ["JLGCLI_CONFIG_DIR"]) / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"backends": {"ptyagent": backend}}), encoding="utf-8")
    outputs, step_summary = tmp_path / "gh-output", tmp_path / "gh-summary.md"
    env = {"GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(step_summary)}
    result = jlg(
        "loop", "task.md", "-b", "ptyagent", "--max-iterations", "2", "--json", "--github",
        "--artifacts", "--events", str(tmp_path / "events.ndjson"), "-vv",
        cwd=project, env=env,
    )  # fmt: skip
    assert result.returncode == 4, result.stderr  # no marker: not done after 2 iterations
    channels = {"stdout": result.stdout, "stderr": result.stderr}
    channels |= _files_under(tmp_path, skip={agent, task})
    transcripts = [text for name, text in channels.items() if name.endswith("transcript.ndjson")]
    assert transcripts and "split -[REDACTED] end" in transcripts[0]
    assert any(name.endswith("state.json") for name in channels)
    leaked = {name: _leaks(text) for name, text in channels.items() if _leaks(text)}
    assert not leaked, leaked
    assert "[REDACTED]" in result.stderr  # -vv: the live text, masked


# Issue 43: redaction rewrote the structure it ran on. A reply quoting a password broke the
# final event (backend-error) or swallowed the DONE line after it; a key block after a
# secret-named value leaked whole from JSON-escaped text; gemini's two deltas carried a key
# in two halves into the transcript.
PASSWORD_REPLIES = ['x = "password=hunter2"\nDONE', "password=hunter2\nDONE"]
PEM_BODY = "MIIEowIBAAKCAQEAcn7Xw2Lm9Pk4Rt6Vb8Nc3Hd5Jf1Gs0YaQ9pL2mK7xR4tW6vB"
PGP_BODY = "lQOYBGXkcn7Xw2Lm9Pk4Rt6Vb8Nc3Hd5Jf1Gs0YaQ9pL2mK7xR4tW6vBxYz"
KEY_BLOCKS = (
    f"API_TOKEN=abcdefghijklmnop12\n-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n"
    "-----END RSA PRIVATE KEY-----\n"
    f"client_secret: abcdefghijklmnop12\n-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{PGP_BODY}\n"
    "=Ab3d\n-----END PGP PRIVATE KEY BLOCK-----\n"
)


def _bodies(text: str) -> list[str]:
    found = [body for body in (PEM_BODY[8:40], PGP_BODY[8:40]) if body in text]
    return found + _leaks(text)


@pytest.mark.parametrize("reply", PASSWORD_REPLIES)
@pytest.mark.parametrize("backend", ["claude", "codex", "gemini", "copilot"])
def test_a_reply_quoting_a_password_ends_done(
    jlg: Runner, tmp_path: Path, backend: str, reply: str
) -> None:
    script = tmp_path / "agent-script.json"
    script.write_text(json.dumps({"turns": [{"text": reply}]}), "utf-8")
    (tmp_path / "task.md").write_text("Write the config loader.\n", encoding="utf-8")
    env = {"JLGCLI_FAKE_SCRIPT": str(script), "GEMINI_API_KEY": "fake-gemini-login",
           "COPILOT_GITHUB_TOKEN": "github_pat_test"}  # fmt: skip
    result = jlg(
        "loop", "task.md", "-b", backend, "--max-iterations", "2", "--json", "--artifacts",
        cwd=tmp_path, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(result.stdout)
    assert (summary["stopCause"], summary["iterations"]) == ("done", 1), summary
    assert "hunter2" not in result.stdout + result.stderr
    assert "password=[REDACTED]" in summary["text"]


@pytest.mark.parametrize("backend", ["claude", "codex", "gemini", "copilot"])
def test_key_blocks_after_secrets_and_keys_split_across_deltas_leave_no_body(
    jlg: Runner, tmp_path: Path, backend: str
) -> None:
    # the fake gemini sends the reply as two message deltas cut at its middle: the
    # filler puts the cut inside the anthropic key
    project = tmp_path / "project"
    project.mkdir()
    (project / "task.md").write_text("Fix the deploy.\n", encoding="utf-8")
    head = KEY_BLOCKS + "key "
    text = head + KEY + "\nno marker yet\n"
    text += "." * (len(head) + len(KEY) // 2 - (len(text) - len(head) - len(KEY) // 2))
    assert text[: len(text) // 2].endswith(KEY[: len(KEY) // 2])
    script = tmp_path / "agent-script.json"
    script.write_text(json.dumps({"turns": [{"text": text}]}), "utf-8")
    outputs, step_summary = tmp_path / "gh-output", tmp_path / "gh-summary.md"
    env = {
        "JLGCLI_FAKE_SCRIPT": str(script), "GITHUB_OUTPUT": str(outputs),
        "GITHUB_STEP_SUMMARY": str(step_summary), "GEMINI_API_KEY": "fake-gemini-login",
        "COPILOT_GITHUB_TOKEN": "github_pat_test",
    }  # fmt: skip
    result = jlg(
        "loop", "task.md", "-b", backend, "--max-iterations", "2", "--json", "--github",
        "--artifacts", "--events", str(tmp_path / "events.ndjson"), "-v", "--gate", "true",
        cwd=project, env=env,
    )  # fmt: skip
    assert result.returncode == 4, result.stderr  # not done after 2 iterations
    channels = {"stdout": result.stdout, "stderr": result.stderr}
    channels |= _files_under(tmp_path, skip={script})
    assert any(name.endswith("transcript.ndjson") for name in channels)
    assert any(name.endswith("prompt.md") for name in channels)
    leaked = {name: _bodies(text) for name, text in channels.items() if _bodies(text)}
    assert not leaked, leaked
    tail = KEY[len(KEY) // 2 :][-20:]
    assert not [name for name, text in channels.items() if tail in text]


PTY_PASSWORD_AGENT = """
import sys
sys.stdin.read()
sys.stdout.write(sys.argv[1] + "\\n"); sys.stdout.flush()
"""


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pty")
@pytest.mark.parametrize("reply", [*PASSWORD_REPLIES, KEY_BLOCKS + "DONE"])
def test_through_the_pty_a_password_reply_ends_done_and_key_blocks_are_masked(
    jlg: Runner, tmp_path: Path, reply: str
) -> None:
    agent = tmp_path / "pty-agent.py"
    agent.write_text(PTY_PASSWORD_AGENT, encoding="utf-8")
    backend = {"argv": [sys.executable, str(agent), reply], "transport": "pty"}
    config = Path(os.environ["JLGCLI_CONFIG_DIR"]) / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"backends": {"ptyagent": backend}}), encoding="utf-8")
    (tmp_path / "task.md").write_text("Write the config loader.\n", encoding="utf-8")
    result = jlg(
        "loop", "task.md", "-b", "ptyagent", "--max-iterations", "2", "--json", "--artifacts",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["stopCause"] == "done"
    channels = {"stdout": result.stdout, "stderr": result.stderr}
    channels |= _files_under(tmp_path, skip={agent})
    channels.pop(str(Path(os.environ["JLGCLI_CONFIG_DIR"]) / "config.json"), None)
    leaked = {name: _bodies(text) for name, text in channels.items() if _bodies(text)}
    assert not leaked, leaked
    assert not [name for name, text in channels.items() if "hunter2" in text]
