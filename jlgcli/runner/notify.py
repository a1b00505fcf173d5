"""Notifications (``--notify``, the ``notify`` key): tell someone who walked away.

Three moments: a run ended (done or not, the stop cause, cost, iterations and
the agent's summary), a rate-limit wait at least ``notifyLimitWaitMs`` long,
and a task parked on a question (``Notifier.parked``, for the question
feature to call). Two kinds of target:

- ``desktop``: the OS's own notification (``desktop_command``): notify-send,
  a Windows toast through PowerShell, osascript; nothing where none is found.
  The program is found by full path (never in the current folder) and the
  text goes as arguments or through the environment, never into a script.
- ``webhook:URL``: one JSON POST (``payload``) that Slack (``text``), Discord
  (``content``) and ntfy (``topic``/``title``/``message``; the topic is the
  URL's ``#fragment``, sent to the server root) all read.

Every text goes through the run's redactor first. A notification that fails
is a warning, never a failed run: the run's outcome and exit code stand.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    from jlgcli.runner.summary import RunSummary

WEBHOOK_TIMEOUT_S = 10.0
DESKTOP_TIMEOUT_S = 15.0
MESSAGE_CHARS = 1800  # Discord refuses a ``content`` over 2,000 characters
TITLE_ENV = "JLGCLI_NOTIFY_TITLE"
MESSAGE_ENV = "JLGCLI_NOTIFY_MESSAGE"

# Windows PowerShell 5.1 (WinRT types; pwsh 7 has none); the text comes from the environment and
# goes in as XML text nodes, so nothing it holds is parsed as script or markup.
_TOAST_SCRIPT = (
    "$ErrorActionPreference='Stop';"
    "[Windows.UI.Notifications.ToastNotificationManager,Windows.UI.Notifications,"
    "ContentType=WindowsRuntime]>$null;"
    "$x=[Windows.UI.Notifications.ToastNotificationManager]::GetTemplateContent("
    "[Windows.UI.Notifications.ToastTemplateType]::ToastText02);"
    "$t=$x.GetElementsByTagName('text');"
    f"$t.Item(0).AppendChild($x.CreateTextNode($env:{TITLE_ENV}))>$null;"
    f"$t.Item(1).AppendChild($x.CreateTextNode($env:{MESSAGE_ENV}))>$null;"
    "$app='{1AC14E77-02E7-4E5D-B744-2EB1AE5198B7}\\WindowsPowerShell\\v1.0\\powershell.exe';"
    "[Windows.UI.Notifications.ToastNotificationManager]::CreateToastNotifier($app).Show("
    "[Windows.UI.Notifications.ToastNotification]::new($x))"
)
# The text arrives as osascript's own arguments (``argv``), never inside the script.
_APPLESCRIPT = (
    "on run argv",
    "display notification (item 2 of argv) with title (item 1 of argv)",
    "end run",
)

Which = Callable[[str], "str | None"]


def _which_on_path(name: str) -> str | None:
    """``name`` on $PATH's absolute folders only: never the current folder (``.`` or empty),
    on POSIX too (a notifier is jlgcli's choice, not the user's command)."""
    from jlgcli.process.spawn import resolve_executable

    folders = [p for p in os.environ.get("PATH", "").split(os.pathsep) if Path(p).is_absolute()]
    return resolve_executable(name, path=os.pathsep.join(folders)) if folders else None


def desktop_command(
    title: str,
    message: str,
    *,
    platform: str = sys.platform,
    which: Which = _which_on_path,
    environ: Mapping[str, str] = os.environ,
    exists: Callable[[str], bool] = os.path.isfile,
) -> tuple[list[str], dict[str, str]] | None:
    """The argv and extra environment that show ``title``/``message`` on this OS, or None.

    ``platform``, ``which``, ``environ`` and ``exists`` are injected by tests (the
    Windows branch runs everywhere that way).
    """
    if platform == "win32":  # Windows PowerShell's own folder, never a search of PATH or the cwd
        import ntpath

        from jlgcli.process.tree import system_tool

        tool = r"WindowsPowerShell\v1.0\powershell.exe"
        shell = system_tool(tool, system_root=environ.get("SystemRoot"))
        if not ntpath.isabs(shell) or not exists(shell):
            return None
        argv = [shell, "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass",
                "-Command", _TOAST_SCRIPT]  # fmt: skip
        return argv, {TITLE_ENV: title, MESSAGE_ENV: message}
    if platform == "darwin":
        program = which("osascript")
        if program is None:
            return None
        script = [arg for line in _APPLESCRIPT for arg in ("-e", line)]
        return [program, *script, title, message], {}
    program = which("notify-send")
    if program is None:
        return None
    return [program, "--app-name=jlgcli", "--", title, message], {}


def _shorten(text: str, limit: int = MESSAGE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def payload(title: str, message: str, *, event: str, topic: str | None = None,
            data: Mapping[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    """The webhook's JSON body: each receiver reads its own field and ignores the rest."""
    line = f"{title}\n{message}" if message else title
    body: dict[str, Any] = {
        "text": line,  # Slack's incoming webhooks, Mattermost, Google Chat
        "content": _shorten(line),  # Discord
        "title": title,  # ntfy (JSON publishing) and most generic receivers
        "message": message or title,
        "event": event,
        "source": "jlgcli",
    }
    if topic:
        body["topic"] = topic
    body.update(data or {})
    return body


