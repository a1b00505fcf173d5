"""What a batch's task changed: its branch's diff against where it started (issue 52).

Read with ``batch.gitops.git`` (argv, no shell, the kill ladder and time limit of
every git call of a batch). The record is input: the branch is derived from the
task's validated name (``jlgcli/<name>``), the start is used only when it is a full
commit id, and jlgcli's own folders are left out as a task's commit leaves them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

MAX_CHARS = 1_000_000  # a page shows the first megabyte of a diff
_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def task_diff(repo: Path | None, data: dict[str, Any], task_id: str) -> dict[str, Any]:
    """``{"task", "branch", "text", "note"}``: the diff of ``task_id``'s branch, or why not."""
    from jlgcli.batch.gitops import OWN_PATHS, branch_exists, git

    task = next((t for t in data["tasks"] if t["id"] == task_id), None)
    if task is None:
        return {"task": task_id, "branch": None, "text": "", "note": "no such task"}
    # three dots: what the branch did since it left the base (a later wave's start included)
    branch, start = task.get("branch"), data.get("base")
    shown = {"task": task_id, "branch": branch, "text": ""}
    if repo is None or not branch or not isinstance(start, str) or not _COMMIT.fullmatch(start):
        return {**shown, "note": "this task ran in place: it has no branch of its own"}
    if not branch_exists(repo, branch):
        note = "its branch is gone (merged, then removed, or pruned): see git log"
        return {**shown, "note": note}
    done = git(repo, "diff", "--no-color", "--no-ext-diff", f"{start}...{branch}", "--",
               ".", *OWN_PATHS, check=False)  # fmt: skip
    if not done.ok:
        return {**shown, "note": f"git diff failed: {done.stderr.strip()[:300]}"}
    text, note = done.stdout, ""
    if len(text) > MAX_CHARS:
        text, note = text[:MAX_CHARS], f"the first {MAX_CHARS:,} characters: git diff for all"
    return {**shown, "text": text, "note": note or ("" if text else "no change")}
