"""Regular expressions compiled at their first use, not at import (issue 49).

Any module's pattern that a run may not need is made with ``lazy`` (bytes) or
``lazy_text`` (text).

The redaction rules hold ~50 patterns; compiling them all when ``artifacts.exact``
and ``artifacts.rules`` are imported cost ~20 ms of CPU in every ``jlgcli run``
before its agent call. Many are needed only on some inputs: the rules matched at a
Hyperscan candidate (long outputs only), the URL and PEM shapes (text holding
``://``), the command-line contexts (text naming ``curl``, ``mysql``…). A
``lazy`` pattern is compiled the first time one of its methods is called; from
then on its methods are the compiled pattern's own (bound into the instance), so
the rules run as fast as before. Its source may be a function too: the shapes
read through JSON escapes (``escapes.value_run``) cost ~2 ms to spell out.
``needs``: literals one of which every match holds; until the pattern is
compiled, a ``search`` (or ``finditer``) in text holding none of them answers
``None`` (no match) without compiling it, which is what the compiled pattern would
answer.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

Source = bytes | Callable[[], bytes]

_BOUND = ("match", "search", "finditer", "fullmatch", "findall", "sub", "subn", "split")


class LazyPattern:
    """``re.compile(pattern, flags)`` deferred to the first use of one of its methods."""

    def __init__(self, pattern: Source, flags: int = 0, needs: tuple[bytes, ...] = ()) -> None:
        self._source = pattern
        self._flags = flags
        self._needs = needs

    @property
    def pattern(self) -> bytes:
        """The pattern's source (spelled out now if it was given as a function)."""
        if callable(self._source):
            self._source = self._source()
        return self._source

    @property
    def compiled(self) -> bool:
        """Whether the pattern was compiled already (for tests and measurements)."""
        return "match" in self.__dict__

    def search(self, string: bytes, pos: int = 0, endpos: int = sys.maxsize) -> Any:
        """The compiled pattern's ``search``; ``None`` without compiling it when
        ``string`` holds none of the literals a match needs."""
        if self._cannot_match(string, pos, endpos):
            return None
        return self._compile().search(string, pos, endpos)

    def finditer(self, string: bytes, pos: int = 0, endpos: int = sys.maxsize) -> Any:
        """The compiled pattern's ``finditer``; no match without compiling it when
        ``string`` holds none of the literals a match needs."""
        if self._cannot_match(string, pos, endpos):
            return iter(())
        return self._compile().finditer(string, pos, endpos)

    def _cannot_match(self, string: bytes, pos: int, endpos: int) -> bool:
        """Not compiled yet, and ``string[pos:endpos]`` holds none of the needed literals."""
        return bool(self._needs) and not any(string.find(n, pos, endpos) >= 0 for n in self._needs)

    def __getattr__(self, name: str) -> Any:
        """Any other attribute (``match``, ``finditer``, ``groupindex``…): compile now."""
        if name.startswith("__"):  # copy, pickle and friends probe for dunders
            raise AttributeError(name)
        return getattr(self._compile(), name)

    def _compile(self) -> re.Pattern[bytes]:
        compiled = re.compile(self.pattern, self._flags)
        for name in _BOUND:  # later calls find them in the instance: no indirection
            self.__dict__[name] = getattr(compiled, name)
        return compiled


def lazy(pattern: Source, flags: int = 0, *, needs: tuple[bytes, ...] = ()) -> re.Pattern[bytes]:
    """A pattern that compiles itself at its first use (typed as the pattern it becomes)."""
    found: re.Pattern[bytes] = LazyPattern(pattern, flags, needs)  # type: ignore[assignment]
    return found


def lazy_text(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``lazy`` for a text pattern: a module's pattern that a run may never use (a failed
    start's messages, a Windows command line, a resumed run's ids) costs nothing until
    it is (issue 49: 26 of the 37 patterns a one-shot run compiled went unused)."""
    found: re.Pattern[str] = LazyPattern(pattern, flags)  # type: ignore[arg-type, assignment]
    return found
