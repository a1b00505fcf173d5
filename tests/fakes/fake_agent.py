"""A generic fake program for the process-layer tests (on PATH as ``fake-agent``).

Each flag reproduces one behaviour of a real agent CLI that the transports
must survive: floods, silence, hangs, ignored signals, grandchildren that
outlive the child and keep the pipe open, invalid or split UTF-8, a refusal
to run without a terminal, and a small TUI that queries the cursor position
and stalls until it is answered. ``READY`` is printed when a test needs a
point to synchronise on. Actions run in the order of the flags below.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time

OUT = sys.stdout.buffer
_STOP = False  # set by the graceful SIGINT handler of --slow-lines


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.require_tty and not os.isatty(0):
        print("stdin is not a terminal", flush=True)
        return 1
    if args.ignore_signals:
        _ignore_signals()
    if args.spawn_grandchild:
        _spawn_grandchild(args.spawn_grandchild, ignore=args.ignore_signals, detach=args.detach)
    if args.tui:
        return _tui(args.exit)
    if args.echo_stdin:
        while chunk := sys.stdin.buffer.read1(65536):
            _write(chunk)
    if args.invalid_utf8:
        _write(b"bad bytes: \xff\xfe\xc3( end\n")
    if args.split_multibyte:
        _split_multibyte()
    if args.print_mb:
        _flood(args.print_mb)
    if args.slow_lines:
        _slow_lines(args.slow_lines, args.interval, args.record)
        if _STOP:
            return 130
    if args.silent_after_ready or args.hang or args.spawn_grandchild:
        _write(b"READY\n")
    if args.silent_after_ready or args.hang:
        _sleep_forever()
    return int(args.exit)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fake-agent")
    p.add_argument("--require-tty", action="store_true", help="exit 1 unless stdin is a tty")
    p.add_argument("--ignore-signals", action="store_true", help="ignore SIGINT/SIGTERM/SIGHUP")
    p.add_argument("--spawn-grandchild", metavar="PIDFILE", help="leave a grandchild on stdout")
    p.add_argument("--detach", action="store_true", help="the grandchild leaves our session")
    p.add_argument("--tui", action="store_true", help="a small TUI (needs a tty)")
    p.add_argument("--echo-stdin", action="store_true", help="copy stdin to stdout")
    p.add_argument("--invalid-utf8", action="store_true", help="write invalid UTF-8")
    p.add_argument("--split-multibyte", action="store_true", help="split UTF-8 chars over writes")
    p.add_argument("--print-mb", type=float, default=0, metavar="N", help="write N MiB")
    p.add_argument("--slow-lines", type=int, default=0, metavar="N", help="write N numbered lines")
    p.add_argument("--interval", type=float, default=0.01, help="seconds between slow lines")
    p.add_argument("--record", metavar="FILE", help="append what --slow-lines wrote to FILE")
    p.add_argument("--silent-after-ready", action="store_true", help="READY, then silence")
    p.add_argument("--hang", action="store_true", help="READY, then hang forever")
    p.add_argument("--exit", type=int, default=0, metavar="N", help="exit status")
    return p


def _write(data: bytes) -> None:
    OUT.write(data)
    OUT.flush()


def _ignore_signals() -> None:
    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)


def _spawn_grandchild(pidfile: str, *, ignore: bool, detach: bool) -> None:
    """A grandchild that inherits stdout and sleeps for an hour.

    It stays in our process group unless ``detach`` (then it starts its own
    session, like codex's background ``app-server`` daemon, backends.md §3).
    """
    code = (
        "import os, signal, sys, time\n"
        + (
            "for s in ('SIGINT', 'SIGTERM', 'SIGHUP'):\n"
            "    signal.signal(getattr(signal, s), signal.SIG_IGN)\n"
            if ignore
            else ""
        )
        + "tmp = sys.argv[1] + '.tmp'\n"
        "with open(tmp, 'w', encoding='utf-8') as f: f.write(str(os.getpid()))\n"
        "os.replace(tmp, sys.argv[1])\n"
        "try:\n"
        "    time.sleep(3600)\n"
        "except KeyboardInterrupt:\n"
        "    os._exit(130)\n"
    )
    subprocess.Popen(
        [sys.executable, "-c", code, pidfile], stdin=subprocess.DEVNULL, start_new_session=detach
    )
    while not os.path.exists(pidfile):  # the pid must be known before the child goes on
        time.sleep(0.005)


def _split_multibyte() -> None:
    # Each character's bytes go out in separate writes with a pause between,
    # so a reader sees a chunk boundary inside the character.
    for char in "é€😀":
        encoded = char.encode("utf-8")
        for i in range(len(encoded)):
            _write(encoded[i : i + 1])
            time.sleep(0.02)
    _write(b"\n")


def _flood(mib: float) -> None:
    line = b"x" * 63 + b"\n"
    block = line * (1024 * 1024 // len(line))  # 1 MiB
    total = int(mib * 1024 * 1024)
    while total > 0:
        piece = block if total >= len(block) else block[:total]
        OUT.write(piece)
        total -= len(piece)
    OUT.flush()


def _slow_lines(count: int, interval: float, record: str | None) -> None:
    def stop(_signum: int, _frame: object) -> None:
        global _STOP
        _STOP = True

    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, stop)  # finish the current line, then exit 130
    log = open(record, "ab") if record else None  # noqa: SIM115 - closed below
    try:
        for i in range(count):
            if _STOP:
                break
            data = f"line {i:06d}\n".encode()
            _write(data)
            if log is not None:
                log.write(data)
                log.flush()
            if i == 0:
                _write(b"READY\n")
                if log is not None:
                    log.write(b"READY\n")
                    log.flush()
            time.sleep(interval)
    finally:
        if log is not None:
            log.close()


def _sleep_forever() -> None:
    while True:
        time.sleep(3600)


def _tui(status: int) -> int:
    """Colours, a \\r spinner, cursor/device queries that stall until answered, a prompt."""
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setraw(fd)
    try:
        _write(b"\x1b[?1049h\x1b[1;32mfake-agent TUI\x1b[0m\r\n")
        for frame in "|/-\\":
            _write(f"\r{frame} loading".encode())
        _write(b"\x1b[6n")
        _read_until(fd, b"R")
        _write(b"\x1b[c")
        _read_until(fd, b"c")
        _write(b"\r\n\x1b[1mREADY\x1b[0m\r\n> ")
        prompt = _read_line(fd)
        _write(f"\r\n\x1b[36mYou said: {prompt}\x1b[0m\r\nDONE\r\n> ".encode())
        while True:
            command = _read_line(fd)
            if command in ("/exit", None):
                _write(b"\r\nbye\r\n\x1b[?1049l")
                return status
            _write(f"\r\nunknown: {command}\r\n> ".encode())
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _read_until(fd: int, end: bytes) -> bytes:
    data = b""
    while not data.endswith(end):
        byte = os.read(fd, 1)
        if not byte:
            break
        data += byte
    return data


def _read_line(fd: int) -> str | None:
    data = b""
    while True:
        byte = os.read(fd, 1)
        if byte in (b"", b"\x04") and not data:
            return None
        if byte in (b"\r", b"\n", b""):
            return data.decode("utf-8", errors="replace")
        data += byte


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # a polite SIGINT: exit like a CLI does, without a traceback
        sys.exit(130)
