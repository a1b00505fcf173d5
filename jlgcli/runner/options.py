"""RunOptions: what a door was asked for, and turning it into a RunSpec.

Every door (CLI, ``jlgcli.api``, Invoke, the Action, the hook, the dev loop)
fills a ``RunOptions`` — ``None`` meaning "not given" — and calls
``build_spec``. Settings then resolve in one place: options (flags) > env >
project config > user config > defaults (RG-001, RG-002). A door's own
defaults (e.g. Invoke's ``args`` string) are merged *under* its explicit
options with ``RunOptions.under``.
"""

from __future__ import annotations

from pathlib import Path

from jlgcli import records
from jlgcli.errors import ExitCode, JlgError
from jlgcli.records import record

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    from jlgcli.config.resolve import ResolvedSettings
    from jlgcli.runner.resume_options import Resumed
    from jlgcli.runner.spec import Command, RunSpec

FLAG_KEYS = {  # option field → config key
    "backend": "backend",
    "timeout": "timeoutMs",
    "idle_timeout": "idleTimeoutMs",
    "artifacts": "artifacts",
    "artifacts_dir": "artifactsDir",
    "transcript": "transcript",
    "verbosity": "verbosity",
    "max_iterations": "maxIterations",
    "iteration_timeout": "iterationTimeoutMs",
    "completion": "completionMode",
    "permissions": "permissions",
    "no_progress_limit": "noProgressLimit",
    "max_cost": "maxCostUsd",
}
LIST_KEYS = {"fallback": "fallback", "gates": "gates"}  # option field → config key (lists)


@record(slots=True)
class RunOptions:
    """Options of ``run``/``loop``; ``None``/empty means "not given: use the config"."""

    prompt: str | None = None  # a file path, or "-" for stdin
    prompt_text: str | None = None  # the prompt itself (API callers, the dev loop, the hook)
    backend: str | None = None
    model: str | None = None
    permissions: str | None = None
    cwd: str | None = None
    backend_args: tuple[str, ...] = ()
    timeout: str | int | None = None
    idle_timeout: str | int | None = None
    iteration_timeout: str | int | None = None
    max_iterations: str | int | None = None
    completion: str | None = None
    no_progress_limit: str | int | None = None
    session: str | None = None
    artifacts: bool | None = None
    artifacts_dir: str | None = None
    transcript: bool | None = None  # False: --no-transcript (issue 51)
    replay: str | None = None
    script_timeout: str | int | None = None
    ledger_dir: str | None = None
    verbosity: int | None = None
    fallback: tuple[str, ...] = ()
    gates: tuple[str, ...] = ()
    max_cost: str | float | None = None
    events: str | None = None
    notify: tuple[str, ...] = ()  # desktop | webhook:URL, repeatable (issue 51)
    resume: str | None = None
    answer: str | None = None  # ``jlgcli answer``: the user's answer to the parked question
    resumable: bool | None = None  # False: keep no resume state (the demo)
    no_gates: bool | None = None  # True: --no-gates, run without the gates config or a record gives
    # a batch's task (issue 44): handed down by the batch in this record, never by the environment
    batch_task: str | None = None  # the task's id in its batch (None: not a batch's task)
    shared_limits: str | None = None  # the folder of the batch's shared rate limits
    known_versions: tuple[tuple[str, str], ...] = ()  # (executable, "X.Y.Z") the batch probed

    def under(self, explicit: RunOptions) -> RunOptions:
        """These options with every field ``explicit`` gives replacing them (flags beat config)."""
        changes: dict[str, Any] = {}
        for item in records.fields(self):
            value = getattr(explicit, item.name)
            if value is not None and value != ():
                changes[item.name] = value
        return records.replace(self, **changes)

    @classmethod
    def from_namespace(cls, args: Any) -> RunOptions:
        """The options of a parsed ``run``/``loop`` command line (argparse namespace)."""
        values: dict[str, Any] = {}
        for item in records.fields(cls):
            value = getattr(args, _ARG_NAMES.get(item.name, item.name), None)
            if isinstance(value, list):  # --fallback a,b --fallback c: lists of lists
                value = tuple(
                    word for part in value for word in (part if isinstance(part, list) else [part])
                )
            if value is not None:
                values[item.name] = value
        return cls(**values)


_ARG_NAMES = {"backend_args": "backend_arg", "gates": "gate"}


