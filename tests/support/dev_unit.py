"""Shared text builders for the dev-loop unit tests."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from jlgcli.dev.agent import AgentReply
from jlgcli.dev.questions import Asker
from support.devproject import CLEAN_REVIEW, GREET

FIELDS = """- **ID:** {id}
- **Milestone:** M1
- **Status:** {status}
- **Complexity:** S
- **Dependencies:** {deps}
- **What to build:** something
- **Files in scope:** `a.py`
- **Constraints:** none
- **Validation criteria:**
  - tests pass
- **Context references:** `docs/architecture.md`
"""


def task(task_id: str, status: str = "pending", deps: str = "none", level: int = 3) -> str:
    return f"{'#' * level} {task_id}: Title of {task_id}\n\n" + FIELDS.format(
        id=task_id, status=status, deps=deps
    )


# -- whole projects and a scripted agent, for in-process runs of the loop ----------------------

GREET_TEST = (
    "import unittest\n\nfrom greetings.core import greet\n\n\n"
    "class GreetTest(unittest.TestCase):\n"
    "    def test_greet(self) -> None:\n"
    "        self.assertEqual(greet('Ada'), 'Hello, Ada!')\n"
)
NOTES = "## Summary\nAdded greet.\n"
BLOCKING_REVIEW = "## BLOCKING\n- greet ignores empty names\n\n## NON-BLOCKING\n- None\n"


def implement_turn(notes: str = NOTES) -> dict[str, str]:
    return {
        "greetings/core.py": GREET,
        "tests/test_core.py": GREET_TEST,
        "context/implementation-notes.md": notes,
    }


def review_turn(text: str = CLEAN_REVIEW) -> dict[str, str]:
    return {"context/review.md": text}


@dataclass
class Turn:
    files: dict[str, str] = field(default_factory=dict)
    ok: bool = True
    text: str = "done"
    error: str | None = None
    action: Callable[[], None] | None = None  # e.g. raise KeyboardInterrupt


@dataclass
class ScriptedAgent:
    """An AgentCaller writing each turn's files into the project, recording the prompts."""

    turns: list[Turn]
    name: str = "scripted"
    prompts: list[str] = field(default_factory=list)

    def call(self, prompt: str, cwd: Path) -> AgentReply:
        self.prompts.append(prompt)
        turn = self.turns[len(self.prompts) - 1]
        if turn.action is not None:
            turn.action()
        for name, content in turn.files.items():
            target = cwd / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        return AgentReply(
            turn.text, turn.ok, turn.error, 0 if turn.ok else 1, "tail of output", "fake --edit"
        )


def typed(*lines: str, err: io.StringIO | None = None) -> Asker:
    """An Asker as if a person typed ``lines`` at a terminal."""
    feed = iter(lines)
    return Asker(
        assume_yes=False,
        interactive=True,
        read_line=lambda: next(feed, ""),
        err=err or io.StringIO(),
    )


def unattended(err: io.StringIO | None = None) -> Asker:
    return Asker(assume_yes=True, interactive=False, err=err or io.StringIO())


def fake_script(path: Path, *turns: dict[str, object], repeat_last: bool = False) -> Path:
    """A JLGCLI_FAKE_SCRIPT for the fake agent CLIs (contract: /work/notes/fake_script.md)."""
    path.write_text(
        json.dumps({"turns": list(turns), "repeat_last": repeat_last}), encoding="utf-8"
    )
    return path


def happy_turns() -> list[dict[str, object]]:
    """Fake-CLI turns: implement (code, tests, notes), then a review without BLOCKING."""
    return [
        {"text": "implemented TASK-001", "files": implement_turn()},
        {"text": "reviewed", "files": review_turn()},
    ]


def run_loop(
    root: Path,
    agent: object,
    answers: list[str] | None = None,
    **options: object,
) -> tuple[object, str, str]:
    """Run the loop in-process; ``answers``: what a person types (None: unattended, --yes).

    Returns (``DevResult`` or the ``JlgError`` raised, stdout text, stderr text).
    """
    from jlgcli.dev.orchestrator import DevOptions, execute_dev
    from jlgcli.errors import JlgError

    out, err = io.StringIO(), io.StringIO()
    asker = unattended(err) if answers is None else typed(*answers, err=err)
    opts = DevOptions(
        command=str(options.pop("command", "run")),  # type: ignore[arg-type]
        directory=root,
        **options,  # type: ignore[arg-type]
    )
    try:
        result: object = execute_dev(opts, agent=agent, asker=asker, out=out, err=err)  # type: ignore[arg-type]
    except JlgError as exc:
        result = exc
    return result, out.getvalue(), err.getvalue()
