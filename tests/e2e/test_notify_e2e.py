"""Issue 51 (notifications) through the installed console script, with the fake claude.

A webhook receiver on 127.0.0.1 (a tiny ``http.server`` in the test, stopped by the
test, bounded by a socket timeout) gets exactly one JSON POST at the end of a loop,
with the secret the agent put in its summary masked; a failing receiver leaves the
exit code as it was and says so on stderr; a project file's ``notify`` waits for trust.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.cli import Runner, fake_script, task_project
from support.webhook import receiver

from jlgcli.config.write import trust_files

SECRET = "sk-ant-api03-" + "NotifyE2eSecret0123456789abcdef"


def _done(summary: str) -> dict[str, str]:
    reply = {"status": "done", "summary": summary}
    return {"text": "Finished.\n```json\n" + json.dumps(reply) + "\n```"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return task_project(tmp_path, "Add a slugify helper.\n")


def test_a_webhook_gets_one_json_post_at_the_end_with_the_secret_masked(
    jlg: Runner, project: Path, tmp_path: Path
) -> None:
    env = fake_script(tmp_path, _done(f"added slugify; the key was {SECRET}"))
    with receiver() as got:
        result = jlg(
            "loop", "task.md", "-b", "claude", "--completion", "json", "--json",
            "--notify", f"webhook:{got.url}#builds", cwd=project, env=env,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert len(got.requests) == 1
    path, headers, body = got.requests[0]
    assert path == "/hook" and headers["Content-Type"].startswith("application/json")
    assert body["event"] == "run-ended" and body["topic"] == "builds"
    assert (body["status"], body["stopCause"], body["exitCode"]) == ("done", "done", 0)
    assert body["title"] == "jlgcli loop done: done"
    assert "1 iteration" in body["text"] and "added slugify" in body["content"]
    assert "[REDACTED]" in body["summary"] and "[REDACTED]" in body["message"]
    assert SECRET not in json.dumps(body)
    assert body["runId"] == json.loads(result.stdout)["runId"]


def test_a_long_rate_limit_wait_is_notified_before_the_end(
    jlg: Runner, project: Path, tmp_path: Path
) -> None:
    env = fake_script(tmp_path, {"error": "rate-limit", "reset_in_seconds": 1}, _done("ok"))
    env["JLGCLI_NOTIFY_LIMIT_WAIT_MS"] = "1s"  # the default (5m) would make this test wait
    with receiver() as got:
        result = jlg("loop", "task.md", "-b", "claude", "--completion", "json",
                     "--notify", f"webhook:{got.url}", cwd=project, env=env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    events = [body["event"] for _path, _headers, body in got.requests]
    assert events == ["limit-wait", "run-ended"]
    assert "rate limit" in got.requests[0][2]["title"]


def test_a_failing_receiver_is_a_warning_and_the_exit_code_stands(
    jlg: Runner, project: Path, tmp_path: Path
) -> None:
    env = fake_script(tmp_path, {"text": "still going"})
    with receiver(status=500) as got:
        result = jlg("loop", "task.md", "-b", "claude", "--max-iterations", "1",
                     "--notify", f"webhook:{got.url}", cwd=project, env=env)  # fmt: skip
    assert result.returncode == 4, result.stderr  # max iterations, as without --notify
    assert len(got.requests) == 1 and got.requests[0][2]["stopCause"] == "max-iterations"
    host = got.url.split("/")[2]
    assert f"notification to webhook {host} failed: HTTP 500" in result.stderr
    env = fake_script(tmp_path, _done("ok"))
    with receiver(status=500) as got:
        result = jlg("loop", "task.md", "-b", "claude", "--completion", "json",
                     "--notify", f"webhook:{got.url}", cwd=project, env=env)  # fmt: skip
    assert result.returncode == 0 and "failed: HTTP 500" in result.stderr


def test_a_project_files_notify_waits_until_the_file_is_trusted(
    jlg: Runner, project: Path, tmp_path: Path
) -> None:
    config = project / ".jlgcli.json"
    with receiver() as got:
        config.write_text(json.dumps({"notify": [f"webhook:{got.url}"]}), encoding="utf-8")
        env = fake_script(tmp_path, _done("ok"))
        result = jlg("loop", "task.md", "-b", "claude", "--completion", "json",
                     cwd=project, env=env)  # fmt: skip
        assert result.returncode == 0, result.stderr
        assert got.requests == []
        assert "notify targets of" in result.stderr and "jlgcli config trust" in result.stderr
        trust_files([config], env={"JLGCLI_CONFIG_DIR": os.environ["JLGCLI_CONFIG_DIR"]})
        result = jlg("loop", "task.md", "-b", "claude", "--completion", "json",
                     cwd=project, env=fake_script(tmp_path, _done("ok")))  # fmt: skip
        assert result.returncode == 0, result.stderr
        assert [body["event"] for _p, _h, body in got.requests] == ["run-ended"]
        assert "notify targets of" not in result.stderr


def test_a_bad_target_is_a_usage_error_naming_the_flag(jlg: Runner, project: Path) -> None:
    result = jlg("loop", "task.md", "-b", "claude", "--notify", "webhook:ftp://h/", cwd=project)
    assert result.returncode == 64
    assert "--notify" in result.stderr and "http://" in result.stderr
