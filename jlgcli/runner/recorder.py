"""The run's trail: artifacts (transcript, prompts, messages, result.json), the resume state
and the event stream. The engine tells it what happened; it decides where that is written.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from jlgcli.errors import JlgError
from jlgcli.money import money
from jlgcli.process.model import Sink
from jlgcli.runner.console import Console
from jlgcli.runner.events import EventWriter, NoEvents
from jlgcli.runner.record import RunRecord
from jlgcli.runner.state_writes import StateWrites
from jlgcli.runner.summary import ErrorInfo, IterationMetrics, RunSummary

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    from jlgcli.artifacts.redact import Redacted, Redactor
    from jlgcli.artifacts.rundir import RunDirectory
    from jlgcli.artifacts.transcript import TranscriptSink
    from jlgcli.config.started import RunLock
    from jlgcli.runner.notify import Notifier
    from jlgcli.runner.resume import ResumeState, StateTexts


def runs_root(record: RunRecord) -> Path:
    """Where this run's directory goes: ``artifactsDir``, relative to the project root
    (the directory of ``.jlgcli.json``, else the git root, else the cwd)."""
    from jlgcli.artifacts.project import under_project

    return under_project(record.spec.artifacts_dir, record.spec.cwd)


class Recorder:
    """Writes what the engine reports; every channel goes through one redactor."""

    def __init__(self, record: RunRecord, console: Console) -> None:
        from jlgcli.artifacts.redact import Redactor

        self.record = record
        self.console = console
        self.redactor: Redactor = Redactor()
        self.run_dir: RunDirectory | None = None
        self.events: EventWriter | NoEvents = NoEvents()
        self._notifier: Notifier | None = None
        self._state_dir: Path | None = None  # where state.json goes (loops), set by open()
        self._kept: TranscriptSink | None = None  # the transcript kept without --artifacts
        self._kept_folder = Path()  # its run folder
        self._state_writes = StateWrites()
        self._state_texts: StateTexts | None = None  # state.json's text, entries made once
        self._locks: list[RunLock] = []

    @property
    def notifier(self) -> Notifier:
        """The run's notifications, made at first use (issue 49)."""
        if self._notifier is None:
            from jlgcli.runner.notify import Notifier

            spec, warn = self.record.spec, self.console.warn
            self._notifier = Notifier(spec.notify, redact=self.redactor.redact, warn=warn,
                                      limit_wait_s=spec.notify_limit_wait_s)  # fmt: skip
        return self._notifier

    # -- start ---------------------------------------------------------------------------
    def open(self) -> None:
        """Open the event stream and, with ``--artifacts``, the run directory (exit 73)."""
        spec = self.record.spec
        if spec.events_path:
            self.events = EventWriter(
                spec.events_path, self.record.run_id, redact=self.redactor.redact,
                warn=self.console.warn,
            )  # fmt: skip
        if spec.artifacts:
            from jlgcli.artifacts import RunDirectory

            self.run_dir = RunDirectory.create(
                runs_root(self.record), self.record.run_id, redactor=self.redactor,
                start=self.record.started,
            )  # fmt: skip
            self.record.run_dir = str(self.run_dir.path)
            self.run_dir.write_meta(self._meta())
            self.console.detail(f"artifacts: {self.run_dir.path}")
        if spec.is_loop and spec.resumable:
            self._open_state()
        if self.run_dir is None and spec.transcript and spec.resumable:
            self._keep_transcript()
        self._events_in_folder()
        self.events.emit(
            "run-started", command=spec.command, backend=self.record.backend_id,
            completionMode=spec.completion_mode if spec.is_loop else "none",
            maxIterations=spec.max_iterations if spec.is_loop else 1,
            resumedFrom=self.record.resumed_from,
        )  # fmt: skip

    def _events_in_folder(self) -> None:
        """Every run with a folder writes its events there too (issue 51: ``jlgcli watch``
        follows them); a folder without a lock (a one-shot run) gets one, so that a reader
        can tell the run is still going."""
        from jlgcli.artifacts.layout import EVENTS_FILE

        folder = self._state_dir or (self.run_dir.path if self.run_dir is not None else None)
        if folder is None and self._kept is not None:  # a one-shot run's kept transcript
            folder = self._kept_folder
        if folder is None:
            return
        if self._state_dir is None and not self._locks:  # the kept transcript's lock holds it
            from jlgcli.config.started import RunLock

            lock = RunLock(folder)
            with contextlib.suppress(OSError):
                if lock.acquire():
                    self._locks.append(lock)
        if isinstance(self.events, NoEvents):
            self.events = EventWriter(None, self.record.run_id, redact=self.redactor.redact,
                                      warn=self.console.warn)  # fmt: skip
        self.events.also_to(folder / EVENTS_FILE)

    def _open_state(self) -> None:
        """A loop's state folder, held (``run.lock``) while it runs and recorded as started by
        this user (``config.started``); a resumed run holds the old run's lock too."""
        from jlgcli.config.started import RunLock, record_start
        from jlgcli.errors import ExitCode

        root = runs_root(self.record)
        run_dir = root / self.record.run_id
        try:
            from jlgcli.artifacts.rundir import _ignore_in_git, _owned_by_jlgcli

            if not root.is_dir() or _owned_by_jlgcli(root):  # from the first write (issue 31)
                root.mkdir(parents=True, exist_ok=True)
                _ignore_in_git(root)
            run_dir.mkdir(parents=True, exist_ok=True)
            dirs = [run_dir]
            if self.record.spec.resume is not None:
                dirs.append(root / self.record.spec.resume.run_id)
            for folder in dirs:
                lock = RunLock(folder)
                if not lock.acquire():
                    self._abandon(run_dir)
                    raise JlgError(
                        ExitCode.USAGE, f"run {folder.name} is still running",
                        hint="wait for it to end, then resume it",
                    )  # fmt: skip
                self._locks.append(lock)
        except OSError as exc:
            raise JlgError(
                ExitCode.CANT_CREATE,
                f"cannot create the run folder {run_dir}: {exc.strerror or exc}",
                hint="check the runs folder (--artifacts-dir): free space and permissions",
            ) from None
        self._state_dir = run_dir
        try:
            record_start(root, self.record.run_id, self.record.started_at)
            if self.record.spec.asked:  # what a resume applies again (issue 44)
                from jlgcli.config import asked

                asked.save(self.record.run_id, self.record.spec.asked)
        except (OSError, JlgError) as exc:  # the run goes on; only `--resume latest` misses it
            run_id = self.record.run_id
            self.console.warn(f"could not record this run as yours ({exc}): "
                              f"resume it by id: jlgcli loop --resume {run_id}")  # fmt: skip

    def _keep_transcript(self) -> None:
        """What the agent said, kept by default in the run folder (issue 51): bounded (the
        newest 20 MB), redacted like the rest; a failure is a warning, never a failed run.
        A one-shot run's folder is held (``run.lock``) while it runs, as a loop's is."""
        from jlgcli.artifacts.layout import TRANSCRIPT_FILE
        from jlgcli.artifacts.transcript import TranscriptSink
        from jlgcli.artifacts.transcript_bound import DEFAULT_LIMIT

        folder = self._state_dir
        try:
            if folder is None:
                folder = self._run_folder()
                from jlgcli.config.started import RunLock

                lock = RunLock(folder)
                if lock.acquire():
                    self._locks.append(lock)
            self._kept = TranscriptSink(
                folder / TRANSCRIPT_FILE, redactor=self.redactor, start=self.record.started,
                limit=DEFAULT_LIMIT,
                on_error=self._transcript_failed,
            )  # fmt: skip
        except (OSError, JlgError) as exc:
            self.console.warn(f"the transcript is not kept: {getattr(exc, 'message', exc)}")
            return
        self._kept_folder = folder

    def _run_folder(self) -> Path:
        """``<runs root>/<run id>/``, created (the root kept out of git: issue 31)."""
        from jlgcli.artifacts.rundir import _ignore_in_git, _owned_by_jlgcli

        root = runs_root(self.record)
        if not root.is_dir() or _owned_by_jlgcli(root):
            root.mkdir(parents=True, exist_ok=True)
            _ignore_in_git(root)
        folder = root / self.record.run_id
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def _transcript_failed(self, error: JlgError) -> None:
        self.console.warn(f"the transcript is no longer kept: {error.message}")

    @property
    def transcript(self) -> TranscriptSink | None:
        """Where this run's transcript goes (``--artifacts``' or the one kept by default)."""
        return self.run_dir.transcript if self.run_dir is not None else self._kept

    def _abandon(self, run_dir: Path) -> None:
        """Leave no empty run folder behind a run refused before it started."""
        self._release()
        with contextlib.suppress(OSError):
            for item in run_dir.iterdir():
                if item.name != "run.lock":
                    return
            (run_dir / "run.lock").unlink(missing_ok=True)
            run_dir.rmdir()

    def _meta(self) -> dict[str, Any]:
        from jlgcli._version import __version__

        record, spec = self.record, self.record.spec
        return {
            "runId": record.run_id,
            "command": spec.command,
            "backend": record.backend_id,
            "backendVersion": record.backend_version,
            "startedAt": record.started_at.isoformat(timespec="milliseconds"),
            "prompt": spec.prompt.source,
            "cwd": str(spec.cwd),
            "options": spec.options,
            "resumedFrom": record.resumed_from,
            "jlgcli": __version__,
        }

    # -- each iteration ------------------------------------------------------------------
    def sinks(self) -> tuple[Sink, ...]:
        transcript = self.transcript
        return (transcript,) if transcript is not None else ()

    def activity(self, iteration: int, text: Redacted) -> None:
        """Live assistant text of an iteration, as the event stream shows it: redacted
        already (``call_backend`` redacts it as a stream, line by line, where the parser
        makes it; issue 32), so it is not redacted again here."""
        self.events.activity(iteration, text)

    def prompt(self, iteration: int, backend: str, prompt: str) -> None:
        self.events.emit("iteration-started", iteration=iteration, backend=backend)
        if self.transcript is not None:
            self.transcript.write_record("iteration-start", iteration=iteration, backend=backend)
        if self.run_dir is not None:
            self.run_dir.write_prompt(iteration, prompt)

    def call_ended(self, metrics: IterationMetrics, text: str) -> None:
        """One backend call ended (a failed transcript write fails the run: RG-016)."""
        run_dir = self.run_dir
        if run_dir is not None and run_dir.transcript.error is not None:
            raise run_dir.transcript.error
        self.events.emit(
            "agent-activity", iteration=metrics.index, kind="usage", costUsd=money(metrics.costUsd),
            inputTokens=metrics.inputTokens, outputTokens=metrics.outputTokens,
        )  # fmt: skip
        if run_dir is not None:
            run_dir.write_final_message(metrics.index, text)
        if self.transcript is not None:
            self.transcript.write_record(
                "iteration-end", iteration=metrics.index, exitCode=metrics.exitCode,
                stopReason=metrics.stopReason, ok=metrics.completion != "backend-error",
                costUsd=money(metrics.costUsd), inputTokens=metrics.inputTokens,
                outputTokens=metrics.outputTokens,
            )  # fmt: skip

    def iteration_ended(self, metrics: IterationMetrics) -> None:
        self.events.emit(
            "iteration-ended", iteration=metrics.index, backend=metrics.backend,
            completion=metrics.completion, durationMs=metrics.durationMs,
            costUsd=money(metrics.costUsd), diffStat=metrics.diffStat,
            permissionDenials=metrics.permissionDenials or None,
        )  # fmt: skip

    def asked(self, iteration: int, question: Redacted) -> None:
        """The agent asked the user a question: the run parks on it (issue 51)."""
        self.events.emit("question", iteration=iteration, question=question)

    def limit_wait(self, iteration: int, seconds: float, reason: str) -> None:
        """A rate-limit wait starts: the ``limit-wait`` event, and a notification when long."""
        self.events.emit("limit-wait", iteration=iteration, seconds=round(seconds), reason=reason)
        self.notifier.limit_wait(seconds, reason, run_id=self.record.run_id)

    def payload_ref(self, iteration: int) -> str | None:
        """Where iteration ``iteration``'s raw exchange is kept (rebound's ``payloadRef``)."""
        if self.run_dir is None:
            return None
        from jlgcli.rebound.ledger import transcript_ref

        return transcript_ref(self.run_dir.transcript.path, iteration, root=self.record.spec.cwd)

    def save_state(
        self, state: ResumeState, *, final: bool = True, beside_next_call: bool = False
    ) -> None:
        """Keep what ``--resume`` needs (every loop run; see ``runner.resume``).

        ``final=False`` between iterations: one fsync instead of two (``write_state``).
        ``beside_next_call``: the bytes are written here (a full disk is 73 at once), the
        fsync and the rename in a thread while the next call runs (``runner.state_writes``);
        an earlier write's error is raised here.
        """
        if self._state_dir is None:  # a loop that keeps no state (the demo)
            return
        from jlgcli.runner.resume import StateTexts, write_state_text  # loops only

        if self._state_texts is None:  # here: the redactor is not shared
            self._state_texts = StateTexts(self.redactor.redact)
        text = self._state_texts.text(state)
        if not beside_next_call:
            self._state_writes.wait()
        finish = self._state_writes.submit if beside_next_call else None
        write_state_text(self._state_dir, text, final=final, finish=finish)

    # -- the end -------------------------------------------------------------------------
    def finish(self, summary: RunSummary) -> RunSummary:
        """Write result.json and close everything; an artifacts failure becomes exit 73."""
        if self._state_dir is not None:  # the last state.json, durable at the end of the run
            from jlgcli.artifacts.atomic import sync_directory

            with contextlib.suppress(JlgError):  # raised already, by the last save
                self._state_writes.wait()

            sync_directory(self._state_dir)
        self._close_kept(summary)
        if self.run_dir is not None:
            try:
                self.run_dir.close()
                summary.redactions = self.redactor.count
                self.run_dir.write_result(summary.to_json())
            except JlgError as exc:  # RG-016: a failed artifact write fails the run
                summary.stopCause, summary.status = "artifacts-error", "error"
                summary.exitCode = exc.code
                summary.error = ErrorInfo(code=exc.code, message=exc.message, hint=exc.hint)
        summary.redactions = self.redactor.count
        self.events.emit(
            "run-ended", status=summary.status, stopCause=summary.stopCause,
            exitCode=summary.exitCode, iterations=summary.iterations,
            durationMs=summary.durationMs, costUsd=money(summary.costUsd),
        )  # fmt: skip
        self.events.close()
        self._release()  # after run-ended: a reader that finds the lock free has read it all
        self._notify_end(summary)  # last: a slow receiver delays nothing but the exit
        return summary

    def _notify_end(self, summary: RunSummary) -> None:
        """A parked run says its question; a batch's task says nothing more (its batch
        notifies once, at its end)."""
        task = self.record.spec.batch_task
        if summary.question is not None:
            try:
                self.notifier.parked(summary.question, run_id=summary.runId, task=task)
            except KeyboardInterrupt:  # the run has ended: its summary and exit code stand
                self.console.warn("notifications skipped: interrupted")
        elif task is None and self.record.spec.notify:
            self.notifier.run_ended(summary)

    def _close_kept(self, summary: RunSummary) -> None:
        """Close the kept transcript; a one-shot run's folder gets its ``result.json`` (what
        ``jlgcli runs`` reads to say how it ended: a loop's ``state.json`` does that)."""
        if self._kept is None:
            return
        self._kept.close()
        if self._state_dir is not None:
            return
        from jlgcli.artifacts.atomic import atomic_write_json
        from jlgcli.artifacts.layout import RESULT_FILE

        summary.redactions = self.redactor.count
        try:  # its data fsynced, not the rename (issue 49): a power cut reads as a killed run
            atomic_write_json(self._kept_folder / RESULT_FILE, self.redactor.redact_obj(
                summary.to_json()), sync_directory=False)  # fmt: skip
        except OSError as exc:
            self.console.warn(f"the run's result is not kept: {exc.strerror or exc}")

    def _release(self) -> None:
        for lock in self._locks:
            lock.release()
        self._locks.clear()

    def close_on_error(self) -> None:
        """A setup error ends the run before it started: close what was opened."""
        with contextlib.suppress(JlgError):
            self._state_writes.wait()
        self._release()
        if self.run_dir is not None:
            with contextlib.suppress(JlgError):
                self.run_dir.close()
        self.events.close()
        if self._kept is not None:
            self._kept.close()
            if self._state_dir is None and self._kept.records == 0:  # nothing was said
                from jlgcli.artifacts.layout import EVENTS_FILE

                with contextlib.suppress(OSError):  # its events: only that it started
                    self._kept.path.unlink()
                    (self._kept_folder / EVENTS_FILE).unlink(missing_ok=True)
                self._abandon(self._kept_folder)
