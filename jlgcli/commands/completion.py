"""``jlgcli completion SHELL``: print a tab-completion script (issue 19 item 17, issue 38).

Each script is a thin shim: at every TAB it asks ``jlgcli __complete SHELL N
WORD…`` (``N`` words before the one under the cursor, then that one) and
offers what comes back, one ``word<TAB>description`` per line, a last line
``:files`` when paths fit there too (``jlgcli.commands.complete`` answers).
The answers come from the real parser and the current config, so completion
never goes stale: a new flag, a new custom backend or a new run is offered at
once. ``INSTALL`` holds the one command per shell that the README and
``--help`` show; each does nothing in a shell where ``jlgcli`` is not on PATH.
"""

from __future__ import annotations

import argparse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SHELLS = ("bash", "zsh", "fish", "powershell")

# One command per shell, run once; a new shell then completes jlgcli.
INSTALL = {
    "bash": """echo 'command -v jlgcli >/dev/null && eval "$(jlgcli completion bash)"' """
    """>> ~/.bashrc""",
    "zsh": """echo 'command -v jlgcli >/dev/null && eval "$(jlgcli completion zsh)"' """
    """>> ~/.zshrc""",
    "fish": "jlgcli completion fish > ~/.config/fish/completions/jlgcli.fish",
    "powershell": "New-Item -Force -ItemType Directory (Split-Path $PROFILE) | Out-Null; "
    "Add-Content $PROFILE 'if (Get-Command jlgcli -ErrorAction Ignore) "
    "{ jlgcli completion powershell | Out-String | Invoke-Expression }'",
}


EPILOG = "install (one command, then open a new shell):\n" + "".join(
    f"  {shell:11} {command}\n" for shell, command in INSTALL.items()
)


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``completion``."""
    parser = subparsers.add_parser(
        "completion",
        help="print a tab-completion script for bash, zsh, fish or PowerShell",
        description="Print the script that makes your shell complete jlgcli's commands,\n"
        "flags and their values. The script asks jlgcli at each TAB (backend ids, config\n"
        "keys and values, run ids…), so it never goes stale.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    parser.set_defaults(handler="jlgcli.commands.completion:execute")


def execute(args: argparse.Namespace) -> int:
    """Write the completion script of ``args.shell`` to stdout."""
    import sys

    sys.stdout.write(script_for(args.shell))
    return 0


def script_for(shell: str) -> str:
    """The completion script of ``shell`` (one of ``SHELLS``)."""
    header = f"# jlgcli completion for {_NAMES[shell]}. Install: {INSTALL[shell]}\n"
    return header + _SCRIPTS[shell]


_NAMES = {"bash": "bash", "zsh": "zsh", "fish": "fish", "powershell": "PowerShell"}

_BASH = r"""_jlgcli() {
    local cur="${COMP_WORDS[COMP_CWORD]}" line out
    COMPREPLY=()
    out=$(command jlgcli __complete bash $((COMP_CWORD - 1)) "${COMP_WORDS[@]:1:COMP_CWORD}" \
        2>/dev/null) || return 0
    while IFS= read -r line; do
        if [[ "$line" == ":files" ]]; then
            COMPREPLY+=($(compgen -f -- "$cur"))  # paths, as `complete -o default` would
            compopt -o filenames 2>/dev/null
        elif [[ -n "$line" ]]; then
            COMPREPLY+=("$line")
        fi
    done <<< "$out"
}
complete -F _jlgcli jlgcli
"""

_ZSH = r"""_jlgcli() {
    local -a lines values shown
    local line files=0
    lines=("${(@f)$(command jlgcli __complete zsh $((CURRENT - 2)) "${(@)words[2,CURRENT]}" \
        2>/dev/null)}")
    for line in "${lines[@]}"; do
        if [[ $line == :files ]]; then
            files=1
        elif [[ -n $line ]]; then
            values+=("${line%%$'\t'*}")
            shown+=("${line/$'\t'/  -- }")
        fi
    done
    (( ${#values} )) && compadd -l -d shown -- "${values[@]}"
    (( files )) && _files
    return 0
}
(( $+functions[compdef] )) || { autoload -Uz compinit && compinit }
compdef _jlgcli jlgcli
"""

_FISH = r"""function __jlgcli_complete
    type -q jlgcli; or return
    set -l words (commandline -opc)[2..-1]
    set -l current (commandline -ct)
    for line in (command jlgcli __complete fish (count $words) $words $current 2>/dev/null)
        if test "$line" = ":files"
            __fish_complete_path $current
        else
            echo $line
        end
    end
end
complete -c jlgcli -f -a '(__jlgcli_complete)'
"""

_POWERSHELL = r"""Register-ArgumentCompleter -Native -CommandName jlgcli, jlgcli.exe -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $before = $cursorPosition - $wordToComplete.Length
    $words = @($commandAst.CommandElements | Select-Object -Skip 1 |
        Where-Object { $_.Extent.EndOffset -lt $before } | ForEach-Object { $_.ToString() })
    $lines = & jlgcli __complete powershell $words.Count @words $wordToComplete 2>$null
    foreach ($line in $lines) {
        if ($line -eq ':files' -or -not $line) { continue }  # no offer: PowerShell offers paths
        $word, $text = $line -split "`t", 2
        if (-not $text) { $text = $word }
        [System.Management.Automation.CompletionResult]::new($word, $word, 'ParameterValue', $text)
    }
}
"""

_SCRIPTS = {"bash": _BASH, "zsh": _ZSH, "fish": _FISH, "powershell": _POWERSHELL}
