"""Issue 32: a child's output is redacted where it enters jlgcli, before any sink sees it.

``run_invocation(..., filters=Redactor().stream)`` over a pipe and a pty: a key
written in two halves (two writes, flushed, with a pause the reader sees), a key
after a JSON ``\\n`` escape and an ANSI-wrapped key reach no sink, while the text
around them does; the last partial line comes out at the end of the stream.
"""

from __future__ import annotations

import sys

import pytest

from jlgcli.artifacts.redact import Redactor
from jlgcli.process import run_invocation
from jlgcli.process.model import Invocation, Limits, OutputEvent

KEY = "sk-ant-api03-" + "IngressKey0123456789ABCDEFabcdefGHIJ"
CHILD = f"""
import sys, time
key = {KEY!r}
sys.stdout.write("before " + key[:15]); sys.stdout.flush(); time.sleep(0.2)
sys.stdout.write(key[15:] + " after\\n")
sys.stdout.write('{{"text":"line\\\\n' + key + '"}}\\n')
sys.stdout.write("\\x1b[31m" + key + "\\x1b[0m\\n")
sys.stderr.write("err -" + key + "\\n"); sys.stderr.flush()
sys.stdout.write("tail without newline")
"""


@pytest.mark.parametrize("transport", ["pipe", "pty"] if sys.platform != "win32" else ["pipe"])
def test_sinks_only_ever_see_redacted_bytes(transport: str) -> None:
    events: list[OutputEvent] = []
    outcome = run_invocation(
        Invocation((sys.executable, "-c", CHILD), transport=transport),  # type: ignore[arg-type]
        limits=Limits(total_timeout=30),
        sinks=(events.append,),
        filters=Redactor(environ={}).stream,
    )
    assert outcome.exit_code == 0
    seen = b"".join(event.data for event in events).decode()
    assert KEY[15:30] not in seen and KEY[:15] not in seen
    assert "before [REDACTED] after" in seen
    assert "tail without newline" in seen and "err -[REDACTED]" in seen
    assert seen.count("[REDACTED]") == 4
    assert all(event.redacted for event in events)  # the transcript writes them as they are


def test_without_filters_the_bytes_are_as_written() -> None:
    events: list[OutputEvent] = []
    run_invocation(
        Invocation((sys.executable, "-c", CHILD)),
        limits=Limits(total_timeout=30),
        sinks=(events.append,),
    )
    assert KEY in b"".join(event.data for event in events).decode()
    assert not any(event.redacted for event in events)


WRAPPING_CHILD = f"""
import sys, time
key = {KEY!r}
line = "the key is " + key + " and then some prose to follow it"
width = int(sys.argv[1])
for at in range(0, len(line), width):  # a program wrapping at the terminal's width
    sys.stdout.write(line[at : at + width] + "\\n"); sys.stdout.flush(); time.sleep(0.1)
sys.stdout.write("DONE\\n")
"""


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pty")
def test_a_key_hard_wrapped_at_the_pty_width_is_masked_whole() -> None:
    # issue 43: the tail of a key wrapped onto the next line leaked
    width = 20
    events: list[OutputEvent] = []
    argv = (sys.executable, "-c", WRAPPING_CHILD, str(width))
    run_invocation(
        Invocation(argv, transport="pty", dimensions=(40, width)),
        limits=Limits(total_timeout=30),
        sinks=(events.append,),
        filters=Redactor(environ={}).stream,
    )
    seen = b"".join(event.data for event in events).decode()
    assert not [part for part in (KEY[:12], KEY[12:24], KEY[24:36], KEY[-8:]) if part in seen]
    assert seen.endswith("DONE\r\n") and "some prose" in seen
