#!/bin/bash
# Kernel by kernel inside an MPS client while N-1 other clients serve the same model (hqsim
# issue 10: what an MPS client shares that one process alone cannot show); one device call.
#   harness/mps_contend_campaign.sh OUTDIR [--dry]   -> OUTDIR/mpscontend.tar.gz
# For the decoder (servers: decoder b1 graph) and the encoder (servers: encoder b8 graph), at
# N = 1, 2, 4: N-1 closed-loop servers (torch_graphs.py --serve, started together through a
# barrier, killed by pid when the profile is taken), then one torch_graphs.py --profile-all of
# that model's two graph configurations (16 requests after 20 + 50 warm-up), all MPS clients at
# 100% threads. An MPS daemon with pipe/log under /tmp/ctmps is started and always quit here.
set -u
OUTDIR=${1:?outdir}; DRY=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=/tmp/ctraw; rm -rf "$RAW"; mkdir -p "$RAW" "$OUTDIR"
MPSDIR=/tmp/ctmps
PY=python3
[ "$DRY" = --dry ] && PY="echo python3"
export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
MPSON=0
PIDS=()
stop_servers() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
  PIDS=()
}
finish() {
  stop_servers
  if [ $MPSON = 1 ] && [ "$DRY" != --dry ]; then
    echo quit | timeout 20 nvidia-cuda-mps-control >/dev/null 2>&1; sleep 1
  fi
  date -u >> "$RAW/info.txt"
  tar czf "$OUTDIR/mpscontend.tar.gz" -C "$RAW" . 2>/dev/null
  ls -la "$OUTDIR"
}
trap finish EXIT
trap 'exit 143' TERM INT
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"
  nproc
} > "$RAW/info.txt" 2>&1
cat "$RAW/info.txt"
if [ "$DRY" != --dry ]; then
  mkdir -p $MPSDIR/pipe $MPSDIR/log && nvidia-cuda-mps-control -d && sleep 1 && MPSON=1
fi
echo "mps on=$MPSON"
run() { # model server_batch n
  local model=$1 sb=$2 n=$3 i t0=$SECONDS bar=$RAW/bar_$1_$3
  mkdir -p "$bar"
  for ((i = 1; i < n; i++)); do
    $PY "$HERE/torch_graphs.py" --serve --model "$model" --batch "$sb" --mode graph --nreq 400000 \
      --barrier "$bar" --out "$RAW/srv_${model}_n${n}_$i" > "$RAW/srv_${model}_n${n}_$i.log" 2>&1 &
    PIDS+=($!)
  done
  # the servers are warm once each left its ready file; then all start
  while [ "$DRY" != --dry ] && [ "$(ls "$bar" | grep -c ready)" -lt $((n - 1)) ] && [ $((SECONDS - t0)) -lt 60 ]; do
    sleep 0.5
  done
  touch "$bar/go"; sleep 1
  timeout 120 $PY "$HERE/torch_graphs.py" --profile-all "$RAW/${model}_n$n" --only "$model" \
    --modes graph --nprof 16 > "$RAW/${model}_n$n.log" 2>&1
  echo "$model n=$n rc=$? $((SECONDS - t0))s"
  stop_servers
}
for n in 1 2 4; do run decoder 1 $n; done
for n in 2 4; do run encoder 8 $n; done
