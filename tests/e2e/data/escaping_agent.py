"""A fake agent whose descendants try to outlive it (issue 14 containment tests).

Usage: ``escaping_agent.py MODE PIDDIR [PROMPT_FILE]``. It reads the prompt
(from PROMPT_FILE when given, else stdin), then
starts two grandchildren that ignore SIGINT/SIGTERM/SIGHUP/SIGQUIT and sleep:
one stays in the agent's process group, one leaves it with ``setsid`` (a
daemon). Each writes its pid to PIDDIR (atomically) before the agent goes on;
the agent writes ``agent.pid`` last, so that file means "all pids are known".
MODE ``hang``: print a line, then sleep (until stopped). MODE ``done``: print
``DONE`` and exit 0, leaving both grandchildren behind. With
``ESCAPING_AGENT_CLEANED_DAEMON=TOKEN:MARKER`` in its environment it also starts
``cleaned_daemon.py TOKEN MARKER`` (a daemon without jlgcli's mark, issue 33).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

GRANDCHILD = (
    "import os, signal, sys, time\n"
    "for name in ('SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'):\n"
    "    if hasattr(signal, name):\n"
    "        signal.signal(getattr(signal, name), signal.SIG_IGN)\n"
    "tmp = sys.argv[1] + '.tmp'\n"
    "with open(tmp, 'w') as f: f.write(str(os.getpid()))\n"
    "os.replace(tmp, sys.argv[1])\n"
    "time.sleep(300)\n"
)


def _spawn(pidfile: Path, *, detach: bool) -> None:
    subprocess.Popen(
        [sys.executable, "-c", GRANDCHILD, str(pidfile)],
        stdin=subprocess.DEVNULL,
        start_new_session=detach,
    )
    while not pidfile.exists():  # the pid must be known before the agent goes on
        time.sleep(0.005)


def _publish(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def main() -> int:
    mode, piddir = sys.argv[1], Path(sys.argv[2])
    if len(sys.argv) > 3:
        Path(sys.argv[3]).read_text(encoding="utf-8")
    else:
        sys.stdin.read()
    _spawn(piddir / "grandchild.pid", detach=False)
    _spawn(piddir / "daemon.pid", detach=True)
    cleaned = os.environ.get("ESCAPING_AGENT_CLEANED_DAEMON")
    if cleaned:
        token, marker = cleaned.split(":", 1)
        daemon = Path(__file__).with_name("cleaned_daemon.py")
        subprocess.run([sys.executable, str(daemon), token, marker], check=True)
    _publish(piddir / "agent.pid", str(os.getpid()))
    if mode == "done":
        print("all done\nDONE", flush=True)
        return 0
    print("working", flush=True)
    time.sleep(300)
    return 0


if __name__ == "__main__":
    sys.exit(main())