def split_webhook(target: str) -> tuple[str, str | None]:
    """``webhook:URL#topic`` → (the URL to POST to, the ntfy topic or None)."""
    url = target[len("webhook:") :] if target.startswith("webhook:") else target
    url, _, topic = url.partition("#")  # a fragment never reaches the server: ours to read
    return url, topic or None


def post_json(url: str, body: Mapping[str, Any], *, timeout: float = WEBHOOK_TIMEOUT_S) -> None:
    """POST ``body`` to ``url`` (http/https only); raises OSError/ValueError on any failure."""
    import urllib.request

    from jlgcli._version import __version__

    if not url.lower().startswith(("http://", "https://")):
        raise ValueError(f"not an http(s) address: {url}")
    request = urllib.request.Request(  # noqa: S310 - http(s) only, checked above
        url, data=json.dumps(body, ensure_ascii=False).encode("utf-8"), method="POST",
        headers={"Content-Type": "application/json; charset=utf-8",
                 "User-Agent": f"jlgcli/{__version__}"},
    )  # fmt: skip
    # no redirects to other schemes: urllib follows http(s) only
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
        response.read(65536)


def show_desktop(title: str, message: str) -> None:
    """Show a desktop notification where the OS has a way; raises OSError when it fails."""
    from jlgcli.process.captured import capture

    found = desktop_command(title, _shorten(message, 400))
    if found is None:
        return  # no notifier on this machine: silent, as the docs say
    argv, env = found
    outcome = capture(argv, timeout=DESKTOP_TIMEOUT_S, env=env)
    if outcome.exit_code != 0:
        detail = (outcome.stderr or "").strip().splitlines()[-1:] or ["no message"]
        raise OSError(f"{Path(argv[0]).name} exited {outcome.exit_code}: {detail[0]}")


def _money(cost: float | None) -> str:
    return f"${cost:.2f}" if cost is not None else "cost unknown"


