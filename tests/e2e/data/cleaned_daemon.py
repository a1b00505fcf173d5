"""Start a daemon that carries nothing of jlgcli (issue 33 containment tests).

Usage: ``cleaned_daemon.py TOKEN MARKER [agent]``. Double-forks, ``setsid``s,
and ``execve``s ``env -i python -c SLEEPER TOKEN MARKER``: the daemon has no
parent of ours, no group or session of ours and an empty environment (no
``JLGCLI_TREE`` mark). It ignores SIGTERM/SIGHUP/SIGINT and writes MARKER once
it runs; TOKEN in its argv lets the test find it by command line. The parent
waits for MARKER, so the daemon is known to exist before it returns; with
``agent`` it also reads stdin and prints ``DONE`` (a command backend's reply).
"""

from __future__ import annotations

import os
import sys
import time

SLEEPER = (
    "import signal, sys, time\n"
    "for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):\n"
    "    signal.signal(s, signal.SIG_IGN)\n"
    "open(sys.argv[2], 'w').close()\n"
    "time.sleep(300)\n"
)


def main() -> int:
    token, marker = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3:
        sys.stdin.read()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            argv = ["env", "-i", sys.executable, "-c", SLEEPER, token, marker]
            os.execv("/usr/bin/env", argv)
        os._exit(0)
    while not os.path.exists(marker):
        time.sleep(0.01)
    print("daemon started\nDONE", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
