"""A login check beside a backend call, for CLIs that hang when logged out (issue 48).

``codex exec`` never fails fast without a login: 0.171.0 keeps printing
"Reconnecting... waiting for network" until it is stopped (backends.md §10), so
a run waited for its ``--timeout``. Checking the login before every call would
put ``codex login status`` (~0.15 s) on every logged-in user's critical path
(issue 34 took it off). Instead the check runs on a thread of its own while the
call starts; when it says "not logged in" the call is stopped and reads as an
auth failure (exit 6). A backend offers the check only where it is needed: not
when a key is set, nor when the credentials the status command reads are there.

The check starts once the call has run for ``CHECK_DELAY_S``: a call that ended
sooner did not hang, and a check started with the call competed with the agent's
own start for the CPU and for the process layer's fork server, and then had to be
stopped when the call ended first (issue 49: ~5-20 ms of every one-shot run).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

from jlgcli.backends.probing import AuthCheck, AuthVerdict, ProbeContext

CHECK_TIMEOUT_S = 10.0  # beside the call, a slow answer costs nothing but a thread
CHECK_DELAY_S = 1.0  # the call runs this long before the check starts


class LoginWatch:
    """``check`` run on a thread; ``on_missing`` is called when it says "not logged in"."""

    def __init__(
        self,
        executable: str,
        check: AuthCheck,
        on_missing: Callable[[], None],
        *,
        timeout: float = CHECK_TIMEOUT_S,
        delay: float = CHECK_DELAY_S,
    ) -> None:
        self.verdict: AuthVerdict | None = None
        self._on_missing = on_missing
        self._executable = executable
        self._timeout = timeout
        self._delay = delay
        self._stopped = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(check,), name="login-watch", daemon=True
        )
        self._thread.start()

    def _run(self, check: AuthCheck) -> None:
        if self._stopped.wait(self._delay):  # the call ended first: nothing to check
            return
        ctx = ProbeContext(
            self._executable, time.monotonic() + self._timeout, os.environ, self._stopped
        )
        try:
            verdict = check(ctx)
        except BaseException as exc:  # stopped (``Interrupted`` by ``stop``) or failed: no
            # verdict, the call decides; nothing may escape a thread (its traceback is noise)
            verdict = AuthVerdict("unknown", f"the login check did not finish: {exc!r}")
        self.verdict = verdict
        if verdict.state == "missing" and not self._stopped.is_set():
            self._on_missing()

    @property
    def missing(self) -> AuthVerdict | None:
        """The "not logged in" verdict, if the check gave one."""
        verdict = self.verdict
        return verdict if verdict is not None and verdict.state == "missing" else None

    def stop(self) -> None:
        """End the check (its process tree too) and wait for its thread."""
        if self._thread.is_alive():
            self._stopped.set()
            self._thread.join()
