"""Lexical safety of paths the model names (artifact paths, ``target_script``).

Pure functions over strings: nothing here touches the filesystem (the
symlink-resolving half lives in ``sandbox.py`` and ``artifacts.py``).

The rules are the same on every OS on purpose: a project written on Linux is
checked out on Windows tomorrow, so a name that is dangerous or ambiguous on
Windows (``CON``, ``a:b``, ``name.``, ``GIT~1``, a backslash) is refused
everywhere (REQ_AUTO_040, DESIGN.md "Windows first"). The one real OS
difference, case-insensitive comparison of already-resolved paths, is
``path_within`` with an injected ``is_windows``.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from pathlib import PurePath

from jlgcli.records import record

IS_WINDOWS = sys.platform == "win32"

MAX_PATH_CHARS = 1024
MAX_COMPONENT_BYTES = 255

# Device names Windows resolves in every directory, with any extension (CON.txt).
_RESERVED = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$"}
    | {f"{dev}{n}" for dev in ("COM", "LPT") for n in (*"0123456789", "¹", "²", "³")}
)
_WINDOWS_FORBIDDEN = frozenset('<>:"|?*')
_DRIVE = re.compile(r"^[A-Za-z]:")
# 8.3 short-name aliases (GIT~1 is .git on NTFS: CVE-2014-9390).
_SHORT_NAME = re.compile(r"~\d")
# Names the model may never write, at any depth and in any case (issue 15): git's
# directory and jlgcli's own files (a written .jlgcli.json would pick the backend and
# the commands of the user's next plain run; .jlgcli/runs/<id>/ would forge run records).
_PROTECTED_COMPONENTS = frozenset({".git", ".jlgcli", ".jlgcli.json", ".aidevloop"})
_PROTECTED_PREFIXES = (".aidevloop.",)


@record
class PathVerdict:
    """The verdict on one path: its normalised components, or why it is refused."""

    raw: str
    parts: tuple[str, ...] = ()
    reason: str | None = None  # None when accepted

    @property
    def ok(self) -> bool:
        return self.reason is None

    @property
    def relpath(self) -> str:
        """The normalised path with ``/`` separators (empty when refused)."""
        return "/".join(self.parts)


def check_relative_path(raw: str) -> PathVerdict:
    """Accept ``raw`` only as a plain relative path that cannot leave its root.

    Refused: empty, NUL/control/format characters, absolute (``/x``, ``\\x``),
    UNC and device paths (``\\\\srv\\share``, ``//srv``, ``\\\\?\\``), drive
    letters (``C:``, ``C:x``), any ``:`` (alternate data streams), ``~``
    home prefixes, ``..`` and dots-only components, trailing dots/spaces
    (Windows drops them), Windows-forbidden characters, reserved device names
    (``CON``, ``nul.txt``, ``COM1``), 8.3 short-name aliases, anything inside
    ``.git``, and components whose Unicode compatibility form (NFKC) is any of
    these (fullwidth ``．．``). ``\\`` is a separator, ``.`` and empty
    components are dropped.
    """
    refused = _whole_path_problem(raw)
    if refused:
        return PathVerdict(raw, reason=refused)
    parts = tuple(p for p in re.split(r"[/\\]", raw) if p not in ("", "."))
    if not parts:
        return PathVerdict(raw, reason="empty path")
    for part in parts:
        problem = component_problem(part)
        if problem:
            return PathVerdict(raw, reason=f"{problem}: {part!r}")
    return PathVerdict(raw, parts=parts)


def _whole_path_problem(raw: str) -> str | None:
    if not raw.strip():
        return "empty path"
    if len(raw) > MAX_PATH_CHARS:
        return f"path longer than {MAX_PATH_CHARS} characters"
    if "\x00" in raw:
        return "NUL byte in path"
    if any(_is_control(ch) for ch in raw):
        return "control or invisible character in path"
    if raw[:2] in ("\\\\", "//", "\\/", "/\\"):
        return "UNC or device path (absolute)"
    if raw[0] in "/\\":
        return "absolute path"
    if _DRIVE.match(raw):
        return "drive letter (absolute or drive-relative path)"
    if raw.startswith("~"):
        return "home-relative path (~)"
    return None


def _is_control(ch: str) -> bool:
    # Cc: C0/C1 controls; Cf: zero-width and bidi marks HFS+ ignores in names.
    return unicodedata.category(ch) in ("Cc", "Cf")


def component_problem(part: str) -> str | None:
    """Why one path component is unsafe, or None; checked as given and in NFKC form."""
    for form in dict.fromkeys((part, unicodedata.normalize("NFKC", part))):
        problem = _raw_component_problem(form)
        if problem:
            return problem if form == part else f"{problem} (after Unicode normalisation)"
    return None


def _raw_component_problem(part: str) -> str | None:
    if set(part) == {"."}:
        return "parent directory (..)" if part == ".." else "dots-only name"
    if "/" in part or "\\" in part:
        return "separator look-alike"
    if part != part.rstrip(". "):
        return "trailing dot or space (Windows drops it)"
    if part != part.lstrip(" "):
        return "leading space"
    if any(ch in _WINDOWS_FORBIDDEN for ch in part):
        return 'character not allowed on Windows (<>:"|?*)'
    if part.split(".", 1)[0].rstrip(" ").upper() in _RESERVED:
        return "reserved Windows device name"
    if _SHORT_NAME.search(part):
        return "8.3 short-name alias (~N)"
    protected = protected_name(part)
    if protected:
        return protected
    if len(part.encode("utf-8")) > MAX_COMPONENT_BYTES:
        return f"name longer than {MAX_COMPONENT_BYTES} bytes"
    return None


def protected_name(part: str) -> str | None:
    """Why ``part`` is a name the model may never write (git's or jlgcli's own), or None.

    Compared case-insensitively (NTFS and APFS are) and without the trailing
    dots and spaces Windows drops (``.GIT.``, ``.jlgcli.json ``); 8.3 short names
    and alternate data streams are refused by the other component rules.
    """
    folded = unicodedata.normalize("NFKC", part).rstrip(". ").casefold()
    if folded == ".git":
        return "inside .git"
    if folded in _PROTECTED_COMPONENTS or folded.startswith(_PROTECTED_PREFIXES):
        return f"jlgcli's own file or directory ({folded})"
    return None


def protected_parts(parts: tuple[str, ...]) -> str | None:
    """Why a resolved relative path (its components) lands on a protected name, or None."""
    for part in parts:
        problem = protected_name(part)
        if problem:
            return problem
    return None


def path_within(child: PurePath, parent: PurePath, *, strict: bool, is_windows: bool) -> bool:
    """Whether resolved ``child`` is inside resolved ``parent`` (``strict``: and not equal).

    Both must be absolute and already resolved; Windows compares
    case-insensitively because NTFS does (``C:\\P\\x`` is inside ``c:\\p``).
    """
    c_parts = [_fold(p, is_windows) for p in child.parts]
    p_parts = [_fold(p, is_windows) for p in parent.parts]
    if c_parts[: len(p_parts)] != p_parts:
        return False
    return len(c_parts) > len(p_parts) if strict else True


def _fold(part: str, is_windows: bool) -> str:
    return part.casefold() if is_windows else part
