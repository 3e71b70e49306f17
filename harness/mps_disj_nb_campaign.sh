#!/bin/bash
# Is the decoder b1's kernel growth beside MPS neighbours at 50% / 25% threads on the few SMs
# the clients share, or off the SMs (DRAM / L2)? (hqsim issue 10, FINDINGS §53, disj10c.) MPS
# static SM partitions (`nvidia-cuda-mps-control -S`) are not in driver 580's MPS (check.txt), so
# the neighbours are hqprobe clients that hold one 1024-thread, 120 KiB-shared-memory block on
# each SM of their own set (G = 66 at 50%, 32 at 25%, FINDINGS §46 / §50), 200 kernels a rep,
# back to back, doing either
#   fma    dependent FMA chains (4 per thread), no memory traffic, or
#   triad  a = b + s*c streaming over 3 x 512 MiB (DRAM),
# same grid, block and shared memory, so they hold the same SMs the same way and differ only in
# memory traffic. Per group: the neighbours start, then harness/mps_graph_probe.py (decoder b1
# graph, closed loop, rank 0 alone in its barrier: plain phase + 16 Kineto requests) runs beside
# them (80 reps of fma, 400 of triad: they outlast it); the neighbours must still be running when it ends ("alive" lines in info.txt), then they
# are killed. Before that each neighbour kind runs 5 reps of 10 kernels alone with block records (%smid: its
# SM set; kernel time; triad's GB/s). The card is not touched; the MPS daemon (pipe/log under
# /tmp) is started and quit here.      harness/mps_disj_nb_campaign.sh OUTDIR
# Env: DISJNB_GROUPS="PCT KIND NNB GRID [SUFFIX [VICTIM]];..." the groups; DISJNB_ALONE=0 skips the alone runs.
# VICTIM (val10, FINDINGS §64): the probe's graph configuration, MODEL:BATCH as its --configs takes it
# (encoder:1, cnn:1; default DISJNB_VICTIM, itself default decoder:1: old commands run as before);
# its Kineto trace is RAW/kineto/<tag>/<model>_b<batch>_n1.json.gz. Give each victim its own SUFFIX.
# Launch front end vs memory path (FINDINGS §54, fend10/fend10b): KIND gfast / gslow / gl2 / gdram
# is a graphbench loop client instead (harness/graphbench.cu): gfast a graph of 150 chained spin
# nodes (1-block and 64-block alternating, DISJNB_GWORK ns each, 3000; no memory traffic but one
# 16 B record per node in device memory) replayed back to back like the decoder; gslow the same
# two kernels as a 2-node graph followed by a 3.6 ms host sleep (one kernel per ~1.8 ms); gl2 /
# gdram gfast's graph with nodes that read for their time (128 threads a block) from an 8 MiB
# buffer (L2) / a 2 GiB one (DRAM); gdramt32 / gdramt512 gdram with 32 / 512 threads a block
# (less / more DRAM traffic at the same launch rate); gdramw gdram with 10x longer nodes and 2 MiB
# block regions (about gdram's traffic at a tenth of its launch rate). The neighbour is ended by SIGTERM after the
# decoder and then writes nb_<tag>_1.json (per request: start, latency; nodes/s, bytes read).
# DISJNB_GALONE=1 runs each of DISJNB_GKINDS (gfast gslow gl2 gdram) alone at 50% first (~1 s each).
set -u
out=$1
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/mps_lib.sh"
mkdir -p "$out"
case "${DISJNB_GROUPS:-fma}${DISJNB_ALONE:-1}" in
  *fma* | *triad* | *1) make -C "$HERE" bin/hqprobe >/dev/null || exit 1;;
esac
probe=$HERE/bin/hqprobe
GB=$HERE/bin/graphbench
case "${DISJNB_GROUPS:-}${DISJNB_GALONE:-0}" in *" g"* | *1)
  mkdir -p "$HERE/bin"; nvcc -O3 -arch=sm_90 -o "$GB" "$HERE/graphbench.cu" || exit 1;; # always: a binary left by an older tree
