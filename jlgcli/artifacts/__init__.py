"""Run artifacts: run ids, atomic writes, redaction, the transcript and the run directory (F-006).

Names are loaded on first use (PEP 562), so ``import jlgcli.artifacts.atomic``
(config writes) or ``.ids`` costs only that module: nothing here imports the
process layer or pydantic.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    from jlgcli.artifacts.atomic import atomic_write_bytes, atomic_write_json, atomic_write_text
    from jlgcli.artifacts.ids import coerce_run_id, is_safe_run_id, new_run_id, run_id_time
    from jlgcli.artifacts.layout import DEFAULT_ROOT, default_root
    from jlgcli.artifacts.project import project_root, under_project
    from jlgcli.artifacts.redact import MASK, Redactor, StreamRedactor, is_secret_name
    from jlgcli.artifacts.rundir import RunDirectory
    from jlgcli.artifacts.transcript import TranscriptSink, json_escape_utf8

_WHERE = {
    "atomic": ("atomic_write_bytes", "atomic_write_json", "atomic_write_text"),
    "ids": ("coerce_run_id", "is_safe_run_id", "new_run_id", "run_id_time"),
    "layout": ("DEFAULT_ROOT", "default_root"),
    "project": ("project_root", "under_project"),
    "redact": ("MASK", "Redactor", "StreamRedactor", "is_secret_name"),
    "rundir": ("RunDirectory",),
    "transcript": ("TranscriptSink", "json_escape_utf8"),
}  # fmt: skip
_MODULE_OF = {name: module for module, names in _WHERE.items() for name in names}

__all__ = [
    "DEFAULT_ROOT",
    "MASK",
    "Redactor",
    "RunDirectory",
    "StreamRedactor",
    "TranscriptSink",
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_text",
    "coerce_run_id",
    "default_root",
    "is_safe_run_id",
    "is_secret_name",
    "json_escape_utf8",
    "new_run_id",
    "project_root",
    "run_id_time",
    "under_project",
]


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
