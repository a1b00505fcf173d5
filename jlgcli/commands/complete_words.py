"""What a TAB offers at one place of a jlgcli command line (issue 38).

``jlgcli __complete`` asks :func:`complete` at completion time, so the shells'
scripts stay tiny and the offers follow this jlgcli and its config: command
names, flags, choices, backend ids (built-in and configured), config keys and
their values, run ids and ``latest``. Fast by design: only the named command's
parser is built, files are read but no backend is probed, nothing goes to the
network and pydantic is never imported.
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from jlgcli.commands import TOP_LEVEL_HELP, add_common_options
from jlgcli.commands.parser import COMMANDS, build_parser, children_of, subparsers_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

Offer = tuple[str, str]  # (word, one-line description)

# Value slots that name a file or a folder: the shell offers paths there.
PATH_METAVARS = frozenset({"PROMPT_FILE", "TASK", "FILE", "DIR", "PATH", "RUN_DIR"})
PATH_DESTS = frozenset({"path"})


class Reply:
    """The words to offer, and whether the shell should offer paths as well."""

    __slots__ = ("files", "offers")

    def __init__(self, offers: list[Offer] | None = None, *, files: bool = False) -> None:
        self.offers = offers or []
        self.files = files


def complete(words: Sequence[str], current: str, cwd: Path | None = None) -> Reply:
    """The offers for ``current``, the word under the cursor, after ``words`` (no program name)."""
    where = Path.cwd() if cwd is None else cwd
    if not words:
        return _top_level(current)
    if words[0] == "help":
        return _help_topics(list(words[1:]), current)
    if words[0] not in COMMANDS:
        return Reply()
    node = children_of(build_parser(words[0]))[words[0]]
    return _in_command(node, list(words[1:]), current, where)


def _top_level(current: str) -> Reply:
    if current.startswith("-"):
        offers = [("-h", "show help"), ("--help", "show help"), ("-V", "show the version"),
                  ("--version", "show the version")]  # fmt: skip
        return Reply(_matching(offers, current))
    return Reply(_matching(command_offers(), current))


def command_offers() -> list[Offer]:
    """Every command with its one-line help, as ``jlgcli --help`` lists them."""
    helps = {}
    for line in TOP_LEVEL_HELP.splitlines():
        name, _, text = line.strip().partition(" ")
        if name in COMMANDS:
            helps[name] = text.strip()
    return [(name, helps.get(name, "")) for name in COMMANDS]


def _help_topics(words: list[str], current: str) -> Reply:
    """``jlgcli help config s<TAB>``: command names, then that command's actions."""
    if not words:
        return Reply(_matching(command_offers(), current))
    if words[0] not in COMMANDS:
        return Reply()
    node = children_of(build_parser(words[0]))[words[0]]
    for word in words[1:]:
        children = children_of(node)
        if word not in children:
            return Reply()
        node = children[word]
    return Reply(_matching(_child_offers(node), current))


def _child_offers(node: argparse.ArgumentParser) -> list[Offer]:
    action = subparsers_of(node)
    if action is None:
        return []
    helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
    return [(name, helps.get(name, "")) for name in action.choices]


def _with_common_options(node: argparse.ArgumentParser) -> argparse.ArgumentParser:
    if node._subparsers is None:
        add_common_options(node)  # what the CLI adds to leaf commands at parse time
    return node


