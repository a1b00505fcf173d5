"""Who may ask the board (issue 52): the token, the Host header, and same-origin actions.

- Every request needs the token printed in the URL: once as ``?token=``, which
  the board trades for an HttpOnly, SameSite=Strict cookie (then redirects to
  the same page without it, so it stays out of the history), or that cookie.
  Other local users do not know it; other pages in the same browser cannot
  read the cookie nor send it along (SameSite=Strict).
- The Host header must be ``127.0.0.1:PORT`` or ``localhost:PORT``: a page
  whose name was rebound to 127.0.0.1 (DNS rebinding) sends its own name.
- An action is a POST with the page's form token (a keyed hash of the token,
  unknown to another site) and, when the browser says where it comes from,
  an ``Origin`` of the board itself.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie

TOKEN_PARAM = "token"  # noqa: S105 (the query parameter's name)
FORM_FIELD = "csrf"


@dataclass(frozen=True)
class Guard:
    """The board's secret and the names it answers to."""

    port: int
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))

    @property
    def cookie_name(self) -> str:
        # Cookies ignore ports: two boards on one machine keep their own.
        return f"jlgcli_board_{self.port}"

    @property
    def form_token(self) -> str:
        """What each action form carries (derived: the token itself never goes in a page)."""
        return hmac.new(self.token.encode(), b"jlgcli-board-form", hashlib.sha256).hexdigest()

    def host_ok(self, host: str | None) -> bool:
        """Only the loopback names of this port (no DNS rebinding)."""
        return host in (f"127.0.0.1:{self.port}", f"localhost:{self.port}")

    def origin_ok(self, origin: str | None, host: str) -> bool:
        """An action's ``Origin``: absent (not sent by the browser) or this board."""
        return origin is None or origin == f"http://{host}"

    def token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def form_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.form_token.encode())

    def cookie_ok(self, header: str | None) -> bool:
        """Whether the request's ``Cookie`` header carries this board's token."""
        if not header:
            return False
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(header)
        except CookieError:
            return False
        morsel = jar.get(self.cookie_name)
        return morsel is not None and self.token_ok(morsel.value)

    def set_cookie(self) -> str:
        """The ``Set-Cookie`` value handed out for a right ``?token=``."""
        return f"{self.cookie_name}={self.token}; HttpOnly; SameSite=Strict; Path=/"


def url(guard: Guard, host: str = "127.0.0.1") -> str:
    """The address to open: printed once, with the token."""
    return f"http://{host}:{guard.port}/?{TOKEN_PARAM}={guard.token}"
