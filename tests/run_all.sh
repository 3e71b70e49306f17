#!/usr/bin/env bash
# Run every cmocka test binary given on the command line, then print one
# closing line "N passed, N failed".  End-to-end tests are cmocka binaries
# too (tests/test_e2e_*.c): they run $HQSIM on real inputs and check numbers.
# Exit status: 0 only if every binary ran and every test passed.
set -u
# Sanitizer builds: fontconfig's caches (reached through cairo's font API)
# live as long as the process; tell LeakSanitizer (see tests/lsan.supp).
# No effect on other builds.
LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
passed=0 failed=0 broken=0
for t in "$@"; do
    name=$(basename "$t")
    out=$("$t" 2>&1)
    rc=$?
    printf '%s\n' "$out" | grep -E '^\[  (FAILED|ERROR|PASSED|SKIPPED) +\]|^\[  (FAILED|ERROR)  \]' >/dev/null
    p=$(printf '%s\n' "$out" | sed -n 's/.*\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    f=$(printf '%s\n' "$out" | sed -n 's/.*\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    p=${p:-0}; f=${f:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        # crashed or failed before cmocka could count
        broken=$((broken + 1)); f=1
    fi
    passed=$((passed + p)); failed=$((failed + f))
    if [ "$rc" -ne 0 ]; then
        printf '%s\n' "$out"
        echo "FAIL: $name (exit $rc)"
    else
        printf '%-28s %3d passed\n' "$name" "$p"
        printf '%s\n' "$out" | grep -E '^\[  SKIPPED \]|^# skip' || true
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$broken" -eq 0 ]
