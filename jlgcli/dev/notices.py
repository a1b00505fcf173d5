"""Warnings about the project's setup, shown once per project (FR-8.1, issue 36).

A missing optional document or an unset validation command is worth saying
once, not on every ``run`` and ``resume``: the notices shown are remembered
in ``.jlgcli/dev/notices.json`` (ignored by git) and only new ones are
shown again. ``--verbose`` shows them all, every time.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from jlgcli.dev.config import VALIDATION_KINDS, DevConfig
from jlgcli.dev.project import ProjectPaths

FORMAT = 1


def unset_commands(config: DevConfig) -> list[str]:
    """One notice per validation command the config leaves unset (that step is skipped)."""
    commands = config.validation.commands
    return [
        f"validation.commands.{kind} is not set; {kind} is skipped"
        for kind in VALIDATION_KINDS
        if not getattr(commands, kind)
    ]


def shown_before(paths: ProjectPaths) -> list[str]:
    """The notices remembered for this project (none when the file is missing or not ours)."""
    try:
        data = json.loads(paths.notices.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return []
    shown = data.get("shown")
    return [str(item) for item in shown] if isinstance(shown, list) else []


def to_show(paths: ProjectPaths, notices: Sequence[str], *, verbose: bool) -> list[str]:
    """The notices to print now: the new ones, or all of them in verbose mode."""
    if verbose:
        return list(notices)
    seen = set(shown_before(paths))
    return [notice for notice in notices if notice not in seen]


def remember(paths: ProjectPaths, notices: Sequence[str]) -> None:
    """Remember ``notices`` as shown (once ``context/`` exists; a failure only repeats them)."""
    from jlgcli.artifacts.atomic import atomic_write_json

    if list(notices) == shown_before(paths) or not paths.context.is_dir():
        return
    try:
        folder = paths.notices.parent
        folder.mkdir(parents=True, exist_ok=True)
        if not (folder / ".gitignore").exists():  # this machine's state: never in git
            (folder / ".gitignore").write_text("# created by jlgcli: local state\n*\n", "utf-8")
        atomic_write_json(paths.notices, {"format": FORMAT, "shown": list(notices)})
    except OSError:
        return
