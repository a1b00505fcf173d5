"""Failover (issue 16): the primary backend, then ``--fallback`` ones, and the way back.

When the current backend is rate-limited past the run's remaining time, or
out of quota/credit, the next iteration goes to the next fallback (fresh
session, task restated). Once the primary's stated reset has passed, later
iterations return to it. Fallbacks are probed when first needed; one that
cannot run is skipped with a note.
"""

from __future__ import annotations

from collections.abc import Callable

from jlgcli.backends.base import Availability
from jlgcli.records import field, record

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.backends.base import Backend


@record(frozen=False, slots=True)
class BackendChain:
    """The backends a run may use, in order, and which one is current."""

    primary: Backend
    primary_availability: Availability
    fallback_ids: tuple[str, ...]
    open_backend: Callable[[str], tuple[Backend, Availability] | str]
    current: Backend = field(init=False)
    availability: Availability = field(init=False)
    _next_fallback: int = 0
    _primary_back_at: float | None = None
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.current = self.primary
        self.availability = self.primary_availability

    @property
    def has_fallback(self) -> bool:
        """A fallback is left to try (it may still turn out unusable when opened)."""
        return self._next_fallback < len(self.fallback_ids)

    @property
    def resumes_sessions(self) -> bool:
        """Whether the current backend can continue a session by its id (issue 34).

        A backend names the first version that can in ``resume_since`` (gemini 0.61);
        one that does not say can. With no known version it is assumed to.
        """
        since = getattr(self.current, "resume_since", None)
        if since is None:
            return True
        from jlgcli.backends.common import parse_version

        version = parse_version(self.availability.version or "")
        return version is None or version >= since

    @property
    def on_primary(self) -> bool:
        return self.current is self.primary

    def switch(self, back_at: float | None) -> str | None:
        """Move to the next usable fallback; returns its id, or None when none is left."""
        if self.on_primary:
            self._primary_back_at = back_at
        while self._next_fallback < len(self.fallback_ids):
            name = self.fallback_ids[self._next_fallback]
            self._next_fallback += 1
            opened = self.open_backend(name)
            if isinstance(opened, str):
                self.notes.append(f"fallback {name} skipped: {opened}")
                continue
            self.current, self.availability = opened
            return self.current.id
        return None

    def back_to_primary(self, now: float) -> bool:
        """Return to the primary once its reset time has passed; True when it did."""
        if self.on_primary or self._primary_back_at is None or now < self._primary_back_at:
            return False
        self.current, self.availability = self.primary, self.primary_availability
        self._primary_back_at = None
        self._next_fallback = 0
        return True
