"""The documentation runs (issue 38): every shell and Python block of README.md and docs/*.md.

Each ```bash / ```sh / ```shell / ```python block is run in a sandbox: a temporary
working directory (holding ``task.md`` and ``prompt.md``) that is also HOME, the
fake agent CLIs first on PATH, then the installed ``jlgcli``/``invoke``/``pytest``.
A shell block runs under ``bash -e`` (it stops at the first failing command), a
Python block under this interpreter. Each must exit 0 unless its tag says
otherwise, print every marker its tag names, and print no traceback.

A block is tagged by an HTML comment on the line(s) just before it::

    <!-- doc-test: skip (needs the network: pip install) -->
    <!-- doc-test: exit 4; marker "max-iterations"; setup "jlgcli run prompt.md" -->

``skip (why)`` keeps a block from running and must say why; ``exit N`` is the
expected exit status; ``marker "TEXT"`` (repeatable) must appear in stdout or
stderr; ``setup "CMD"`` (repeatable) runs in the sandbox first, unseen;
``file NAME "TEXT"`` writes a file there first; ``reply "TEXT"`` is what the
fake agents answer (by default a reply that is done by the marker and the JSON
protocols); ``errexit off`` runs every line and takes the last one's status.
Untagged blocks run with the defaults, so a new block is tested the moment it
is written.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from support.cli import fake_script

ROOT = Path(__file__).parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = ("bash", "sh", "shell")
PYTHON = ("python", "py")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<lang>[\w+-]*)\s*$")
TAG = re.compile(r"<!--\s*doc-test:(?P<body>.*?)-->", re.DOTALL)
TIMEOUT_S = 60
TRACEBACK = "Traceback (most recent call last)"
# What the fake agents answer unless a tag says otherwise: done by the marker
# protocol (last line DONE) and by the JSON one (a status object).
DEFAULT_REPLY = 'Wrote hello.txt.\n{"status": "done", "summary": "wrote hello.txt"}\nDONE'


@dataclass
class Block:
    """One fenced code block and what its tag asks."""

    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    skip: str | None = None
    exit: int = 0
    markers: list[str] = field(default_factory=list)
    setup: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    errexit: bool = True
    reply: str = DEFAULT_REPLY

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT).as_posix()}:{self.line}"


def parse_tag(body: str, block: Block) -> None:
    """Apply one ``doc-test:`` comment to ``block``; an unknown word is an error."""
    for part in _parts(body):
        if not part:
            continue
        word, _, rest = part.partition(" ")
        rest = rest.strip()
        if word == "skip":
            why = rest.strip("()").strip()
            if not why:
                raise ValueError(f"{block.id}: 'skip' must say why: skip (reason)")
            block.skip = why
        elif word == "exit":
            block.exit = int(rest)
        elif word == "marker":
            block.markers.append(_one_string(rest, block))
        elif word == "setup":
            block.setup.append(_one_string(rest, block))
        elif word == "file":
            name, _, text = rest.partition(" ")
            block.files[name] = _one_string(text, block)
        elif word == "reply":
            block.reply = _one_string(rest, block)
        elif word == "errexit" and rest == "off":
            block.errexit = False
        else:
            raise ValueError(f"{block.id}: unknown doc-test word {part!r}")


def _parts(body: str) -> list[str]:
    """``body`` split at the ``;`` outside quotes and parentheses."""
    parts, current, quoted, depth = [], "", False, 0
    for char in body:
        if char == '"':
            quoted = not quoted
        elif not quoted and char in "()":
            depth += 1 if char == "(" else -1
        elif char == ";" and not quoted and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        current += char
    return [*parts, current.strip()]


def _one_string(text: str, block: Block) -> str:
    words = shlex.split(text)
    if len(words) != 1:
        raise ValueError(f"{block.id}: expected one quoted string, got {text!r}")
    return words[0].replace("\\n", "\n")


def blocks_of(path: Path) -> list[Block]:
    """The shell and Python blocks of one Markdown file, with their tags applied."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        end = index + 1
        closing = re.compile(rf"^\s*{re.escape(match['fence'])}\s*$")
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        lang = match["lang"].lower()
        if lang in SHELL + PYTHON:
            indent = len(match["indent"])
            code = "\n".join(line[indent:] for line in lines[index + 1 : end]) + "\n"
            block = Block(path, index + 1, lang, code)
            for body in _tags_before(lines, index):
                parse_tag(body, block)
            found.append(block)
        index = end + 1
    return found


