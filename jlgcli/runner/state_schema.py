"""The schema of ``state.json``: what ``--resume`` accepts back from disk (issue 31).

A state file is input, like a user's file (DESIGN "state is input"): every
field is checked for its type and range before anything uses it, and a
damaged one stops with 65 naming the file and the field — never a crash, and
never a flag the user did not pass. Hand-written checks rather than pydantic:
``loop`` keeps pydantic off its path (start-up).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jlgcli.errors import ExitCode, JlgError

_HINT = "the state file is damaged: resume another run (jlgcli runs), or start the task again"
_MAX_TEXT = 10_000_000  # a task or report beyond this is not one jlgcli wrote

Check = Callable[[Any], bool]


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _number(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value >= 0
    )


def _text(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= _MAX_TEXT


def _optional(check: Check) -> Check:
    return lambda value: value is None or check(value)


def _known_cause(value: Any) -> bool:
    from jlgcli.runner.causes import CAUSES

    return isinstance(value, str) and value in CAUSES


# field → (check, what it must be)
_FIELDS: dict[str, tuple[Check, str]] = {
    "version": (lambda v: v == 1, "1"),
    "run_id": (_text, "a run id (text)"),
    "task": (_text, "the task (text)"),
    "prompt_source": (_text, "text"),
    "backend": (_text, "a backend id (text)"),
    "completion_mode": (_text, "text"),
    "options": (lambda v: isinstance(v, dict), "an object"),
    "iterations": (_whole, "a whole number ≥ 0"),
    "elapsed_ms": (_whole, "a whole number of milliseconds ≥ 0"),
    "cost_usd": (_optional(_number), "a number ≥ 0 or null"),
    "session_id": (_optional(_text), "text or null"),
    "session_backend": (_optional(_text), "a backend id or null"),
    "last_report": (_text, "text"),
    "stop_cause": (_optional(_known_cause), "a stop cause of jlgcli or null"),
    "metrics": (lambda v: isinstance(v, list), "a list of iteration records"),
    "started_at": (_optional(_text), "a time (text) or null"),
    "question": (_optional(_text), "text or null"),
    "answer": (_optional(_text), "text or null"),
}
REQUIRED = ("version", "run_id", "task", "backend", "options")  # what `jlgcli runs` needs
# What a resume cannot do without (ResumeState's fields without a default; a test holds it).
RESUME_REQUIRED = (*REQUIRED, "prompt_source", "completion_mode")

# The iteration records inside ``metrics`` (RunSummary's IterationMetrics).
_METRIC_FIELDS: dict[str, tuple[Check, str]] = {
    "index": (_whole, "a whole number ≥ 0"),
    "durationMs": (_whole, "a whole number ≥ 0"),
    "exitCode": (_optional(lambda v: isinstance(v, int) and not isinstance(v, bool)),
                 "a whole number or null"),
    "stopReason": (_text, "text"),
    "completion": (_text, "text"),
    "outputChars": (_whole, "a whole number ≥ 0"),
    "backend": (_optional(_text), "text or null"),
    "protocolViolation": (lambda v: isinstance(v, bool), "true or false"),
    "rateLimited": (lambda v: isinstance(v, bool), "true or false"),
    "costUsd": (_optional(_number), "a number ≥ 0 or null"),
    "sessionCostUsd": (_optional(_number), "a number ≥ 0 or null"),
    "inputTokens": (_optional(_whole), "a whole number ≥ 0 or null"),
    "outputTokens": (_optional(_whole), "a whole number ≥ 0 or null"),
    "summary": (_optional(_text), "text or null"),
    "next": (_optional(_text), "text or null"),
    "switchReason": (_optional(_text), "text or null"),
    "diffStat": (_optional(lambda v: isinstance(v, dict) and all(
        isinstance(k, str) and _whole(n) for k, n in v.items())), "an object of counts or null"),
    "gates": (lambda v: isinstance(v, list) and all(_gate(g) for g in v),
              "a list of gate results"),
}  # fmt: skip
_METRIC_REQUIRED = ("index", "durationMs", "stopReason", "completion", "outputChars")


def _gate(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and _text(value.get("command"))
        and "exitCode" in value
        and _optional(lambda v: isinstance(v, int) and not isinstance(v, bool))(
            value.get("exitCode")
        )
        and _whole(value.get("durationMs"))
        and isinstance(value.get("ok"), bool)
        and _text(value.get("outputTail", ""))
    )


def damaged(path: Path, what: str) -> JlgError:
    """The 65 of a damaged state file, naming the file and what is wrong in it."""
    return JlgError(ExitCode.INVALID_JSON, f"{path}: {what}", hint=_HINT)


def _shown(value: Any) -> str:
    """A value for a message: JSON, ASCII (no terminal control reaches the screen), bounded."""
    text = json.dumps(value, ensure_ascii=True, default=repr)
    return text if len(text) <= 60 else text[:59] + "…"


def validate_state(
    path: Path, data: Any, *, required: tuple[str, ...] = REQUIRED
) -> dict[str, Any]:
    """``data`` (parsed ``state.json``) checked field by field; raises 65 naming ``path``.

    Returns the known fields only (unknown keys are ignored, as for any record).
    """
    if not isinstance(data, dict):
        raise damaged(path, f"the top level must be an object, not {_shown(data)}")
    for key in required:
        if key not in data:
            raise damaged(path, f"field '{key}' is missing")
    known: dict[str, Any] = {}
    for key, (check, want) in _FIELDS.items():
        if key not in data:
            continue
        if not check(data[key]):
            raise damaged(path, f"field '{key}' must be {want}, not {_shown(data[key])}")
        known[key] = data[key]
    for number, item in enumerate(known.get("metrics", []), start=1):
        where = f"metrics[{number - 1}]"
        if not isinstance(item, dict):
            raise damaged(path, f"field '{where}' must be an iteration record, not {_shown(item)}")
        for key in _METRIC_REQUIRED:
            if key not in item:
                raise damaged(path, f"field '{where}.{key}' is missing")
        for key, (check, want) in _METRIC_FIELDS.items():
            if key in item and not check(item[key]):
                raise damaged(path, f"field '{where}.{key}' must be {want}, "
                                    f"not {_shown(item[key])}")  # fmt: skip
    return known


def _words(value: Any) -> bool:
    return isinstance(value, list) and all(_text(item) for item in value)


# The recorded options (config key → value) a resume reads or reports.
_OPTION_FIELDS: dict[str, tuple[Check, str]] = {
    "gates": (_words, "a list of commands (text)"),
    "fallback": (_words, "a list of backend ids (text)"),
    "permissions": (lambda v: v in ("read-only", "edit", "full"), "read-only, edit or full"),
    "cwd": (_text, "a folder (text)"),
    "session": (lambda v: v in ("fresh", "continue"), "fresh or continue"),
    "model": (_text, "a model name (text)"),
    "completionMode": (_text, "text"),
    "maxIterations": (_whole, "a whole number ≥ 0"),
    "timeoutMs": (_whole, "a whole number of milliseconds ≥ 0"),
    "idleTimeoutMs": (_whole, "a whole number of milliseconds ≥ 0"),
    "iterationTimeoutMs": (_whole, "a whole number of milliseconds ≥ 0"),
    "noProgressLimit": (_whole, "a whole number ≥ 0"),
    "maxCostUsd": (_number, "a number ≥ 0"),
}


def validate_options(path: Path, options: dict[str, Any]) -> dict[str, Any]:
    """The recorded options jlgcli knows, checked (null = not set); 65 naming ``options.key``."""
    known: dict[str, Any] = {}
    for key, (check, want) in _OPTION_FIELDS.items():
        value = options.get(key)
        if value is None:
            continue
        if not check(value):
            raise damaged(path, f"field 'options.{key}' must be {want}, not {_shown(value)}")
        known[key] = value
    return known


def shown(value: Any) -> str:
    """A recorded value as the resume notes show it (ASCII JSON, bounded)."""
    return _shown(value)
