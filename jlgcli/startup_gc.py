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
   everything. Nothing else about exit changes: ``atexit`` handlers, stream
   flushes, thread joins and finalizers all run as usual.

Anything that calls ``jlgcli.cli.main`` in-process (tests, Invoke tasks) never
pauses, and ``resume``/``freeze_for_exit`` leave its collector as it was.
"""

import gc

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["freeze_for_exit", "pause", "resume", "run_console"]

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
