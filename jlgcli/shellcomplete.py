"""Tab-completion scripts for bash, zsh, fish and PowerShell (issue 19 item 17).

Each script is generated from the real argparse parser, so commands, flags and
choices never drift from the CLI: ``jlgcli completion SHELL`` prints it, and
``INSTALL`` holds the one command per shell that the README and ``--help`` show.
"""

from __future__ import annotations

import argparse

from jlgcli.records import field, record

SHELLS = ("bash", "zsh", "fish", "powershell")

# One command per shell, run once; a new shell then completes jlgcli.
INSTALL = {
    "bash": """echo 'eval "$(jlgcli completion bash)"' >> ~/.bashrc""",
    "zsh": """echo 'eval "$(jlgcli completion zsh)"' >> ~/.zshrc""",
    "fish": "jlgcli completion fish > ~/.config/fish/completions/jlgcli.fish",
    "powershell": "New-Item -Force -ItemType Directory (Split-Path $PROFILE) | Out-Null; "
    "Add-Content $PROFILE 'jlgcli completion powershell | Out-String | Invoke-Expression'",
}


@record
class Option:
    """One optional argument: its flags, and its choices when it has some."""

    flags: tuple[str, ...]
    takes_value: bool
    choices: tuple[str, ...]
    help: str


@record(frozen=False)
class Node:
    """A command level: ``()`` is jlgcli itself, ``("config", "get")`` a nested action."""

    path: tuple[str, ...]
    commands: dict[str, str] = field(default_factory=dict)  # name -> one-line help
    options: list[Option] = field(default_factory=list)

    @property
    def key(self) -> str:
        return " ".join(self.path)

    def flags(self) -> list[str]:
        return [flag for option in self.options for flag in option.flags]


