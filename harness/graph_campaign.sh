#!/bin/bash
# CUDA-graph and MPS-client campaign (hqsim issue 10, items 1-2), one device call.
#   harness/graph_campaign.sh OUTDIR [--dry]
#   harness/graph_campaign.sh OUTDIR followup [--dry]: one process at a time,
#     alternating without / inside an MPS client (3 rounds): torch_graphs.py
#     --serve of the decoder (eager, graph) and resnet50 (eager), and
#     graphbench micro; OUTDIR/followup.tar.gz
# Writes OUTDIR/graphs.tar.gz: info.txt, graphbench micro (no MPS, MPS), graphbench loops
# N=1,2,4 (graph/eager, no MPS/MPS), torch_graphs.py Kineto traces of 4 model kinds x batch x
# eager/graph (no MPS; the decoder also inside MPS), torch_graphs.py --serve N=1,2,4.
# An MPS daemon with pipe/log under /tmp/gbmps is started and always quit here.
set -u
OUTDIR=${1:?outdir}; DRY=${2:-}; PART=main
if [ "$DRY" = followup ]; then PART=followup; DRY=${3:-}; fi
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=/tmp/gbraw; rm -rf "$RAW"; mkdir -p "$RAW" "$OUTDIR"
MPSDIR=/tmp/gbmps
PY=python3; GB="$HERE/bin/graphbench"
if [ "$DRY" = --dry ]; then PY="echo python3"; GB="echo graphbench"; fi
mps_env() { echo "CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log"; }
mps_start() {
  [ "$DRY" = --dry ] && { echo mps start; return 0; }
  mkdir -p $MPSDIR/pipe $MPSDIR/log
  env $(mps_env) nvidia-cuda-mps-control -d && sleep 1
}
mps_stop() {
  [ "$DRY" = --dry ] && { echo mps stop; return 0; }
  [ -d $MPSDIR/pipe ] && echo quit | env $(mps_env) timeout 20 nvidia-cuda-mps-control >/dev/null 2>&1
  sleep 1
}
finish() {
  mps_stop
  if [ $PART = followup ]; then tar czf "$OUTDIR/followup.tar.gz" -C "$RAW" . 2>/dev/null
  else tar czf "$OUTDIR/graphs.tar.gz" -C "$RAW" . 2>/dev/null; fi
  ls -la "$OUTDIR"
}
trap finish EXIT
# N processes started together: each touches ready.<pid> in a barrier dir, then waits for go
group() { # tag n cmd...
  local tag=$1 n=$2; shift 2
  local B=$RAW/bar_$tag; rm -rf "$B"; mkdir -p "$B"
  local pids=()
  for i in $(seq 1 "$n"); do
    timeout 60 "$@" --barrier "$B" --out "$RAW/${tag}_p$i" > "$RAW/${tag}_p$i.log" 2>&1 &
    pids+=($!)
  done
  if [ "$DRY" != --dry ]; then
    for t in $(seq 1 600); do [ "$(ls "$B" | grep -c ready)" -ge "$n" ] && break; sleep 0.1; done
  fi
  touch "$B/go"
  for p in "${pids[@]}"; do wait "$p"; done
  echo "group $tag n=$n done"
}
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv
  nvcc --version | tail -2
  $PY -c "import torch,sys; print('torch', torch.__version__, 'cuda', torch.version.cuda)"
  $PY -c "import torchvision; print('torchvision', torchvision.__version__)"
  $PY -c "import cupy; print('cupy', cupy.__version__)"
  nproc
} > "$RAW/info.txt" 2>&1
cat "$RAW/info.txt"
if [ "$DRY" != --dry ]; then
  "$GB" >/dev/null 2>&1; [ $? -ne 1 ] && { mkdir -p "$HERE/bin"; nvcc -O3 -arch=sm_90 -o "$GB" "$HERE/graphbench.cu"; }
fi
if [ $PART = followup ]; then
  # the daemon stays up; a process outside MPS points its pipe elsewhere
  mps_start; echo "mps start rc=$?"
  for r in 1 2 3; do
    for m in nomps mps; do
      if [ $m = mps ]; then P=$MPSDIR/pipe; else P=/tmp/gb_no_mps_here; fi
      for cfg in "decoder eager 300" "decoder graph 300" "cnn eager 100"; do
        set -- $cfg
        CUDA_MPS_PIPE_DIRECTORY=$P CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log timeout 60 \
          $PY "$HERE/torch_graphs.py" --serve --model $1 --batch 1 --mode $2 --nreq $3 \
          --out "$RAW/fu_${1}_${2}_${m}_r$r" > "$RAW/fu_${1}_${2}_${m}_r$r.log" 2>&1
        echo "r$r $m $cfg rc=$?"
      done
      CUDA_MPS_PIPE_DIRECTORY=$P CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log timeout 60 \
        $GB micro --out "$RAW/fu_micro_${m}_r$r.json" 2> "$RAW/fu_micro_${m}_r$r.log"
    done
  done
  exit 0
fi
# 1. single-process micro-benchmarks, no MPS
timeout 60 $GB micro --out "$RAW/micro_nomps.json" 2> "$RAW/micro_nomps.log"; echo "micro nomps rc=$?"
# 2. graph / eager loops in N processes, no MPS (32 kernel nodes of 5 us)
for n in 1 2 4; do
  for m in graph eager; do
    E=""; [ $m = eager ] && E=--eager
    group gb_${m}_nomps_n$n $n $GB loop --nodes 32 --work 5000 --iters 400 $E
  done
done
# 3. torch: Kineto traces of every model x batch x mode (no MPS)
timeout 200 $PY "$HERE/torch_graphs.py" --profile-all "$RAW/kineto" 2>&1 | tail -20
# 4. torch serving, no MPS: decoder step batch 1 (graph, eager), N=1,2,4
for n in 1 2 4; do
  for m in graph eager; do
    [ $m = eager ] && [ $n != 1 ] && continue
    group tg_dec_${m}_nomps_n$n $n $PY "$HERE/torch_graphs.py" --serve --model decoder --batch 1 --mode $m --nreq 300
  done
done
# 5. MPS
mps_start; echo "mps start rc=$?"
export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
timeout 60 $GB micro --out "$RAW/micro_mps.json" 2> "$RAW/micro_mps.log"; echo "micro mps rc=$?"
for n in 1 2 4; do
  for m in graph eager; do
    E=""; [ $m = eager ] && E=--eager
    group gb_${m}_mps_n$n $n $GB loop --nodes 32 --work 5000 --iters 400 $E
  done
done
for n in 1 2 4; do
  for m in graph eager; do
    [ $m = eager ] && [ $n != 1 ] && continue
    group tg_dec_${m}_mps_n$n $n $PY "$HERE/torch_graphs.py" --serve --model decoder --batch 1 --mode $m --nreq 300
  done
done
timeout 90 $PY "$HERE/torch_graphs.py" --profile-all "$RAW/kineto_mps" --only decoder 2>&1 | tail -6
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
mps_stop
# 6. repeat the no-MPS micro (drift check)
timeout 60 $GB micro --out "$RAW/micro_nomps2.json" 2> "$RAW/micro_nomps2.log"; echo "micro nomps2 rc=$?"
date -u
