#!/bin/bash
# Why one eager PyTorch process serves fewer requests alone than each of two does (hqsim issue 10):
# the open-loop campaign's eager configurations scale super-linearly (decoder b1 eager, no MPS:
# 222 requests/s for N = 1, 731 for N = 2) and a lone MPS client beats a lone process (423).
# One device call: closed loops of three eager configurations and one graph control, in groups
# run one after another, with the GPU's SM clock, utilisation, power and P-state sampled every
# 50 ms beside them, and the host CPUs' MHz at each group's start.
#   harness/eager_clock_campaign.sh OUTDIR [--mock]   -> OUTDIR/eagerclock.tar.gz
# Summary: python3 harness/eager_clock_summary.py RAW OUT.csv
# Env: RAW (scratch, default /tmp/ecraw), SEQ (the groups, below), PIN (rank i on the i-th CPU of a comma list, taskset), DUR, CFGS.
# Groups (SEQ), by default in order: nomps n1, nomps n2, nomps n1, mps n1, mps n2, nomps n1 (MPS
# quit), and nomps n1 beside a holder process that launches a 20 us kernel every 2 ms (keeps the GPU out of
# its idle clocks; time-sliced with the server process).  An MPS daemon with pipe/log under
# /tmp/ecmps is started for the MPS groups and always quit here.
set -u
OUTDIR=${1:?outdir}; MOCK=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=${RAW:-/tmp/ecraw}; rm -rf "$RAW"; mkdir -p "$RAW" "$OUTDIR"
MPSDIR=/tmp/ecmps
CFGS=${CFGS:-decoder:1:eager,encoder:1:eager,cnn:1:eager,decoder:1:graph}
DUR=${DUR:-1.0}
# SEQ: the groups in order, SHARING:N with SHARING nomps, mps (daemon started / kept) or hold
# (no MPS, beside the holder); the default is the first call's sequence
SEQ=${SEQ:-nomps:1 nomps:2 nomps:1 mps:1 mps:2 nomps:1 hold:1}
MPSON=0; SAMPLER=; HOLDER=
mps_env() { echo "CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log"; }
mps_start() {
  [ -n "$MOCK" ] && { echo mps start; MPSON=1; return 0; }
  mkdir -p $MPSDIR/pipe $MPSDIR/log
  env $(mps_env) nvidia-cuda-mps-control -d && sleep 1 && MPSON=1
}
mps_stop() {
  [ $MPSON = 1 ] || return 0
  MPSON=0
  [ -n "$MOCK" ] && { echo mps stop; return 0; }
  echo quit | env $(mps_env) timeout 20 nvidia-cuda-mps-control >/dev/null 2>&1
  sleep 1
}
finish() {
  [ -n "$HOLDER" ] && kill "$HOLDER" 2>/dev/null
  mps_stop
  [ -n "$SAMPLER" ] && kill "$SAMPLER" 2>/dev/null
  date -u >> "$RAW/info.txt"
  tar czf "$OUTDIR/eagerclock.tar.gz" -C "$RAW" . 2>/dev/null
  ls -la "$OUTDIR"
}
trap finish EXIT
trap 'exit 143' TERM INT
holder_start() {
  python3 -c "
import torch, time
torch.cuda.init(); x = torch.zeros(1, device='cuda')
while True:
    torch.cuda._sleep(40000); torch.cuda.synchronize(); time.sleep(0.002)
" > "$RAW/holder.log" 2>&1 &
  HOLDER=$!; sleep 5
}
# group TAG N: N processes of harness/openloop.py, closed loops only; start/end in groups.txt
group() {
  local tag=$1 n=$2 t0=$SECONDS
  [ $SECONDS -gt ${BUDGET:-400} ] && { echo "group $tag skipped (time)"; return; }
  local B=$RAW/bar_$tag; rm -rf "$B"; mkdir -p "$B"
  local pids=() i
  grep MHz /proc/cpuinfo | awk -v t="$tag" '{s += $4; k++} END {print t, "cpu_mhz_mean", k ? s / k : "nan"}' \
    >> "$RAW/cpu_mhz.txt"
  echo "$tag start $(date +%s%N)" >> "$RAW/groups.txt"
  for i in $(seq 0 $((n - 1))); do
    local E=()
    [ $MPSON = 1 ] && E=(CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log)
    local P=()
    [ -n "${PIN:-}" ] && P=(taskset -c "$(echo "$PIN" | cut -d, -f$((i + 1)))")
    env "${E[@]}" "${P[@]}" timeout 120 python3 "$HERE/openloop.py" --configs "$CFGS" --n $n --rank $i \
      --barrier "$B" --out "$RAW/${tag}_p$i" --dur $DUR --loads '' --eager-loads '' $MOCK \
      > "$RAW/${tag}_p$i.log" 2>&1 &
    pids+=($!)
  done
  local rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=$?; done
  echo "$tag end $(date +%s%N)" >> "$RAW/groups.txt"
  rm -rf "$B"
  echo "group $tag n=$n rc=$rc $((SECONDS - t0))s"
}
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"
  nproc; lscpu | grep -E 'Model name|^CPU\(s\)'
  echo "configs $CFGS dur $DUR seq $SEQ pin ${PIN:-none}"
} > "$RAW/info.txt" 2>&1
cat "$RAW/info.txt"
if [ -z "$MOCK" ]; then
  # epoch-ms timestamps: nvidia-smi's own timestamp has no zone
  ( nvidia-smi --query-gpu=clocks.sm,clocks.mem,utilization.gpu,power.draw,pstate \
      --format=csv,noheader,nounits -lms 50 | while IFS= read -r l; do
        echo "$(date +%s%3N), $l"; done ) > "$RAW/clocks.csv" 2>&1 &
  SAMPLER=$!
fi
k=0
for g in $SEQ; do
  sh=${g%%:*}; n=${g##*:}; k=$((k + 1))
  if [ "$sh" = mps ]; then [ $MPSON = 1 ] || { mps_start; echo "mps start rc=$?"; }; else mps_stop; fi
  if [ "$sh" = hold ] && [ -z "$HOLDER" ] && [ -z "$MOCK" ]; then holder_start; fi
  if [ "$sh" != hold ] && [ -n "$HOLDER" ]; then kill "$HOLDER"; HOLDER=; fi
  group g${k}_${sh}_n$n $n
done
