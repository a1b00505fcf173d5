"""``jlgcli __complete SHELL N WORD…``: what the completion scripts ask at every TAB.

The scripts (``jlgcli completion SHELL``) pass the ``N`` words before the one under
the cursor, then that one; the answer is one ``word<TAB>description`` per line
(bash: the word alone), a last line ``:files`` when paths fit there too. What is
offered comes from ``complete_words``: the real parser and the current config.
"""

from __future__ import annotations

from jlgcli.commands.completion import SHELLS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from jlgcli.commands.complete_words import Reply

ENTRY = "__complete"  # the hidden command the scripts call
FILES = ":files"  # the last line when paths fit the word under the cursor


def complete_entry(arguments: Sequence[str], cwd: Path | None = None) -> str:
    """The answer to ``jlgcli __complete SHELL N WORD…`` (what the scripts read)."""
    if len(arguments) < 2 or arguments[0] not in SHELLS or not arguments[1].isdigit():
        return ""
    shell, count = arguments[0], int(arguments[1])
    words = list(arguments[2 : 2 + count])
    rest = arguments[2 + count :]
    current = rest[0] if rest else ""  # PowerShell drops an empty last argument
    reply = _bash_reply(words, current, cwd) if shell == "bash" else _reply(words, current, cwd)
    lines = [word if shell == "bash" or not text else f"{word}\t{_one_line(text)}"
             for word, text in reply.offers]  # fmt: skip
    if reply.files:
        lines.append(FILES)
    return "".join(line + "\n" for line in lines)


def _reply(words: list[str], current: str, cwd: Path | None) -> Reply:
    from jlgcli.commands.complete_words import complete

    return complete(words, current, cwd)


def _bash_reply(words: list[str], current: str, cwd: Path | None) -> Reply:
    """bash breaks words at ``=`` (COMP_WORDBREAKS): complete the joined word, then offer
    only the part after the break, which is what bash replaces."""
    joined = current
    if current == "=" and words and words[-1].startswith("--"):
        words, joined = words[:-1], words[-1] + "="
    elif len(words) >= 2 and words[-1] == "=" and words[-2].startswith("--"):
        words, joined = words[:-2], words[-2] + "=" + current
    reply = _reply(words, joined, cwd)
    cut = len(joined) - len(current)
    reply.offers = [(word[cut:], text) for word, text in reply.offers]
    return reply


def _one_line(text: str) -> str:
    return " ".join(text.split())
