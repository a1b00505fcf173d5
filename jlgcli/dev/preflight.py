"""What the end of the loop needs, checked before the first agent call is paid for (issue 36).

Step 8 commits with git's identity, step 1 must be able to tell the task's
changes from what was there before, and steps 4 and 6 run the validation
commands. Each of these failing at the end wasted every agent call of the
task, so ``check_ready`` finds them all first and stops with exit 2
(configuration, FR-8.3), each problem with the command that fixes it.
"""

from __future__ import annotations

from pathlib import Path

from jlgcli.cmdline import split_command
from jlgcli.dev import plan_fields as pf
from jlgcli.dev.config import VALIDATION_KINDS, DevConfig
from jlgcli.dev.gitops import Git
from jlgcli.dev.plan import Task
from jlgcli.errors import DevExitCode, JlgError
from jlgcli.process.spawn import resolve_executable

IDENTITY_FIX = (
    'git config --global user.name "Your Name" && git config --global user.email you@example.com'
)
# (marker in the git directory, what is in progress, the command that ends it)
OPERATIONS: tuple[tuple[str, str, str], ...] = (
    ("MERGE_HEAD", "a merge", "git merge --continue (or git merge --abort)"),
    ("rebase-merge", "a rebase", "git rebase --continue (or git rebase --abort)"),
    ("rebase-apply", "a rebase or git am", "git rebase --continue (or git rebase --abort)"),
    ("CHERRY_PICK_HEAD", "a cherry-pick", "git cherry-pick --continue (or --abort)"),
    ("REVERT_HEAD", "a revert", "git revert --continue (or git revert --abort)"),
)


def command_problems(config: DevConfig, root: Path) -> list[tuple[str, str]]:
    """(problem, fix) for each configured validation command whose program is not found."""
    problems = []
    for kind in VALIDATION_KINDS:
        argv = split_command(getattr(config.validation.commands, kind))
        if not argv or _found(argv[0], root):
            continue
        problems.append(
            (
                f"validation.commands.{kind}: `{argv[0]}` is not found",
                f"install {argv[0]}, or change validation.commands.{kind} in the config",
            )
        )
    return problems


def _found(program: str, root: Path) -> bool:
    if resolve_executable(program) is not None:  # never the current folder (issue 47)
        return True
    has_dir = "/" in program or "\\" in program
    return has_dir and (root / program).is_file()


def git_problems(git: Git, task: Task | None) -> list[tuple[str, str]]:
    """(problem, fix) for a missing identity, an operation in progress, a dirty file in scope."""
    problems = []
    if not git.has_identity():
        problems.append(
            ("git has no identity to commit with (user.name, user.email)", IDENTITY_FIX)
        )
    git_dir = git.git_dir()
    for marker, what, fix in OPERATIONS:
        if (git_dir / marker).exists():
            problems.append((f"{what} is in progress in {git.root}", fix))
            break
    entries = git.status()
    unmerged = [e.path for e in entries if e.unmerged]
    if unmerged:
        problems.append(
            (
                f"unmerged files: {', '.join(unmerged[:5])}",
                "resolve them, then: git add <file> (or abort the merge)",
            )
        )
    if task is not None:
        scope = set(pf.reference_paths(task.fields.get("files_in_scope", "")))
        dirty = [e.path for e in entries if not e.untracked and e.path in scope]
        if dirty:
            listed = " ".join(dirty[:5])
            problems.append(
                (
                    f"files in scope of {task.id} have uncommitted changes: {listed} "
                    "(the task's commit could not tell them from the task's own)",
                    f"commit them, or put them aside: git stash push -- {listed}",
                )
            )
    return problems


def check_ready(git: Git, config: DevConfig, task: Task | None) -> None:
    """Raise ``JlgError`` (exit 2) listing every problem found, each with its fix."""
    problems = git_problems(git, task) + command_problems(config, git.root)
    if not problems:
        return
    lines = "\n".join(f"  - {problem}\n    fix: {fix}" for problem, fix in problems)
    raise JlgError(
        DevExitCode.CONFIGURATION,
        f"the task could not be committed at the end; nothing was started:\n{lines}",
        "fix the above, then run the same command again (no agent was called)",
    )