class _Walk:
    """Where the words before the cursor leave the parse: the command level, and what is open."""

    def __init__(self, node: argparse.ArgumentParser) -> None:
        self.node = _with_common_options(node)
        self.pending: argparse.Action | None = None  # an option waiting for its value
        self.positionals: list[str] = []  # the positional words at this level
        self.values: dict[str, str] = {}  # dest -> the last value given to an option

    def feed(self, word: str) -> None:
        if self.pending is not None:
            self.values[self.pending.dest] = word
            self.pending = None
            return
        if word.startswith("-") and word != "-":
            name, equals, value = word.partition("=")
            action = self.node._option_string_actions.get(name)
            if action is not None and action.nargs != 0:
                if equals:
                    self.values[action.dest] = value
                else:
                    self.pending = action
            return
        children = children_of(self.node)
        if word in children and not self.positionals:
            self.node = _with_common_options(children[word])
            return
        self.positionals.append(word)

    def positional_action(self) -> argparse.Action | None:
        """The positional argument the next positional word fills."""
        actions = [a for a in self.node._actions if not a.option_strings]
        actions = [a for a in actions if not isinstance(a, argparse._SubParsersAction)]
        index = len(self.positionals)
        for action in actions:
            if action.nargs in ("*", "+"):
                return action
            if index == 0:
                return action
            index -= 1
        return None


def _in_command(node: argparse.ArgumentParser, words: list[str], current: str, cwd: Path) -> Reply:
    walk = _Walk(node)
    for word in _joined_equals(words):
        walk.feed(word)
    if walk.pending is not None:
        return _values(walk.pending, walk, current, cwd)
    if current.startswith("--") and "=" in current:
        name, _, value = current.partition("=")
        action = walk.node._option_string_actions.get(name)
        if action is None or action.nargs == 0:
            return Reply()
        reply = _values(action, walk, value, cwd)
        reply.offers = [(f"{name}={word}", text) for word, text in reply.offers]
        return reply
    if current.startswith("-"):
        return Reply(_matching(_option_offers(walk.node), current))
    if subparsers_of(walk.node) is not None and not walk.positionals:
        return Reply(_matching(_child_offers(walk.node), current))
    action = walk.positional_action()
    return _values(action, walk, current, cwd) if action is not None else Reply()


def _joined_equals(words: list[str]) -> list[str]:
    """bash splits ``--backend=codex`` into three words at ``=``: join them back."""
    joined: list[str] = []
    split = False  # the last word ends with an ``=`` that came as a word of its own
    for word in words:
        if word == "=" and joined and joined[-1].startswith("--") and "=" not in joined[-1]:
            joined[-1] += "="
            split = True
        elif split:
            joined[-1] += word
            split = False
        else:
            joined.append(word)
    return joined


def _option_offers(node: argparse.ArgumentParser) -> list[Offer]:
    offers = []
    for action in node._actions:
        if action.option_strings and action.help != argparse.SUPPRESS:
            text = (action.help or "").replace("%(default)s", str(action.default))
            offers += [(flag, text) for flag in action.option_strings]
    return offers


def _values(action: argparse.Action, walk: _Walk, current: str, cwd: Path) -> Reply:
    """The values of ``action`` (an option or a positional) that start with ``current``."""
    if action.choices is not None:
        return Reply(_matching([(str(choice), "") for choice in action.choices], current))
    provider = _PROVIDERS.get(action.dest)
    if provider is not None:
        return provider(walk, current, cwd)
    metavar = action.metavar if isinstance(action.metavar, str) else None
    return Reply(files=metavar in PATH_METAVARS or action.dest in PATH_DESTS)


def _matching(offers: list[Offer], current: str) -> list[Offer]:
    return [(word, text) for word, text in offers if word.startswith(current)]


def _comma_list(ids: Sequence[str], current: str) -> list[Offer]:
    """``--fallback codex,ge<TAB>``: the ids not yet in the list, after what is typed."""
    head, comma, tail = current.rpartition(",")
    given = set(head.split(",")) if comma else set()
    prefix = head + comma
    return [
        (prefix + name, "backend") for name in ids if name not in given and name.startswith(tail)
    ]


def backend_ids(cwd: Path, *, with_auto: bool = True) -> list[str]:
    """The built-in backends, the custom ones the user and project config files declare, auto."""
    from jlgcli.config.backend_ids import AUTO, known_backend_ids

    ids = list(known_backend_ids(tuple(configured_backends(cwd))))
    return ids if with_auto else [name for name in ids if name != AUTO]


