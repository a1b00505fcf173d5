"""Tasks on a GitHub Actions matrix (issue 37): plan, publish a task's branch, gather.

- ``plan``: ``jlgcli matrix TASK...`` → ``{"include": [{"task", "id", "branch"}…]}``,
  the ``strategy.matrix`` of a fan-out job (also written as the ``matrix``
  step output when ``GITHUB_OUTPUT`` is set).
- ``publish`` (the Action, after a loop that ended done): the task's changes
  committed on its branch, then pushed (``publish: push``) or written as a git
  bundle for ``actions/upload-artifact`` (``publish: bundle``).
- ``gather``: ``jlgcli matrix --gather TASK...`` in the gather job: each task's
  branch (fetched, or unbundled) is merged with the same evidence rule as
  ``loop --merge`` (rebase, gates again, fast-forward), in the matrix's order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from jlgcli.batch import gitops
from jlgcli.batch.record import BatchRecord, TaskRecord, new_batch_id, task_name
from jlgcli.batch.setup import check_tasks
from jlgcli.errors import ExitCode, JlgError

_BRANCH_RE = re.compile(r"jlgcli/[a-z0-9][a-z0-9._-]{0,47}")


def plan(tasks: list[str], root: Path) -> dict[str, Any]:
    """The matrix of these task files: paths relative to ``root`` (POSIX), ids, branches."""
    include = []
    taken: set[str] = set()
    for raw, path in zip(tasks, check_tasks(tasks), strict=True):
        try:
            relative = PurePosixPath(path.relative_to(root.resolve()).as_posix())
        except ValueError:
            raise JlgError(
                ExitCode.USAGE,
                f"{raw} is outside {root}",
                hint="the matrix jobs check out the repository: give tasks in it",
            ) from None
        name = task_name(path, taken)
        include.append({"task": str(relative), "id": name, "branch": f"jlgcli/{name}"})
    return {"include": _in_waves(include, [root / job["task"] for job in include])}


def _in_waves(include: list[dict[str, Any]], paths: list[Path]) -> list[dict[str, Any]]:
    """The jobs in dependency waves (issue 44), each with its ``wave`` and ``dependsOn``
    when a task has a ``depends-on``; else as given. 64 on an unknown id or a cycle."""
    from jlgcli.batch.waves import read_dependencies, waves

    record = BatchRecord(batchId="", base=None, target=None, merge=False, isolated=False)
    record.tasks = [TaskRecord(name=job["id"], task=job["task"]) for job in include]
    read_dependencies(record, paths)
    depends = {task.name: task.dependsOn for task in record.tasks}
    if not any(depends.values()):
        return include
    by_id = {job["id"]: job for job in include}
    ordered = []
    for number, wave in enumerate(waves([job["id"] for job in include], depends)):
        for name in wave:
            ordered.append({**by_id[name], "wave": number, "dependsOn": depends[name]})
    return ordered


def publish(env: Mapping[str, str], cwd: Path) -> dict[str, str]:
    """Commit the done task's changes on its branch; push it or bundle it. The outputs."""
    branch = env.get("JLG_BRANCH", "").strip()
    mode = env.get("JLG_PUBLISH", "").strip() or "push"
    if not _BRANCH_RE.fullmatch(branch):
        raise JlgError(
            ExitCode.USAGE,
            f"branch {branch!r} is not a jlgcli task branch",
            hint="pass the matrix's branch: branch: ${{ matrix.branch }}",
        )
    if mode not in ("push", "bundle"):
        raise JlgError(ExitCode.USAGE, f"publish {mode!r}: use push or bundle")
    if env.get("JLG_EXIT_CODE", "").strip() != "0":
        return {"published": "false"}  # only a task that ended done comes back
    gitops.git(cwd, "switch", "--quiet", "-C", branch)
    gitops.commit_all(cwd, f"jlgcli: {branch.removeprefix('jlgcli/')} done")
    if mode == "push":
        gitops.git(
            cwd, "push", "--quiet", "--force-with-lease", "origin", f"HEAD:refs/heads/{branch}"
        )
        return {"published": "true", "branch": branch}
    bundle = Path(env.get("RUNNER_TEMP") or cwd) / f"{branch.replace('/', '-')}.bundle"
    gitops.git(cwd, "bundle", "create", str(bundle), branch)
    return {"published": "true", "branch": branch, "bundle": str(bundle)}


def gather(tasks: list[str], repo: Path, gates: tuple[str, ...]) -> BatchRecord:
    """Merge each task's branch (present locally) with evidence, in the matrix's order."""
    from jlgcli.artifacts.project import require_own_folder
    from jlgcli.batch.finish import merge_one
    from jlgcli.batch.setup import WORKTREES, repository, worktree_of

    repository(repo, jobs=None, merge=True)  # a clean tree on a branch, or 64
    record = BatchRecord(
        batchId=new_batch_id(),
        base=gitops.head(repo),
        target=gitops.current_branch(repo),
        merge=True,
        isolated=True,
    )
    for entry in plan(tasks, repo)["include"]:
        task = TaskRecord(name=entry["id"], task=entry["task"], branch=entry["branch"])
        record.tasks.append(task)
        if not gitops.branch_exists(repo, task.branch):
            task.mergeNote = (
                f"no branch {task.branch} (merged already, or the task did not finish done)"
            )
            continue
        task.exitCode, task.committed = 0, True
        require_own_folder(repo / WORKTREES)  # issue 46
        (repo / WORKTREES).mkdir(parents=True, exist_ok=True)
        ignore = repo / WORKTREES / ".gitignore"
        if not ignore.exists():
            ignore.write_text("*\n", "utf-8")
        worktree = worktree_of(repo, task.name)
        if not worktree.exists():  # left by an earlier gather (a conflict): used again
            gitops.git(repo, "worktree", "add", "--quiet", str(worktree), task.branch)
        merge_one(repo, record, task, gates)
    return record


def matrix_json(matrix: dict[str, Any]) -> str:
    return json.dumps(matrix, separators=(",", ":"))