def _cwd(raw: str | None) -> Path:
    if not raw:
        return Path.cwd()
    from jlgcli.input_limits import path_problem

    problem = path_problem(raw)  # an API caller's too: the flag's parser checked it already
    if problem is not None:
        raise JlgError(ExitCode.USAGE, f"--cwd: unusable path: {problem}",
                       hint="pass a shorter path")  # fmt: skip
    cwd = Path(raw).expanduser().resolve()
    if not cwd.is_dir():
        raise JlgError(ExitCode.USAGE, f"--cwd {raw} is not a directory",
                       hint="pass an existing directory")  # fmt: skip
    return cwd


def flag_settings(options: RunOptions) -> dict[str, Any]:
    """The config keys the options set, parsed and validated (exit 64 names the flag)."""
    from jlgcli.config.resolve import parse_flag_value

    parsed: dict[str, Any] = {}
    for name, key in FLAG_KEYS.items():
        value = getattr(options, name)
        if value is None:
            continue
        parsed[key] = value if key == "backend" else parse_flag_value(key, value)
    for name, key in LIST_KEYS.items():
        if getattr(options, name):
            parsed[key] = list(getattr(options, name))  # backends: checked with custom ones
    if options.notify:
        parsed["notify"] = parse_flag_value("notify", list(options.notify))
    if options.no_gates:
        if options.gates:
            raise JlgError(ExitCode.USAGE, "--no-gates and --gate contradict each other",
                           hint="give the gates with --gate, or --no-gates alone")  # fmt: skip
        parsed["gates"] = []
    if options.max_cost is not None and not parsed["maxCostUsd"]:
        raise JlgError(ExitCode.USAGE, "--max-cost must be more than 0",
                       hint="example: --max-cost 2.50")  # fmt: skip
    return parsed


