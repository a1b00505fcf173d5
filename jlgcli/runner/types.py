"""Small shared types of the runner."""

from __future__ import annotations

from collections.abc import Callable

from jlgcli.runner.iteration import CallResult

# ``runner.iteration.call_backend`` or a test's stand-in.
Caller = Callable[..., CallResult]
