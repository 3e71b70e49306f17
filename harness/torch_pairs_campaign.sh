#!/bin/bash
# Part L on the H100 (issue 11): real library kernels alone, in pairs and quads on streams, in 2
# processes without and with MPS, and Nsight Compute metrics of each alone; one device call.
#   harness/torch_pairs_campaign.sh OUTDIR [--mock]   -> OUTDIR/dnn_raw.tar.gz
# An MPS daemon with pipe/log under /tmp/dnnmps is started for the MPS groups and always quit here.
set -u
OUTDIR=${1:?outdir}; MOCK=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=/tmp/dnnraw; rm -rf "$RAW"; mkdir -p "$RAW" "$OUTDIR"
MPSDIR=/tmp/dnnmps
MPSON=0
mps_start() {
  [ -n "$MOCK" ] && { echo mps start; MPSON=1; return 0; }
  mkdir -p $MPSDIR/pipe $MPSDIR/log
  CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log nvidia-cuda-mps-control -d &&
    sleep 1 && MPSON=1
}
mps_stop() {
  [ $MPSON = 1 ] || return 0
  MPSON=0
  [ -n "$MOCK" ] && { echo mps stop; return 0; }
  echo quit | CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log \
    timeout 20 nvidia-cuda-mps-control >/dev/null 2>&1
  sleep 1
}
finish() {
  mps_stop
  date -u >> "$RAW/info.txt"
  tar czf "$OUTDIR/dnn_raw.tar.gz" -C "$RAW" . 2>/dev/null
  ls -la "$OUTDIR"
}
trap finish EXIT
trap 'exit 143' TERM INT
# procs TAG OP0 OP1 ...: one process per op, released together per iteration (file barrier)
procs() {
  local tag=$1; shift
  local n=$# B=$RAW/bar_$tag i=0 pids=() rc=0 t0=$SECONDS
  rm -rf "$B"; mkdir -p "$B"
  for op in "$@"; do
    local E=()
    [ $MPSON = 1 ] && E=(CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log)
    env "${E[@]}" timeout 120 python3 "$HERE/torch_pairs.py" proc --op "$op" --n $n --rank $i \
      --barrier "$B" --out "$RAW/${tag}_p$i" $MOCK > "$RAW/${tag}_p$i.log" 2>&1 &
    pids+=($!); i=$((i + 1))
  done
  for p in "${pids[@]}"; do wait "$p" || rc=$?; done
  rm -rf "$B"
  echo "procs $tag ($*) rc=$rc $((SECONDS - t0))s"
}
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  nvcc --version | tail -2
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version())"
  ncu --version | tail -1
  uname -r; nproc
} > "$RAW/info.txt" 2>&1
cat "$RAW/info.txt"
t0=$SECONDS
timeout 240 python3 "$HERE/torch_pairs.py" streams --out "$RAW/streams" $MOCK > "$RAW/streams.log" 2>&1
echo "streams rc=$? $((SECONDS - t0))s"
PAIRS=("l_mp2_mm16 mm_f16 mm_f16" "l_mp2_add add add" "l_mp2_conv_sum conv sum")
for p in "${PAIRS[@]}"; do set -- $p; procs "${1}_nomps" "${@:2}"; done
mps_start; echo "mps start rc=$?"
for p in "${PAIRS[@]}"; do set -- $p; procs "${1}_mps" "${@:2}"; done
mps_stop
t0=$SECONDS
if [ -n "$MOCK" ]; then
  python3 "$HERE/torch_pairs.py" ncu --out "$RAW/ncu" --mock
else
  timeout 200 ncu --csv --page details --section SpeedOfLight --section LaunchStats --section Occupancy \
    --section SchedulerStats --section ComputeWorkloadAnalysis --clock-control none \
    --profile-from-start off --log-file "$RAW/ncu.csv" \
    python3 "$HERE/torch_pairs.py" ncu --out "$RAW/ncu" > "$RAW/ncu.log" 2>&1
fi
echo "ncu rc=$? $((SECONDS - t0))s"
