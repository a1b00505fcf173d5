"""Task defaults from Invoke's config: ``jlgcli.<parameter>`` in invoke.yaml or the environment.

Invoke users expect a task's options to have defaults in the config under the
collection's name, with the same names as the task's parameters, and the
options on the command line to beat them (issue 38)::

    jlgcli:
      backend: codex
      max_iterations: 5
      args: "--artifacts"

Invoke maps ``INVOKE_JLGCLI_<NAME>`` variables only onto keys that already
have a default in the collection's config, which a ``tasks.py`` importing the
tasks directly does not declare: those variables are read here too. A key no
task knows is an error naming it, never silently ignored. Plain data, no Invoke
import: ``jlgcli.invoke_tasks`` passes the config in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jlgcli.errors import ExitCode, JlgError

SECTION = "jlgcli"
RUN_KEYS = ("task", "prompt", "backend", "timeout", "artifacts", "json", "args")
TASK_KEYS: dict[str, tuple[str, ...]] = {
    "run": RUN_KEYS,
    "loop": (*RUN_KEYS, "max_iterations", "completion"),
}
KNOWN_KEYS: tuple[str, ...] = TASK_KEYS["loop"]
BOOL_KEYS = frozenset({"artifacts", "json"})
_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off", "")


def task_defaults(
    command: str,
    settings: Mapping[str, Any] | None,
    environ: Mapping[str, str],
    env_prefix: str = "INVOKE",
) -> dict[str, Any]:
    """The defaults of ``command``'s options (``run`` or ``loop``) from ``jlgcli.*`` settings.

    ``settings`` is Invoke's ``jlgcli`` config section (invoke.yaml, the
    collection's defaults, variables Invoke mapped); ``environ`` adds the
    ``<PREFIX>_JLGCLI_<NAME>`` variables it did not map. Raises ``JlgError``
    (64) naming any unknown key or a value of the wrong type. Keys that only
    the other task takes (``max_iterations`` for ``run``) are left out.
    """
    section: Mapping[str, Any] = settings if settings is not None else {}
    values: dict[str, Any] = {str(key): section[key] for key in section}
    head = f"{env_prefix.upper().rstrip('_')}_{SECTION.upper()}_"  # Invoke's is "INVOKE_"
    for name, raw in environ.items():
        if name.upper().startswith(head):
            values.setdefault(name[len(head) :].lower(), raw)
    unknown = sorted(key for key in values if key not in KNOWN_KEYS)
    if unknown:
        names = ", ".join(f"{SECTION}.{key}" for key in unknown)
        raise JlgError(
            ExitCode.USAGE,
            f"unknown Invoke config key{'s' if len(unknown) > 1 else ''} {names} "
            f"(invoke.yaml or {head}<NAME>)",
            hint="the keys are the task's options: " + ", ".join(KNOWN_KEYS),
        )
    defaults: dict[str, Any] = {}
    for key in TASK_KEYS[command]:
        value = values.get(key)
        if value is None or value == "":
            continue
        defaults[key] = _as_bool(key, value) if key in BOOL_KEYS else _as_text(key, value)
    return defaults


def _as_bool(key: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    raise JlgError(ExitCode.USAGE, f"Invoke config {SECTION}.{key} must be true or false, "
                   f"not {value!r}", hint="e.g. artifacts: true")  # fmt: skip


def _as_text(key: str, value: object) -> str | int:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise JlgError(ExitCode.USAGE, f"Invoke config {SECTION}.{key} must be a string or a "
                       f"number, not {value!r}", hint="e.g. backend: codex")  # fmt: skip
    return value


def merged(given: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """The task's options: each one given on the command line beats its config default.

    ``task`` and ``prompt`` name the same file: either one on the command line
    replaces both of the config's.
    """
    result = dict(defaults)
    if given.get("task") or given.get("prompt"):
        result.pop("task", None)
        result.pop("prompt", None)
    for key, value in given.items():
        if value is not None and value is not False and value != "":
            result[key] = value
    return result
