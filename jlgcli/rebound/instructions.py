"""What the model is told: the protocol, and each step's result (REQ_AUTO_010..030).

The protocol text describes exactly what ``schema.py`` accepts and what
``sandbox.py`` / ``paths.py`` refuse, so a model that follows it is never
refused. Step results are plain text blocks appended to the model's own
``continuation_prompt``. The next call may not share a session with this one
(fresh sessions, the default): then the continuation also carries the original
task (bounded) and the whole protocol, else a short reminder of the contract.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from jlgcli.rebound.execute import ExecutionResult
from jlgcli.rebound.sandbox import SCRIPTS_DIR
from jlgcli.records import record

_EXAMPLE = """\
```json
{
  "thought_process": "I need the list of TODO markers before editing anything.",
  "artifacts": [
    {"path": "workbench/scripts/find_todos.py",
     "content": "import pathlib\\nfor p in pathlib.Path('src').rglob('*.py'):\\n    print(p)\\n"}
  ],
  "next_action": {
    "type": "exec_and_chain",
    "target_script": "workbench/scripts/find_todos.py",
    "continuation_prompt": "Here are the files; pick the first one to fix."
  },
  "status": "continue",
  "summary": "Listing the Python sources."
}
```"""

REMINDER = (
    "Reply with the jlgcli rebound JSON object again (thought_process, artifacts, "
    f"next_action, status, summary). Scripts must be .py files under {SCRIPTS_DIR}/. "
    "Omit next_action when you are finished; your reply is then final."
)


@record
class ProtocolLimits:
    """The numbers the protocol text quotes (they are the session's real limits)."""

    script_timeout: float
    max_output_bytes: int
    max_refusals: int
    max_artifact_bytes: int


def protocol_instructions(limits: ProtocolLimits) -> str:
    """The contract sent to the model with the first prompt."""
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    return f"""\
## Reply protocol (jlgcli rebound mode)

End your reply with ONE JSON object (a ```json fence is fine). jlgcli reads the
last top-level JSON object of your reply that fits this contract; text around
it is ignored. Every field is optional:

- "thought_process": string. Your reasoning; kept in the audit ledger.
- "artifacts": list of files jlgcli writes for you, before anything runs:
  {{"path": "relative/path.ext", "content": "...", "encoding": "utf-8"}}
  ("encoding" is "utf-8" (default) or "base64" for binary content).
  Paths are relative to the project root (the folder of .jlgcli.json, else the
  top of the git repository, else the current directory) and must stay inside
  it: absolute paths, "..", "~", drive letters, backslash-UNC paths, ":",
  control characters, names ending in a dot or space, Windows device
  names (CON, NUL, COM1, ...) and anything inside .git are refused. At most
  {limits.max_artifact_bytes:,} bytes per file; an existing file is replaced.
- "next_action": ask jlgcli to run one Python script, then call you again with
  its output. Exactly these three fields, all required:
  {{"type": "exec_and_chain",
   "target_script": "{SCRIPTS_DIR}/<name>.py",
   "continuation_prompt": "what to do with the output"}}
  "type" must be "exec_and_chain". The script must be an existing .py file
  under {SCRIPTS_DIR}/ (write it as an artifact in the same reply or an
  earlier one); scripts anywhere else (src/, /tmp, ..) are refused and never
  run. It runs with Python {python}, no shell, no arguments, stdin closed, in
  the project root, killed after {limits.script_timeout:g} s. Your next prompt is
  your continuation_prompt followed by the script's exit code, stdout and
  stderr (each cut to about {limits.max_output_bytes:,} characters). A refused
  script is reported to you so you can correct it; after
  {limits.max_refusals} refusals the run stops with a security error.
- "status": "continue" | "done" | "error". Used only when there is no
  next_action (default "done").
- "summary": string. The result for the user, in a few sentences.

Without "next_action" your reply is final and goes to the user.

Example:
{_EXAMPLE}
"""


def execution_block(step: int, target: str, result: ExecutionResult) -> str:
    """The result of a script run, for the next prompt (REQ_AUTO_030 step 5)."""
    lines = [f"=== jlgcli rebound: result of step {step} ===", f"script: {target}"]
    lines.append(f"outcome: {_describe_outcome(result)}")
    lines.append(f"duration: {result.duration:.2f} s")
    lines += _stream("stdout", result.stdout, result.stdout_bytes, result.stdout_truncated)
    lines += _stream("stderr", result.stderr, result.stderr_bytes, result.stderr_truncated)
    lines.append("=== end of result ===")
    return "\n".join(lines)


def _describe_outcome(result: ExecutionResult) -> str:
    if result.stop_reason == "exited":
        return f"exited with return code {result.exit_code}"
    if result.stop_reason in ("timeout", "idle"):
        return (
            f"killed after the {result.timeout:g} s timeout (the whole process tree was "
            "stopped); the script did not finish"
        )
    if result.stop_reason == "cancelled":
        return "interrupted by the user"
    return f"could not be started: {result.error}"


def _stream(name: str, text: str, size: int, truncated: bool) -> list[str]:
    note = " (truncated: only the beginning and the end are shown)" if truncated else ""
    header = f"--- {name} ({size:,} bytes){note} ---"
    return [header, text.rstrip("\n") if text else "(empty)"]


def refusal_block(step: int, target: str, reason: str, *, count: int, limit: int) -> str:
    """Why a target script was not run, counted toward the refusal limit (REQ_AUTO_040)."""
    return (
        f"=== jlgcli rebound: result of step {step} ===\n"
        f"script: {target}\n"
        f"outcome: REFUSED, not executed: {reason}\n"
        f"Only existing .py files under {SCRIPTS_DIR}/ may run. "
        f"This is refusal {count} of {limit}; at {limit} the run stops.\n"
        "=== end of result ==="
    )


def not_run_block(step: int, target: str, reason: str) -> str:
    """A script that was not run for an ordinary reason (missing file, failed artifact)."""
    return (
        f"=== jlgcli rebound: result of step {step} ===\n"
        f"script: {target}\n"
        f"outcome: not executed: {reason}\n"
        "=== end of result ==="
    )


def invalid_action_block(step: int, error: str) -> str:
    """A malformed next_action (REQ_AUTO_020), reported so the model can fix it."""
    return (
        f"=== jlgcli rebound: result of step {step} ===\n"
        f"outcome: your next_action was invalid and nothing was run: {error}\n"
        'A next_action needs exactly "type" ("exec_and_chain"), "target_script" and '
        '"continuation_prompt", all strings.\n'
        "=== end of result ==="
    )


def artifact_problems_block(problems: Sequence[str]) -> str:
    """Artifacts that were not written, listed for the model."""
    return "Artifacts NOT written:\n" + "\n".join(f"- {p}" for p in problems)


TASK_LIMIT = 6000  # characters of the original task repeated in each continuation


def task_block(task: str, limit: int = TASK_LIMIT) -> str:
    """The original task, repeated for a model that does not share the first call's session.

    Bounded: a longer task keeps its beginning and its end, and says how much is left out.
    """
    text = task.strip()
    if len(text) > limit:
        head, tail = text[: limit * 2 // 3], text[-(limit // 3) :]
        text = f"{head}\n[… {len(text) - len(head) - len(tail):,} characters left out …]\n{tail}"
    return (
        "=== jlgcli rebound: the task you are working on (from the first prompt) ===\n"
        f"{text}\n"
        "=== end of task ==="
    )


def continuation(prompt: str | None, *blocks: str, footer: str = REMINDER) -> str:
    """The next prompt: the model's continuation_prompt, the result blocks, then ``footer``.

    ``footer``: the short reminder of the contract, or (for a model in a fresh
    session) the whole protocol.
    """
    parts = [prompt.strip()] if prompt and prompt.strip() else []
    parts += [b for b in blocks if b]
    parts.append(footer.strip())
    return "\n\n".join(parts)