def notify_targets(settings: ResolvedSettings) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The notification targets, and a note when the project file's are set aside.

    A project file's targets would send the run's summary where the repository
    says: they apply once the file is trusted (``jlgcli config trust``), like
    its gates; until then the user's own config file's targets apply.
    """
    from jlgcli.config.trust import TRUSTED

    targets = tuple(settings["notify"])
    if settings.sources.get("notify") != "project" or settings.project_trust == TRUSTED:
        return targets, ()
    from jlgcli.config.keys import lookup_key
    from jlgcli.config.resolve import read_config_file, user_config_file
    from jlgcli.config.spec import ValueProblemError

    spec = lookup_key("notify")
    assert spec is not None
    try:
        own = tuple(spec.parse(read_config_file(user_config_file(), "user").get("notify", [])))
    except (JlgError, ValueProblemError):  # the user's file was validated already; be safe
        own = ()
    note = (f"the notify targets of {settings.project_file} are ignored until it is trusted "
            "(review it, then: jlgcli config trust)")  # fmt: skip
    return own, (note,)


def _resumed(options: RunOptions) -> tuple[RunOptions, Resumed]:
    """``--resume``: the recorded task and session under the options given now (flags win);
    what else is read back and what is not: ``runner.resume_options``."""
    from jlgcli.runner.resume_options import resumed_options

    return resumed_options(options, runs_root_of(options))


def runs_root_of(options: RunOptions) -> Path:
    """The runs folder these options name: ``artifactsDir`` (flag, env, config) under the
    project root of their ``cwd``."""
    from jlgcli.artifacts.project import under_project
    from jlgcli.config.resolve import resolve_settings

    cwd = _cwd(options.cwd)
    flags = flag_settings(RunOptions(artifacts_dir=options.artifacts_dir))
    root = Path(resolve_settings(cwd=cwd, flags=flags).values["artifactsDir"])
    return under_project(root, cwd)


def _resume_notes(
    resumed: Resumed, values: dict[str, Any], cwd: Path, model: str | None
) -> tuple[str, ...]:
    """What a resume says at its start: the settings applied again, and the recorded ones
    not read back that differ from what applies now (issue 49: no news is no note)."""
    from jlgcli.runner.resume_options import differing_notes

    now = {key: values.get(key) for key in ("gates", "permissions", "fallback", "completionMode")}
    return differing_notes(resumed, {**now, "cwd": str(cwd), "model": model})


def build_spec(options: RunOptions, command: Command) -> tuple[RunSpec, int]:
    """The RunSpec of these options (flags > env > project > user > defaults) and the verbosity."""
    from jlgcli.config.resolve import parse_flag_value, resolve_settings
    from jlgcli.prompts import Prompt, read_prompt
    from jlgcli.runner.spec import RunSpec

    resumed = None
    if options.resume is not None:
        if command != "loop":
            raise JlgError(ExitCode.USAGE, "--resume continues a loop run",
                           hint="use: jlgcli loop --resume latest")  # fmt: skip
        options, resumed = _resumed(options)
    cwd = _cwd(options.cwd)
    flags = flag_settings(options)
    settings = resolve_settings(cwd=cwd, flags=flags)
    values = settings.values
    if resumed is not None:  # a recorded limit tightens the config's, never a flag's
        from jlgcli.runner.resume_options import stricter

        for key, limit in resumed.limits.items():
            if key not in flags:
                values[key] = stricter(key, values[key], limit)
    custom = tuple(settings.custom_backends)
    if "backend" in flags:  # validated here, now that custom backends are known
        values["backend"] = parse_flag_value("backend", flags["backend"], custom)
    fallbacks = tuple(parse_flag_value("fallback", values["fallback"], custom))
    # flags, env and user config are the user's own; `run` never runs gates (issue 31);
    # rebound mode from a project file runs the model's scripts: it needs trust (issue 33)
    project_gates = command == "loop" and settings.sources.get("gates") == "project"
    sandbox_keys = ("completionMode", "reboundIsolation", "reboundNetwork")
    if project_gates or any(settings.sources.get(key) == "project" for key in sandbox_keys):
        from jlgcli.config.resolve import require_trusted_gates

        require_trusted_gates(settings, gates=project_gates)
    notify, notify_notes = notify_targets(settings)
    from jlgcli.runner.notify import shown_target

    gates = tuple(values["gates"])
    max_cost = values["maxCostUsd"] or None
    if options.prompt_text is not None:
        prompt = Prompt(text=options.prompt_text, source=options.prompt or "(text)")
    elif options.prompt is not None:
        prompt = read_prompt(options.prompt, max_bytes=values["maxPromptBytes"])
    else:
        raise JlgError(ExitCode.USAGE, "no prompt file given",
                       hint="pass the task file, e.g. jlgcli loop task.md")  # fmt: skip
    from jlgcli.durations import parse_duration_flag

    script_timeout = (
        parse_duration_flag("--script-timeout", options.script_timeout) / 1000
        if options.script_timeout is not None
        else 60.0
    )
    session = options.session or "fresh"
    from jlgcli.runner.options_record import asked, to_json

    spec = RunSpec(
        command=command,
        prompt=prompt,
        backend=values["backend"],
        cwd=cwd,
        completion_mode=values["completionMode"],
        max_iterations=values["maxIterations"],
        timeout_ms=values["timeoutMs"],
        iteration_timeout_ms=values["iterationTimeoutMs"],
        idle_timeout_ms=values["idleTimeoutMs"],
        no_progress_limit=values["noProgressLimit"],
        session_mode=session,  # type: ignore[arg-type]
        model=options.model,
        permissions=values["permissions"],
        extra_args=tuple(options.backend_args),
        artifacts=values["artifacts"],
        artifacts_dir=Path(values["artifactsDir"]),
        transcript=values["transcript"],
        replay_dir=Path(options.replay).resolve() if options.replay else None,
        custom_backends=settings.custom_backends,
        options={key: values[key] for key in sorted(values)}
        | {
            "model": options.model,
            "permissions": values["permissions"],
            "session": session,
            "backendArgs": len(options.backend_args),
            "fallback": list(fallbacks),
            "gates": list(gates),
            "maxCostUsd": max_cost,
            "cwd": str(cwd),
            "notify": [shown_target(target) for target in notify],  # a webhook's path is a token
        },
        script_timeout_s=script_timeout,
        rebound_isolation=values["reboundIsolation"],
        rebound_network=values["reboundNetwork"],
        ledger_dir=Path(options.ledger_dir).resolve() if options.ledger_dir else None,
        fallbacks=fallbacks,
        gates=gates,
        max_cost_usd=max_cost,
        events_path=options.events,
        notify=notify,
        notify_limit_wait_s=values["notifyLimitWaitMs"] / 1000,
        resume=resumed.state if resumed is not None else None,
        answer=options.answer if resumed is not None else None,
        notes=(_resume_notes(resumed, values, cwd, options.model) if resumed else ())
        + notify_notes,
        resumable=options.resumable is not False,
        asked=to_json(asked(options, values, session)),
        batch_task=options.batch_task,
        shared_limits=Path(options.shared_limits) if options.shared_limits else None,
        known_versions=options.known_versions,
    )
    return spec, int(values["verbosity"])
