"""Issue 51 (notifications): the payload, the OS's notifier, the Notifier's guards."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from jlgcli.artifacts.redact import Redactor
from jlgcli.config.keys import lookup_key
from jlgcli.config.spec import ValueProblemError
from jlgcli.runner import notify
from jlgcli.runner.notify import Notifier, desktop_command, payload, split_webhook
from jlgcli.runner.summary import ErrorInfo, RunSummary

SECRET = "sk-ant-api03-" + "NotifySecretValue0123456789abcdef"
HOSTILE = 'it\'s "done"; $(rm -rf ~) `x` & end tell\n<b>'


def _summary(**changes: Any) -> RunSummary:
    values: dict[str, Any] = dict(
        command="loop", status="done", stopCause="done", exitCode=0, backend="claude",
        completionMode="json", iterations=3, maxIterations=20, durationMs=95_000,
        startedAt="2026-01-01T00:00:00+00:00", endedAt="2026-01-01T00:01:35+00:00",
        runId="20260101-000000-abcd", costUsd=0.4213, summary=f"added the helper with {SECRET}",
    )  # fmt: skip
    values.update(changes)
    return RunSummary(**values)


class Sent:
    def __init__(self) -> None:
        self.posts: list[tuple[str, dict[str, Any]]] = []
        self.desktop: list[tuple[str, str]] = []
        self.warnings: list[str] = []

    def notifier(self, *targets: str, limit_wait_s: float = 300.0) -> Notifier:
        def post(url: str, body: Mapping[str, Any]) -> None:
            self.posts.append((url, dict(body)))

        return Notifier(
            targets, redact=Redactor().redact, warn=self.warnings.append,
            limit_wait_s=limit_wait_s, post=post,
            desktop=lambda title, message: self.desktop.append((title, message)),
        )  # fmt: skip


# -- the OS's notifier ---------------------------------------------------------------------
def test_linux_uses_notify_send_found_by_full_path_with_the_text_as_arguments() -> None:
    found = desktop_command("T", HOSTILE, platform="linux", which=lambda _n: "/usr/bin/notify-send")
    assert found == (["/usr/bin/notify-send", "--app-name=jlgcli", "--", "T", HOSTILE], {})


def test_no_notifier_on_the_machine_is_silent() -> None:
    assert desktop_command("T", "m", platform="linux", which=lambda _n: None) is None
    assert desktop_command("T", "m", platform="darwin", which=lambda _n: None) is None
    assert desktop_command("T", "m", platform="win32", environ={}, exists=lambda _p: False) is None


def test_macos_passes_the_text_as_osascript_arguments_never_inside_the_script() -> None:
    found = desktop_command("T", HOSTILE, platform="darwin", which=lambda _n: "/usr/bin/osascript")
    assert found is not None
    argv, env = found
    assert argv[0] == "/usr/bin/osascript" and argv[-2:] == ["T", HOSTILE] and env == {}
    script = argv[1:-2]
    assert script[::2] == ["-e"] * 3 and "on run argv" in script
    assert not any(HOSTILE in part or part == "T" for part in script)


def test_windows_toast_runs_powershell_by_full_path_with_the_text_in_the_environment() -> None:
    seen: list[str] = []

    def exists(path: str) -> bool:
        seen.append(path)
        return True

    found = desktop_command(
        "T", HOSTILE, platform="win32", environ={"SystemRoot": r"D:\Win"}, exists=exists,
        which=lambda _n: pytest.fail("Windows must not search PATH or the current folder"),
    )  # fmt: skip
    assert found is not None
    argv, env = found
    program = r"D:\Win\System32\WindowsPowerShell\v1.0\powershell.exe"
    assert argv[0] == program and seen == [program]
    assert "-NoProfile" in argv and "-NonInteractive" in argv
    assert env == {notify.TITLE_ENV: "T", notify.MESSAGE_ENV: HOSTILE}
    assert not any(HOSTILE in part for part in argv)  # never interpolated into the script
    assert f"$env:{notify.MESSAGE_ENV}" in argv[-1] and "CreateTextNode" in argv[-1]


def test_windows_without_systemroot_uses_the_usual_folder() -> None:
    found = desktop_command("T", "m", platform="win32", environ={}, exists=lambda _p: True)
    assert found is not None and found[0][0].startswith("C:\\Windows\\System32\\")


def test_a_program_in_the_current_folder_is_never_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sys.platform == "win32":
        pytest.skip("the POSIX lookup; Windows never searches (test above)")
    program = tmp_path / "notify-send"
    program.write_text("#!/bin/sh\n", encoding="utf-8")
    program.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", os.pathsep.join([".", ""]))
    assert notify._which_on_path("notify-send") is None
    monkeypatch.setenv("PATH", os.pathsep.join([".", str(tmp_path)]))
    assert notify._which_on_path("notify-send") == str(program)


def test_show_desktop_reports_a_failing_notifier_and_is_silent_without_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    failing = [sys.executable, "-c", "import sys; sys.stderr.write('no bus\\n'); sys.exit(3)"]
    monkeypatch.setattr(notify, "desktop_command", lambda _t, _m: (failing, {}))
    with pytest.raises(OSError, match="exited 3: no bus"):
        notify.show_desktop("T", "m")
    works = [sys.executable, "-c", "import os, sys; sys.exit(os.environ['X'] != 'y')"]
    monkeypatch.setattr(notify, "desktop_command", lambda _t, _m: (works, {"X": "y"}))
    notify.show_desktop("T", "m")
    monkeypatch.setattr(notify, "desktop_command", lambda _t, _m: None)
    notify.show_desktop("T", "m")


# -- the webhook's body ----------------------------------------------------------------------
def test_the_payload_has_the_field_each_receiver_reads() -> None:
    body = payload("Title", "line", event="run-ended", topic="jobs", data={"exitCode": 0})
    assert body["text"] == "Title\nline"  # Slack
    assert body["content"] == "Title\nline"  # Discord
    assert (body["title"], body["message"], body["topic"]) == ("Title", "line", "jobs")  # ntfy
    assert (body["event"], body["exitCode"]) == ("run-ended", 0)
    assert "topic" not in payload("T", "", event="e") and payload("T", "", event="e")["message"]


def test_discord_content_is_kept_under_its_limit() -> None:
    body = payload("T", "x" * 5000, event="run-ended")
    assert len(body["content"]) <= 2000 and body["content"].endswith("…")
    assert len(body["text"]) > 5000  # the other receivers get it whole


def test_the_fragment_is_the_ntfy_topic_and_is_never_sent() -> None:
    assert split_webhook("webhook:https://ntfy.sh/#builds") == ("https://ntfy.sh/", "builds")
    assert split_webhook("webhook:https://h/x?y=1") == ("https://h/x?y=1", None)


def test_post_json_refuses_what_is_not_http() -> None:
    with pytest.raises(ValueError, match="not an http"):
        notify.post_json("file:///etc/passwd", {})


# -- the notifier ----------------------------------------------------------------------------
def test_the_run_end_says_status_cause_iterations_cost_and_summary_redacted() -> None:
    sent = Sent()
    sent.notifier("webhook:https://hooks.example/abc#topic", "desktop").run_ended(_summary())
    [(url, body)] = sent.posts
    assert url == "https://hooks.example/abc" and body["topic"] == "topic"
    assert body["title"] == "jlgcli loop done: done"
    for part in ("3 iterations", "$0.42", "1m35s", "added the helper"):
        assert part in body["message"], part
    assert SECRET not in repr(body) and "[REDACTED]" in body["summary"]
    [(title, message)] = sent.desktop
    assert title == body["title"] and SECRET not in message
    assert sent.warnings == []


def test_a_failed_run_without_a_summary_gives_its_error() -> None:
    sent = Sent()
    error = ErrorInfo(code=4, message="20 reached")
    summary = _summary(status="failed", stopCause="max-iterations", exitCode=4, summary=None,
                       costUsd=None, iterations=1, error=error)  # fmt: skip
    sent.notifier("webhook:http://h/").run_ended(summary)
    [(_url, body)] = sent.posts
    assert body["title"] == "jlgcli loop failed: max-iterations"
    assert "1 iteration," in body["message"] and "cost unknown" in body["message"]
    assert body["message"].endswith("20 reached") and body["exitCode"] == 4


def test_a_limit_wait_is_notified_only_from_the_threshold() -> None:
    sent = Sent()
    notifier = sent.notifier("webhook:http://h/", limit_wait_s=300)
    notifier.limit_wait(299, "claude rate-limited", run_id="r1")
    assert sent.posts == []
    notifier.limit_wait(300, "claude rate-limited", run_id="r1")
    [(_url, body)] = sent.posts
    assert body["event"] == "limit-wait" and body["seconds"] == 300
    assert "5m" in body["title"] and body["message"] == "claude rate-limited (run r1)"


def test_a_zero_threshold_still_ignores_no_wait_at_all() -> None:
    sent = Sent()
    notifier = sent.notifier("webhook:http://h/", limit_wait_s=0)
    notifier.limit_wait(0, "none", run_id="r")
    notifier.limit_wait(1, "short", run_id="r")
    assert [body["seconds"] for _u, body in sent.posts] == [1]


def test_parked_says_which_task_asks_what() -> None:
    sent = Sent()
    sent.notifier("webhook:http://h/").parked(f"Which DB? {SECRET}", run_id="r", task="api")
    [(_url, body)] = sent.posts
    assert body["title"] == "jlgcli: task api asks a question" and body["event"] == "parked"
    assert SECRET not in repr(body) and body["task"] == "api"
    sent.notifier("webhook:http://h/").parked("?", run_id="r9")
    assert sent.posts[-1][1]["title"] == "jlgcli: run r9 asks a question"


def test_a_failing_target_is_one_warning_naming_its_host_and_the_others_still_get_it() -> None:
    warnings: list[str] = []
    got: list[str] = []

    def post(url: str, _body: Mapping[str, Any]) -> None:
        if "bad" in url:
            raise OSError("connection refused")
        got.append(url)

    notifier = Notifier(
        ["webhook:https://user:pw@bad.example/T0KEN/x", "webhook:https://ok.example/"],
        redact=str, warn=warnings.append, post=post,
    )  # fmt: skip
    notifier.send("t", "m", event="run-ended")
    assert got == ["https://ok.example/"]
    assert warnings == ["notification to webhook bad.example failed: connection refused"]


def test_http_errors_are_named_and_ctrl_c_is_not_swallowed() -> None:
    import urllib.error

    def post(url: str, _body: Mapping[str, Any]) -> None:
        raise urllib.error.HTTPError(url, 500, "Server Error", {}, None)  # type: ignore[arg-type]

    warnings: list[str] = []
    Notifier(["webhook:http://h/"], redact=str, warn=warnings.append, post=post).send(
        "t", "m", event="e"
    )
    assert warnings == ["notification to webhook h failed: HTTP 500 Server Error"]

    def interrupted(_t: str, _m: str) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Notifier(["desktop"], redact=str, warn=warnings.append, desktop=interrupted).send(
            "t", "m", event="e"
        )


def test_the_same_target_twice_sends_once_and_no_target_sends_nothing() -> None:
    sent = Sent()
    sent.notifier("webhook:http://h/", "webhook:http://h/").send("t", "m", event="e")
    assert len(sent.posts) == 1
    sent.notifier().run_ended(_summary())
    assert len(sent.posts) == 1 and sent.desktop == []


# -- the config key ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("desktop", ["desktop"]),
        ('["desktop", "webhook:https://h/x"]', ["desktop", "webhook:https://h/x"]),
        (["webhook:HTTP://h:8080/"], ["webhook:HTTP://h:8080/"]),
    ],
)
def test_notify_accepts_desktop_and_http_webhooks(raw: Any, expected: list[str]) -> None:
    spec = lookup_key("notify")
    assert spec is not None and spec.parse(raw) == expected


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("email:me@x", "not a notification target"),
        ("webhook:file:///etc/passwd", "not an http"),
        ("webhook:https://", "not an http"),
        ("webhook:https://h/a b", "spaces or control"),
        ([3], "expected a command"),
    ],
)
def test_notify_refuses_other_targets(raw: Any, problem: str) -> None:
    spec = lookup_key("notify")
    assert spec is not None
    with pytest.raises(ValueProblemError, match=problem):
        spec.parse(raw)


# -- where the targets come from -------------------------------------------------------------
def test_flags_env_and_the_wait_threshold_reach_the_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jlgcli.runner.options import RunOptions, build_spec

    options = RunOptions(prompt_text="x", cwd=str(tmp_path), notify=("desktop",))
    spec, _ = build_spec(options, "loop")
    assert (spec.notify, spec.notify_limit_wait_s, spec.notes) == (("desktop",), 300.0, ())
    monkeypatch.setenv("JLGCLI_NOTIFY", '["webhook:https://h/x"]')
    monkeypatch.setenv("JLGCLI_NOTIFY_LIMIT_WAIT_MS", "90s")
    spec, _ = build_spec(RunOptions(prompt_text="x", cwd=str(tmp_path)), "run")
    assert (spec.notify, spec.notify_limit_wait_s) == (("webhook:https://h/x",), 90.0)


def test_an_untrusted_project_files_targets_give_way_to_the_users_own_with_a_note(
    tmp_path: Path,
) -> None:
    import json

    from jlgcli.config.resolve import user_config_file
    from jlgcli.config.write import trust_files
    from jlgcli.runner.options import RunOptions, build_spec

    project = tmp_path / "p"
    project.mkdir()
    config = project / ".jlgcli.json"
    config.write_text(json.dumps({"notify": "webhook:https://repo.example/"}), "utf-8")
    options = RunOptions(prompt_text="x", cwd=str(project))
    spec, _ = build_spec(options, "loop")
    assert spec.notify == () and "ignored until it is trusted" in spec.notes[0]
    user = user_config_file()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"notify": ["desktop"]}), "utf-8")
    spec, _ = build_spec(options, "loop")
    assert spec.notify == ("desktop",) and len(spec.notes) == 1
    trust_files([config])
    spec, _ = build_spec(options, "loop")
    assert (spec.notify, spec.notes) == (("webhook:https://repo.example/",), ())


def test_the_flags_targets_reach_a_batchs_tasks_and_a_resume(tmp_path: Path) -> None:
    from jlgcli.batch.options import resolve
    from jlgcli.runner.options import RunOptions
    from jlgcli.runner.options_record import from_json, to_json

    settings = resolve(RunOptions(notify=("desktop",)), tmp_path)
    assert from_json(to_json(settings.options)).notify == ("desktop",)


def test_ctrl_c_while_the_end_is_notified_skips_it_and_the_run_ending_stands() -> None:
    warnings: list[str] = []

    def interrupted(_url: str, _body: Mapping[str, Any]) -> None:
        raise KeyboardInterrupt

    notifier = Notifier(["webhook:http://h/"], redact=str, warn=warnings.append, post=interrupted)
    notifier.run_ended(_summary())  # returns: the summary is still printed, the code kept
    assert warnings == ["notifications skipped: interrupted"]
    with pytest.raises(KeyboardInterrupt):  # during a wait, Ctrl-C stops the run as ever
        notifier.limit_wait(600, "limit", run_id="r")


def test_the_runs_records_name_a_webhook_by_its_host_only(tmp_path: Path) -> None:
    from jlgcli.runner.options import RunOptions, build_spec

    url = "webhook:https://hooks.slack.com/services/T0/B0/SeCrEtToKeN"
    options = RunOptions(prompt_text="x", cwd=str(tmp_path), notify=(url, "desktop"))
    spec, _ = build_spec(options, "loop")
    assert spec.notify == (url, "desktop")
    assert spec.options["notify"] == ["webhook hooks.slack.com", "desktop"]
    assert "SeCrEtToKeN" not in repr(spec.options)
