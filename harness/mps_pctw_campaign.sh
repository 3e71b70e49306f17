#!/bin/bash
# A lone MPS client's kernels under a thread percentage (hqsim issue 10, FINDINGS §46); one device
# call, ~1 min. No card setting is changed; the MPS daemon (pipe/log under /tmp) is started and
# quit inside this script.
#   harness/mps_pctw_campaign.sh OUTDIR [HQPROBE] [REPS]
#     -> OUTDIR/<setting>_{ops,blocks,gaps}.csv, <setting>_meta.json, info.txt
# Runs hqprobe's spec harness/specs/pctw.spec (timer, FMA, SGEMM, triad and GEMV kernels on
# 1..6272 blocks, one after another on one stream; per block %smid and %globaltimer at start and
# end) REPS times in each setting: without MPS, as the only client of an MPS daemon at 100, 50
# and 25% of the threads (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE), then without MPS again (drift).
# Summary: python3 harness/mps_pctw_summary.py OUTDIR pctw.csv
set -u
out=$1; probe=${2:-}; reps=${3:-10}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/mps_lib.sh"
mkdir -p "$out"
if [ -z "$probe" ]; then make -C "$HERE" bin/hqprobe >/dev/null || exit 1; probe=$HERE/bin/hqprobe; fi
spec=$HERE/specs/pctw.spec
MPSDIR=/tmp/pctw_mps.$$; MPSON=0; PIDS=()
export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
trap mps_lib_stop EXIT
mps_lib_info 1 > "$out/info.txt"
one() { # TAG [PCT]
  local tag=$1 pct=${2:-}
  if [ -n "$pct" ]; then
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$pct "$probe" run --spec "$spec" --out "$out/$tag" --reps "$reps" --nosolo --tag "$tag"
  else
    "$probe" run --spec "$spec" --out "$out/$tag" --reps "$reps" --nosolo --tag "$tag"
  fi
  echo "$tag rc $?" >> "$out/info.txt"
}
one nomps
mps_lib_start
one mps100 100
one mps50 50
one mps25 25
mps_lib_stop; MPSON=0
one nomps_again
date -u >> "$out/info.txt"
