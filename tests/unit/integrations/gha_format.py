"""Reading $GITHUB_OUTPUT as the Actions runner does (shared by the door tests)."""

from __future__ import annotations


def parse_github_output(text: str) -> dict[str, str]:
    """Read a $GITHUB_OUTPUT file the way the Actions runner does (name=value, name<<DELIM)."""
    values: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        heredoc = line.find("<<")
        equals = line.find("=")
        if heredoc != -1 and (equals == -1 or heredoc < equals):
            name, delimiter = line[:heredoc], line[heredoc + 2 :]
            body: list[str] = []
            while lines[i] != delimiter:  # IndexError = unterminated heredoc: a test failure
                body.append(lines[i])
                i += 1
            i += 1
            values[name] = "\n".join(body)
        else:
            name, _, value = line.partition("=")
            values[name] = value
    return values
