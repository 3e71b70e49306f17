#!/bin/bash
# Do MPS clients under a thread percentage get disjoint SM sets, and do the decoder's kernels
# still slow down beside other clients when they do? (hqsim issue 10, FINDINGS disj10). One
# device call; no card setting is changed; the MPS daemon (pipe/log under /tmp) is started and
# quit here.   harness/mps_disj_campaign.sh OUTDIR [HQPROBE]
# Part 1 (hqprobe): N clients at P% threads start together (barrier dir, go file) and run, 5
#   times, a %globaltimer spin of 2 ms on G blocks of 128 threads each holding 120 KiB of shared
#   memory (one block per SM), then an FMA kernel of G blocks of 1024 threads; G = the SM count
#   of a P% client (§46: 66 at 50%, 32 at 25%; 79 at 60%, 132 at 100%). Per block %smid and
#   %globaltimer (one clock for all clients) at start and end -> OUTDIR/p<P>_n<N>_c<i>_blocks.csv.
#   Disjoint sets: every client's blocks start together; shared SMs: some wait for others' ends.
# Part 2 (torch): harness/mps_graph_probe.py (decoder b1 and b16 graphs, closed loop, Kineto of
#   rank 0) in N = 1, 2 clients at 50% and N = 1, 4 at 25% -> OUTDIR/graph/ (tarball).
# Env (disj10b): DISJ_PART1=0 skips part 1; DISJ_GRAPH="P N;P N;..." the graph groups (default
#   "50 1;50 2;25 1;25 4"); DISJ_CONFIGS the configurations (decoder:1,decoder:16);
#   DISJ_PROBE_ARGS more mps_graph_probe.py arguments (e.g. --kineto-warm).
set -u
out=$1; probe=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/mps_lib.sh"
mkdir -p "$out"
if [ "${DISJ_PART1:-1}" != 0 ] && [ -z "$probe" ]; then make -C "$HERE" bin/hqprobe >/dev/null || exit 1; probe=$HERE/bin/hqprobe; fi
MPSDIR=/tmp/disj_mps.$$; MPSON=0; PIDS=()
export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
RAW=/tmp/disjraw.$$; mkdir -p "$RAW/kineto"
finish() { mps_lib_stop; date -u >> "$out/info.txt"; tar czf "$out/graph.tar.gz" -C "$RAW" .; }
trap finish EXIT
trap 'exit 143' TERM INT
mps_lib_info 1 torch > "$out/info.txt" 2>&1
spec() { # GRID -> spec file
  local f=/tmp/disj_g$1.spec
  printf 'streams 1\nkernel 0 gt_%s gt %s 128 122880 2000000 1\nkernel 0 fma_%s fma %s 1024 0 100000 1\n' \
    "$1" "$1" "$1" "$1" > "$f"; echo "$f"
}
probe_group() { # PCT N GRID
  local p=$1 n=$2 g=$3 tag=p$1_n$2 B=/tmp/disjbar_p$1_n$2 i k sp
  sp=$(spec "$g"); rm -rf "$B"; mkdir -p "$B"; PIDS=()
  for i in $(seq 1 "$n"); do
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$p timeout 60 "$probe" run --spec "$sp" --out "$out/${tag}_c$i" \
      --reps 5 --nosolo --barrier "$B" --tag "${tag}_c$i" > "$out/${tag}_c$i.log" 2>&1 & PIDS+=($!)
  done
  for k in $(seq 3000); do [ "$(ls "$B" | grep -c ready)" -ge "$n" ] && break; sleep 0.01; done
  touch "$B/go"
  for i in "${PIDS[@]}"; do wait "$i"; echo "$tag rc $?" >> "$out/info.txt"; done; PIDS=()
}
graph_group() { # PCT N
  local p=$1 n=$2 tag=p$1_n$2 B=$RAW/bar_p$1_n$2 i t0=$SECONDS
  mkdir -p "$B" "$RAW/kineto/$tag"; PIDS=()
  for i in $(seq 0 $((n - 1))); do
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$p timeout 90 python3 "$HERE/mps_graph_probe.py" --rank $i --n $n \
      --barrier "$B" --configs "${DISJ_CONFIGS:-decoder:1,decoder:16}" ${DISJ_PROBE_ARGS:-} --out "$RAW/${tag}_p$i" --kineto "$RAW/kineto/$tag" \
      > "$RAW/${tag}_p$i.log" 2>&1 & PIDS+=($!)
  done
  for i in "${PIDS[@]}"; do wait "$i"; echo "graph $tag rc $?" >> "$out/info.txt"; done; PIDS=(); rm -rf "$B"
  echo "graph $tag $((SECONDS - t0)) s" >> "$out/info.txt"
}
mps_lib_start
if [ "${DISJ_PART1:-1}" != 0 ]; then
  for pn in "50 1 66" "25 1 32" "60 1 79" "100 1 132" "50 2 66" "25 4 32" "60 2 79" "100 2 66"; do
    probe_group $pn
  done
  echo "part 1 done $SECONDS s" >> "$out/info.txt"
fi
IFS=';' read -ra GG <<< "${DISJ_GRAPH:-50 1;50 2;25 1;25 4}"
for pn in "${GG[@]}"; do graph_group $pn; done