def configured_backends(cwd: Path) -> list[str]:
    """Custom backend ids of the user and project config files; a broken file adds none."""
    from jlgcli.config.resolve import (
        custom_backends_of,
        find_project_config,
        read_config_file,
        user_config_file,
    )
    from jlgcli.errors import JlgError

    names: list[str] = []
    for scope, path in (("user", user_config_file()), ("project", find_project_config(cwd))):
        if path is None:
            continue
        with contextlib.suppress(JlgError):
            names += [n for n in custom_backends_of(path, scope, read_config_file(path, scope))
                      if n not in names]  # fmt: skip
    return names


def _backends(walk: _Walk, current: str, cwd: Path) -> Reply:
    return Reply(_matching([(name, "backend") for name in backend_ids(cwd)], current))


def _fallbacks(walk: _Walk, current: str, cwd: Path) -> Reply:
    return Reply(_comma_list(backend_ids(cwd, with_auto=False), current))


def _config_keys(walk: _Walk, current: str, cwd: Path) -> Reply:
    from jlgcli.config.keys import KEYS

    return Reply(_matching([(spec.name, spec.description) for spec in KEYS], current))


def _config_values(walk: _Walk, current: str, cwd: Path) -> Reply:
    """``config set KEY <TAB>``: the values ``KEY`` accepts, when they can be listed."""
    from jlgcli.config.keys import lookup_key

    spec = lookup_key(walk.positionals[0]) if walk.positionals else None
    if spec is None:
        return Reply()
    if spec.kind == "backend":
        return _backends(walk, current, cwd)
    if spec.kind == "backends":
        return _fallbacks(walk, current, cwd)
    if spec.kind == "path":
        return Reply(files=True)
    words = spec.choices or (("true", "false") if spec.kind == "bool" else ())
    if not words:  # a number, a duration, an amount, commands: show an example
        return Reply([(spec.example, f"e.g.; accepted: {spec.accepted()}")]
                     if spec.example.startswith(current) else [])  # fmt: skip
    return Reply(_matching([(word, spec.accepted()) for word in words], current))


def _run_ids(walk: _Walk, current: str, cwd: Path) -> Reply:
    """Recorded run ids, newest first, the batches' ids, then ``latest``; ``--resume`` only
    resumable loop runs. Read through the listings ``runs`` uses, so a folder that is no run
    (the batches' own ``.batches``) is never offered."""
    from jlgcli.batch.record import list_batches
    from jlgcli.runner.listing import run_ids

    flag = walk.values.get("runs_dir") or walk.values.get("artifacts_dir")
    root = runs_root(flag, cwd)
    names = run_ids(root)
    if walk.node.prog.split()[-1] == "loop":
        names = [name for name in names if (root / name / "state.json").is_file()]
    offers = [(name, "run") for name in names] + [(name, "batch") for name in list_batches(root)]
    return Reply(_matching([*offers, ("latest", "the most recent run")], current))


def runs_root(flag: str | None, cwd: Path) -> Path:
    """Where runs are recorded (``config.paths.configured_runs_root``, what ``jlgcli runs``
    and ``loop --resume`` read); the default folder when the config cannot even be read."""
    from jlgcli.config.paths import configured_runs_root

    try:
        return configured_runs_root(cwd, flag)
    except Exception:  # a broken config must not break the TAB key
        from jlgcli.artifacts.layout import DEFAULT_ROOT
        from jlgcli.artifacts.project import under_project

        return under_project(DEFAULT_ROOT, cwd)


_PROVIDERS: dict[str, Callable[[_Walk, str, Path], Reply]] = {
    "backend": _backends,
    "llm": _backends,
    "fallback": _fallbacks,
    "key": _config_keys,
    "value": _config_values,
    "resume": _run_ids,
    "run_id": _run_ids,
}
