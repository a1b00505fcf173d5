"""``jlgcli backends --json``: the stable report (RG-005), as records
(``jlgcli.records``).

No pydantic here: this module is on the ``jlgcli backends`` start-up path
(issue 18). Its JSON Schema, ``docs/schemas/backends.schema.json``, comes from
the pydantic twin in ``jlgcli.backends.report_schema``; a test keeps the twin
and these records equal field for field.
"""

from __future__ import annotations

from jlgcli import records
from jlgcli.backends.base import Availability
from jlgcli.backends.registry import auto_select
from jlgcli.config.backend_ids import AUTO
from jlgcli.errors import ExitCode
from jlgcli.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from jlgcli.backends.base import AvailabilityStatus

NO_BACKEND_HINT = (
    "install and log in to one of them (see the hints above), or declare a command backend "
    'under "backends" in the config'
)


@record
class BackendEntry:
    """One backend's probe."""

    id: str
    status: AvailabilityStatus
    version: str | None
    path: str | None
    detail: str
    hint: str | None


@record
class ReportError:
    """Why the command failed (only when no backend is available)."""

    code: int
    message: str
    hint: str | None = None


@record
class BackendsReport:
    """The ``jlgcli backends --json`` object."""

    backends: list[BackendEntry]
    available: list[str]
    default: str | None
    configured: str | None
    error: ReportError | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON document (what ``--json`` prints), valid against the committed schema."""
        return records.asdict(self)


def build_report(availabilities: Iterable[Availability], configured: str | None) -> BackendsReport:
    """The report of these probes; ``error`` is set when none is available (exit 2)."""
    items = list(availabilities)
    available = [a.id for a in items if a.status == "available"]
    if configured in (None, AUTO):
        default = auto_select(items)
    else:
        default = configured if configured in available else None
    error = None
    if not available:
        error = ReportError(
            code=int(ExitCode.BACKEND_UNAVAILABLE),
            message="no backend available",
            hint=NO_BACKEND_HINT,
        )
    entries = [
        BackendEntry(
            id=a.id, status=a.status, version=a.version, path=a.path, detail=a.detail, hint=a.hint
        )
        for a in items
    ]
    return BackendsReport(
        backends=entries, available=available, default=default, configured=configured, error=error
    )