def _tags_before(lines: list[str], index: int) -> list[str]:
    """The ``doc-test:`` comments on the non-blank lines right above line ``index``."""
    above: list[str] = []
    cursor = index - 1
    while cursor >= 0 and lines[cursor].strip() == "":
        cursor -= 1
    while cursor >= 0 and lines[cursor].strip().endswith("-->"):
        start = cursor
        while start >= 0 and "<!--" not in lines[start]:
            start -= 1
        above.insert(0, "\n".join(lines[start : cursor + 1]))
        cursor = start - 1
    return [m["body"] for text in above for m in TAG.finditer(text)]


ALL_BLOCKS = [block for path in DOCS for block in blocks_of(path)]


def test_the_docs_have_blocks_and_every_skip_says_why() -> None:
    assert len(ALL_BLOCKS) >= 20
    assert all(block.skip is None or block.skip.strip() for block in ALL_BLOCKS)
    assert sum(block.skip is None for block in ALL_BLOCKS) >= 10  # most of them run here


def test_the_tag_parser() -> None:
    block = Block(ROOT / "README.md", 1, "bash", "")
    parse_tag(' exit 4; marker "a b"; marker "c"; setup "x y"; file t.md "one\\ntwo"', block)
    assert (block.exit, block.markers, block.setup, block.files) == (
        4,
        ["a b", "c"],
        ["x y"],
        {"t.md": "one\ntwo"},
    )
    parse_tag('reply "still working"', block)
    assert block.reply == "still working"
    parse_tag("errexit off", block)
    assert not block.errexit
    parse_tag('skip (a; b "c"); marker "x;y"', block)
    assert (block.skip, block.markers[-1]) == ('a; b "c"', "x;y")
    for bad in ("skip", "skip ()", "frobnicate", 'marker "a" "b"'):
        with pytest.raises(ValueError):
            parse_tag(bad, block)


@pytest.mark.parametrize("block", ALL_BLOCKS, ids=lambda block: block.id)
def test_doc_block_runs(block: Block, tmp_path: Path) -> None:
    if block.skip is not None:
        pytest.skip(block.skip)
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir()
    (sandbox / "task.md").write_text("Write hello.txt, then say DONE.\n", encoding="utf-8")
    (sandbox / "prompt.md").write_text("Say hello.\n", encoding="utf-8")
    for name, text in block.files.items():
        target = sandbox / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    env = {**os.environ, **fake_script(tmp_path, {"text": block.reply})}
    # the fakes (conftest) stay first; then this Python's scripts: jlgcli, invoke, pytest, ruff
    fakes, _, rest = env["PATH"].partition(os.pathsep)
    env["PATH"] = os.pathsep.join([fakes, str(Path(sys.executable).parent), rest])
    env["HOME"] = str(sandbox)
    env["COLUMNS"] = "100"
    for command in block.setup:
        done = _run(["bash", "-c", command], sandbox, env)
        assert done.returncode == 0, f"setup {command!r} failed:\n{done.stdout}"
    if block.lang in SHELL:
        argv = ["bash", "-e" if block.errexit else "+e", "-c", block.code]
    else:
        argv = [sys.executable, "-c", block.code]
    done = _run(argv, sandbox, env)
    output = done.stdout
    where = f"{block.id} exited {done.returncode}, expected {block.exit}:\n{output[-3000:]}"
    if done.returncode != block.exit or TRACEBACK in output:
        pytest.fail(where, pytrace=False)
    missing = [marker for marker in block.markers if marker not in output]
    if missing:
        pytest.fail(f"markers {missing} missing: {where}", pytrace=False)


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # one stream, in order, for the failure message
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=TIMEOUT_S,
    )


def test_the_docs_pin_one_pre_commit_rev() -> None:
    """Issue 38: the README and docs/doors.md pinned different ``rev:``s of the hook."""
    from jlgcli._version import __version__

    pins = {
        (path.name, match)
        for path in DOCS
        for match in re.findall(r"^\s*rev:\s*(\S+)", path.read_text("utf-8"), re.MULTILINE)
    }
    assert pins and {rev for _, rev in pins} == {f"v{__version__}"}, pins
