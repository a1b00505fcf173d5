"""What the user asked for a run or a batch, kept in the user's own config folder (issue 44).

A resume must go on exactly as the run started: the same gates, backend (a
custom one from the user's config too), fallbacks, permissions and budgets.
Those are never read from the repository (``state.json`` is anyone's to
write); they are written here, next to ``started-runs.jsonl`` (what
``--resume latest`` reads), one JSON file per run or batch id under
``asked/``. A batch's tasks get their options the same way: the batch writes
each task's record here and the task's loop reads it (``loop --task-options``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

FOLDER = "asked"
_KEEP = 2000  # the newest records stay; older ones go as new ones come
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,159}")


def folder() -> Path:
    from jlgcli.config.paths import user_config_dir

    return user_config_dir() / FOLDER


def path_of(record_id: str) -> Path:
    """Where the record ``record_id`` (a run id, a batch id, ``<batch>.<task>``) is kept."""
    if not _ID.fullmatch(record_id):
        raise ValueError(f"not a record id: {record_id!r}")
    return folder() / f"{record_id}.json"


def save(record_id: str, data: dict[str, Any]) -> Path:
    """Write the record (atomically); raises ``OSError`` when the folder cannot be written."""
    from jlgcli.artifacts.atomic import atomic_write_text

    path = path_of(record_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    _prune(path.parent)
    return path


def load(record_id: str) -> dict[str, Any] | None:
    """The record ``record_id`` (None: none kept, or not readable as a JSON object)."""
    try:
        data = json.loads(path_of(record_id).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _prune(where: Path) -> None:
    """Keep the newest ``_KEEP`` records (a few hundred bytes each)."""
    try:
        files = list(where.glob("*.json"))
        if len(files) <= _KEEP:
            return
        files.sort(key=lambda item: item.stat().st_mtime)
        for old in files[: len(files) - _KEEP]:
            old.unlink(missing_ok=True)
    except OSError:  # another jlgcli pruned at the same time: nothing lost
        return
