"""Issue 15 end to end: no secret leaves through any channel; the rebound sandbox holds.

Through the installed console script with the scripted fake claude (tests/fakes):
stdout (``--json``), stderr, ``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY``, the run
artifacts and the rebound ledger carry none of the secrets the agent printed
(RG-007); a rebound script reading every ancestor's ``/proc/<pid>/environ`` sends
no secret to the model (REQ_AUTO_040); a reply writing jlgcli's own files is refused.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from support.cli import Runner

API_KEY = "sk-ant-api03-" + "E2eSecretKeyValue0123456789abcdef"
DB_PASSWORD = "Db9PassWordZz"
DATABASE_URL = f"postgres://admin:{DB_PASSWORD}@db.internal/app"
STRIPE = "sk_live_" + "51HxYzE2eStripeKey0123"
SECRETS = (API_KEY, DB_PASSWORD, STRIPE)


def _reply(obj: dict[str, Any], preface: str = "Working on it.") -> dict[str, Any]:
    return {"text": preface + "\n```json\n" + json.dumps(obj) + "\n```"}


def _fake_script(tmp_path: Path, *turns: dict[str, Any]) -> dict[str, str]:
    path = tmp_path / "agent-script.json"
    path.write_text(json.dumps({"turns": list(turns)}), "utf-8")
    return {"JLGCLI_FAKE_SCRIPT": str(path)}


def _prompts(tmp_path: Path) -> list[str]:
    folder = tmp_path / "agent-script.json.prompts"
    return [p.read_text("utf-8") for p in sorted(folder.glob("[0-9][0-9][0-9].txt"))]


def _files_under(*folders: Path) -> dict[Path, str]:
    found = {}
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file():
                found[path] = path.read_text("utf-8", errors="replace")
    return found


LEAK_SCRIPT = f"""\
print("script sees {API_KEY} and {DATABASE_URL}")
print("and {STRIPE}")
"""


def test_secrets_printed_by_the_agent_leave_through_no_channel(jlg: Runner, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "task.md").write_text("Deploy it.", encoding="utf-8")
    chatter = f"Using {API_KEY} against {DATABASE_URL} with {STRIPE}."
    env = _fake_script(
        tmp_path,
        _reply(
            {
                "thought_process": f"I found {API_KEY} and {DATABASE_URL}",
                "artifacts": [{"path": "workbench/scripts/leak.py", "content": LEAK_SCRIPT}],
                "next_action": {
                    "type": "exec_and_chain",
                    "target_script": "workbench/scripts/leak.py",
                    "continuation_prompt": f"Check {STRIPE}.",
                },
            },
            preface=chatter,
        ),
        _reply({"status": "done", "summary": f"done: {API_KEY} {DATABASE_URL} {STRIPE}"}, chatter),
    )
    outputs, step_summary = tmp_path / "gh-output", tmp_path / "gh-summary.md"
    env |= {"GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(step_summary)}
    result = jlg(
        "loop", "task.md", "-b", "claude", "--completion", "rebound", "--json", "--github",
        "--artifacts", "--artifacts-dir", str(tmp_path / "runs"), "-v", cwd=project, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["stopCause"] == "done"
    assert "[REDACTED]" in summary["summary"]
    channels = {"stdout": result.stdout, "stderr": result.stderr}
    channels |= {"GITHUB_OUTPUT": outputs.read_text("utf-8")}
    channels |= {"GITHUB_STEP_SUMMARY": step_summary.read_text("utf-8")}
    written = _files_under(tmp_path / "runs", project / "ledger")
    assert any(p.name == "transcript.ndjson" for p in written)
    assert any(p.name.startswith("step-") for p in written)
    channels |= {str(path): text for path, text in written.items()}
    prompts = _prompts(tmp_path)
    # the model's own continuation prompt comes back verbatim; the script's output is redacted
    channels |= {"script output told to the model": prompts[1].split("=== jlgcli rebound", 1)[1]}
    for name, text in channels.items():
        for secret in SECRETS:
            assert secret not in text, f"{secret[:12]}… leaked through {name}"
    assert "[REDACTED]" in channels["GITHUB_STEP_SUMMARY"]
    assert "script sees [REDACTED]" in prompts[1]


PROC_SCRIPT = """\
import os