class Notifier:
    """Sends the run's notifications to its targets, each text redacted first."""

    def __init__(
        self,
        targets: Sequence[str],
        *,
        redact: Callable[[str], str],
        warn: Callable[[str], None],
        limit_wait_s: float = 300.0,
        desktop: Callable[[str, str], None] = show_desktop,
        post: Callable[[str, Mapping[str, Any]], None] = post_json,
    ) -> None:
        self.targets = tuple(dict.fromkeys(targets))  # the same target twice: one message
        self._redact = redact
        self._warn = warn
        self.limit_wait_s = limit_wait_s
        self._desktop = desktop
        self._post = post

    def run_ended(self, summary: RunSummary) -> None:
        """The run's end: its status, stop cause, iterations, cost and the agent's summary."""
        what = "loop" if summary.command == "loop" else "run"
        title = f"jlgcli {what} {summary.status}: {summary.stopCause}"
        from jlgcli.durations import format_duration_ms

        facts = (f"{summary.iterations} iteration{'s' if summary.iterations != 1 else ''}, "
                 f"{_money(summary.costUsd)}, {format_duration_ms(summary.durationMs)} "
                 f"({summary.backend}, run {summary.runId})")  # fmt: skip
        said = summary.summary or (summary.error.message if summary.error else "")
        message = f"{facts}\n{said}" if said else facts
        data = {
            "status": summary.status, "stopCause": summary.stopCause,
            "exitCode": summary.exitCode, "iterations": summary.iterations,
            "costUsd": summary.costUsd, "runId": summary.runId, "summary": summary.summary,
        }  # fmt: skip
        try:
            self.send(title, message, event="run-ended", data=data)
        except KeyboardInterrupt:  # the run has ended: its summary and exit code still stand
            self._warn("notifications skipped: interrupted")

    def limit_wait(self, seconds: float, reason: str, *, run_id: str) -> None:
        """A rate-limit wait: notified when it is at least ``limit_wait_s`` long."""
        if seconds < self.limit_wait_s or seconds <= 0:
            return
        from jlgcli.durations import format_duration_ms

        title = f"jlgcli waits {format_duration_ms(round(seconds) * 1000)} on a rate limit"
        self.send(title, f"{reason} (run {run_id})", event="limit-wait",
                  data={"seconds": round(seconds), "runId": run_id})  # fmt: skip

    def batch_ended(self, batch_id: str, *, status: str, exit_code: int, lines: Sequence[str],
                    data: Mapping[str, Any]) -> None:  # fmt: skip
        """A batch's end, once for all its tasks (theirs are not notified one by one)."""
        title = f"jlgcli batch {status} (exit {exit_code})"
        try:
            self.send(title, "\n".join([*lines, f"batch {batch_id}"]), event="batch-ended",
                      data={"batchId": batch_id, "exitCode": exit_code, **data})  # fmt: skip
        except KeyboardInterrupt:  # the batch has ended: its table and exit code still stand
            self._warn("notifications skipped: interrupted")

    def parked(self, question: str, *, run_id: str, task: str | None = None) -> None:
        """A task stopped on a question for the user (the question feature calls this)."""
        who = f"task {task}" if task else f"run {run_id}"
        self.send(f"jlgcli: {who} asks a question", question, event="parked",
                  data={"runId": run_id, "task": task, "question": question})  # fmt: skip

    def send(self, title: str, message: str, *, event: str,
             data: Mapping[str, Any] | None = None) -> None:  # fmt: skip
        """Send to every target; a failure is one warning per target, never raised."""
        if not self.targets:
            return
        title, message = self._redact(title), self._redact(message)
        for target in self.targets:
            try:
                if target == "desktop":
                    self._desktop(title, message)
                    continue
                url, topic = split_webhook(target)
                body = payload(title, message, event=event, topic=topic, data=data)
                self._post(url, {key: self._redact(value) if isinstance(value, str) else value
                                 for key, value in body.items()})  # fmt: skip
            except KeyboardInterrupt:
                raise
            except Exception as exc:  # a receiver's failure never fails the run
                self._warn(f"notification to {shown_target(target)} failed: {_reason(exc)}")


def shown_target(target: str) -> str:
    """A target as warnings and the run's records name it: a webhook's host only (a Slack or
    Discord webhook's path is its token)."""
    if target == "desktop":
        return "desktop"
    from urllib.parse import urlsplit

    try:
        host = urlsplit(split_webhook(target)[0]).netloc.rsplit("@", 1)[-1]
    except ValueError:
        host = "?"
    return f"webhook {host}"


def _reason(exc: BaseException) -> str:
    import urllib.error

    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError):
        return str(exc.reason)
    return str(exc) or type(exc).__name__
