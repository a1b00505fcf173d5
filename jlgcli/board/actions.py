"""What the board's buttons do, each through the code the CLI's command runs (issue 52).

An action gets the server (its project and runs root) and the posted form,
already checked by ``guard``; it returns (title, text, the page to go back to)
or raises ``JlgError`` as the command would. Form values are input: a run or
batch id is looked up among the recorded ones, never used as a path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from jlgcli.errors import ExitCode, JlgError

if TYPE_CHECKING:
    from pathlib import Path

    from jlgcli.board.data import BoardData

Outcome = tuple[str, str, str]


class Board(Protocol):
    """What an action reads of the server (``server.Board``, which imports this module)."""

    data: BoardData
    project: Path


def prune(server: Board, form: dict[str, str]) -> Outcome:
    """``jlgcli worktrees prune`` (never ``--force``: unmerged work stays)."""
    from jlgcli.batch import worktrees

    repo = worktrees.main_tree(server.project)
    if repo is None:
        raise JlgError(ExitCode.USAGE, f"{server.project} is not in a git repository",
                       hint="start the board in the repository where the batch ran")  # fmt: skip
    pruned = worktrees.prune(repo, worktrees.survey(repo, server.data.root), [])
    removed = ", ".join(pruned.removed) or "nothing"
    kept = "; ".join(f"{name} ({why})" for name, why in pruned.kept.items())
    return "Worktrees pruned", f"removed: {removed}" + (f". kept: {kept}" if kept else ""), "/"


def stop(server: Board, form: dict[str, str]) -> Outcome:
    """Stop a running loop, a batch's task or a run alone (``api.stop``)."""
    from jlgcli import api

    run_id = form.get("run", "")
    back = form.get("back", "/")
    api.stop(run_id, runs_dir=server.data.root)
    return "Stopping", f"run {run_id} was asked to stop: it writes its ending, then ends", back


def answer(server: Board, form: dict[str, str]) -> Outcome:
    """``jlgcli answer RUN`` for a parked run or batch task (``api.answer_in_background``)."""
    from urllib.parse import quote

    from jlgcli import api

    run_id = form.get("run", "")
    pid = api.answer_in_background(run_id, form.get("answer", ""), cwd=server.project,
                                   runs_dir=server.data.root)  # fmt: skip
    text = f"run {run_id} goes on with your answer (process {pid}; its output: answer.log)"
    return "Answered", text, form.get("back") or f"/run/{quote(run_id)}"


def retry(server: Board, form: dict[str, str]) -> Outcome:
    """``jlgcli loop --resume BATCH --retry-conflicts`` (``api.retry_conflicts``)."""
    from urllib.parse import quote

    from jlgcli import api

    batch_id = form.get("batch", "")
    pid = api.retry_conflicts(batch_id, cwd=server.project, runs_dir=server.data.root)
    text = (f"the conflicting tasks of {batch_id} run again on the merged result "
            f"(process {pid}; its output: the batch's retry.log)")  # fmt: skip
    return "Retrying", text, f"/batch/{quote(batch_id)}"


ACTIONS: dict[str, Callable[[Board, dict[str, str]], Outcome]] = {
    "answer": answer,
    "prune": prune,
    "retry": retry,
    "stop": stop,
}
