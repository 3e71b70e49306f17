#!/bin/bash
# An idle process's request beside 7 others that do nothing / spin in Python / hold an idle CUDA
# context / serve the same graph open loop (hqsim issue 10, FINDINGS §71); one device call.
#   harness/ts_idle_campaign.sh OUTDIR [mock]   -> OUTDIR/tsidle.tar.xz
# harness/ts_idle_probe.py: rank 0 builds decoder b1's graph once, then per condition a fixed-gap
# sweep (0.3 / 2 / 5 / 20 ms, 40 each); this script starts and stops the siblings of each
# condition (by their process ids) and tells the probe when they are ready.  CONDS (default
# alone,spin7,ctx,serve,alone): alone, spinK (K Python spinners, no CUDA), ctx / serve (7 siblings).  Summary:
# harness/ts_idle_summary.py.
set -u
OUTDIR=${1:?outdir}
MOCK=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=/tmp/tsidleraw; D=$RAW/dir; rm -rf "$RAW"; mkdir -p "$D" "$OUTDIR"
N=8; SIBS=()
finish() {
  stop_sibs
  [ -z "${P0:-}" ] || kill "$P0" 2>/dev/null
  date -u >> "$RAW/info.txt"
  tar cJf "$OUTDIR/tsidle.tar.xz" -C "$RAW" --exclude=dir .
  ls -la "$OUTDIR"
}
stop_sibs() { for p in "${SIBS[@]}"; do kill "$p" 2>/dev/null; done; for p in "${SIBS[@]}"; do wait "$p" 2>/dev/null; done; SIBS=(); rm -f "$D"/ready.*; }
trap finish EXIT
trap 'exit 143' TERM INT
wait_for() { # FILE SECONDS
  local lim=$((SECONDS + $2)); while [ ! -e "$1" ]; do [ $SECONDS -lt $lim ] || { echo "timeout $1"; exit 1; }; sleep 0.05; done
}
wait_ready() { # COUNT SECONDS
  local lim=$((SECONDS + $2)); while [ "$(ls "$D" | grep -c '^ready\.')" -lt "$1" ]; do
    [ $SECONDS -lt $lim ] || { echo "timeout ready"; exit 1; }; sleep 0.05; done
}
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1; nproc; lscpu 2>/dev/null | head -20; } > "$RAW/info.txt"
python3 "$HERE/ts_idle_probe.py" --dir "$D" --out "$RAW/probe.json" --conds "${CONDS:-alone,spin7,ctx,serve,alone}" ${MOCK:+--mock} > "$RAW/probe.log" 2>&1 & P0=$!
wait_for "$D/built" 120; echo "built $SECONDS s"
k=0
CONDS=${CONDS:-alone,spin7,ctx,serve,alone}
for cond in ${CONDS//,/ }; do
  case $cond in
    spin*) for i in $(seq 1 "${cond#spin}"); do python3 -c 'import time
while True: time.time_ns()' & SIBS+=($!); done; sleep 0.5 ;;
    ctx|serve) for i in $(seq 1 $((N - 1))); do
        python3 "$HERE/ts_idle_probe.py" --dir "$D" --sibling $cond --rank $i ${MOCK:+--mock} > "$RAW/sib_${cond}_$i.log" 2>&1 & SIBS+=($!)
      done; wait_ready $((N - 1)) 120; sleep 0.3 ;;
  esac
  touch "$D/cond.$k"; wait_for "$D/done.$k" 60
  echo "$cond done $SECONDS s"
  stop_sibs; k=$((k + 1))
done
wait "$P0"; echo "probe rc $?"; P0=
tail -6 "$RAW/probe.log"
