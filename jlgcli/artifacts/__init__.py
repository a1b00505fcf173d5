"""Run artifacts: run ids, atomic writes, redaction, the transcript and the run directory (F-006).

Importing this package is cheap (stdlib only). ``jlgcli.artifacts.atomic``,
``.ids`` and ``.redact`` can also be imported on their own by other subsystems.
"""

from jlgcli.artifacts.atomic import atomic_write_bytes, atomic_write_json, atomic_write_text
from jlgcli.artifacts.ids import coerce_run_id, is_safe_run_id, new_run_id, run_id_time
from jlgcli.artifacts.listing import (
    INCOMPLETE,
    UNREADABLE,
    IterationFiles,
    RunDetail,
    RunInfo,
    list_runs,
    load_run,
    read_run,
)
from jlgcli.artifacts.redact import MASK, Redactor, StreamRedactor, is_secret_name
from jlgcli.artifacts.rundir import DEFAULT_ROOT, RunDirectory, default_root
from jlgcli.artifacts.transcript import TranscriptSink, json_escape_utf8

__all__ = [
    "DEFAULT_ROOT",
    "INCOMPLETE",
    "MASK",
    "UNREADABLE",
    "IterationFiles",
    "Redactor",
    "RunDetail",
    "RunDirectory",
    "RunInfo",
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
    "list_runs",
    "load_run",
    "new_run_id",
    "read_run",
    "run_id_time",
]