def ancestors():
    pid = os.getpid()
    while pid > 1:
        with open(f"/proc/{pid}/status") as status:
            ppid = [int(line.split()[1]) for line in status if line.startswith("PPid:")][0]
        yield pid
        pid = ppid

print("own:", dict(os.environ))
for pid in ancestors():
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            print(pid, "environ:", handle.read().replace(b"\\0", b" ").decode(errors="replace"))
    except OSError as exc:
        print(pid, "unreadable:", type(exc).__name__)
print("walked the ancestors")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux only")
def test_a_script_reading_every_ancestors_environ_sends_no_secret(
    jlg: Runner, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "task.md").write_text("Inspect the environment.", encoding="utf-8")
    env = _fake_script(
        tmp_path,
        _reply(
            {
                "artifacts": [{"path": "workbench/scripts/proc.py", "content": PROC_SCRIPT}],
                "next_action": {
                    "type": "exec_and_chain",
                    "target_script": "workbench/scripts/proc.py",
                    "continuation_prompt": "What did you find?",
                },
            }
        ),
        _reply({"status": "done", "summary": "looked"}),
    )
    env |= {"ANTHROPIC_API_KEY": API_KEY, "DATABASE_URL": DATABASE_URL}
    result = jlg("loop", "task.md", "-b", "claude", "--completion", "rebound", cwd=project, env=env)
    assert result.returncode == 0, result.stderr
    told = _prompts(tmp_path)[1]
    assert "walked the ancestors" in told  # the script ran and its output went back
    assert API_KEY not in told
    assert DB_PASSWORD not in told
    own = next(line for line in told.splitlines() if line.startswith("own:"))
    assert "DATABASE_URL" not in own and "ANTHROPIC_API_KEY" not in own  # allow-listed env


@pytest.mark.parametrize("target", [".jlgcli.json", ".jlgcli/runs/x/result.json", ".JLGCLI.json"])
def test_a_reply_writing_jlgcli_own_files_is_refused(
    jlg: Runner, tmp_path: Path, target: str
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "task.md").write_text("Do it.", encoding="utf-8")
    forged = {"path": target, "content": '{"backend": "evil"}'}
    env = _fake_script(
        tmp_path,
        *[
            _reply(
                {
                    "artifacts": [forged],
                    "next_action": {
                        "type": "exec_and_chain",
                        "target_script": "workbench/scripts/none.py",
                        "continuation_prompt": "go on",
                    },
                }
            )
        ]
        * 3,
        _reply({"status": "done", "summary": "ok"}),
    )
    result = jlg(
        "loop", "task.md", "-b", "claude", "--completion", "rebound", "--json", cwd=project, env=env
    )
    assert not (project / ".jlgcli.json").exists()
    assert not (project / ".jlgcli" / "runs" / "x").exists()
    assert not (project / ".JLGCLI.json").exists()
    prompts = _prompts(tmp_path)
    assert "refused" in prompts[1].lower()
    summary = json.loads(result.stdout)
    assert summary["stopCause"] == "sandbox-violation", summary


@pytest.mark.parametrize("backend", ["claude", "codex"])
def test_osc52_from_the_agent_never_reaches_the_terminal(
    jlg: Runner, tmp_path: Path, backend: str
) -> None:
    evil = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m visible text"
    task = tmp_path / "task.md"
    task.write_text("Say something.", encoding="utf-8")
    env = _fake_script(tmp_path, {"text": evil + "\nDONE"})
    result = jlg("run", str(task), "-b", backend, "--artifacts", cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    for stream in (result.stdout, result.stderr):
        assert "\x1b]" not in stream and "\x07" not in stream and "\x1b[2J" not in stream
    assert "\x1b[31mred\x1b[0m visible text" in result.stdout  # colours stay
    transcripts = list(tmp_path.glob(".jlgcli/runs/*/transcript.ndjson"))
    assert transcripts and "]52;c;" in transcripts[0].read_text("utf-8")  # raw bytes kept
