#!/bin/bash
# Run one part of the hqsim ground-truth campaign on the GPU machine.
#   harness/campaign.sh PART [OUTDIR] [--only REGEX]
# PART: check | A (single process: connections, placement, leftover, priorities,
#       contention, launch latency, copies) | B (multi-process: time slicing, MPS
#       thread percentage, MPS connections, memory per context, GPU-Util, max clients)
#       | C (PyTorch inference N processes with/without MPS, profiler traces, ncu)
#       | D (carveout, MPS exclusive SM sets, ncu, PyTorch repeats and MPS percentages)
#       | E (latency under MPS, time-sliced FMA efficiency, copies from two processes)
#       | F (solo references for MPS pairs, MPS client limit with 4/8 connections)
#       | G (big waves of 4-warp blocks and a PyTorch profile, without and inside an MPS client)
#       | H (how fast one wave is dispatched, by block size and blocks per SM)
#       | I (kernels the calibration never saw: memory-bound, shared memory, SGEMM, FMA ILP 1/2/4;
#          alone, pairs, quads, 2-4 processes with/without MPS; ncu of each).
#       | J (who goes first inside an SM: pairs of part I's kernels, greedy or older first; kernels
#          queued behind a draining wave) | K (copies beside kernels: DRAM shared with copy engines)
#       | M (warps of different ILP on one warp scheduler: ILP 8 pairs, ILP 1/2/4/8 mixes, 6 + 2 warps)
#       | N (ranks on one warp scheduler: ILP 2 beside ILP 1 both orders, ILP 8 beside ILP 1/4, ILP 1+2+4)
#       | P (where blocks go when MPS clients wait: head of line across clients, a one-block-per-SM
#          GEMM-like kernel beside clients streaming elementwise-like kernels).
# Each part fits one 10-minute call. Raw results: /tmp/hqraw/PART, packed into
# OUTDIR/partPART.tar.gz (OUTDIR defaults to $OUT). Post-process with harness/post.py.
set -u
PART=${1:?part}
OUTDIR=${2:-${OUT:-$PWD/out}}
shift; [ $# -gt 0 ] && shift
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=/tmp/hqraw/$PART
rm -rf "$RAW"; mkdir -p "$RAW" "$OUTDIR"
export CUDA_MPS_PIPE_DIRECTORY_HQ=/tmp/hqmps/pipe
cleanup() {
  # quit the MPS daemon this campaign may have started (its own pipe directory only)
  if [ -d /tmp/hqmps/pipe ]; then
    echo quit | CUDA_MPS_PIPE_DIRECTORY=/tmp/hqmps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/hqmps/log \
      timeout 20 nvidia-cuda-mps-control >/dev/null 2>&1
  fi
  tar czf "$OUTDIR/part$PART.tar.gz" -C "$RAW" . 2>/dev/null
  ls -la "$OUTDIR"
}
trap cleanup EXIT
# the binary is normally built on the development machine (nvcc 13.0, -arch=sm_90)
# and carried; rebuild here if it does not run.
"$HERE/bin/hqprobe" >/dev/null 2>&1; rc=$?
if [ $rc -ne 1 ]; then echo "hqprobe does not run here (rc=$rc): rebuilding"; make -B -C "$HERE" || exit 1; fi
[ -d "$HERE/specs" ] || python3 "$HERE/gen_specs.py"
PYTHONUNBUFFERED=1 timeout "${HQ_TIMEOUT:-540}" python3 "$HERE/mp.py" --part "$PART" --raw "$RAW" "$@" 2>&1 | tee "$RAW/log.txt"
