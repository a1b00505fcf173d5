"""A login check beside a backend call, for CLIs that hang when logged out (issue 48).

``codex exec`` never fails fast without a login: 0.171.0 keeps printing
"Reconnecting... waiting for network" until it is stopped (backends.md §10), so
a run waited for its ``--timeout``. Checking the login before every call would
put ``codex login status`` (~0.15 s) on every logged-in user's critical path
(issue 34 took it off). Instead the check runs on a thread of its own while the
call starts; when it says "not logged in" the call is stopped and reads as an
auth failure (exit 6). A backend offers the check only where it is needed: not
when a key is set, nor when the credentials the status command reads are there.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

from jlgcli.backends.probing import AuthCheck, AuthVerdict, ProbeContext

CHECK_TIMEOUT_S = 10.0  # beside the call, a slow answer costs nothing but a thread


class LoginWatch:
    """``check`` run on a thread; ``on_missing`` is called when it says "not logged in"."""

    def __init__(
        self,
        executable: str,
        check: AuthCheck,
        on_missing: Callable[[], None],
        *,
        timeout: float = CHECK_TIMEOUT_S,
    ) -> None:
        self.verdict: AuthVerdict | None = None
        self._on_missing = on_missing
        self._ctx = ProbeContext(
            executable, time.monotonic() + timeout, os.environ, threading.Event()
        )
        self._thread = threading.Thread(
            target=self._run, args=(check,), name="login-watch", daemon=True
        )
        self._thread.start()

    def _run(self, check: AuthCheck) -> None:
        try:
            verdict = check(self._ctx)
        except BaseException as exc:  # stopped (``Interrupted`` by ``stop``) or failed: no
            # verdict, the call decides; nothing may escape a thread (its traceback is noise)
            verdict = AuthVerdict("unknown", f"the login check did not finish: {exc!r}")
        self.verdict = verdict
        stopped = self._ctx.cancel is not None and self._ctx.cancel.is_set()
        if verdict.state == "missing" and not stopped:
            self._on_missing()

    @property
    def missing(self) -> AuthVerdict | None:
        """The "not logged in" verdict, if the check gave one."""
        verdict = self.verdict
        return verdict if verdict is not None and verdict.state == "missing" else None

    def stop(self) -> None:
        """End the check (its process tree too) and wait for its thread."""
        if self._thread.is_alive():
            assert self._ctx.cancel is not None
            self._ctx.cancel.set()
            self._thread.join()
