# bash completion for hqsim.  Commands and options come from the binary's
# own --help, so this file never lists them and never goes stale.
_hqsim()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local bin=${COMP_WORDS[0]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        local cmds
        cmds=$("$bin" --help 2>/dev/null |
               sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
        COMPREPLY=($(compgen -W "$cmds --help" -- "$cur"))
        return
    fi
    local cmd=${COMP_WORDS[1]}
    case $prev in
    -g|--gpu)
        local models
        models=$("$bin" models 2>/dev/null | awk 'NR > 1 { print $1 }')
        COMPREPLY=($(compgen -W "$models" -- "$cur"))
        return ;;
    -m|--mode)
        # The names from the one table that parses them, via its message.
        local modes
        modes=$("$bin" run /dev/null --mode '?' 2>&1 |
                sed -n 's/.*(use \(.*\))$/\1/p' | sed 's/,\| or / /g')
        COMPREPLY=($(compgen -W "$modes" -- "$cur"))
        return ;;
    --models-dir|--out|--fit)
        COMPREPLY=($(compgen -d -- "$cur"))
        return ;;
    esac
    if [[ $cur == -* ]]; then
        local opts
        # The option lines only ("  -n, --processes=N  ..."), not options
        # named in the help texts.
        opts=$("$bin" "$cmd" --help 2>/dev/null |
               grep -oE -- '^  (-[A-Za-z0-9], )?--[A-Za-z0-9][A-Za-z0-9-]*' |
               grep -oE -- '--?[A-Za-z0-9][A-Za-z0-9-]*' | sort -u)
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _hqsim hqsim
