"""Turn a configured validation command into an argv list, never through a shell.

A command is a list (used as is) or a string, split with POSIX ``shlex``
rules on macOS/Linux and with the Windows C runtime rules (the inverse of
``subprocess.list2cmdline``) on Windows, where ``shlex`` would eat the
backslashes of ``C:\\path``. Shell syntax (pipes, ``&&``, redirections) is not
interpreted: write a script for that.
"""

from __future__ import annotations

import os
import shlex

_SHELL_TOKENS = frozenset({"|", "||", "&&", ";", ">", ">>", "<", "2>", "2>&1", "&"})


def split_command(spec: str | list[str] | None, *, is_windows: bool = os.name == "nt") -> list[str]:
    """The argv of a configured command; ``[]`` when it is unset or empty."""
    if spec is None:
        return []
    if isinstance(spec, list):
        return [str(part) for part in spec]
    if not spec.strip():
        return []
    return split_windows(spec) if is_windows else shlex.split(spec, posix=True)


def shell_tokens(argv: list[str]) -> list[str]:
    """Words of ``argv`` that only a shell understands (reported, since no shell runs)."""
    return [word for word in argv if word in _SHELL_TOKENS]


def split_windows(command: str) -> list[str]:
    """Split like the Microsoft C runtime (``CommandLineToArgvW``).

    Whitespace separates words outside quotes; ``"`` toggles quoting; 2n
    backslashes before a quote give n backslashes and the quote toggles; 2n+1
    give n backslashes and a literal quote; other backslashes are literal.
    """
    args: list[str] = []
    word: list[str] = []
    in_word = False
    quoted = False
    i = 0
    while i < len(command):
        char = command[i]
        if char == "\\":
            run = len(command) - i - len(command[i:].lstrip("\\"))
            if i + run < len(command) and command[i + run] == '"':
                word.append("\\" * (run // 2))
                if run % 2:
                    word.append('"')
                    i += run + 1
                else:
                    i += run
                in_word = True
                continue
            word.append("\\" * run)
            i += run
            in_word = True
            continue
        if char == '"':
            # "" inside quotes is a literal quote (msvcrt 2008+ rule)
            if quoted and i + 1 < len(command) and command[i + 1] == '"':
                word.append('"')
                i += 2
                continue
            quoted = not quoted
            in_word = True
        elif char in " \t" and not quoted:
            if in_word:
                args.append("".join(word))
                word, in_word = [], False
        else:
            word.append(char)
            in_word = True
        i += 1
    if in_word:
        args.append("".join(word))
    return args
