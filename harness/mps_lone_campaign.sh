#!/bin/bash
# A lone process's CUDA graphs of PyTorch kernels, without MPS and as the only MPS client (hqsim
# issue 10, lone10; FINDINGS §55); one device call.
#   harness/mps_lone_campaign.sh OUTDIR [NAME]   -> OUTDIR/NAME.tar.gz (NAME: lone by default; the
#   committed runs are traces/measured/h100/mpspct/lone/{classes,stream,funcs}.tar.gz)
# harness/mps_lone_probe.py twice in each setting, alternating (no MPS, MPS, no MPS, MPS); the MPS
# daemon (pipe/log under /tmp/lonemps) is started for each MPS round and quit after it, and quit on
# exit.  The second round of each setting also records one Kineto replay per graph (after its timed
# replays).  LONE_VARIANTS=a,b,... picks the probe's variants (default: all).
# Summary: python3 harness/mps_lone_summary.py OUTDIR/NAME.tar.gz
set -u
OUTDIR=${1:?outdir} NAME=${2:-lone}
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=/tmp/loneraw; rm -rf "$RAW"; mkdir -p "$RAW" "$OUTDIR"
MPSDIR=/tmp/lonemps; MPSON=0; PIDS=()
. "$HERE/mps_lib.sh"
finish() {
  mps_lib_stop
  date -u >> "$RAW/info.txt"
  tar czf "$OUTDIR/$NAME.tar.gz" -C "$RAW" .
  ls -la "$OUTDIR"
}
trap finish EXIT
trap 'exit 143' TERM INT
mps_lib_info 1 torch > "$RAW/info.txt" 2>&1; cat "$RAW/info.txt"
round() { # TAG EXTRA
  local t0=$SECONDS
  timeout 120 python3 "$HERE/mps_lone_probe.py" --out "$RAW/$1.json" $2 ${LONE_VARIANTS:+--variants $LONE_VARIANTS} \
    > "$RAW/$1.log" 2>&1
  echo "$1 rc $? $((SECONDS - t0)) s"; cat "$RAW/$1.log"
}
mps_round() { # TAG EXTRA
  export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
  mps_lib_start
  round "$1" "$2"
  cp -r "$MPSDIR/log" "$RAW/${1}_mpslog" 2>/dev/null  # the server log names the client that connected
  mps_lib_stop; MPSON=0
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
}
round nomps_r1 ""
mps_round mps_r1 ""
round nomps_r2 "--kineto"
mps_round mps_r2 "--kineto"
