#!/usr/bin/env bash
# Run the unit tests and a selection of end-to-end runs under valgrind's
# memcheck: any leak ("definitely" or "indirectly lost") or error fails.
set -u
supp=""
glib_supp="$(pkg-config --variable=prefix glib-2.0 2>/dev/null)/share/glib-2.0/valgrind/glib.supp"
[ -f "$glib_supp" ] && supp="--suppressions=$glib_supp"
# cairo's and fontconfig's font caches live as long as the process (see the
# file); only allocations made inside those libraries match.
supp="$supp --suppressions=$(dirname "$0")/valgrind-cairo.supp"
export G_SLICE=always-malloc G_DEBUG=gc-friendly
vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect $supp"
export HQSIM_VALGRIND="$vg"
# Every file a run writes goes to a private folder ($VG, which the lines of
# tests/valgrind_runs.txt name), so concurrent test runs cannot collide.
VG=$(mktemp -d "${TMPDIR:-/tmp}/hqsim-vg.XXXXXX") || exit 1
trap 'rm -rf "$VG"' EXIT
log=$VG/valgrind.log
passed=0 failed=0
for t in "$@"; do
    case "$(basename "$t")" in
        test_e2e_*) continue ;;   # these spawn $HQSIM; run below instead
    esac
    if $vg "$t" >"$log" 2>&1; then
        passed=$((passed + 1)); echo "valgrind ok   $(basename "$t")"
    else
        failed=$((failed + 1)); cat "$log"; echo "valgrind FAIL $(basename "$t")"
    fi
done
# End-to-end runs of the binary itself, on bundled inputs.
while read -r args; do
    [ -z "$args" ] && continue
    case "$args" in \#*) continue ;; esac
    if eval "$vg $HQSIM $args" >"$log" 2>&1; then
        passed=$((passed + 1)); echo "valgrind ok   hqsim $args"
    else
        rc=$?
        if [ $rc -eq 99 ]; then
            failed=$((failed + 1)); cat "$log"; echo "valgrind FAIL hqsim $args"
        else
            passed=$((passed + 1)); echo "valgrind ok   hqsim $args (exit $rc, expected error path)"
        fi
    fi
done < tests/valgrind_runs.txt
echo "valgrind: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
