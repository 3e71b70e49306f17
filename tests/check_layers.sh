#!/usr/bin/env bash
# tests/check_layers.sh -- the folders' dependency direction (`make
# check-layers`, part of `make check`).
#
#   cli -> api -> {plan, viz, import} -> sim      (plan may use import, viz)
#
# A folder may include headers of its own and of the folders its row names,
# nothing else: the library builds without cli/, sim/ without anything
# above it.  Each "..." include is resolved as the compiler does (the
# includer's folder first, then -Isim -Iimport -Iviz -Iplan -Iinclude, the
# Makefile's order), so an include reaching up through a shared -I path is
# caught too.  Prints every violation as FILE:LINE and exits 1 if any.
set -u
cd "$(dirname "$0")/.."

# folder: the folders it may include from (its own is always allowed)
declare -A allowed=(
    [sim]=""
    [import]="sim"
    [viz]="sim"
    [plan]="sim import viz"
    [include]=""
    [api]="sim import viz plan include"
    [cli]="sim import viz plan include api"
)
search="sim import viz plan include"

# The folder that holds the header @2 included from a file in folder @1.
resolve() {
    local from=$1 h=$2 d
    if [ -f "$from/$h" ]; then
        d=$(realpath --relative-to=. "$from/$h")
        echo "${d%%/*}"
        return
    fi
    for d in $search; do
        [ -f "$d/$h" ] && { echo "$d"; return; }
    done
}

bad=0
for dir in "${!allowed[@]}"; do
    [ -d "$dir" ] || continue
    for f in "$dir"/*.[ch]; do
        [ -f "$f" ] || continue
        while IFS=: read -r line h; do
            to=$(resolve "$dir" "$h")
            [ -n "$to" ] && [ "$to" != "$dir" ] || continue
            case " ${allowed[$dir]} " in
            *" $to "*) ;;
            *)
                echo "$f:$line: includes $to/$h ($dir/ may use: ${allowed[$dir]:-only itself})"
                bad=1
                ;;
            esac
        done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
                 sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
    done
done
[ $bad = 0 ] && echo "layers: sim <- {import, viz} <- plan <- api <- cli, no include goes up"
exit $bad