esac
GW=${DISJNB_GWORK:-3000}
gargs() { mps_lib_gargs "$@"; } # the neighbour kinds' graphbench arguments (mps_lib.sh)
MPSDIR=/tmp/disjnb_mps.$$; MPSON=0; PIDS=()
export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
RAW=/tmp/disjnbraw.$$; mkdir -p "$RAW/kineto"
finish() { mps_lib_stop; date -u >> "$out/info.txt"; tar czf "$out/graph.tar.gz" -C "$RAW" .; }
trap finish EXIT
trap 'exit 143' TERM INT
mps_lib_info 1 torch > "$out/info.txt" 2>&1
spec() { # KIND GRID [K] -> spec file: K (200) kernels of one block per SM (hqprobe sleeps
  # 20 ms between reps: 200 kernels of ~1-2 ms keep the SMs busy > 90% of the time)
  local f=/tmp/disjnb_$1_$2_${3:-200}.spec i
  echo "streams 1" > "$f"
  for i in $(seq "${3:-200}"); do
    case $1 in
      fma) echo "kernel 0 nb_fma fma $2 1024 122880 100000 4" >> "$f";;
      triad) echo "kernel 0 nb_triad triad $2 1024 122880 500 1" >> "$f";;
    esac
  done
  echo "$f"
}
nb_alone() { # PCT KIND GRID: 5 reps alone, block records kept
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$1 timeout 60 "$probe" run --spec "$(spec "$2" "$3" 10)" \
    --out "$out/alone_p$1_$2" --reps 5 --nosolo --tag "alone_p$1_$2" > "$out/alone_p$1_$2.log" 2>&1
  echo "alone p$1 $2 rc $?" >> "$out/info.txt"
}
group() { # PCT KIND NNB GRID [SUFFIX [VICTIM]]: NNB neighbours of KIND (none: no neighbour) + the victim
  local p=$1 k=$2 nn=$3 g=$4 tag=p$1$2${5:-}_n1 B=$RAW/bar_p$1$2 i t0=$SECONDS dec alive=0
  local victim=${6:-${DISJNB_VICTIM:-decoder:1}}
  mkdir -p "$B" "$RAW/kineto/$tag"; PIDS=()
  if [ -n "$(gargs "$k" 1)" ]; then
    for i in $(seq 1 "$nn"); do
      # shellcheck disable=SC2046
      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$p timeout 120 "$GB" loop $(gargs "$k" "$([ "$k" = gslow ] && echo 20000 || echo 100000)") \
        --out "$out/nb_${tag}_$i.json" > "$out/nb_${tag}_$i.log" 2>&1 &
      PIDS+=($!)
    done
    sleep 3
  elif [ "$k" != none ]; then
    for i in $(seq 1 "$nn"); do
      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$p timeout 120 "$probe" run --spec "$(spec "$k" "$g")" \
        --out "/tmp/disjnb_out_${tag}_$i" --reps "$([ "$k" = triad ] && echo 400 || echo 80)" --nosolo --tag "nb_${tag}_$i" > "$out/nb_${tag}_$i.log" 2>&1 &
      PIDS+=($!)
    done
    sleep 3
  fi
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$p timeout 90 python3 "$HERE/mps_graph_probe.py" --rank 0 --n 1 \
    --barrier "$B" --configs "$victim" --kineto-warm --out "$RAW/${tag}_p0" --kineto "$RAW/kineto/$tag" \
    > "$RAW/${tag}_p0.log" 2>&1 &
  dec=$!; echo "graph $tag ${victim%:1} started at epoch $(date +%s.%N)" >> "$out/info.txt"
  wait "$dec"; echo "graph $tag rc $? (ended at epoch $(date +%s.%N))" >> "$out/info.txt"
  for i in "${PIDS[@]}"; do kill -0 "$i" 2>/dev/null && alive=$((alive + 1)); done
  echo "graph $tag neighbours ${#PIDS[@]} ($k) alive at its end: $alive" >> "$out/info.txt"
  for i in "${PIDS[@]}"; do kill "$i" 2>/dev/null; wait "$i" 2>/dev/null; done; PIDS=(); rm -rf "$B"
  sleep "${DISJNB_SETTLE:-2}"  # a killed client's server-side teardown (a client right after got "device busy")
  echo "graph $tag $((SECONDS - t0)) s" >> "$out/info.txt"
}
mps_lib_start
if [ "${DISJNB_ALONE:-1}" != 0 ]; then
  nb_alone 50 fma 66; nb_alone 50 triad 66; nb_alone 25 fma 32; nb_alone 25 triad 32
fi
if [ "${DISJNB_GALONE:-0}" = 1 ]; then
  for k in ${DISJNB_GKINDS:-gfast gslow gl2 gdram}; do # PCT 50, about 1 s each
    # shellcheck disable=SC2046
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 timeout 30 "$GB" loop $(gargs "$k" "$(case $k in gslow | gdramw) echo 250;; *) echo 1500;; esac)") \
      --out "$out/galone_p50_$k.json" > "$out/galone_p50_$k.log" 2>&1
    echo "galone p50 $k rc $?" >> "$out/info.txt"
  done
fi
IFS=';' read -ra GG <<< "${DISJNB_GROUPS:-50 none 0 66;50 fma 1 66;50 triad 1 66;25 none 0 32;25 fma 3 32;25 triad 3 32;50 fma 1 66 b;50 none 0 66 b}"
for gg in "${GG[@]}"; do group $gg; done