def command_tree(parser: argparse.ArgumentParser) -> list[Node]:
    """Every command level of ``parser``, outermost first."""
    from jlgcli.cli import add_common_options

    nodes: list[Node] = []

    def walk(current: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        if path and current._subparsers is None:
            add_common_options(current)  # what the CLI adds to leaf commands at parse time
        node = Node(path)
        nodes.append(node)
        children: list[tuple[str, argparse.ArgumentParser]] = []
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
                for name, child in action.choices.items():
                    node.commands[name] = helps.get(name, "")
                    children.append((name, child))
            elif action.option_strings and action.help != argparse.SUPPRESS:
                choices = tuple(str(c) for c in action.choices) if action.choices else ()
                node.options.append(
                    Option(
                        tuple(action.option_strings), action.nargs != 0, choices, action.help or ""
                    )
                )
        for name, child in children:
            walk(child, (*path, name))

    walk(parser, ())
    return nodes


def script_for(shell: str, parser: argparse.ArgumentParser) -> str:
    """The completion script of ``shell`` (one of ``SHELLS``) for this parser."""
    nodes = command_tree(parser)
    return {"bash": _bash, "zsh": _zsh, "fish": _fish, "powershell": _powershell}[shell](nodes)


def _sh_words(words: list[str]) -> str:
    return "'" + " ".join(words).replace("'", "'\\''") + "'"


def _sh_tables(nodes: list[Node]) -> str:
    """The two shell functions bash and zsh share: the words of a level, and an option's choices."""
    levels = [
        f'        "{n.key}") subs={_sh_words(list(n.commands))}; opts={_sh_words(n.flags())} ;;'
        for n in nodes
    ]
    choices = [
        f'        "{n.key}|{flag}") choices={_sh_words(list(o.choices))} ;;'
        for n in nodes
        for o in n.options
        if o.choices
        for flag in o.flags
    ]
    return "\n".join(
        [
            "_jlgcli_level() {",
            "    subs=''; opts=''",
            '    case "$1" in',
            *levels,
            "    esac",
            "}",
            "_jlgcli_choices() {",
            "    choices=''",
            '    case "$1|$2" in',
            *choices,
            "    esac",
            "}",
        ]
    )


_BASH = r"""
_jlgcli() {
    local cur prev key subs opts choices word i
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    key=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        word="${COMP_WORDS[i]}"
        _jlgcli_level "$key"
        if [[ " $subs " == *" $word "* ]]; then key="${key:+$key }$word"; fi
    done
    _jlgcli_level "$key"
    _jlgcli_choices "$key" "$prev"
    COMPREPLY=()
    if [[ -n "$choices" ]]; then
        COMPREPLY=($(compgen -W "$choices" -- "$cur"))  # words hold no spaces
    elif [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))  # words hold no spaces
    elif [[ -n "$subs" ]]; then
        COMPREPLY=($(compgen -W "$subs" -- "$cur"))  # words hold no spaces
    fi
}
complete -o default -F _jlgcli jlgcli
"""

_ZSH = r"""
_jlgcli() {
    local key="" subs opts choices word i
    for ((i = 2; i < CURRENT; i++)); do
        word=${words[i]}
        _jlgcli_level "$key"
        if [[ " $subs " == *" $word "* ]]; then key="${key:+$key }$word"; fi
    done
    _jlgcli_level "$key"
    _jlgcli_choices "$key" "${words[CURRENT-1]}"
    if [[ -n $choices ]]; then
        compadd -- ${=choices}
    elif [[ ${words[CURRENT]} == -* ]]; then
        compadd -- ${=opts}
    elif [[ -n $subs ]]; then
        compadd -- ${=subs}
    else
        _files
    fi
}
(( $+functions[compdef] )) || { autoload -Uz compinit && compinit }
compdef _jlgcli jlgcli
"""


def _bash(nodes: list[Node]) -> str:
    header = f"# jlgcli completion for bash. Install: {INSTALL['bash']}\n"
    return header + _sh_tables(nodes) + _BASH


def _zsh(nodes: list[Node]) -> str:
    header = f"# jlgcli completion for zsh. Install: {INSTALL['zsh']}\n"
    return header + _sh_tables(nodes) + _ZSH


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish_condition(node: Node) -> str:
    """The fish condition true when the command line is at this level (not deeper)."""
    parts = [f"__fish_seen_subcommand_from {name}" for name in node.path]
    if node.commands:
        parts.append("not __fish_seen_subcommand_from " + " ".join(node.commands))
    return "; and ".join(parts) if parts else "__fish_use_subcommand"


def _fish(nodes: list[Node]) -> str:
    lines = [f"# jlgcli completion for fish. Install: {INSTALL['fish']}"]
    for node in nodes:
        condition = _fish_quote(_fish_condition(node))
        for name, summary in node.commands.items():
            lines.append(
                f"complete -c jlgcli -f -n {condition} -a {name} -d {_fish_quote(summary)}"
            )
        for option in node.options:
            flags = [
                f"-l {flag[2:]}" if flag.startswith("--") else f"-s {flag[1:]}"
                for flag in option.flags
            ]
            value = ""
            if option.choices:
                value = " -x -a " + _fish_quote(" ".join(option.choices))
            elif option.takes_value:
                value = " -r"
            help_text = _fish_quote(option.help.replace("%(default)s", "").strip())
            lines.append(
                f"complete -c jlgcli -n {condition} {' '.join(flags)}{value} -d {help_text}"
            )
    return "\n".join(lines) + "\n"


def _ps_list(words: list[str]) -> str:
    return "@(" + ", ".join("'" + w.replace("'", "''") + "'" for w in words) + ")"


def _powershell(nodes: list[Node]) -> str:
    subs = "\n".join(f"        '{n.key}' = {_ps_list(list(n.commands))}" for n in nodes)
    opts = "\n".join(f"        '{n.key}' = {_ps_list(n.flags())}" for n in nodes)
    choices = "\n".join(
        f"        '{n.key}|{flag}' = {_ps_list(list(o.choices))}"
        for n in nodes
        for o in n.options
        if o.choices
        for flag in o.flags
    )
    return f"""# jlgcli completion for PowerShell. Install: {INSTALL["powershell"]}
Register-ArgumentCompleter -Native -CommandName jlgcli, jlgcli.exe -ScriptBlock {{
    param($wordToComplete, $commandAst, $cursorPosition)
    $subs = @{{
{subs}
    }}
    $opts = @{{
{opts}
    }}
    $choices = @{{
{choices}
    }}
    $key = ''
    $prev = ''
    foreach ($element in ($commandAst.CommandElements | Select-Object -Skip 1)) {{
        if ($element.Extent.EndOffset -ge $cursorPosition) {{ break }}
        $word = $element.ToString()
        if ($subs[$key] -contains $word) {{ $key = ($key + ' ' + $word).Trim() }}
        $prev = $word
    }}
    $candidates = $choices["$key|$prev"]
    if (-not $candidates) {{
        $candidates = if ($wordToComplete -like '-*') {{ $opts[$key] }} else {{ $subs[$key] }}
    }}
    $candidates | Where-Object {{ $_ -like "$wordToComplete*" }} | ForEach-Object {{
        [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
    }}
}}
"""
