"""CPython's cyclic garbage collector kept off start-up's objects (the console script only).

A one-shot ``jlgcli run`` imports about 75 of jlgcli's modules and 85 of the
standard library's: some 17,000 long-lived objects (classes, functions, compiled
patterns) and no cyclic garbage worth collecting. Left alone, the collector
traverses them all on each full collection while they are built, and again in
the collections of interpreter teardown: 10-25 ms of a ~160 ms run on a 2-core
machine (issue 18, ``benchmarks/oneshot.py``). So the console script

1. ``pause()``: collects nothing while the command starts (imports, parsing);
2. ``resume()``: once the command's module is imported, or before a command
   that may run long, moves what exists into the permanent generation
   (``gc.freeze``) and turns collection back on: later collections, every loop
   iteration's included, skip start-up's objects;
3. ``freeze_for_exit()``: freezes again, so teardown's collections skip
   everything.
4. ``exit_now(code)`` (the console scripts' own entries, never an in-process
   caller): what Python's exit does first, in its order — non-daemon threads
   joined, ``atexit`` handlers, ``sys.stdout`` and ``sys.stderr`` flushed (120 when
   stdout cannot be, as Python would) — then the process ends without the
   teardown that follows, which frees every module's objects one by one:
   ~2-3 ms of a one-shot ``jlgcli run`` (issue 49). Every file jlgcli writes is
   closed by the code that opened it (a ``with`` block), never by teardown.

Anything that calls ``jlgcli.cli.main`` or ``console_main`` in-process (tests,
Invoke tasks) never ends the process, and ``resume``/``freeze_for_exit`` leave its
collector as it was.
"""

import gc

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import NoReturn

__all__ = ["exit_now", "freeze_for_exit", "pause", "resume", "run_console"]

EXIT_FLUSH_FAILED = 120  # CPython's exit status when stdout cannot be flushed at exit

_paused: list[bool] = []  # [] until pause(); then [True] while paused, [False] after resume()


def pause() -> None:
    """Collect nothing until ``resume()`` (the console script, at its start)."""
    gc.disable()
    _paused[:] = [True]


def resume() -> None:
    """Freeze start-up's objects and collect again; a no-op unless ``pause()`` ran."""
    if _paused == [True]:
        gc.freeze()
        gc.enable()
        _paused[:] = [False]


def freeze_for_exit() -> None:
    """Freeze every object before teardown; a no-op unless ``pause()`` ran."""
    if _paused:
        gc.freeze()


def run_console(main: "Callable[[], int]") -> int:
    """A console script's ``main``: paused at the start, frozen before teardown."""
    pause()
    try:
        return main()
    finally:
        freeze_for_exit()


def exit_now(code: int, *, end: "Callable[[int], object] | None" = None) -> "NoReturn":
    """End the process with ``code`` after what Python's exit runs first, skipping the
    interpreter's teardown (the console scripts only; ``end`` is for tests)."""
    import atexit
    import os
    import sys
    import threading

    if sys.getprofile() is not None:  # ``python -m cProfile -m jlgcli``: its report at exit
        raise SystemExit(code)
    shutdown = getattr(threading, "_shutdown", None)  # joins non-daemon threads, as exit does
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            if stream is sys.stdout and code == 0:
                code = EXIT_FLUSH_FAILED
    (end or os._exit)(code)
    raise SystemExit(code)  # only reached when ``end`` returns (tests)
