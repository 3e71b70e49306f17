#!/bin/bash
# Is a request slower after its process sat idle? (hqsim issue 10, idle10; FINDINGS §59); one
# device call.   harness/idle_campaign.sh OUTDIR [mock]   -> OUTDIR/idle.tar.xz
# harness/idle_probe.py alone without MPS (six graph configurations), alone as the one MPS
# client (a daemon with pipe/log under /tmp/idlemps, quit here), then without MPS again (the
# three configurations the open-loop table misses most: reproducibility).  nvidia-smi -q -d
# CLOCK,PERFORMANCE before and after, and the SM clock every 100 ms meanwhile (read only).
# Summary: harness/idle_summary.py.  "mock" runs the probe with --mock and no nvidia-smi.
set -u
OUTDIR=${1:?outdir}
MOCK=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=/tmp/idleraw; rm -rf "$RAW"; mkdir -p "$RAW" "$OUTDIR"
MPSDIR=/tmp/idlemps; MPSON=0; PIDS=(); SMI=
. "$HERE/mps_lib.sh"
finish() {
  [ -z "$SMI" ] || kill "$SMI" 2>/dev/null
  [ -n "$MOCK" ] || { mps_lib_stop; nvidia-smi -q -d CLOCK,PERFORMANCE > "$RAW/smi_after.txt" 2>&1; }
  date -u >> "$RAW/info.txt"
  tar cJf "$OUTDIR/idle.tar.xz" -C "$RAW" .
  ls -la "$OUTDIR"
}
trap finish EXIT
trap 'exit 143' TERM INT
probe() { # TAG [args...]
  local tag=$1 t0=$SECONDS; shift
  timeout 150 python3 "$HERE/idle_probe.py" --out "$RAW/$tag" ${MOCK:+--mock} "$@" > "$RAW/$tag.log" 2>&1
  echo "$tag rc $? $((SECONDS - t0)) s"; tail -2 "$RAW/$tag.log"
}
if [ -n "$MOCK" ]; then
  mps_lib_info 0 > "$RAW/info.txt"
  probe nomps --configs decoder:1,cnn:8 --per-gap 5
  probe nomps_rep --configs decoder:16 --per-gap 5
  exit 0
fi
mps_lib_info 1 torch > "$RAW/info.txt" 2>&1; cat "$RAW/info.txt"
nvidia-smi -q -d CLOCK,PERFORMANCE > "$RAW/smi_before.txt" 2>&1
Q=timestamp,clocks.sm,clocks.mem,pstate,power.draw,temperature.gpu,utilization.gpu
nvidia-smi --query-gpu=$Q,clocks_event_reasons.active --format=csv > /dev/null 2>&1 &&
  Q=$Q,clocks_event_reasons.active
nvidia-smi --query-gpu=$Q --format=csv -lms 100 > "$RAW/clocks.csv" 2>&1 & SMI=$!
probe nomps
export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
mps_lib_start
probe mps
mps_lib_stop; MPSON=0
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
probe nomps_rep --configs decoder:16,decoder:1,encoder:8 --seed 2
