"""The agent of ``fanout.py``: a ``claude -p --output-format stream-json`` call that takes
``FANOUT_DELAY`` seconds and says, every ``FANOUT_TICK`` seconds meanwhile, the wall-clock
time it wrote that line at (``tick <epoch seconds>``), so the benchmark can time each line
from the agent to jlgcli's events. The events are the ones ``tests/fakes/claude.py`` writes
(system init, assistant text, result with a cost; research/backends.md §2-§3); the task
(``fanout: NAME`` in the prompt) gets a file ``NAME``, then ``DONE``. Standard library
only, run with ``python -S``: it starts in ~20 ms like the suite's fakes.
"""

import json
import os
import sys
import time

VERSION = "2.1.197"


def emit(event: dict) -> None:  # type: ignore[type-arg]
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def text(sid: str, words: str) -> None:
    message = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": words}]}
    emit({"type": "assistant", "session_id": sid, "message": message})


def main(argv: list[str]) -> int:
    if argv[:1] == ["--version"]:
        sys.stdout.write(f"{VERSION} (Claude Code)\n")
        return 0
    prompt = sys.stdin.read()
    _, _, rest = prompt.partition("fanout:")
    name = (rest.split() or ["unnamed"])[0]
    delay = float(os.environ.get("FANOUT_DELAY", "2"))
    tick = float(os.environ.get("FANOUT_TICK", "0.1"))
    started = time.time()
    sid = f"fanout-{name}-{os.getpid()}"
    emit({"type": "system", "subtype": "init", "cwd": os.getcwd(), "session_id": sid,
          "model": "claude-sonnet-4-5", "claude_code_version": VERSION})  # fmt: skip
    end = started + delay
    while True:
        now = time.time()
        if now >= end:
            break
        time.sleep(min(tick, end - now))
        text(sid, f"tick {time.time():.6f}")
    with open(name, "w", encoding="utf-8") as handle:
        handle.write(name + "\n")
    text(sid, f"{name} done\nDONE")
    emit({"type": "result", "subtype": "success", "is_error": False, "num_turns": 1,
          "result": f"{name} done\nDONE", "session_id": sid, "total_cost_usd": 0.0123,
          "duration_ms": int((time.time() - started) * 1000),
          "usage": {"input_tokens": 12, "output_tokens": 7}})  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
