#!/usr/bin/env bash
# Quick manual check of tests/data/malformed/MANIFEST against a binary:
#   tests/malformed/check.sh [HQSIM]      (the real test: test_e2e_malformed)
H=$(realpath "${1:-build/hqsim}")
cd "$(dirname "$0")/../data/malformed" || exit 1
n=0; bad=0
while IFS=$'\t' read -r f a l p; do
    case $f in \#*) continue ;; esac
    n=$((n + 1)); [ "$a" = - ] && a=""
    err=$(timeout 10 "$H" run "$f" -q $a 2>&1 >/dev/null); rc=$?
    ok=1
    { [ $rc -eq 0 ] || [ $rc -ge 124 ]; } && ok=0
    [ "$l" != - ] && case "$err" in *"$f:$l:"*) ;; *) ok=0 ;; esac
    case "$err" in *"$p"*) ;; *) ok=0 ;; esac
    [ $ok = 0 ] && { bad=$((bad + 1)); echo "$f [$l] [$p] rc=$rc: $err" | cut -c1-300; }
done < MANIFEST
echo "$n cases, $bad wrong"
