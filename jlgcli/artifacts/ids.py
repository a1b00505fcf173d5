"""Run ids: time-sortable, Windows-safe names for run directories (F-006, RG-015).

An id looks like ``20261122T023015Z-3f9a1c``: the UTC start second (basic ISO
8601, so no ``:`` that Windows forbids in file names) and 6 random hex digits.
Ids sort by time as plain strings, which is what ``jlgcli runs`` relies on.
Stdlib only: this module is imported on cheap paths.
"""

from __future__ import annotations

import os
import threading

from jlgcli.lazy_re import lazy_text
from jlgcli.moments import datetime, timezone

_STAMP_FORMAT = "%Y%m%dT%H%M%SZ"
_ID_RE = lazy_text(r"(\d{8}T\d{6}Z)-[0-9a-f]{6}")
# What any run directory name must look like to be accepted as given (RG-015):
# ASCII letters, digits, '.', '_', '-'; starts with a letter or digit; bounded.
_SAFE_RE = lazy_text(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_WINDOWS_DEVICES = frozenset(
    ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
    + [f"{dev}{n}" for dev in ("COM", "LPT") for n in "123456789"]
)

# Suffixes already handed out for the current second, so two ids made by this
# process in the same second never collide (random alone would, rarely).
_lock = threading.Lock()
_issued_stamp = ""
_issued: set[str] = set()


def new_run_id(now: datetime | None = None) -> str:
    """A new run id for ``now`` (default: the current UTC time), unique within this process."""
    global _issued_stamp
    moment = datetime.now(timezone.utc) if now is None else now
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    stamp = moment.strftime(_STAMP_FORMAT)
    with _lock:
        if stamp != _issued_stamp:
            _issued_stamp = stamp
            _issued.clear()
        while True:
            suffix = os.urandom(3).hex()
            if suffix not in _issued:
                _issued.add(suffix)
                return f"{stamp}-{suffix}"


def run_id_time(run_id: str) -> datetime | None:
    """The UTC time encoded in a run id made by ``new_run_id``, or ``None``."""
    match = _ID_RE.fullmatch(run_id)
    if match is None:
        return None
    return datetime.strptime(match.group(1), _STAMP_FORMAT).replace(tzinfo=timezone.utc)


def is_safe_run_id(name: str) -> bool:
    """Whether ``name`` is usable as a directory name on every OS (RG-015)."""
    if not _SAFE_RE.fullmatch(name) or name.endswith(".") or ".." in name:
        return False
    # Windows refuses device names even with an extension ("nul.txt").
    return name.split(".", 1)[0].upper() not in _WINDOWS_DEVICES


def coerce_run_id(name: str | None) -> str:
    """``name`` when it is a safe id, else a fresh one (F-006: "invalid run name → safe id")."""
    if name is not None and is_safe_run_id(name):
        return name
    return new_run_id()
